//! Models: the trait, the messages and replies, and the scripted model; composed with
//! the std layer's `ThreadedModel` into the public `model` module (lib.rs).

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::hash::Hash;
use crate::json::Value;
use crate::tools::ToolSpec;

/// One tool call of an assistant turn, with the id the loop gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// `call_<seq>_<index>`: the `seq` of the `assistant` record that asked for the call
    /// and the call's 0-based position in it. Deterministic, and unique in a transcript.
    pub id: String,
    /// The name of the tool asked for (it may name no registered tool).
    pub name: String,
    /// The arguments, as the model gave them.
    pub arguments: Value,
}

#[cfg(feature = "serde")]
impl ToolCall {
    /// The arguments read as an `A` (feature `serde`; see [`crate::json::from_value`]):
    /// for a host that runs the calls an [`crate::agent::Agent`] asks for itself.
    pub fn arguments_as<'a, A: serde::Deserialize<'a>>(
        &'a self,
    ) -> Result<A, crate::json::DeserializeError> {
        crate::json::from_value(&self.arguments)
    }
}

/// One message of the conversation a model is shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The task, as the user's message (always the first message).
    User {
        /// The task text.
        text: String,
    },
    /// A recorded assistant turn.
    Assistant {
        /// The assistant's text.
        text: String,
        /// The calls it asked for, with their ids, in order.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one call: what the tool returned, or the `ok:false` sentence (an
    /// unknown tool, a call over its tool's limit, invalid arguments, a failed tool, a
    /// result lost when a resumed run would not run a call again). After a `resume`, a
    /// call the `stop` left unrun is shown with `not run: the loop stopped (<reason>)`,
    /// which no `tool` record holds.
    Tool {
        /// The id of the call this answers.
        call_id: String,
        /// The tool name the call asked for.
        name: String,
        /// `Ok(value)` as in a `tool` record with `"ok":true`, `Err(sentence)` for
        /// `"ok":false`.
        result: Result<Value, String>,
    },
}

impl Message {
    /// Who speaks, by the role's conventional name: `user`, `assistant` or `tool`.
    pub fn role(&self) -> &'static str {
        match self {
            Message::User { .. } => "user",
            Message::Assistant { .. } => "assistant",
            Message::Tool { .. } => "tool",
        }
    }
}

/// Whether `text` is blank: empty, or nothing but white space — characters for which
/// [`char::is_whitespace`] holds (Unicode's `White_Space`: space, tab, the line
/// breaks, U+00A0, U+3000, …; not U+200B, which Unicode does not count as white
/// space). Anthropic refuses a text block that is blank ("text content blocks must
/// contain non-whitespace text"), so its codec leaves such text out; a blank task asks
/// nothing, so a run refuses one ([`crate::agent::check_task`]).
pub(crate) fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// What a provider reported about a turn besides its text, calls and output tokens.
/// Every member is optional: a scripted model or a C callback reports nothing, and
/// providers leave members out. The loop records what is present in the `assistant`
/// record's `provider` member (docs/format.md).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ProviderReport {
    /// The model the provider says answered (`"model"` in both providers' responses).
    pub model: Option<String>,
    /// The provider's id for the response (`"id"`).
    pub response_id: Option<String>,
    /// Why the provider says generation ended, as it spelled it (OpenAI's
    /// `finish_reason`: `stop`, `length`, `tool_calls`, `content_filter`; Anthropic's
    /// `stop_reason`: `end_turn`, `max_tokens`, `tool_use`, `stop_sequence`, `refusal`).
    pub finish_reason: Option<String>,
    /// Input (prompt) tokens the provider counted for this turn. At most 2^53 − 1.
    pub input_tokens: Option<u64>,
    /// Of those, the tokens the provider read from its prompt cache, when it says.
    pub cached_input_tokens: Option<u64>,
    /// The SHA-256 of the exact request body sent for the turn, when the host knows
    /// it (an HTTP model does; `verify --requests` rebuilds the body from the
    /// transcript and compares).
    pub request_sha256: Option<Hash>,
    /// The SHA-256 of the exact response body the reply was read from, when the host
    /// knows it.
    pub response_sha256: Option<Hash>,
}

impl ProviderReport {
    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        *self == ProviderReport::default()
    }

    /// The same report, with the SHA-256 of the request body sent for the turn.
    pub fn with_request_body(mut self, body: &[u8]) -> ProviderReport {
        self.request_sha256 = Some(Hash::of(body));
        self
    }

    /// The same report, with the SHA-256 of the response body the reply was read from.
    pub fn with_response_body(mut self, body: &[u8]) -> ProviderReport {
        self.response_sha256 = Some(Hash::of(body));
        self
    }
}

/// A model's answer to one turn.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Reply {
    /// The assistant's text (may be empty).
    pub text: String,
    /// The tool calls asked for, in order: `(tool name, arguments)`.
    pub tool_calls: Vec<(String, Value)>,
    /// The turn's real output tokens, when the model reports them; they then replace
    /// the `max(1, chars / 4)` estimate for this turn. At most 2^53 − 1.
    pub output_tokens: Option<u64>,
    /// What the provider reported besides (model, response id, finish reason, input
    /// tokens); empty unless a provider codec filled it in.
    pub provider: ProviderReport,
}

impl Reply {
    /// A reply with this text, no tool calls and no reported tokens.
    pub fn new(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            ..Reply::default()
        }
    }

    /// Adds a tool call.
    pub fn with_call(mut self, name: impl Into<String>, arguments: Value) -> Reply {
        self.tool_calls.push((name.into(), arguments));
        self
    }

    /// Sets the output tokens the model reports for this turn.
    pub fn with_output_tokens(mut self, tokens: u64) -> Reply {
        self.output_tokens = Some(tokens);
        self
    }

    /// Sets what the provider reported besides text, calls and output tokens.
    pub fn with_provider(mut self, report: ProviderReport) -> Reply {
        self.provider = report;
        self
    }
}

/// Why a model produced no reply: a sentence, written into the `stop` record's `error`,
/// and, for a provider's answer, the HTTP status it came with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    message: String,
    status: Option<u16>,
}

impl ModelError {
    /// An error saying `message` (a sentence, e.g. `"the provider returned HTTP 503"`).
    pub fn new(message: impl Into<String>) -> ModelError {
        ModelError {
            message: message.into(),
            status: None,
        }
    }

    /// The same error, noting the HTTP status of the provider's answer.
    pub fn with_status(mut self, status: u16) -> ModelError {
        self.status = Some(status);
        self
    }

    /// The sentence.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status of the provider's answer, when the error came from one.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// Whether trying again may succeed: the provider answered 408 (timeout), 409
    /// (conflict), 429 (rate limited), 529 (overloaded) or any 5xx. Other errors
    /// (401, 404, a malformed body) fail the same way every time.
    pub fn is_retryable(&self) -> bool {
        matches!(self.status, Some(408 | 409 | 429 | 500..=599))
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for ModelError {}

/// A model: maps the conversation so far and the tool manifest to a reply.
///
/// The loop calls it once per turn. It must not depend on anything but its inputs and
/// its own state if transcripts are to be reproducible.
pub trait Model {
    /// The next turn: `messages` is the whole conversation (the task first), `manifest`
    /// the tools on offer, sorted by name.
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError>;

    /// The next turn, as [`Model::reply`], unless the run is cancelled while it is
    /// awaited. The driver ([`crate::driver`]) asks for every turn through this, with
    /// its own `cancel` (the one its check points ask; asking it may count). A model
    /// that waits — on another thread, on the network — may ask `cancel` while it
    /// waits and answer [`Answer::Abandoned`] once it says `true`: the driver then
    /// stops the run as cancelled with no `assistant` record for the turn
    /// ([`crate::agent::Agent::cancel`]). The default asks [`Model::reply`] and never
    /// abandons a turn.
    fn reply_unless_cancelled(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
        cancel: &mut dyn FnMut() -> bool,
    ) -> Answer {
        let _ = cancel;
        Answer::Reply(self.reply(messages, manifest))
    }
}

impl<M: Model + ?Sized> Model for &mut M {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        (**self).reply(messages, manifest)
    }

    fn reply_unless_cancelled(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
        cancel: &mut dyn FnMut() -> bool,
    ) -> Answer {
        (**self).reply_unless_cancelled(messages, manifest, cancel)
    }
}

/// What asking for a turn with [`Model::reply_unless_cancelled`] came to.
// One answer a turn, moved straight into the agent: a boxed reply would cost an
// allocation a turn for nothing (the reply's report holds two optional digests).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The model's reply, or its failure (recorded as `model_error`).
    Reply(Result<Reply, ModelError>),
    /// The run was cancelled while the turn was awaited: the turn is abandoned.
    Abandoned,
}

/// A model that replays a fixed script: each turn takes the next entry, whatever it
/// is shown. When the script runs out, it fails with a [`ModelError`] saying so.
///
/// ```
/// use agentloop_core::model::{Model, Reply, Scripted};
/// let mut model = Scripted::new([Reply::new("hello")]);
/// assert_eq!(model.reply(&[], &[]).unwrap().text, "hello");
/// assert!(model.reply(&[], &[]).is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Scripted {
    script: VecDeque<Result<Reply, ModelError>>,
    served: usize,
}

impl Scripted {
    /// A model that gives these replies, in order.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Scripted {
        Scripted::from_results(replies.into_iter().map(Ok))
    }

    /// A model that gives these replies or failures, in order.
    pub fn from_results(script: impl IntoIterator<Item = Result<Reply, ModelError>>) -> Scripted {
        Scripted {
            script: script.into_iter().collect(),
            served: 0,
        }
    }

    /// How many turns it has answered (replies and failures).
    pub fn served(&self) -> usize {
        self.served
    }

    /// How many entries are left.
    pub fn remaining(&self) -> usize {
        self.script.len()
    }
}

impl Model for Scripted {
    fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
        match self.script.pop_front() {
            Some(entry) => {
                self.served += 1;
                entry
            }
            None => Err(ModelError::new(alloc::format!(
                "the scripted model has no reply left after {} turns",
                self.served
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_replays_then_fails() {
        let mut model = Scripted::from_results([
            Ok(Reply::new("a").with_call("add", Value::Null)),
            Err(ModelError::new("down")),
        ]);
        assert_eq!(model.remaining(), 2);
        let first = model.reply(&[], &[]).unwrap();
        assert_eq!(first.tool_calls, [(String::from("add"), Value::Null)]);
        assert_eq!(model.reply(&[], &[]).unwrap_err().message(), "down");
        let err = model.reply(&[], &[]).unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "the scripted model has no reply left after 2 turns"
        );
        assert_eq!(model.served(), 2);
    }

    #[test]
    fn roles_and_builders() {
        let m = Message::User { text: "t".into() };
        assert_eq!(m.role(), "user");
        let reply = Reply::new("x").with_output_tokens(7);
        assert_eq!(reply.output_tokens, Some(7));
        assert!(reply.tool_calls.is_empty());
    }

    /// A model reached through the `&mut M` impl (as a generic `M: Model`).
    fn reply_through<M: Model>(mut model: M) -> Result<Reply, ModelError> {
        model.reply(&[], &[])
    }

    #[test]
    fn a_borrowed_model_forwards_to_the_model_it_borrows() {
        let mut model = Scripted::new([Reply::new("first"), Reply::new("second")]);
        assert_eq!(reply_through(&mut model).unwrap().text, "first");
        assert_eq!(model.served(), 1);
        assert_eq!(reply_through(&mut model).unwrap().text, "second");
    }

    /// A model that abandons every turn it is asked for through
    /// [`Model::reply_unless_cancelled`] when `cancel` says so.
    struct Abandons;

    impl Model for Abandons {
        fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
            Ok(Reply::new("answered"))
        }

        fn reply_unless_cancelled(
            &mut self,
            messages: &[Message],
            manifest: &[ToolSpec],
            cancel: &mut dyn FnMut() -> bool,
        ) -> Answer {
            match cancel() {
                true => Answer::Abandoned,
                false => Answer::Reply(self.reply(messages, manifest)),
            }
        }
    }

    /// Through the `&mut M` impl, a turn is asked for with the model's own
    /// `reply_unless_cancelled`, not the default (which never abandons).
    #[test]
    fn a_borrowed_model_abandons_a_turn_as_the_model_it_borrows_does() {
        fn ask<M: Model>(mut model: M, cancelled: bool) -> Answer {
            model.reply_unless_cancelled(&[], &[], &mut || cancelled)
        }
        assert_eq!(ask(&mut Abandons, true), Answer::Abandoned);
        assert_eq!(
            ask(&mut Abandons, false),
            Answer::Reply(Ok(Reply::new("answered")))
        );
    }
}
