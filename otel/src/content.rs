//! The opt-in content (the conventions' `gen_ai.input.messages`,
//! `gen_ai.output.messages`, `gen_ai.system_instructions`): messages in the shapes of
//! the conventions' message JSON schemas (`role` and `parts`: `text`, `tool_call`,
//! `tool_call_response`), written on spans as canonical JSON strings.

use agentloop_core::jcs;
use agentloop_core::json::Value;
use agentloop_core::model::ToolCall;

use crate::otlp::{object, text};

/// A value as the canonical JSON text an attribute carries. Every value here came out
/// of a record, so it has a canonical encoding; should one not, the text says so
/// rather than failing the export.
pub(crate) fn json_text(value: &Value) -> String {
    match jcs::to_vec(value) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) => format!("(no canonical encoding: {error})"),
    }
}

fn part_text(content: &str) -> Value {
    object([("type", text("text")), ("content", text(content))])
}

/// `{"role":"user","parts":[{"type":"text","content":task}]}`.
pub(crate) fn user(task: &str) -> Value {
    object([
        ("role", text("user")),
        ("parts", Value::Array(vec![part_text(task)])),
    ])
}

/// The parts of an assistant turn: its text (when not empty), then its calls.
fn assistant_parts(said: &str, calls: &[ToolCall]) -> Value {
    let mut parts = Vec::new();
    if !said.is_empty() {
        parts.push(part_text(said));
    }
    parts.extend(calls.iter().map(|call| {
        object([
            ("type", text("tool_call")),
            ("id", text(call.id.as_str())),
            ("name", text(call.name.as_str())),
            ("arguments", call.arguments.clone()),
        ])
    }));
    Value::Array(parts)
}

/// An assistant message, as the conversation goes on with it.
pub(crate) fn assistant(said: &str, calls: &[ToolCall]) -> Value {
    object([
        ("role", text("assistant")),
        ("parts", assistant_parts(said, calls)),
    ])
}

/// The same turn as an output message, which names why generation ended.
pub(crate) fn output(said: &str, calls: &[ToolCall], finish_reason: &str) -> Value {
    object([
        ("role", text("assistant")),
        ("parts", assistant_parts(said, calls)),
        ("finish_reason", text(finish_reason)),
    ])
}

/// A call's result as the model was given it: the value, or the error sentence.
pub(crate) fn result_value(result: &Result<Value, String>) -> Value {
    match result {
        Ok(value) => value.clone(),
        Err(sentence) => text(sentence.as_str()),
    }
}

/// `{"role":"tool","parts":[{"type":"tool_call_response","id","response"}]}`.
pub(crate) fn tool(id: &str, result: &Result<Value, String>) -> Value {
    let part = object([
        ("type", text("tool_call_response")),
        ("id", text(id)),
        ("response", result_value(result)),
    ]);
    object([("role", text("tool")), ("parts", Value::Array(vec![part]))])
}

/// `[{"type":"text","content":system}]`.
pub(crate) fn system_instructions(system: &str) -> Value {
    Value::Array(vec![part_text(system)])
}
