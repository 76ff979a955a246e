//! The records the loop writes and their payloads (SPEC section 4). Member names are
//! part of the format.

use alloc::string::String;
use alloc::vec::Vec;

use super::budget::{Budgets, Outcome};
use crate::jcs::{write_value, EncodeError};
use crate::json::{Object, Value, MAX_DEPTH};
use crate::model::{ProviderReport, ToolCall};
use crate::sink::CountingSink;
use crate::tools::Manifest;
use crate::vocabulary::{RecordKind, StopReason};

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

/// A count as a JSON number (exact: counts and limits stay at or below 2^53 − 1).
fn count(n: u64) -> Value {
    Value::Number(n as f64)
}

fn object(members: Vec<(&str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// `{"task": text, "budgets": {...}}`: only the budgets that are set, plus
/// `tool_limits` (name → limit) when a tool has a limit.
pub(crate) fn task(text: &str, budgets: &Budgets, manifest: &Manifest) -> Value {
    let mut set = Object::new();
    for (name, limit) in budgets.limits() {
        set.insert(name, count(limit));
    }
    if let Some(sentinel) = &budgets.stop_sentinel {
        set.insert("stop_sentinel", Value::from(sentinel.as_str()));
    }
    let mut limits = Object::new();
    for (name, limit) in manifest.limits() {
        limits.insert(name, count(limit));
    }
    if !limits.is_empty() {
        set.insert("tool_limits", Value::Object(limits));
    }
    object(alloc::vec![
        ("task", Value::from(text)),
        ("budgets", Value::Object(set)),
    ])
}

/// `{"text", "tool_calls": [{"id", "name", "arguments"}], "tokens"}`, plus `"provider"`
/// with the members reported when the provider reported anything.
pub(crate) fn assistant(
    text: &str,
    calls: &[ToolCall],
    tokens: u64,
    provider: &ProviderReport,
) -> Value {
    let calls = calls
        .iter()
        .map(|c| {
            object(alloc::vec![
                ("id", Value::from(c.id.as_str())),
                ("name", Value::from(c.name.as_str())),
                ("arguments", c.arguments.clone()),
            ])
        })
        .collect();
    let mut members = alloc::vec![
        ("text", Value::from(text)),
        ("tool_calls", Value::Array(calls)),
        ("tokens", count(tokens)),
    ];
    if !provider.is_empty() {
        members.push(("provider", report(provider)));
    }
    object(members)
}

/// The `provider` member: only what was reported (`cached_input_tokens`,
/// `finish_reason`, `input_tokens`, `model`, `response_id`).
fn report(provider: &ProviderReport) -> Value {
    let strings = [
        ("finish_reason", &provider.finish_reason),
        ("model", &provider.model),
        ("response_id", &provider.response_id),
    ];
    let counts = [
        ("cached_input_tokens", provider.cached_input_tokens),
        ("input_tokens", provider.input_tokens),
    ];
    let mut object = Object::new();
    for (key, value) in strings {
        if let Some(value) = value {
            object.insert(key, Value::from(value.as_str()));
        }
    }
    for (key, value) in counts {
        if let Some(value) = value {
            object.insert(key, count(value));
        }
    }
    Value::Object(object)
}

/// `{"id", "name", "ok": true, "value"}` or `{"id", "name", "ok": false, "error"}`.
pub(crate) fn tool(call: &ToolCall, result: &Result<Value, String>) -> Value {
    let (ok, member, value) = match result {
        Ok(value) => (true, "value", value.clone()),
        Err(sentence) => (false, "error", Value::from(sentence.as_str())),
    };
    object(alloc::vec![
        ("id", Value::from(call.id.as_str())),
        ("name", Value::from(call.name.as_str())),
        ("ok", Value::Bool(ok)),
        (member, value),
    ])
}

/// `{"reason", "steps", "tokens", "unrun_calls"}` plus `"error"` for `model_error`.
pub(crate) fn stop(outcome: &Outcome) -> Value {
    let mut members = alloc::vec![
        ("reason", Value::from(outcome.reason.as_str())),
        ("steps", count(outcome.steps)),
        ("tokens", count(outcome.tokens)),
        ("unrun_calls", count(outcome.unrun_calls)),
    ];
    if let Some(error) = &outcome.error {
        members.push(("error", Value::from(error.as_str())));
    }
    object(members)
}

/// `{"after": reason}`: the run goes on after the `stop` that gave `reason`.
pub(crate) fn resume(reason: StopReason) -> Value {
    object(alloc::vec![("after", Value::from(reason.as_str()))])
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
