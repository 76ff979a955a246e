//! A transcript as an OpenAI Chat Completions or an Anthropic Messages history.
//!
//! Both follow the providers' pairing rules: every tool call gets exactly one result,
//! in call order, right after the assistant message that asked for it; a call the loop
//! left unrun gets the synthetic result [`not_run_sentence`]. A call name outside
//! `^[a-zA-Z0-9_-]{1,64}$` — one a model made up, which the loop answered `ok:false` —
//! is written as [`provider_safe_name`] maps it, since providers refuse a history that
//! holds it; every registered tool's name is written unchanged.

use alloc::string::String;
use alloc::vec::Vec;

pub use super::conversation::not_run_sentence;
use super::conversation::{read, Answer, Conversation, HistoryError};
use crate::jcs::to_vec;
use crate::json::{Object, Value};
use crate::tools::provider_safe_name;

fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// The canonical encoding of a value as a string. Values read from records always
/// have one (the reader checked); a value without one becomes `null`.
fn canonical(value: &Value) -> String {
    to_vec(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| String::from("null"))
}

/// The text of a result and whether it is an error.
fn answer_text(answer: &Answer) -> (String, bool) {
    match answer {
        Answer::Value(value) => (canonical(value), false),
        Answer::Error(sentence) | Answer::NotRun(sentence) => (sentence.clone(), true),
    }
}

/// The transcript as an OpenAI Chat Completions `messages` array:
///
/// ```text
/// {"role":"user","content":<task>}
/// {"role":"assistant","content":<text>,"tool_calls":[{"id","type":"function",
///     "function":{"name","arguments":<canonical JSON of the arguments, as a string>}}]}
/// {"role":"tool","tool_call_id":<id>,"content":<canonical JSON of the value, or the
///     error sentence, or "not run: the loop stopped (<reason>)">}
/// ```
///
/// `tool_calls` is left out of a turn with no calls. An empty text is `null` when the
/// turn has calls and `""` when it has none (the API wants content or calls). A call
/// name outside `^[a-zA-Z0-9_-]{1,64}$` is written as [`provider_safe_name`] maps it.
pub fn openai_messages(records: &[Value]) -> Result<Value, HistoryError> {
    let conversation = read(records)?;
    Ok(openai(&conversation))
}

fn openai(conversation: &Conversation) -> Value {
    let mut messages = Vec::new();
    messages.push(object([
        ("role", Value::from("user")),
        ("content", Value::from(conversation.task.as_str())),
    ]));
    for turn in &conversation.turns {
        let content = match (turn.text.is_empty(), turn.calls.is_empty()) {
            (true, false) => Value::Null,
            _ => Value::from(turn.text.as_str()),
        };
        let mut assistant = Object::new();
        assistant.insert("role", Value::from("assistant"));
        assistant.insert("content", content);
        if !turn.calls.is_empty() {
            let calls = turn
                .calls
                .iter()
                .map(|call| {
                    object([
                        ("id", Value::from(call.id.as_str())),
                        ("type", Value::from("function")),
                        (
                            "function",
                            object([
                                ("name", Value::from(provider_safe_name(&call.name).as_ref())),
                                ("arguments", Value::from(canonical(&call.arguments))),
                            ]),
                        ),
                    ])
                })
                .collect();
            assistant.insert("tool_calls", Value::Array(calls));
        }
        messages.push(Value::Object(assistant));
        for (call, answer) in turn.calls.iter().zip(&turn.answers) {
            messages.push(object([
                ("role", Value::from("tool")),
                ("tool_call_id", Value::from(call.id.as_str())),
                ("content", Value::from(answer_text(answer).0)),
            ]));
        }
    }
    Value::Array(messages)
}

/// The transcript as an Anthropic Messages `messages` array:
///
/// ```text
/// {"role":"user","content":[{"type":"text","text":<task>}]}
/// {"role":"assistant","content":[{"type":"text","text":<text>},
///     {"type":"tool_use","id":<id>,"name":<name>,"input":<arguments>}]}
/// {"role":"user","content":[{"type":"tool_result","tool_use_id":<id>,
///     "content":<as for OpenAI>,"is_error":true}]}
/// ```
///
/// All results of one turn go into the one `user` message that follows it, in call
/// order; `is_error` is present (and `true`) only for an `ok:false` result or a call
/// that was not run. The text block is left out when the text is empty, and a turn
/// with neither text nor calls is left out altogether (the API refuses empty content).
/// Arguments that are not an object (a model may send any JSON) are wrapped as
/// `{"arguments": <value>}`, since `input` must be an object; a call name outside
/// `^[a-zA-Z0-9_-]{1,64}$` is written as [`provider_safe_name`] maps it. Messages alternate
/// between `user` and `assistant`: two of the same role in a row (a turn after a
/// `resume`, say) are merged into one.
pub fn anthropic_messages(records: &[Value]) -> Result<Value, HistoryError> {
    let conversation = read(records)?;
    Ok(anthropic(&conversation))
}

fn text_block(text: &str) -> Value {
    object([("type", Value::from("text")), ("text", Value::from(text))])
}

fn anthropic(conversation: &Conversation) -> Value {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, content: Vec<Value>| {
        if content.is_empty() {
            return;
        }
        match messages.last_mut() {
            Some((last, blocks)) if *last == role => blocks.extend(content),
            _ => messages.push((role, content)),
        }
    };
    push("user", alloc::vec![text_block(&conversation.task)]);
    for turn in &conversation.turns {
        let mut content = Vec::new();
        if !turn.text.is_empty() {
            content.push(text_block(&turn.text));
        }
        for call in &turn.calls {
            let input = match &call.arguments {
                Value::Object(_) => call.arguments.clone(),
                other => object([("arguments", other.clone())]),
            };
            content.push(object([
                ("type", Value::from("tool_use")),
                ("id", Value::from(call.id.as_str())),
                ("name", Value::from(provider_safe_name(&call.name).as_ref())),
                ("input", input),
            ]));
        }
        push("assistant", content);
        let results = turn
            .calls
            .iter()
            .zip(&turn.answers)
            .map(|(call, answer)| {
                let (text, is_error) = answer_text(answer);
                let mut block = Object::new();
                block.insert("type", Value::from("tool_result"));
                block.insert("tool_use_id", Value::from(call.id.as_str()));
                block.insert("content", Value::from(text));
                if is_error {
                    block.insert("is_error", Value::Bool(true));
                }
                Value::Object(block)
            })
            .collect();
        push("user", results);
    }
    Value::Array(
        messages
            .into_iter()
            .map(|(role, content)| {
                object([
                    ("role", Value::from(role)),
                    ("content", Value::Array(content)),
                ])
            })
            .collect(),
    )
}
