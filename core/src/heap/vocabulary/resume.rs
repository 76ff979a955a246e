//! The `resume` payload: `{"after": reason}`, the reason of the `stop` the run goes on
//! after, and, when the run goes on with another setup (format 2, asked for), `setup`:
//! the setup in force from there on.

use super::member::{AFTER, SETUP};
use super::read::{object, Members};
use super::stop::reason;
use super::{PayloadError, RecordKind, Setup, StopReason};
use crate::json::Value;

/// A run goes on after a `stop`, as its `resume` record states it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumePayload {
    /// The reason of the `stop` record it follows.
    pub after: StopReason,
    /// The setup the run goes on with, when it was changed on purpose (`setup`;
    /// absent: the setup in force before it stays).
    pub setup: Option<Setup>,
}

impl ResumePayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        let mut members = alloc::vec![(AFTER, Value::from(self.after.as_str()))];
        if let Some(setup) = &self.setup {
            members.push((SETUP, setup.encode()));
        }
        object(members)
    }

    /// Reads a `resume` payload.
    pub fn decode(payload: &Value) -> Result<ResumePayload, PayloadError> {
        let members = Members::of(RecordKind::Resume, payload)?;
        let setup = match members.optional(SETUP) {
            None => None,
            Some(setup) => Some(Setup::decode(setup).map_err(|e| e.of_kind(RecordKind::Resume))?),
        };
        Ok(ResumePayload {
            after: reason(members, AFTER)?,
            setup,
        })
    }
}
