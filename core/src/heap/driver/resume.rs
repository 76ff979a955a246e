//! Continuing a transcript ([`resume`]) and running its tools again ([`replay`]).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::{call_tool, drive, Io, RunError, RunOptions};
use crate::agent::follow::{follow, Tools};
use crate::agent::resume::audited;
use crate::agent::{recorded_budgets, Agent, Budgets, Difference, Outcome, ResumeError};
use crate::anchor::Anchor;
use crate::audit::LoopFinding;
use crate::chain::Chain;
use crate::export::parse_records;
use crate::json::{ParseError, Value};
use crate::model::Model;
use crate::sink::RecordSink;
use crate::tools::Toolbox;
use crate::verify::{self, Fault, Options};

/// Why a transcript could not be resumed or replayed, or a resumed run not carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeRunError {
    /// The transcript does not verify (strictly, from its anchor): its first fault. A
    /// torn last line must be repaired first; a rewritten record is not continued.
    Transcript(Box<Fault>),
    /// A line verified but could not be read as a record (0-based index).
    Unreadable(usize, ParseError),
    /// The records cannot be resumed or replayed.
    Resume(ResumeError),
    /// The resumed run could not be carried out; the transcript ends at the last line
    /// the sink took.
    Run(RunError),
}

impl fmt::Display for ResumeRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeRunError::Transcript(fault) => {
                write!(f, "the transcript does not verify: {fault}")
            }
            ResumeRunError::Unreadable(index, e) => {
                write!(f, "record {index} cannot be read: {e}")
            }
            ResumeRunError::Resume(e) => write!(f, "{e}"),
            ResumeRunError::Run(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for ResumeRunError {}

/// Continues `transcript` (a whole transcript starting at seq 0), appending each new
/// line to `sink` — which must append to the same file. See [`resume_anchored`].
pub fn resume(
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, ResumeRunError> {
    resume_anchored(
        Anchor::GENESIS,
        transcript,
        budgets,
        model,
        toolbox,
        cancel,
        sink,
    )
}

/// Continues `transcript`, whose chain starts at `anchor`: verifies it (strictly; any
/// fault, a torn last line included, refuses it), rebuilds the run with
/// [`Agent::resume`] (which says what happens at each place a run can end) and runs it
/// on from there, continuing the chain from the last record's `seq` and `hash`, until
/// it stops. `budgets` and the toolbox's call limits must be those the `task` record
/// states. The model is shown the conversation the interrupted run had reached, so a
/// model that answers by what it is shown gives the answers it would have given: where
/// no call was in flight (or their tools are idempotent) the resumed file is byte for byte
/// the file the uninterrupted run writes.
pub fn resume_anchored(
    anchor: Anchor,
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, ResumeRunError> {
    resume_anchored_with(
        anchor,
        transcript,
        budgets,
        model,
        toolbox,
        cancel,
        sink,
        RunOptions::default(),
    )
}

/// [`resume`], running the calls of a turn as `options` say
/// ([`RunOptions::parallel`]); the calls of an interrupted turn left to run (its
/// unrecorded calls of idempotent tools) are a batch like any other.
pub fn resume_with(
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, ResumeRunError> {
    resume_anchored_with(
        Anchor::GENESIS,
        transcript,
        budgets,
        model,
        toolbox,
        cancel,
        sink,
        options,
    )
}

/// [`resume_anchored`], running the calls of a turn as `options` say
/// ([`RunOptions::parallel`]).
#[allow(clippy::too_many_arguments)]
pub fn resume_anchored_with(
    anchor: Anchor,
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, ResumeRunError> {
    let (records, mut chain) = read(anchor, transcript)?;
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::resume(budgets, manifest, &records).map_err(ResumeRunError::Resume)?;
    let mut sink = sink;
    let io = Io {
        log: &mut chain,
        model,
        toolbox,
        cancel,
        records: &mut sink,
    };
    drive(&mut agent, io, options).map_err(ResumeRunError::Run)
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
/// it. The budgets are those the `task` record states ([`recorded_budgets`]); the
/// toolbox's call limits must be too (if not, the difference is record 0).
pub fn replay(transcript: &[u8], toolbox: &mut Toolbox) -> Result<ReplayReport, ResumeRunError> {
    let (records, _) = read(Anchor::GENESIS, transcript)?;
    let (seq0, task) = audited(&records).map_err(ResumeRunError::Resume)?;
    let budgets = records.first().and_then(recorded_budgets).ok_or_else(|| {
        ResumeRunError::Resume(ResumeError::Malformed(LoopFinding {
            index: 0,
            detail: String::from(
                "the task record's budgets are not the counts and sentinel the loop writes",
            ),
        }))
    })?;
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::with_first_seq(seq0, task, budgets, manifest)
        .map_err(|e| ResumeRunError::Resume(ResumeError::Budgets(e)))?;
    let mut run = |call: &crate::model::ToolCall| call_tool(toolbox, call);
    let difference = follow(&mut agent, &records, Tools::Run(&mut run)).err();
    Ok(ReplayReport {
        records: records.len() as u64,
        difference,
    })
}

/// Verifies and parses a transcript; the chain that continues it.
fn read(anchor: Anchor, transcript: &[u8]) -> Result<(Vec<Value>, Chain), ResumeRunError> {
    let options = Options {
        anchor,
        ..Options::default()
    };
    let report = verify::verify_bytes(transcript, &options);
    if let Some(fault) = report.faults.into_iter().next() {
        return Err(ResumeRunError::Transcript(Box::new(fault)));
    }
    let records =
        parse_records(transcript).map_err(|e| ResumeRunError::Unreadable(e.index, e.error))?;
    let chain = Chain::from_anchor(Anchor {
        seq0: anchor.seq0.saturating_add(report.count),
        prev0: report.head.unwrap_or(anchor.prev0),
    });
    Ok((records, chain))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    use crate::agent::Difference;
    use crate::sink::SinkError;

    #[test]
    fn resume_errors_say_why() {
        let run = ResumeRunError::Run(RunError::Sink(SinkError::Full)).to_string();
        assert_eq!(run, RunError::Sink(SinkError::Full).to_string());
        let empty = ResumeRunError::Resume(ResumeError::Empty);
        assert_eq!(empty.to_string(), ResumeError::Empty.to_string());
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
