//! OpenAI Chat Completions: the request body and the response, as OpenAI documents them
//! (<https://platform.openai.com/docs/api-reference/chat>) and as OpenAI-compatible
//! servers (vLLM, llama.cpp's server, Ollama, OpenRouter, Groq, Azure) speak them.
//!
//! # The request
//!
//! ```text
//! {"model": <options.model>,
//!  "messages": [{"role":"system","content":<options.system>}?, …the conversation…],
//!  "tools": [{"type":"function","function":{"name","description","parameters"}}],
//!  "max_completion_tokens": <options.max_output_tokens>,
//!  …options.extra…}
//! ```
//!
//! `tools` is left out when the manifest is empty, `max_completion_tokens` when
//! `max_output_tokens` is not set. Older OpenAI-compatible servers know only the
//! deprecated `max_tokens`: for them, leave `max_output_tokens` unset and put
//! `"max_tokens": n` in [`RequestOptions::extra`] (setting both sends both, which
//! OpenAI refuses). Everything else — `temperature`, `tool_choice`,
//! `parallel_tool_calls`, `seed`, `top_p`, `user`, … — goes in `extra` and is copied
//! as given; `model`, `messages`, `tools`, `system` and `max_completion_tokens` there
//! are refused (a [`RequestError`](crate::provider::RequestError)). The body is canonical JSON (RFC 8785), so
//! the same conversation always gives the same bytes.
//!
//! The conversation is written by [`messages`]. A conversation that ends with an
//! assistant message (a run resumed after `no_tool_calls` or `sentinel`) is sent as it
//! is: Chat Completions answers it with a new assistant message.
//!
//! # The response
//!
//! [`parse`] reads `choices[0]` (other choices, asked for with `n`, are ignored):
//! `message.content` (a string or `null`; when it is `null` or empty, a string
//! `message.refusal` is the text instead), and `message.tool_calls`, each
//! `{"type":"function","function":{"name","arguments"}}`. `arguments` is a string of
//! JSON: when the strict parser takes it (valid JSON, nested at most 128 deep, no
//! duplicate key, every number exact), the call's arguments are that value; when not,
//! they are the string itself, as a JSON string value — the call is kept, and fails the
//! tool's schema as data (`expected type object, got string`) for the model to see. A
//! `custom` tool call (`{"type":"custom","custom":{"name","input"}}`, for tools this
//! codec never offers) is kept the same way, its `input` as a string value. The
//! provider's call ids are dropped: the loop names calls itself. A message with no
//! `tool_calls` but the deprecated `function_call` (`{"name","arguments"}`, which an
//! old server may still send) gives that one call, read the same way.
//!
//! Reported: `usage.completion_tokens` → [`Reply::output_tokens`],
//! `usage.prompt_tokens` → [`ProviderReport::input_tokens`],
//! `usage.prompt_tokens_details.cached_tokens` → `cached_input_tokens`, `model`, `id`
//! → `response_id`, `choices[0].finish_reason` (`stop`, `length` when cut at the token
//! limit, `tool_calls`, `content_filter`) → `finish_reason`. Each may be absent or
//! `null`; a count must be an integer from 0 to 2^53 − 1.
//!
//! A non-2xx answer is a [`ModelError`] carrying the status, with a sentence naming the
//! status, the error's `type` and `code` and its `message` (`{"error":{"message",
//! "type","code"}}`): `the provider answered HTTP 401 (invalid_request_error,
//! invalid_api_key): Incorrect API key provided`. So is a 2xx body that holds an
//! `error` and no `choices`, and a 2xx body that is not what this describes (the
//! sentence names the member and what is wrong).

use alloc::string::String;
use alloc::vec::Vec;

use super::common::{self, object, result_text, Reader};
use super::openai_tools;
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

/// The request body for the next turn, as canonical JSON bytes (see the module docs).
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
/// module docs), with `secret` — the API key the request was sent with, if any —
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
