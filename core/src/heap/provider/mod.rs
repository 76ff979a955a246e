//! Provider codecs: the live conversation as a provider's request body, and the
//! provider's response as a [`Reply`] — no I/O, so a Rust program, a C host or an
//! embedded runtime does only the HTTP.
//!
//! One module per wire format: [`openai`] (OpenAI Chat Completions, which
//! OpenAI-compatible servers also speak) and [`anthropic`] (Anthropic Messages). Each
//! has `request(messages, manifest, options) -> body`, `messages(…)` (the conversation
//! as the provider's `messages` array) and `parse(status, body, secret) ->
//! Result<Reply, ModelError>`; [`Provider`] picks one at run time. The transcript exports
//! ([`crate::export::openai_messages`], [`crate::export::anthropic_messages`]) read
//! the records back into the same [`Message`]s and go through the same `messages`, so
//! a live request and an export of its transcript write the conversation alike.
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
//! whole key, then any run of 8 of its characters the cut or the provider left
//! ([`crate::redact`]).
//!
//! A third wire format (Gemini, say) is a module with the same three functions and a
//! [`Provider`] variant; the shared checks and response reading are in a private
//! module both codecs use.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::heap::opaque::opaque_error;
use crate::json::{Object, Value};
use crate::model::{Message, ModelError, Reply};
use crate::tools::ToolSpec;

pub mod anthropic;
mod common;
mod manifest;
pub mod openai;

pub use manifest::{anthropic_tools, mcp_tools, openai_tools};

/// A wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAi,
    /// Anthropic Messages (`POST /v1/messages`).
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
    /// redacted before it is cut to its bound ([`crate::redact::bounded`]), so no run
    /// of 8 of its characters reaches the sentence. Never panics, whatever the bytes.
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
