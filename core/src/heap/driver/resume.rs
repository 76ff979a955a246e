//! Why a transcript could not be opened to resume or replay its run ([`OpenError`]),
//! and running its tools again ([`replay`]).

use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;

use super::call_tool;
use super::Resumable;
use crate::agent::follow::{follow, Tools};
use crate::agent::resume::audited;
use crate::agent::{recorded_budgets, Agent, Difference, ResumeError, ResumeErrorKind};
use crate::anchor::Anchor;
use crate::audit::LoopFinding;
use crate::heap::opaque::opaque_error;
use crate::json::ParseError;
use crate::tools::Toolbox;
use crate::verify::Fault;

opaque_error! {
    /// Why a transcript could not be opened to resume or replay its run. Nothing was
    /// produced.
    #[derive(Clone, PartialEq, Eq)]
    pub struct OpenError(OpenErrorKind);
}

impl OpenError {
    /// Whether a line verified but could not be read as a record (the C ABI's
    /// `INVALID_JSON`); otherwise the transcript does not verify, or its records cannot
    /// be resumed or replayed.
    pub fn unreadable(&self) -> bool {
        matches!(self.0, OpenErrorKind::Unreadable(..))
    }
}

/// What [`OpenError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OpenErrorKind {
    /// The transcript does not verify (strictly, from its anchor): its first fault. A
    /// torn last line must be repaired first; a rewritten record is not continued.
    Transcript(Box<Fault>),
    /// A line verified but could not be read as a record (0-based index).
    Unreadable(usize, ParseError),
    /// The records cannot be resumed or replayed.
    Resume(ResumeError),
}

impl fmt::Display for OpenErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenErrorKind::Transcript(fault) => {
                write!(f, "the transcript does not verify: {fault}")
            }
            OpenErrorKind::Unreadable(index, e) => {
                write!(f, "record {index} cannot be read: {e}")
            }
            OpenErrorKind::Resume(e) => write!(f, "{e}"),
        }
    }
}

/// What [`replay`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    /// Records in the transcript.
    pub records: u64,
    /// The first record the replay does not write as recorded, if any.
    pub difference: Option<Difference>,
}

impl ReplayReport {
    /// Whether every record came out as recorded.
    pub fn same(&self) -> bool {
        self.difference.is_none()
    }
}

/// Runs `transcript` (a whole transcript from seq 0) again: the loop is driven with the
/// recorded model replies (text, calls and tokens), the recorded cancellations and
/// model failures, and `toolbox`'s real tools, and each record it writes is compared
/// with the recorded one — kind, payload and seq, whose equality makes the chained
/// lines equal byte for byte. The report names the first record that differs (for
/// catching a nondeterministic tool). A `result lost` record of a tool that is not
/// idempotent is taken as recorded: no tool gave it. The replay ends at the
/// transcript's last record, or at the first difference: the tools are not run after
/// it. The budgets are those the `task` record states ([`Resumable::stated`]); the
/// toolbox's call limits must be too (if not, the difference is record 0).
pub fn replay(transcript: &[u8], toolbox: &mut Toolbox) -> Result<ReplayReport, OpenError> {
    let read = Resumable::read(Anchor::GENESIS, transcript)?;
    let records = read.records();
    let (seq0, task) = audited(records).map_err(OpenErrorKind::Resume)?;
    let budgets = records.first().and_then(recorded_budgets).ok_or_else(|| {
        OpenErrorKind::Resume(
            ResumeErrorKind::Malformed(LoopFinding {
                index: 0,
                detail: String::from(
                    "the task record's budgets are not the counts and sentinel the loop writes",
                ),
            })
            .into(),
        )
    })?;
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::with_first_seq(seq0, task, budgets, manifest)
        .map_err(|e| OpenErrorKind::Resume(ResumeErrorKind::Budgets(e).into()))?;
    let mut run = |call: &crate::model::ToolCall| call_tool(toolbox, call);
    let difference = follow(&mut agent, records, Tools::Run(&mut run)).err();
    Ok(ReplayReport {
        records: records.len() as u64,
        difference,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    use crate::agent::Difference;

    #[test]
    fn open_errors_say_why() {
        let empty = OpenErrorKind::Resume(ResumeErrorKind::Empty.into());
        assert_eq!(empty.to_string(), ResumeErrorKind::Empty.to_string());
        assert!(!empty.to_string().is_empty());
    }

    #[test]
    fn a_replay_is_the_same_only_without_a_difference() {
        let same = ReplayReport {
            records: 3,
            difference: None,
        };
        assert!(same.same());
        let differs = ReplayReport {
            records: 3,
            difference: Some(Difference {
                index: 2,
                seq: Some(2),
                expected: String::from("{}"),
                found: String::from("[]"),
            }),
        };
        assert!(!differs.same());
    }
}
