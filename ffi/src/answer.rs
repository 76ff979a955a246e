//! A model's answer from C: the one place where what a C host says — text, tool calls,
//! output tokens, the provider's report, a failure sentence — becomes the core's
//! `Result<Reply, ModelError>`, for the callback driver's `agentloop_reply_*` and the
//! agent's `agentloop_agent_feed_reply` / `_feed_model_error`.

use agentloop_core::json::{self, Value};
use agentloop_core::model::{ModelError, ProviderReport, Reply};
use agentloop_core::vocabulary::member::{
    CACHED_INPUT_TOKENS, FINISH_REASON, INPUT_TOKENS, MODEL, RESPONSE_ID,
};

use crate::bytes::text;
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// A model's answer as it is built: the reply so far, or a failure, or nothing yet.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    reply: Reply,
    error: Option<ModelError>,
    /// Whether anything but the provider's report was set.
    set: bool,
}

impl Answer {
    /// Sets the text, replacing any text set before.
    pub(crate) fn set_text(&mut self, text: &str) {
        self.set = true;
        self.reply.text = String::from(text);
    }

    /// Adds a tool call after the calls added before.
    pub(crate) fn add_call(&mut self, name: String, arguments: Value) {
        self.set = true;
        self.reply.tool_calls.push((name, arguments));
    }

    /// How many tool calls were added.
    pub(crate) fn call_count(&self) -> usize {
        self.reply.tool_calls.len()
    }

    /// Sets the turn's real output tokens.
    pub(crate) fn set_output_tokens(&mut self, tokens: u64) {
        self.set = true;
        self.reply.output_tokens = Some(tokens);
    }

    /// Sets what the provider reported besides; not an answer by itself.
    pub(crate) fn set_provider(&mut self, report: ProviderReport) {
        self.reply.provider = report;
    }

    /// Says the model failed, whatever else was set.
    pub(crate) fn set_error(&mut self, error: ModelError) {
        self.set = true;
        self.error = Some(error);
    }

    /// Replaces everything with a parsed answer (a provider codec's).
    pub(crate) fn set_parsed(&mut self, parsed: Result<Reply, ModelError>) {
        *self = match parsed {
            Ok(reply) => Answer {
                reply,
                error: None,
                set: true,
            },
            Err(error) => Answer {
                reply: Reply::default(),
                error: Some(error),
                set: true,
            },
        };
    }

    /// Whether anything was set (the provider's report alone is not an answer).
    pub(crate) fn is_set(&self) -> bool {
        self.set
    }

    /// The model's answer: the failure if one was set, else the reply; an answer with
    /// nothing set is the failure "the model callback set no reply".
    pub(crate) fn finish(self) -> Result<Reply, ModelError> {
        match (self.error, self.set) {
            (Some(error), _) => Err(error),
            (None, false) => Err(ModelError::new("the model callback set no reply")),
            (None, true) => Ok(self.reply),
        }
    }
}

/// Reads the model's failure sentence `(ptr, len)` (UTF-8; `INVALID_UTF8` otherwise;
/// empty becomes "the model failed without saying why").
///
/// # Safety
/// `ptr` must point to `len` readable bytes.
pub(crate) unsafe fn read_model_error(ptr: *const u8, len: usize) -> Outcome<ModelError> {
    // SAFETY: the caller's contract for the byte input.
    unsafe { text(ptr, len) }.map(ModelError::new)
}

/// Parses `calls_json`: a JSON array of `{"name": string, "arguments": any}`.
pub(crate) fn parse_calls(bytes: &[u8]) -> Outcome<Vec<(String, Value)>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let Value::Array(items) = json::parse(bytes).map_err(parse_error)? else {
        return Err(agentloop_result::InvalidArgument);
    };
    let mut calls = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(members) = item else {
            return Err(agentloop_result::InvalidArgument);
        };
        let name = members.get("name").and_then(Value::as_str);
        let arguments = members.get("arguments");
        match (name, arguments) {
            (Some(name), Some(arguments)) if members.len() == 2 => {
                calls.push((String::from(name), arguments.clone()));
            }
            _ => return Err(agentloop_result::InvalidArgument),
        }
    }
    Ok(calls)
}

/// The largest count a report may hold, 2^53 − 1.
const MAX_COUNT: f64 = agentloop_core::anchor::MAX_SEQ as f64;

/// Parses a provider report: a JSON object (see `agentloop_reply_set_provider_json`)
/// with the members of an `assistant` record's `provider`.
pub(crate) fn provider_report(bytes: &[u8]) -> Outcome<ProviderReport> {
    let value = json::parse(bytes).map_err(parse_error)?;
    let members = value.as_object().ok_or(agentloop_result::InvalidArgument)?;
    let mut report = ProviderReport::default();
    for (key, member) in members.iter() {
        let string = || {
            member
                .as_str()
                .map(String::from)
                .ok_or(agentloop_result::InvalidArgument)
        };
        let count = || match member.as_f64() {
            Some(n) if (0.0..=MAX_COUNT).contains(&n) && n.fract() == 0.0 => Ok(n as u64),
            _ => Err(agentloop_result::InvalidArgument),
        };
        match key {
            MODEL => report.model = Some(string()?),
            RESPONSE_ID => report.response_id = Some(string()?),
            FINISH_REASON => report.finish_reason = Some(string()?),
            INPUT_TOKENS => report.input_tokens = Some(count()?),
            CACHED_INPUT_TOKENS => report.cached_input_tokens = Some(count()?),
            _ => return Err(agentloop_result::InvalidArgument),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_its_failure_else_its_reply_and_a_report_alone_is_none() {
        let mut answer = Answer::default();
        answer.set_provider(ProviderReport::default());
        assert!(!answer.is_set());
        assert_eq!(
            answer.finish().unwrap_err().message(),
            "the model callback set no reply"
        );

        let mut answer = Answer::default();
        answer.set_text("hi");
        answer.add_call(String::from("add"), Value::Null);
        answer.set_output_tokens(3);
        assert_eq!(answer.call_count(), 1);
        let expected = Reply::new("hi")
            .with_call("add", Value::Null)
            .with_output_tokens(3);
        assert_eq!(answer.finish(), Ok(expected.clone()));

        let mut answer = Answer::default();
        answer.set_text("hi");
        answer.set_error(ModelError::new("down"));
        assert_eq!(answer.finish(), Err(ModelError::new("down")));

        let mut answer = Answer::default();
        answer.set_error(ModelError::new("down"));
        answer.set_parsed(Ok(expected.clone()));
        assert_eq!(answer.finish(), Ok(expected));
    }
}
