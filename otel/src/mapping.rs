//! The one mapping from records to spans ([`Mapping`]), fed one record at a time with
//! the time it was written: the file export gives placed times, the live export the
//! clock's.

use agentloop_core::json::Value;
use agentloop_core::model::ToolCall;
use agentloop_core::vocabulary::{
    AssistantPayload, CallFailure, RecordKind, ResumePayload, Setup, SetupPayload, StopPayload,
    StopReason, TaskPayload, ToolPayload,
};
use agentloop_core::Hash;

use crate::content;
use crate::error::MapError;
use crate::names::*;
use crate::otlp::{Attributes, Kind, Span};

/// One record, as the mapping reads it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// Its `seq`.
    pub seq: u64,
    /// Its `hash`.
    pub hash: Hash,
    /// Its `kind`.
    pub kind: &'a str,
    /// Its `payload`.
    pub payload: &'a Value,
}

/// Whether spans carry the conversation's content (the conventions' opt-in
/// attributes: messages, system instructions, tool arguments and results, error
/// sentences).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Content {
    /// No content: names, ids, counts and classes only (the default).
    #[default]
    Omitted,
    /// The content too.
    Recorded,
}

/// The run a `task` or `resume` record opened: its span is written when its `stop`
/// comes.
#[derive(Debug)]
struct Run {
    seq: u64,
    hash: Hash,
    start: u64,
}

/// Records to OTLP spans: one `invoke_agent` span per run (a `task` or `resume` record
/// to its `stop`), one `chat` span per `assistant` record, one `execute_tool` span per
/// `tool` record. A span covers the time from the record before to its record
/// (a run's, from its opening record to its `stop`).
#[derive(Debug, Default)]
pub struct Mapping {
    content: Content,
    first: Option<Hash>,
    run: Option<Run>,
    setup: Option<Setup>,
    /// When the last record was written (unix nanoseconds).
    last: u64,
    /// The calls of the last `assistant` record.
    calls: Vec<ToolCall>,
    /// The conversation so far (kept only when content is recorded).
    messages: Vec<Value>,
}

impl Mapping {
    /// A mapping that records `content` or not.
    pub fn new(content: Content) -> Mapping {
        Mapping {
            content,
            ..Mapping::default()
        }
    }

    /// The hash of the first record pushed: the trace id is its first 16 bytes.
    pub fn first(&self) -> Option<Hash> {
        self.first
    }

    /// Maps the record `entry`, written at `at` (unix nanoseconds): the spans it ends,
    /// as OTLP/JSON `Span`s (none for a `task`, `resume` or `setup` record, whose run's span
    /// ends with its `stop`).
    pub fn push(&mut self, entry: &Entry<'_>, at: u64) -> Result<Vec<Value>, MapError> {
        self.first.get_or_insert(entry.hash);
        let seq = entry.seq;
        let payload_error = |error| MapError::Payload { seq, error };
        let mut spans = Vec::new();
        match RecordKind::from_name(entry.kind) {
            None => {
                return Err(MapError::UnknownKind {
                    seq,
                    kind: entry.kind.to_owned(),
                })
            }
            Some(RecordKind::Task) => {
                let task = TaskPayload::decode(entry.payload).map_err(payload_error)?;
                self.setup = task.setup;
                if self.content == Content::Recorded {
                    self.messages = vec![content::user(&task.task)];
                }
                spans.extend(self.open(entry, at));
            }
            Some(RecordKind::Resume) => {
                let resume = ResumePayload::decode(entry.payload).map_err(payload_error)?;
                if resume.setup.is_some() {
                    self.setup = resume.setup;
                }
                spans.extend(self.open(entry, at));
            }
            // The tools changed between turns: later turns are described with them.
            Some(RecordKind::Setup) => {
                let changed = SetupPayload::decode(entry.payload).map_err(payload_error)?;
                self.setup = Some(changed.setup);
            }
            Some(RecordKind::Assistant) => {
                let turn = AssistantPayload::decode(entry.payload).map_err(payload_error)?;
                let parent = self.running(entry)?;
                spans.push(self.chat(entry, parent, at, turn));
            }
            Some(RecordKind::Tool) => {
                let result = ToolPayload::decode(entry.payload).map_err(payload_error)?;
                let parent = self.running(entry)?;
                spans.push(self.tool(entry, parent, at, result));
            }
            Some(RecordKind::Stop) => {
                let stop = StopPayload::decode(entry.payload).map_err(payload_error)?;
                self.running(entry)?;
                spans.extend(self.close(at, Some(&stop)));
            }
        }
        self.last = at;
        Ok(spans)
    }

    /// The span of a run that has no `stop` yet (a transcript cut short, a live run
    /// that failed), ending at the last record; none when no run is open.
    pub fn finish(&mut self) -> Vec<Value> {
        self.close(self.last, None).into_iter().collect()
    }

    /// Opens a run at `entry`; a run still open (which a well-formed transcript never
    /// has) is closed first.
    fn open(&mut self, entry: &Entry<'_>, at: u64) -> Option<Value> {
        let unfinished = self.close(self.last, None);
        self.run = Some(Run {
            seq: entry.seq,
            hash: entry.hash,
            start: at,
        });
        unfinished
    }

    /// The open run's span id, or the error of a record outside one.
    fn running(&self, entry: &Entry<'_>) -> Result<Hash, MapError> {
        self.run
            .as_ref()
            .map(|run| run.hash)
            .ok_or_else(|| MapError::OutsideARun {
                seq: entry.seq,
                kind: entry.kind.to_owned(),
            })
    }

    /// The trace id's hash.
    fn trace(&self) -> Hash {
        self.first.unwrap_or_default()
    }

    /// The attributes every span names its record with, and those of the model and
    /// endpoint the setup states.
    fn common(&self, attributes: &mut Attributes, operation: &str, seq: u64, hash: &Hash) {
        attributes.string(OPERATION_NAME, operation);
        if operation != EXECUTE_TOOL {
            let provider = self.setup.as_ref().and_then(|s| s.model.as_ref());
            attributes.string(
                PROVIDER_NAME,
                provider.map_or(UNKNOWN_PROVIDER, |m| m.provider.as_str()),
            );
            if let Some(model) = provider {
                attributes.string(REQUEST_MODEL, model.name.as_str());
            }
            let endpoint = self.setup.as_ref().and_then(|s| s.endpoint.as_deref());
            if let Some((host, port)) = endpoint.and_then(server) {
                attributes.string(SERVER_ADDRESS, host);
                attributes.int(SERVER_PORT, port);
            }
        }
        attributes.int(RECORD_SEQ, seq);
        attributes.string(RECORD_HASH, hash.to_string());
    }

    /// The system prompt as the conventions' system instructions, when content is
    /// recorded and the setup has one.
    fn system(&self, attributes: &mut Attributes) {
        let system = self.setup.as_ref().and_then(|s| s.system.as_deref());
        if let (Content::Recorded, Some(system)) = (self.content, system) {
            let value = content::system_instructions(system);
            attributes.string(SYSTEM_INSTRUCTIONS, content::json_text(&value));
        }
    }

    /// The model's name the setup states, for span names.
    fn model_name(&self) -> Option<&str> {
        let model = self.setup.as_ref().and_then(|s| s.model.as_ref());
        model.map(|m| m.name.as_str())
    }

    /// The `chat` span of an `assistant` record.
    fn chat(&mut self, entry: &Entry<'_>, parent: Hash, at: u64, turn: AssistantPayload) -> Value {
        let mut attributes = Attributes::default();
        self.common(&mut attributes, CHAT, entry.seq, &entry.hash);
        let report = &turn.provider;
        if let Some(model) = &report.model {
            attributes.string(RESPONSE_MODEL, model.as_str());
        }
        if let Some(id) = &report.response_id {
            attributes.string(RESPONSE_ID, id.as_str());
        }
        if let Some(reason) = &report.finish_reason {
            attributes.strings(FINISH_REASONS, &[reason.as_str()]);
        }
        if let Some(tokens) = report.input_tokens {
            attributes.int(INPUT_TOKENS, tokens);
        }
        if let Some(tokens) = report.cached_input_tokens {
            attributes.int(CACHE_READ_INPUT_TOKENS, tokens);
        }
        attributes.int(OUTPUT_TOKENS, turn.tokens);
        if self.content == Content::Recorded {
            let input = Value::Array(self.messages.clone());
            attributes.string(INPUT_MESSAGES, content::json_text(&input));
            let finish =
                report
                    .finish_reason
                    .as_deref()
                    .unwrap_or(match turn.tool_calls.is_empty() {
                        true => "stop",
                        false => "tool_call",
                    });
            let output = content::output(&turn.text, &turn.tool_calls, finish);
            attributes.string(
                OUTPUT_MESSAGES,
                content::json_text(&Value::Array(vec![output])),
            );
            self.system(&mut attributes);
            self.messages
                .push(content::assistant(&turn.text, &turn.tool_calls));
        }
        let name = match self.model_name() {
            Some(model) => format!("{CHAT} {model}"),
            None => String::from(CHAT),
        };
        self.calls = turn.tool_calls;
        Span {
            trace: self.trace(),
            id: entry.hash,
            parent: Some(parent),
            name,
            kind: Kind::Client,
            start: self.last,
            end: at,
            attributes,
            error: None,
        }
        .into_value()
    }

    /// The `execute_tool` span of a `tool` record.
    fn tool(&mut self, entry: &Entry<'_>, parent: Hash, at: u64, result: ToolPayload) -> Value {
        let mut attributes = Attributes::default();
        self.common(&mut attributes, EXECUTE_TOOL, entry.seq, &entry.hash);
        attributes.string(TOOL_NAME, result.name.as_str());
        attributes.string(TOOL_CALL_ID, result.id.as_str());
        attributes.string(TOOL_TYPE, "function");
        let offered = self.setup.as_ref().into_iter().flat_map(|s| s.tools.iter());
        if let Some(tool) = offered.clone().find(|t| t.name == result.name) {
            attributes.string(TOOL_DESCRIPTION, tool.description.as_str());
        }
        let recorded = self.content == Content::Recorded;
        if let Err(sentence) = &result.result {
            attributes.string(ERROR_TYPE, CallFailure::of(&result.name, sentence).name());
        }
        if recorded {
            if let Some(call) = self.calls.iter().find(|c| c.id == result.id) {
                attributes.string(TOOL_CALL_ARGUMENTS, content::json_text(&call.arguments));
            }
            let value = content::result_value(&result.result);
            attributes.string(TOOL_CALL_RESULT, content::json_text(&value));
            self.messages
                .push(content::tool(&result.id, &result.result));
        }
        let error = result
            .result
            .as_ref()
            .err()
            .map(|sentence| recorded.then(|| sentence.clone()));
        Span {
            trace: self.trace(),
            id: entry.hash,
            parent: Some(parent),
            name: format!("{EXECUTE_TOOL} {}", result.name),
            kind: Kind::Internal,
            start: self.last,
            end: at,
            attributes,
            error,
        }
        .into_value()
    }

    /// The `invoke_agent` span of the open run, ending at `at` with its `stop` (none
    /// for a run cut short); none when no run is open.
    fn close(&mut self, at: u64, stop: Option<&StopPayload>) -> Option<Value> {
        let run = self.run.take()?;
        let mut attributes = Attributes::default();
        self.common(&mut attributes, INVOKE_AGENT, run.seq, &run.hash);
        attributes.string(AGENT_NAME, AGENTLOOP);
        let mut error = None;
        if let Some(stop) = stop {
            attributes.string(STOP_REASON, stop.reason.as_str());
            attributes.int(STOP_STEPS, stop.steps);
            attributes.int(STOP_TOKENS, stop.tokens);
            attributes.int(STOP_UNRUN_CALLS, stop.unrun_calls);
            if stop.reason == StopReason::ModelError {
                attributes.string(ERROR_TYPE, stop.reason.as_str());
                let recorded = self.content == Content::Recorded;
                error = Some(stop.error.clone().filter(|_| recorded));
            }
        }
        self.system(&mut attributes);
        Some(
            Span {
                trace: self.trace(),
                id: run.hash,
                parent: None,
                name: format!("{INVOKE_AGENT} {AGENTLOOP}"),
                kind: Kind::Internal,
                start: run.start,
                end: at,
                attributes,
                error,
            }
            .into_value(),
        )
    }
}

/// The host and port of an endpoint URL (`scheme://host[:port]/…`, no userinfo: the
/// setup keeps none), the port by the scheme when not given.
fn server(endpoint: &str) -> Option<(&str, u64)> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let authority = rest.split('/').next()?;
    let default = match scheme {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    // An IPv6 literal is bracketed: its colons are not the port's.
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, port.parse().ok()?),
        _ => (authority, default),
    };
    (!host.is_empty()).then_some((host, port))
}

#[cfg(test)]
mod tests;
