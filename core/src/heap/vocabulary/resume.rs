//! The `resume` payload: `{"after": reason}`, the reason of the `stop` the run goes on
//! after.

use super::member::AFTER;
use super::read::{object, Members};
use super::stop::reason;
use super::{PayloadError, RecordKind, StopReason};
use crate::json::Value;

/// A run goes on after a `stop`, as its `resume` record states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumePayload {
    /// The reason of the `stop` record it follows.
    pub after: StopReason,
}

impl ResumePayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        object([(AFTER, Value::from(self.after.as_str()))])
    }

    /// Reads a `resume` payload.
    pub fn decode(payload: &Value) -> Result<ResumePayload, PayloadError> {
        let members = Members::of(RecordKind::Resume, payload)?;
        Ok(ResumePayload {
            after: reason(members, AFTER)?,
        })
    }
}
