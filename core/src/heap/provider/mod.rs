//! Provider codecs: the live conversation as a provider's request body, and the
//! provider's response as a [`Reply`] — no I/O, so a Rust program, a C host or an
//! embedded runtime does only the HTTP.
//!
//! One value per wire format, [`Provider`]: [`Provider::OpenAi`] (OpenAI Chat
//! Completions, which OpenAI-compatible servers also speak) and [`Provider::Anthropic`]
//! (Anthropic Messages), whose documentation says what is sent and what is read back.
//! Each gives [`Provider::request`] (messages, manifest, options → body),
//! [`Provider::messages`] (the conversation as the provider's `messages` array),
//! [`Provider::tools`] (the manifest as its `tools`) and [`Provider::parse`] (status,
//! body, secret → `Result<Reply, ModelError>`). The transcript export
//! ([`crate::export::history`]) reads the records back into the same [`Message`]s and
//! goes through the same `messages`, so a live request and an export of its transcript
//! write the conversation alike.
//!
//! ```
//! use agentloop_core::model::Message;
//! use agentloop_core::provider::{Provider, RequestOptions};
//!
//! let conversation = [Message::User { text: "add 2 and 40".into() }];
//! let mut options = RequestOptions::new("claude-sonnet-4-5");
//! options.max_output_tokens = Some(1024);
//! let body = Provider::Anthropic.request(&conversation, &[], &options).unwrap();
//! assert_eq!(
//!     String::from_utf8(body).unwrap(),
//!     r#"{"max_tokens":1024,"messages":[{"content":[{"text":"add 2 and 40","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5"}"#
//! );
//! // … POST it; then the answer's status and body:
//! let reply = Provider::Anthropic
//!     .parse(200, br#"{"content":[{"type":"text","text":"42"}],"usage":{"input_tokens":12,"output_tokens":3}}"#, None)
//!     .unwrap();
//! assert_eq!((reply.text.as_str(), reply.output_tokens), ("42", Some(3)));
//! let error = Provider::Anthropic
//!     .parse(529, br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, None)
//!     .unwrap_err();
//! assert_eq!(error.message(), "the provider answered HTTP 529 (overloaded_error): Overloaded");
//! assert!(error.is_retryable());
//! ```
//!
//! What is sent, for both:
//! - The loop's call ids (`call_<seq>_<i>`), not the ids the provider gave the calls:
//!   a reply's calls are recorded under the loop's ids, and the history sends those
//!   back. Both providers accept any id of `[A-Za-z0-9_-]`, and the loop's are
//!   deterministic, so the same run sends the same bytes.
//! - A call name a model made up that the providers would refuse (outside
//!   `^[a-zA-Z0-9_-]{1,64}$`) as [`crate::tools::provider_safe_name`] maps it;
//!   registered names unchanged.
//! - Each tool result as the canonical JSON of its value, or its `ok:false` sentence
//!   (marked as an error where the provider has a mark), a call the loop left unrun as
//!   `not run: the loop stopped (<reason>)`.
//! - Before anything is encoded, the conversation is checked: the first message is the
//!   user's task; every call id is non-empty, unique and made of `A-Z a-z 0-9 _ -`; each
//!   call is answered by exactly one tool result (same id and name), in call order,
//!   before the next user or assistant message; every value has a canonical encoding.
//!   A request never holds a call without its one result.
//!
//! What is read back: the text, every call (an argument string that is not JSON
//! becomes a JSON string value, which fails the tool's schema as data), the output
//! tokens ([`Reply::output_tokens`], which the token budget then counts instead of its
//! estimate) and a [`crate::model::ProviderReport`] (model, response id, finish reason,
//! input and cached input tokens). A non-2xx answer, or a body that is not what the
//! provider documents, is a [`ModelError`] with the status
//! ([`ModelError::is_retryable`] tells 429, 529 and 5xx apart from the rest). Its
//! sentence quotes the provider's message (at most 1000 characters) or the start of a
//! body it cannot read (200), with the API key given to `parse` redacted first — the
//! whole key, then any run of 8 of its characters the cut or the provider left.
//!
//! A third wire format (Gemini, say) is a private module with the same functions and a
//! [`Provider`] variant; the shared checks and response reading are in a private
//! module both codecs use.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::heap::opaque::opaque_error;
use crate::json::{Object, Value};
use crate::model::{Message, ModelError, Reply};
use crate::tools::ToolSpec;

mod anthropic;
mod common;
mod manifest;
mod openai;

pub use manifest::mcp_tools;

/// A wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    ///
    /// The request body and the response, as OpenAI documents them
    /// (<https://platform.openai.com/docs/api-reference/chat>) and as OpenAI-compatible
    /// servers (vLLM, llama.cpp's server, Ollama, OpenRouter, Groq, Azure) speak them.
    ///
    /// # The request
    ///
    /// ```text
    /// {"model": <options.model>,
    ///  "messages": [{"role":"system","content":<options.system>}?, …the conversation…],
    ///  "tools": [{"type":"function","function":{"name","description","parameters"}}],
    ///  "max_completion_tokens": <options.max_output_tokens>,
    ///  …options.extra…}
    /// ```
    ///
    /// `tools` is left out when the manifest is empty, `max_completion_tokens` when
    /// `max_output_tokens` is not set. Older OpenAI-compatible servers know only the
    /// deprecated `max_tokens`: for them, leave `max_output_tokens` unset and put
    /// `"max_tokens": n` in [`RequestOptions::extra`] (setting both sends both, which
    /// OpenAI refuses). Everything else — `temperature`, `tool_choice`,
    /// `parallel_tool_calls`, `seed`, `top_p`, `user`, … — goes in `extra` and is copied
    /// as given; `model`, `messages`, `tools`, `system` and `max_completion_tokens` there
    /// are refused (a [`RequestError`](crate::provider::RequestError)). The body is canonical JSON (RFC 8785), so
    /// the same conversation always gives the same bytes.
    ///
    /// The conversation is written by [`Provider::messages`]. A conversation that ends with an
    /// assistant message (a run resumed after `no_tool_calls` or `sentinel`) is sent as it
    /// is: Chat Completions answers it with a new assistant message.
    ///
    /// # The response
    ///
    /// [`Provider::parse`] reads `choices[0]` (other choices, asked for with `n`, are ignored):
    /// `message.content` (a string or `null`; when it is `null` or empty, a string
    /// `message.refusal` is the text instead), and `message.tool_calls`, each
    /// `{"type":"function","function":{"name","arguments"}}`. `arguments` is a string of
    /// JSON: when the strict parser takes it (valid JSON, nested at most 128 deep, no
    /// duplicate key, every number exact), the call's arguments are that value; when not,
    /// they are the string itself, as a JSON string value — the call is kept, and fails the
    /// tool's schema as data (`expected type object, got string`) for the model to see. A
    /// `custom` tool call (`{"type":"custom","custom":{"name","input"}}`, for tools this
    /// codec never offers) is kept the same way, its `input` as a string value. The
    /// provider's call ids are dropped: the loop names calls itself. A message with no
    /// `tool_calls` but the deprecated `function_call` (`{"name","arguments"}`, which an
    /// old server may still send) gives that one call, read the same way.
    ///
    /// Reported: `usage.completion_tokens` → [`Reply::output_tokens`],
    /// `usage.prompt_tokens` → [`ProviderReport::input_tokens`](crate::model::ProviderReport::input_tokens),
    /// `usage.prompt_tokens_details.cached_tokens` → `cached_input_tokens`, `model`, `id`
    /// → `response_id`, `choices[0].finish_reason` (`stop`, `length` when cut at the token
    /// limit, `tool_calls`, `content_filter`) → `finish_reason`. Each may be absent or
    /// `null`; a count must be an integer from 0 to 2^53 − 1.
    ///
    /// A non-2xx answer is a [`ModelError`] carrying the status, with a sentence naming the
    /// status, the error's `type` and `code` and its `message` (`{"error":{"message",
    /// "type","code"}}`): `the provider answered HTTP 401 (invalid_request_error,
    /// invalid_api_key): Incorrect API key provided`. So is a 2xx body that holds an
    /// `error` and no `choices`, and a 2xx body that is not what this describes (the
    /// sentence names the member and what is wrong).
    OpenAi,
    /// Anthropic Messages (`POST /v1/messages`).
    ///
    /// Anthropic Messages: the request body and the response, as Anthropic documents them
    /// (<https://docs.anthropic.com/en/api/messages>).
    ///
    /// # The request
    ///
    /// ```text
    /// {"model": <options.model>,
    ///  "max_tokens": <options.max_output_tokens>,
    ///  "system": <options.system>,
    ///  "messages": […the conversation…],
    ///  "tools": [{"name","description","input_schema"}],
    ///  …options.extra…}
    /// ```
    ///
    /// Anthropic requires `max_tokens`: without `max_output_tokens` the request is refused
    /// (a [`RequestError`](crate::provider::RequestError)). `system` is left out when not set, `tools`
    /// when the manifest is empty. Everything else — `temperature`, `tool_choice`,
    /// `top_p`, `top_k`, `stop_sequences`, `metadata`, `thinking`, … — goes in
    /// [`RequestOptions::extra`] and is copied as given; `model`, `messages`, `tools`,
    /// `system` and `max_tokens` there are refused (a [`RequestError`](crate::provider::RequestError)). The body
    /// is canonical JSON (RFC 8785).
    ///
    /// The conversation is written by [`Provider::messages`], and must begin and end with a `user`
    /// message. One that ends with an assistant message — a run resumed after
    /// `no_tool_calls` or `sentinel` — is refused (a [`RequestError`](crate::provider::RequestError)):
    /// Anthropic would take that message as a prefill and *continue* it, and the loop
    /// would record the continuation as a new turn of its own (models with extended
    /// thinking refuse a prefill outright). The codec adds no message the transcript does
    /// not hold, so to go on after such a stop, start a new run with a task that asks for
    /// more. A task that is empty or only white space is refused too: Anthropic takes no
    /// text without a character other than white space (`agentloop run` and the C ABI
    /// refuse such a task before a run starts: [`crate::agent::check_task`]).
    ///
    /// # The response
    ///
    /// [`Provider::parse`] reads `content`: the texts of its `text` blocks, joined in order with
    /// nothing between (a reply that cites sources comes as several blocks of one text),
    /// and each `tool_use` block as a call (`name`, and `input` as the arguments). Other
    /// blocks — `thinking`, `redacted_thinking`, server tool blocks (`server_tool_use`,
    /// `web_search_tool_result`, …) — are skipped: the loop neither shows nor records
    /// them. The provider's `tool_use` ids are dropped: the loop names calls itself.
    ///
    /// Reported: `usage.output_tokens` → [`Reply::output_tokens`];
    /// `usage.input_tokens + cache_creation_input_tokens + cache_read_input_tokens` (the
    /// total input, as Anthropic defines it) → [`ProviderReport::input_tokens`](crate::model::ProviderReport::input_tokens);
    /// `usage.cache_read_input_tokens` → `cached_input_tokens`; `model`; `id` →
    /// `response_id`; `stop_reason` (`end_turn`, `max_tokens` when cut at the token limit,
    /// `tool_use`, `stop_sequence`, `refusal`, `pause_turn`,
    /// `model_context_window_exceeded`) → `finish_reason`. Each may be absent or `null`; a
    /// count must be an integer from 0 to 2^53 − 1.
    ///
    /// A non-2xx answer (`{"type":"error","error":{"type","message"}}`) is a
    /// [`ModelError`] carrying the status, with a sentence naming the status, the error
    /// type and its message: `the provider answered HTTP 529 (overloaded_error):
    /// Overloaded`. So is a 2xx body that holds an `error` and no `content`, and a 2xx body
    /// that is not what this describes (the sentence names the member and what is wrong).
    Anthropic,
}

impl Provider {
    /// The provider named `openai` or `anthropic`.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name {
            "openai" => Some(Provider::OpenAi),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }

    /// `openai` or `anthropic`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The request body for the next turn: the conversation so far, the tools on offer
    /// and the caller's options, as canonical JSON bytes.
    pub fn request(
        self,
        messages: &[Message],
        manifest: &[ToolSpec],
        options: &RequestOptions,
    ) -> Result<Vec<u8>, RequestError> {
        match self {
            Provider::OpenAi => openai::request(messages, manifest, options),
            Provider::Anthropic => anthropic::request(messages, manifest, options),
        }
    }

    /// The provider's answer (its HTTP status and body) as a reply, or the error it
    /// reports. `secret` is the API key the request was sent with, if any: a provider
    /// may echo it in an error body, and every text quoted from the body has it
    /// redacted before it is cut to its bound, so no run of 8 of its characters
    /// reaches the sentence. Never panics, whatever the bytes.
    pub fn parse(
        self,
        status: u16,
        body: &[u8],
        secret: Option<&str>,
    ) -> Result<Reply, ModelError> {
        match self {
            Provider::OpenAi => openai::parse(status, body, secret),
            Provider::Anthropic => anthropic::parse(status, body, secret),
        }
    }

    /// The conversation as this provider's `messages` array (what `request` sends).
    pub fn messages(self, messages: &[Message]) -> Value {
        match self {
            Provider::OpenAi => openai::messages(messages, None),
            Provider::Anthropic => anthropic::messages(messages),
        }
    }

    /// The tool manifest as this provider's `tools` array (what `request` sends when
    /// the manifest is not empty): OpenAI's
    /// `[{"type":"function","function":{"name","description","parameters":<schema>}}]`,
    /// Anthropic's `[{"name","description","input_schema":<schema>}]`. Each schema is
    /// copied unchanged, in the order given (a [`crate::tools::Manifest`] keeps its specs
    /// sorted by name). For an MCP server's shape, see [`mcp_tools`].
    pub fn tools(self, specs: &[ToolSpec]) -> Value {
        match self {
            Provider::OpenAi => manifest::openai_tools(specs),
            Provider::Anthropic => manifest::anthropic_tools(specs),
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Checks that a conversation can be sent, as both codecs' `request` do before
/// encoding it: the first message is the user's task; every call id is non-empty,
/// unique and made of `A-Z a-z 0-9 _ -`; each call of an assistant message is answered
/// by exactly one `Tool` message (same id and name), in call order, before the next
/// user or assistant message and before the end; every argument and result value has a
/// canonical encoding. The loop's own conversations always pass. A later `User`
/// message (the loop writes none) is allowed where no call is owed a result.
pub(crate) fn check_conversation(messages: &[Message]) -> Result<(), RequestError> {
    common::check_conversation(messages)
}

/// What the caller sets in a request besides the conversation and the tools.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestOptions {
    /// The model to ask (`"model"`); required, non-empty.
    pub model: String,
    /// Most output tokens for the turn, 1 to 2^53 − 1: OpenAI's `max_completion_tokens`,
    /// Anthropic's `max_tokens` (which Anthropic requires). An older OpenAI-compatible
    /// server that knows only `max_tokens` gets it through [`Self::extra`] instead
    /// (`"max_tokens": n`, with this left unset).
    pub max_output_tokens: Option<u64>,
    /// A system prompt: OpenAI's first `system` message, Anthropic's `system`.
    pub system: Option<String>,
    /// Other members copied into the body as they are (`temperature`, `tool_choice`,
    /// `parallel_tool_calls`, `top_p`, `metadata`, …). A member the codec writes itself
    /// is refused (a [`RequestError`](crate::provider::RequestError)).
    pub extra: Object,
}

impl RequestOptions {
    /// Options asking `model`, with nothing else set.
    pub fn new(model: impl Into<String>) -> RequestOptions {
        RequestOptions {
            model: model.into(),
            ..RequestOptions::default()
        }
    }

    /// Options from a JSON object: `model` (string, required), `max_output_tokens`
    /// (integer), `system` (string); every other member goes to [`Self::extra`].
    pub fn from_json(value: &Value) -> Result<RequestOptions, RequestError> {
        let Some(members) = value.as_object() else {
            return Err(RequestErrorKind::NotAnObject.into());
        };
        let mut options = RequestOptions::default();
        for (key, member) in members.iter() {
            match key {
                "model" => match member.as_str() {
                    Some(model) => options.model = String::from(model),
                    None => return Err(RequestErrorKind::BadOption("model", "a string").into()),
                },
                "max_output_tokens" => match member.as_f64().and_then(crate::anchor::seq_of) {
                    Some(n) if n >= 1 => options.max_output_tokens = Some(n),
                    _ => {
                        return Err(RequestErrorKind::BadOption(
                            "max_output_tokens",
                            "an integer from 1 to 2^53-1",
                        )
                        .into())
                    }
                },
                "system" => match member.as_str() {
                    Some(system) => options.system = Some(String::from(system)),
                    None => return Err(RequestErrorKind::BadOption("system", "a string").into()),
                },
                _ => {
                    options.extra.insert(key, member.clone());
                }
            }
        }
        Ok(options)
    }
}

opaque_error! {
    /// Why a request body could not be built.
    #[derive(Clone, PartialEq, Eq)]
    pub struct RequestError(RequestErrorKind);
}

/// What [`RequestError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RequestErrorKind {
    /// The options are not a JSON object.
    NotAnObject,
    /// `model` is missing or empty.
    NoModel,
    /// Anthropic requires `max_tokens`: set `max_output_tokens`.
    NoMaxOutputTokens,
    /// An option has the wrong type or range: its name and what it must be.
    BadOption(&'static str, &'static str),
    /// An extra member names one the codec writes itself (`messages`, `tools`, …).
    Reserved(String),
    /// The conversation cannot be sent (the check the module documentation states):
    /// the index of the
    /// message at fault and what is wrong with it.
    BadConversation {
        /// 0-based index into the messages.
        index: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A value built by hand holds a NaN or an infinity, which JSON cannot spell: the
    /// part of the request that holds it (`the extra options`, `the tool manifest`).
    Unencodable(&'static str),
}

impl fmt::Display for RequestErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestErrorKind::NotAnObject => {
                f.write_str("the request options are not a JSON object")
            }
            RequestErrorKind::NoModel => {
                f.write_str("the request options name no model (\"model\" is missing or empty)")
            }
            RequestErrorKind::NoMaxOutputTokens => f.write_str(
                "Anthropic requires max_tokens: set max_output_tokens in the request options",
            ),
            RequestErrorKind::BadOption(name, what) => {
                write!(f, "the request option {name} must be {what}")
            }
            RequestErrorKind::Reserved(name) => write!(
                f,
                "the request option {} is one the codec writes itself (from the model, system, \
                 max_output_tokens, the conversation or the manifest)",
                crate::quote::escape_controls(name)
            ),
            RequestErrorKind::BadConversation { index, what } => {
                write!(
                    f,
                    "message {index} of the conversation cannot be sent: {what}"
                )
            }
            RequestErrorKind::Unencodable(part) => {
                write!(
                    f,
                    "a NaN or an infinite number in {part} has no JSON encoding"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests;
