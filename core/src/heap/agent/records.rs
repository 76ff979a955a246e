//! The records the loop writes (SPEC section 4): each payload is made by its type's
//! encode in [`crate::vocabulary`], where the member names are spelled.

use alloc::string::String;

use super::budget::Outcome;
use crate::jcs::{write_value, EncodeError};
use crate::json::{Value, MAX_DEPTH};
#[cfg(test)]
use crate::model::ProviderReport;
use crate::model::ToolCall;
use crate::sink::CountingSink;
use crate::tools::Manifest;
use crate::vocabulary::{
    Budgets, RecordKind, ResumePayload, StopPayload, StopReason, TaskPayload, ToolPayload,
};

/// A record the loop produced, to be appended to a chain at `seq`.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The `seq` it must have in the transcript (call ids are derived from it).
    pub seq: u64,
    /// Its kind.
    pub kind: RecordKind,
    /// Its payload; always has a canonical encoding. The line of every record the loop
    /// makes but the `task` (whose text is the host's) keeps to the verifier's line
    /// limit ([`crate::verify::MAX_LINE_BYTES`]).
    pub payload: Value,
}

#[cfg(feature = "serde")]
impl Record {
    /// The payload read as a `T` (feature `serde`; see [`crate::json::from_value`]):
    /// a `#[derive(Deserialize)]` struct of the members the caller needs.
    ///
    /// ```
    /// use agentloop_core::agent::{Agent, Budgets};
    /// use agentloop_core::tools::Manifest;
    /// #[derive(serde::Deserialize)]
    /// struct Task { task: String }
    ///
    /// let mut agent = Agent::new("add 2 and 40", Budgets::default(), Manifest::new()).unwrap();
    /// let task: Task = agent.take_records()[0].payload_as().unwrap();
    /// assert_eq!(task.task, "add 2 and 40");
    /// ```
    pub fn payload_as<'a, T: serde::Deserialize<'a>>(
        &'a self,
    ) -> Result<T, crate::json::DeserializeError> {
        crate::json::from_value(&self.payload)
    }
}

/// The `task` payload: the task, the budgets that are set, the tools' call limits.
pub(crate) fn task(text: &str, budgets: &Budgets, manifest: &Manifest) -> Value {
    TaskPayload {
        task: String::from(text),
        budgets: budgets.clone(),
        tool_limits: manifest
            .limits()
            .map(|(name, limit)| (String::from(name), limit))
            .collect(),
        setup: None,
    }
    .encode()
}

/// The `assistant` payload of a turn (the loop makes it from the reply it owns,
/// `steps.rs`; this borrowing form pins its shape in the tests).
#[cfg(test)]
pub(crate) fn assistant(
    text: &str,
    calls: &[ToolCall],
    tokens: u64,
    provider: &ProviderReport,
) -> Value {
    crate::vocabulary::AssistantPayload {
        text: String::from(text),
        tool_calls: calls.to_vec(),
        tokens,
        provider: provider.clone(),
    }
    .encode()
}

/// The `tool` payload of `call`'s result.
pub(crate) fn tool(call: &ToolCall, result: &Result<Value, String>) -> Value {
    ToolPayload {
        id: call.id.clone(),
        name: call.name.clone(),
        result: result.clone(),
    }
    .encode()
}

/// The `stop` payload of `outcome` (all but its tool-call count).
pub(crate) fn stop(outcome: &Outcome) -> Value {
    StopPayload {
        reason: outcome.reason,
        steps: outcome.steps,
        tokens: outcome.tokens,
        unrun_calls: outcome.unrun_calls,
        error: outcome.error.clone(),
    }
    .encode()
}

/// The `resume` payload: the run goes on after the `stop` that gave `reason`.
pub(crate) fn resume(reason: StopReason) -> Value {
    ResumePayload { after: reason }.encode()
}

/// Levels a value may have inside the `tool_calls` of an `assistant` payload (payload,
/// array, call object).
pub(crate) const MAX_ARGUMENTS_DEPTH: usize = MAX_DEPTH - 3;

/// Levels a tool's value may have inside a `tool` payload.
pub(crate) const MAX_VALUE_DEPTH: usize = MAX_DEPTH - 1;

/// Why a value cannot go into a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unrecordable {
    /// Nested deeper than the limit (the limit is given): a verifier would refuse it.
    TooDeep(usize),
    /// Holds a NaN or an infinity.
    NoCanonicalEncoding,
}

/// Checks that `value` nested at most `max_depth` levels deep can be encoded.
pub(crate) fn recordable(value: &Value, max_depth: usize) -> Result<(), Unrecordable> {
    if value.deeper_than(max_depth) {
        return Err(Unrecordable::TooDeep(max_depth));
    }
    match write_value(value, &mut CountingSink::default()) {
        Err(EncodeError::NonFiniteNumber) => Err(Unrecordable::NoCanonicalEncoding),
        Err(EncodeError::BufferFull) | Ok(()) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jcs::to_vec;
    use crate::json::parse;
    use crate::vocabulary::call_id;

    fn nested(levels: usize) -> Value {
        let mut v = Value::Null;
        for _ in 0..levels {
            v = Value::Array(alloc::vec![v]);
        }
        v
    }

    #[test]
    fn depth_limit_is_exact() {
        assert!(!Value::deeper_than(&Value::Null, 0));
        assert!(Value::deeper_than(&nested(1), 0));
        assert!(!Value::deeper_than(&nested(5), 5));
        assert!(Value::deeper_than(&nested(6), 5));
        let obj = parse(br#"{"a":{"b":[1]}}"#).unwrap();
        assert!(!Value::deeper_than(&obj, 3));
        assert!(Value::deeper_than(&obj, 2));
        assert_eq!(recordable(&nested(6), 5), Err(Unrecordable::TooDeep(5)));
        assert_eq!(
            recordable(&Value::Array(alloc::vec![Value::Number(f64::NAN)]), 5),
            Err(Unrecordable::NoCanonicalEncoding)
        );
    }

    #[test]
    fn payload_shapes() {
        let call = ToolCall {
            id: call_id(1, 0),
            name: "add".into(),
            arguments: parse(br#"{"a":2,"b":40}"#).unwrap(),
        };
        let text = |v: &Value| String::from_utf8(to_vec(v).unwrap()).unwrap();
        assert_eq!(
            text(&assistant(
                "",
                core::slice::from_ref(&call),
                1,
                &ProviderReport::default()
            )),
            r#"{"text":"","tokens":1,"tool_calls":[{"arguments":{"a":2,"b":40},"id":"call_1_0","name":"add"}]}"#
        );
        assert_eq!(
            text(&tool(&call, &Ok(parse(br#"{"sum":42}"#).unwrap()))),
            r#"{"id":"call_1_0","name":"add","ok":true,"value":{"sum":42}}"#
        );
        assert_eq!(
            text(&tool(&call, &Err("no".into()))),
            r#"{"error":"no","id":"call_1_0","name":"add","ok":false}"#
        );
        let budgets = Budgets {
            max_steps: Some(3),
            stop_sentinel: Some("DONE".into()),
            ..Budgets::default()
        };
        assert_eq!(
            text(&task("t", &budgets, &Manifest::new())),
            r#"{"budgets":{"max_steps":3,"stop_sentinel":"DONE"},"task":"t"}"#
        );
        assert_eq!(
            text(&task("t", &Budgets::default(), &Manifest::new())),
            r#"{"budgets":{},"task":"t"}"#
        );
    }
}
