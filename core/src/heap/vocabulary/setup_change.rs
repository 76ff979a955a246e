//! The `setup` payload: `{"setup": {…}, "reason": "tools_changed"}`, written between
//! turns when the setup changes during a run (an MCP server's tool list changed): the
//! whole setup in force from there on, and why it changed.

use super::member::{REASON, SETUP};
use super::read::{object, Members};
use super::{PayloadError, PayloadErrorKind, RecordKind, Setup};
use crate::json::Value;

/// Why a run's setup changed between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SetupReason {
    /// The tools on offer changed (an MCP server said its tool list changed, and
    /// listing it again gave other tools).
    ToolsChanged,
}

impl SetupReason {
    /// Every reason.
    pub const ALL: [SetupReason; 1] = [SetupReason::ToolsChanged];

    /// The name written in the `setup` record.
    pub fn as_str(self) -> &'static str {
        match self {
            SetupReason::ToolsChanged => "tools_changed",
        }
    }

    /// The reason with this name, if any.
    pub fn from_name(name: &str) -> Option<SetupReason> {
        SetupReason::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl core::fmt::Display for SetupReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a `setup` record states: the setup in force from there on (whole, not a
/// difference: a reader needs no replay to know the setup of a turn) and why it
/// changed.
///
/// ```
/// use agentloop_core::json::parse;
/// use agentloop_core::vocabulary::{SetupPayload, SetupReason};
///
/// let payload = parse(br#"{"reason":"tools_changed","setup":{"tools":[]}}"#).unwrap();
/// let changed = SetupPayload::decode(&payload).unwrap();
/// assert_eq!(changed.reason, SetupReason::ToolsChanged);
/// assert!(changed.setup.tools.is_empty());
/// assert_eq!(changed.encode(), payload);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SetupPayload {
    /// The setup in force from this record on.
    pub setup: Setup,
    /// Why it changed.
    pub reason: SetupReason,
}

const KIND: RecordKind = RecordKind::Setup;

/// What a reason must be.
const A_REASON: &str = "a setup change reason (tools_changed)";

impl SetupPayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        object([
            (REASON, Value::from(self.reason.as_str())),
            (SETUP, self.setup.encode()),
        ])
    }

    /// Reads a `setup` payload.
    pub fn decode(payload: &Value) -> Result<SetupPayload, PayloadError> {
        let members = Members::of(KIND, payload)?;
        let name = members.string(REASON, REASON)?;
        let reason = SetupReason::from_name(name).ok_or(members.malformed(REASON, A_REASON))?;
        let setup = members.optional(SETUP).ok_or(PayloadErrorKind::Missing {
            kind: KIND,
            member: SETUP,
        })?;
        let setup = Setup::decode(setup).map_err(|e| e.of_kind(KIND))?;
        Ok(SetupPayload { setup, reason })
    }
}
