//! A transcript as an OpenAI Chat Completions or an Anthropic Messages history.
//!
//! The records are read back into the conversation the loop showed its model
//! ([`Message`](crate::model::Message)s), which the provider codecs
//! ([`Provider::messages`]) then write: one encoder serves a live request and an export. Both follow the
//! providers' pairing rules: every tool call gets exactly one result, in call order,
//! right after the assistant message that asked for it; a call the loop left unrun gets
//! the synthetic result [`not_run_sentence`](crate::vocabulary::not_run_sentence). A call name outside
//! `^[a-zA-Z0-9_-]{1,64}$` — one a model made up, which the loop answered `ok:false` —
//! is written as [`provider_safe_name`](crate::tools::provider_safe_name) maps it,
//! since providers refuse a history that holds it; every registered tool's name is
//! written unchanged.

use super::conversation::{read, HistoryError};
use crate::json::Value;
use crate::provider::Provider;

/// The transcript as `provider`'s `messages` array, written by [`Provider::messages`]
/// (for OpenAI with no system message).
///
/// **OpenAI Chat Completions**:
///
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
/// name outside `^[a-zA-Z0-9_-]{1,64}$` is written as
/// [`provider_safe_name`](crate::tools::provider_safe_name) maps it.
///
/// **Anthropic Messages**:
///
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
/// that was not run. A text block is left out when its text is empty or only white
/// space (only white space; a blank task too), and a message left
/// with no blocks is left out altogether (the API refuses text without a character
/// other than white space, and empty content). Arguments that are not an object (a
/// model may send any JSON) are wrapped as `{"arguments": <value>}`, since `input` must
/// be an object; a call name outside `^[a-zA-Z0-9_-]{1,64}$` is written as
/// [`provider_safe_name`](crate::tools::provider_safe_name) maps it. Messages
/// alternate between `user` and `assistant`: two of the same role in a row (a turn
/// after a `resume`, say) are merged into one. A history is a record of what was said,
/// so one that ends with an assistant message is given as it is (a request refuses it:
/// see [`Provider::Anthropic`]).
pub fn history(provider: Provider, records: &[Value]) -> Result<Value, HistoryError> {
    let conversation = read(records)?;
    Ok(provider.messages(&conversation.messages()))
}
