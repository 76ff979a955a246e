//! The loop's own JSON shapes of what a model is shown — the conversation, the tools
//! on offer and the calls of a turn — for programs that talk to a model themselves (the
//! C ABI's `agentloop_agent_messages_json`, `_manifest_json`, `_take_calls` and
//! `_call_json`, `agentloop_driver_run`'s model callback). Provider shapes are in
//! [`super::openai_messages`] and [`super::anthropic_messages`].
//!
//! - a message: `{"role":"user","text":…}`,
//!   `{"role":"assistant","text":…,"tool_calls":[<call>…]}`,
//!   `{"role":"tool","id":…,"name":…,"ok":true,"value":…}` or
//!   `{"role":"tool","error":…,"id":…,"name":…,"ok":false}`;
//! - a call: `{"arguments":…,"id":…,"name":…}`;
//! - a tool: `{"description":…,"name":…,"schema":…}`.
//!
//! Members come out in canonical order when encoded with [`crate::jcs`].
//!
//! Internal (`#[doc(hidden)]` where re-exported, not API): the C ABI is their one user; a
//! Rust program talking to a model itself has the [`Message`]s, [`ToolSpec`]s and
//! [`ToolCall`]s.

use alloc::vec::Vec;

use super::object;
use crate::json::Value;
use crate::model::{Message, ToolCall};
use crate::tools::ToolSpec;
use crate::vocabulary::member::{TEXT, TOOL_CALLS};
use crate::vocabulary::{encode_call, ToolPayload};

/// One call: `{"arguments":…,"id":…,"name":…}`, as an `assistant` record's
/// `tool_calls` hold it.
pub fn native_call(call: &ToolCall) -> Value {
    encode_call(call)
}

/// The calls of a turn, in order: an array of [`native_call`]s.
pub fn native_calls(calls: &[ToolCall]) -> Value {
    Value::Array(calls.iter().map(native_call).collect())
}

/// One message of the conversation (see the module's shapes).
fn native_message(message: &Message) -> Value {
    match message {
        Message::User { text } => object([
            (ROLE, Value::from(message.role())),
            (TEXT, Value::from(text.as_str())),
        ]),
        Message::Assistant { text, tool_calls } => object([
            (ROLE, Value::from(message.role())),
            (TEXT, Value::from(text.as_str())),
            (TOOL_CALLS, native_calls(tool_calls)),
        ]),
        // The `tool` payload of the call's record, and its role.
        Message::Tool {
            call_id,
            name,
            result,
        } => {
            let mut payload = ToolPayload {
                id: call_id.clone(),
                name: name.clone(),
                result: result.clone(),
            }
            .encode();
            if let Value::Object(members) = &mut payload {
                members.insert(ROLE, Value::from(message.role()));
            }
            payload
        }
    }
}

/// A message's role member.
const ROLE: &str = "role";

/// The conversation, the task first: an array of messages in the module's shapes.
pub fn native_messages(messages: &[Message]) -> Value {
    Value::Array(messages.iter().map(native_message).collect())
}

/// The tools on offer, in the order given (a [`crate::tools::Manifest`] sorts them by
/// name): `[{"description":…,"name":…,"schema":…}]`.
pub fn native_tools(specs: &[ToolSpec]) -> Value {
    let specs: Vec<Value> = specs
        .iter()
        .map(|s| {
            object([
                ("name", Value::from(s.name.as_str())),
                ("description", Value::from(s.description.as_str())),
                ("schema", s.schema.clone()),
            ])
        })
        .collect();
    Value::Array(specs)
}

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec;

    use super::*;
    use crate::jcs;
    use crate::json::parse;

    fn text(value: &Value) -> String {
        String::from_utf8(jcs::to_vec(value).unwrap()).unwrap()
    }

    #[test]
    fn each_shape_is_the_documented_one() {
        let call = ToolCall {
            id: String::from("call_1_0"),
            name: String::from("add"),
            arguments: parse(br#"{"b":2,"a":1}"#).unwrap(),
        };
        let messages = [
            Message::User {
                text: String::from("add 1 and 2"),
            },
            Message::Assistant {
                text: String::from("adding"),
                tool_calls: vec![call.clone()],
            },
            Message::Tool {
                call_id: String::from("call_1_0"),
                name: String::from("add"),
                result: Ok(Value::from(3.0)),
            },
            Message::Tool {
                call_id: String::from("call_1_1"),
                name: String::from("nope"),
                result: Err(String::from("unknown tool")),
            },
        ];
        assert_eq!(
            text(&native_messages(&messages)),
            concat!(
                r#"[{"role":"user","text":"add 1 and 2"},"#,
                r#"{"role":"assistant","text":"adding","tool_calls":[{"arguments":{"a":1,"b":2},"id":"call_1_0","name":"add"}]},"#,
                r#"{"id":"call_1_0","name":"add","ok":true,"role":"tool","value":3},"#,
                r#"{"error":"unknown tool","id":"call_1_1","name":"nope","ok":false,"role":"tool"}]"#
            )
        );
        assert_eq!(
            text(&native_calls(&[call.clone(), call])),
            r#"[{"arguments":{"a":1,"b":2},"id":"call_1_0","name":"add"},{"arguments":{"a":1,"b":2},"id":"call_1_0","name":"add"}]"#
        );
        let spec = ToolSpec::new("add", "adds", parse(br#"{"type":"object"}"#).unwrap());
        assert_eq!(
            text(&native_tools(&[spec])),
            r#"[{"description":"adds","name":"add","schema":{"type":"object"}}]"#
        );
        assert_eq!(text(&native_messages(&[])), "[]");
    }
}
