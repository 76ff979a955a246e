//! Anthropic Messages: the codec behind [`Provider::Anthropic`](super::Provider::Anthropic), whose
//! documentation says what is sent and what is read back.

use alloc::string::String;
use alloc::vec::Vec;

use super::common::{self, object, result_text, Reader};
use super::manifest::anthropic_tools;
use super::{RequestError, RequestErrorKind, RequestOptions};
use crate::json::{Object, Value};
use crate::model::{is_blank, Message, ModelError, ProviderReport, Reply};
use crate::tools::{provider_safe_name, ToolSpec};

/// The members of the body the codec writes itself.
const RESERVED: [&str; 5] = ["max_tokens", "messages", "model", "system", "tools"];

/// The request body for the next turn, as canonical JSON bytes (see [`Provider::Anthropic`](super::Provider::Anthropic)).
///
/// Refused, in this order: an empty model (a [`RequestError`](crate::provider::RequestError)), a
/// `max_output_tokens` of 0 or past 2^53 − 1, no `max_output_tokens`, a reserved member
/// in `extra`, a NaN in `extra`, a conversation that cannot be sent (see [the module](super)),
/// a task that is empty or only white space, a conversation that ends with an assistant
/// message, a NaN in the manifest.
pub fn request(
    messages: &[Message],
    manifest: &[ToolSpec],
    options: &RequestOptions,
) -> Result<Vec<u8>, RequestError> {
    common::check_options(options, &RESERVED, true)?;
    super::check_conversation(messages)?;
    let history = self::messages(messages);
    let roles = match &history {
        Value::Array(items) => (items.first().map(role_of), items.last().map(role_of)),
        _ => (None, None),
    };
    if roles.0 != Some("user") {
        return Err(RequestErrorKind::BadConversation {
            index: 0,
            what: "the task is empty or only white space, and Anthropic takes no such text",
        }
        .into());
    }
    if roles.1 != Some("user") {
        let index = messages
            .iter()
            .rposition(|m| matches!(m, Message::Assistant { .. }))
            .unwrap_or(0);
        return Err(RequestErrorKind::BadConversation {
            index,
            what: "the conversation ends with an assistant message, which Anthropic would continue (a prefill) instead of answering",
        }.into());
    }
    common::encode(
        options,
        [
            ("model", Some(Value::from(options.model.as_str()))),
            ("max_tokens", options.max_output_tokens.map(common::count)),
            ("system", options.system.as_deref().map(Value::from)),
            ("messages", Some(history)),
            (
                "tools",
                (!manifest.is_empty()).then(|| anthropic_tools(manifest)),
            ),
        ],
    )
}

fn role_of(message: &Value) -> &str {
    message
        .as_object()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn text_block(text: &str) -> Value {
    object([("type", Value::from("text")), ("text", Value::from(text))])
}

/// The conversation as a `messages` array (the system prompt goes in the body, not
/// here):
///
/// ```text
/// {"role":"user","content":[{"type":"text","text":<task>}]}
/// {"role":"assistant","content":[{"type":"text","text":<text>},
///     {"type":"tool_use","id":<id>,"name":<name>,"input":<arguments>}]}
/// {"role":"user","content":[{"type":"tool_result","tool_use_id":<id>,
///     "content":<canonical JSON of the value, or the error sentence>,"is_error":true}]}
/// ```
///
/// All results of one turn go into the one `user` message that follows it, in call
/// order, before anything else in it; `is_error` is present (and `true`) only for an
/// `Err` result (an `ok:false` sentence, or a call that was not run). A text block is
/// left out when its text is empty or only white space (Claude may
/// answer `"\n\n"` before a `tool_use`), and a message left with no blocks is left out
/// altogether (the API refuses text without a character other than white space, and
/// empty content). Arguments that are not
/// an object (a model may send any JSON) are wrapped as `{"arguments": <value>}`, since
/// `input` must be an object. Ids are the loop's (`call_<seq>_<i>`); a call name outside
/// `^[a-zA-Z0-9_-]{1,64}$` is written as [`provider_safe_name`] maps it. Messages
/// alternate between `user` and `assistant`: two of the same role in a row (a turn
/// after a `resume`, say) are merged into one. Written with no check: [`request`]
/// checks the conversation first.
pub fn messages(messages: &[Message]) -> Value {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, content: Vec<Value>| {
        if content.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((last, blocks)) if *last == role => blocks.extend(content),
            _ => out.push((role, content)),
        }
    };
    for message in messages {
        match message {
            Message::User { text } => {
                let blocks = if is_blank(text) {
                    Vec::new()
                } else {
                    alloc::vec![text_block(text)]
                };
                push("user", blocks);
            }
            Message::Assistant { text, tool_calls } => {
                let mut content = Vec::with_capacity(tool_calls.len() + 1);
                if !is_blank(text) {
                    content.push(text_block(text));
                }
                for call in tool_calls {
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
            }
            Message::Tool {
                call_id, result, ..
            } => {
                let (text, is_error) = result_text(result);
                let mut block = Object::new();
                block.insert("type", Value::from("tool_result"));
                block.insert("tool_use_id", Value::from(call_id.as_str()));
                block.insert("content", Value::from(text));
                if is_error {
                    block.insert("is_error", Value::Bool(true));
                }
                push("user", alloc::vec![Value::Object(block)]);
            }
        }
    }
    Value::Array(
        out.into_iter()
            .map(|(role, content)| {
                object([
                    ("role", Value::from(role)),
                    ("content", Value::Array(content)),
                ])
            })
            .collect(),
    )
}

/// The response (HTTP status and body) as a reply, or the error it reports (see the
/// docs of [`Provider::Anthropic`](super::Provider::Anthropic)), with `secret` — the API key the request was sent with, if any —
/// redacted from the error's sentence ([`crate::redact::bounded`]). Never panics,
/// whatever the bytes.
pub fn parse(status: u16, body: &[u8], secret: Option<&str>) -> Result<Reply, ModelError> {
    let root = common::response(status, body, "content", secret)?;
    let root = Reader::root(status, &root);
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (index, item) in root.array("content")?.iter().enumerate() {
        let block = root.item("content", index, item)?;
        match block.str("type")? {
            "text" => text.push_str(block.str("text")?),
            "tool_use" => {
                let name = block.str("name")?;
                let input = block.value("input")?;
                tool_calls.push((String::from(name), input.clone()));
            }
            _ => {}
        }
    }
    let mut report = ProviderReport {
        model: root.opt_str("model")?.map(String::from),
        response_id: root.opt_str("id")?.map(String::from),
        finish_reason: root.opt_str("stop_reason")?.map(String::from),
        ..ProviderReport::default()
    };
    let mut output_tokens = None;
    if let Some(usage) = root.opt_object("usage")? {
        output_tokens = usage.count("output_tokens")?;
        let parts = [
            usage.count("input_tokens")?,
            usage.count("cache_creation_input_tokens")?,
            usage.count("cache_read_input_tokens")?,
        ];
        report.cached_input_tokens = parts[2];
        if parts.iter().any(Option::is_some) {
            let total: u64 = parts.iter().flatten().sum();
            if total > crate::anchor::MAX_SEQ {
                return Err(common::malformed(
                    status,
                    alloc::format!(
                        "usage's input tokens (input, cache creation and cache read) add up to {total}, past 2^53-1"
                    ),
                ));
            }
            report.input_tokens = Some(total);
        }
    }
    Ok(Reply {
        text,
        tool_calls,
        output_tokens,
        provider: report,
    })
}
