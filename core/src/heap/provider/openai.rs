//! OpenAI Chat Completions: the codec behind [`Provider::OpenAi`](super::Provider::OpenAi), whose
//! documentation says what is sent and what is read back.

use alloc::string::String;
use alloc::vec::Vec;

use super::common::{self, object, result_text, Reader};
use super::manifest::openai_tools;
use super::{RequestError, RequestOptions};
use crate::json::{parse as parse_json, Object, Value};
use crate::model::{Message, ModelError, ProviderReport, Reply};
use crate::tools::{provider_safe_name, ToolSpec};

/// The members of the body the codec writes itself.
const RESERVED: [&str; 5] = [
    "max_completion_tokens",
    "messages",
    "model",
    "system",
    "tools",
];

/// The request body for the next turn, as canonical JSON bytes (see [`Provider::OpenAi`](super::Provider::OpenAi)).
///
/// Refused, in this order: an empty model (a [`RequestError`](crate::provider::RequestError)), a
/// `max_output_tokens` of 0 or past 2^53 − 1, a reserved member in `extra`, a NaN in
/// `extra`, a conversation that cannot be sent (see [the module](super)), a NaN in the
/// manifest.
pub fn request(
    messages: &[Message],
    manifest: &[ToolSpec],
    options: &RequestOptions,
) -> Result<Vec<u8>, RequestError> {
    common::check_options(options, &RESERVED, false)?;
    super::check_conversation(messages)?;
    let history = self::messages(messages, options.system.as_deref());
    common::encode(
        options,
        [
            ("model", Some(Value::from(options.model.as_str()))),
            ("messages", Some(history)),
            (
                "tools",
                (!manifest.is_empty()).then(|| openai_tools(manifest)),
            ),
            (
                "max_completion_tokens",
                options.max_output_tokens.map(common::count),
            ),
        ],
    )
}

/// The conversation as a `messages` array, with `system` first when given:
///
/// ```text
/// {"role":"system","content":<system>}
/// {"role":"user","content":<task>}
/// {"role":"assistant","content":<text>,"tool_calls":[{"id","type":"function",
///     "function":{"name","arguments":<canonical JSON of the arguments, as a string>}}]}
/// {"role":"tool","tool_call_id":<id>,"content":<canonical JSON of the value, or the
///     error sentence, or "not run: the loop stopped (<reason>)">}
/// ```
///
/// `tool_calls` is left out of a turn with no calls. An empty text is `null` when the
/// turn has calls and `""` when it has none (the API wants content or calls). Ids are
/// the loop's (`call_<seq>_<i>`); a call name outside `^[a-zA-Z0-9_-]{1,64}$` is
/// written as [`provider_safe_name`] maps it. Every message is written as it is, with
/// no check: [`request`] checks the conversation first.
pub fn messages(messages: &[Message], system: Option<&str>) -> Value {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = system {
        out.push(object([
            ("role", Value::from("system")),
            ("content", Value::from(system)),
        ]));
    }
    for message in messages {
        out.push(match message {
            Message::User { text } => object([
                ("role", Value::from("user")),
                ("content", Value::from(text.as_str())),
            ]),
            Message::Assistant { text, tool_calls } => {
                let content = if text.is_empty() && !tool_calls.is_empty() {
                    Value::Null
                } else {
                    Value::from(text.as_str())
                };
                let mut assistant = Object::new();
                assistant.insert("role", Value::from("assistant"));
                assistant.insert("content", content);
                if !tool_calls.is_empty() {
                    let calls = tool_calls
                        .iter()
                        .map(|call| {
                            object([
                                ("id", Value::from(call.id.as_str())),
                                ("type", Value::from("function")),
                                (
                                    "function",
                                    object([
                                        (
                                            "name",
                                            Value::from(provider_safe_name(&call.name).as_ref()),
                                        ),
                                        (
                                            "arguments",
                                            Value::from(common::canonical(&call.arguments)),
                                        ),
                                    ]),
                                ),
                            ])
                        })
                        .collect();
                    assistant.insert("tool_calls", Value::Array(calls));
                }
                Value::Object(assistant)
            }
            Message::Tool {
                call_id, result, ..
            } => object([
                ("role", Value::from("tool")),
                ("tool_call_id", Value::from(call_id.as_str())),
                ("content", Value::from(result_text(result).0)),
            ]),
        });
    }
    Value::Array(out)
}

/// The response (HTTP status and body) as a reply, or the error it reports (see the
/// docs of [`Provider::OpenAi`](super::Provider::OpenAi)), with `secret` — the API key the request was sent with, if any —
/// redacted from the error's sentence ([`crate::redact::bounded`]). Never panics,
/// whatever the bytes.
pub fn parse(status: u16, body: &[u8], secret: Option<&str>) -> Result<Reply, ModelError> {
    let root = common::response(status, body, "choices", secret)?;
    let root = Reader::root(status, &root);
    let choices = root.array("choices")?;
    let Some(first) = choices.first() else {
        return Err(common::malformed(status, String::from("choices is empty")));
    };
    let choice = root.item("choices", 0, first)?;
    let message = choice.object("message")?;
    let content = message.opt_str("content")?.unwrap_or("");
    let refusal = message.opt_str("refusal")?;
    let text = match refusal {
        Some(refusal) if content.is_empty() => refusal,
        _ => content,
    };
    let mut tool_calls = Vec::new();
    for (index, item) in message.opt_array("tool_calls")?.iter().enumerate() {
        let call = message.item("tool_calls", index, item)?;
        tool_calls.push(match call.opt_object("function")? {
            Some(function) => {
                let name = function.str("name")?;
                let arguments = function.str("arguments")?;
                (String::from(name), arguments_value(arguments))
            }
            None if call.opt_str("type")? == Some("custom") => {
                let custom = call.object("custom")?;
                let name = custom.str("name")?;
                let input = custom.str("input")?;
                (String::from(name), Value::from(input))
            }
            None => {
                return Err(common::malformed(
                    status,
                    alloc::format!("{} is missing", call.path_of("function")),
                ))
            }
        });
    }
    if tool_calls.is_empty() {
        if let Some(function) = message.opt_object("function_call")? {
            let name = function.str("name")?;
            let arguments = function.str("arguments")?;
            tool_calls.push((String::from(name), arguments_value(arguments)));
        }
    }
    let mut report = ProviderReport {
        model: root.opt_str("model")?.map(String::from),
        response_id: root.opt_str("id")?.map(String::from),
        finish_reason: choice.opt_str("finish_reason")?.map(String::from),
        ..ProviderReport::default()
    };
    let mut output_tokens = None;
    if let Some(usage) = root.opt_object("usage")? {
        report.input_tokens = usage.count("prompt_tokens")?;
        output_tokens = usage.count("completion_tokens")?;
        if let Some(details) = usage.opt_object("prompt_tokens_details")? {
            report.cached_input_tokens = details.count("cached_tokens")?;
        }
    }
    Ok(Reply {
        text: String::from(text),
        tool_calls,
        output_tokens,
        provider: report,
    })
}

/// A call's `arguments` string as its arguments: the JSON it holds, or, when the strict
/// parser refuses it, the string itself as a JSON string value.
fn arguments_value(arguments: &str) -> Value {
    parse_json(arguments.as_bytes()).unwrap_or_else(|_| Value::from(arguments))
}
