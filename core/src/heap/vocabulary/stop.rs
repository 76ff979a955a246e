//! The `stop` payload: `{"reason", "steps", "tokens", "unrun_calls"}`, plus `error`
//! for `model_error`.

use alloc::string::String;

use super::member::{ERROR, REASON, STEPS, TOKENS, UNRUN_CALLS};
use super::read::{number, object, Members};
use super::{PayloadError, RecordKind, StopReason};
use crate::json::Value;

/// Why a run stopped, as its `stop` record states it (the outcome of a run,
/// [`crate::agent::Outcome`], but for the tool-call count, which no record states).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopPayload {
    /// Why it stopped.
    pub reason: StopReason,
    /// Assistant turns recorded.
    pub steps: u64,
    /// Tokens counted, summed over turns.
    pub tokens: u64,
    /// Calls of the last turn that got no `tool` record.
    pub unrun_calls: u64,
    /// For [`StopReason::ModelError`]: the model's error sentence.
    pub error: Option<String>,
}

const KIND: RecordKind = RecordKind::Stop;

impl StopPayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        let mut members = alloc::vec![
            (REASON, Value::from(self.reason.as_str())),
            (STEPS, number(self.steps)),
            (TOKENS, number(self.tokens)),
            (UNRUN_CALLS, number(self.unrun_calls)),
        ];
        if let Some(error) = &self.error {
            members.push((ERROR, Value::from(error.as_str())));
        }
        object(members)
    }

    /// Reads a `stop` payload.
    pub fn decode(payload: &Value) -> Result<StopPayload, PayloadError> {
        let members = Members::of(KIND, payload)?;
        Ok(StopPayload {
            reason: reason(members, REASON)?,
            steps: members.count(STEPS, STEPS)?,
            tokens: members.count(TOKENS, TOKENS)?,
            unrun_calls: members.count(UNRUN_CALLS, UNRUN_CALLS)?,
            error: members.opt_string(ERROR, ERROR)?,
        })
    }
}

/// What a reason must be.
const A_REASON: &str = "a stop reason (no_tool_calls, sentinel, step_budget, token_budget, \
                        model_error, tool_budget or cancelled)";

/// The stop reason member `key` (of a `stop` or `resume` payload).
pub(crate) fn reason(members: Members<'_>, key: &'static str) -> Result<StopReason, PayloadError> {
    let name = members.string(key, key)?;
    StopReason::from_name(name).ok_or(members.malformed(key, A_REASON))
}
