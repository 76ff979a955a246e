//! Resuming: an [`Agent`] that continues a transcript that stopped early (a crash, a
//! kill, a cancellation) or that ended with `stop`.

use alloc::string::String;
use core::fmt;

use super::follow::{follow, Difference, Tools};
use super::{Agent, BudgetError, Budgets, State};
use crate::audit::{LoopAudit, LoopFinding};
use crate::heap::opaque::opaque_error;
use crate::json::Value;
use crate::tools::Manifest;
use crate::vocabulary::{as_count, task, RecordKind};

opaque_error! {
    /// Why a transcript cannot be resumed. Nothing was produced.
    #[derive(Clone, PartialEq, Eq)]
    pub struct ResumeError(ResumeErrorKind);
}

/// What [`ResumeError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResumeErrorKind {
    /// The budgets were refused.
    Budgets(BudgetError),
    /// The transcript has no records: there is no task to resume (start a run instead).
    Empty,
    /// The records are not a well-formed run of the loop: the audit's first finding
    /// ([`crate::audit`], as `verify --loop` reports it).
    Malformed(LoopFinding),
    /// The `task` record differs from the one the loop writes for the budgets and tool
    /// limits given: a resumed run must use the budgets in force, which the `task`
    /// record states.
    Task(Difference),
    /// A later record is not what the loop writes there with these budgets and tools
    /// (the transcript was written by another program, or with other tools).
    Diverged(Difference),
}

impl fmt::Display for ResumeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeErrorKind::Budgets(e) => write!(f, "the budgets were refused: {e}"),
            ResumeErrorKind::Empty => f.write_str(
                "the transcript has no records, so there is no task to resume; start a run instead",
            ),
            ResumeErrorKind::Malformed(finding) => write!(
                f,
                "the transcript is not a well-formed run of the loop: record {}: {}",
                finding.index, finding.detail
            ),
            ResumeErrorKind::Task(d) => write!(
                f,
                "the task record does not state the budgets and tool limits given (a resumed \
                 run uses the budgets in force): {d}"
            ),
            ResumeErrorKind::Diverged(d) => write!(
                f,
                "the transcript is not what this loop writes with these budgets and tools: {d}"
            ),
        }
    }
}

impl Agent {
    /// An agent that continues the run `records` recorded (parsed records, in order,
    /// the `task` first; verify their chain first, e.g. with [`crate::verify`]).
    ///
    /// The records are audited as a run ([`crate::audit`]; one that ends without a
    /// `stop` is fine), then the loop is driven through them with the recorded model
    /// replies and tool results, checking that it writes each record as recorded. So the
    /// agent has exactly the state the recorded run had: the messages the model was
    /// shown, steps, tokens and tool-call counts (budgets are cumulative over the whole
    /// transcript), each tool's runs, and the next `seq` (call ids go on from it).
    /// `budgets` and the manifest's call limits must be the ones the `task` record
    /// states: there is no record to state other budgets.
    ///
    /// Then, by where the transcript ends:
    /// - after a `stop`: a `resume {"after": reason}` record is pending, and the next
    ///   poll starts a new turn with the usual checks (so after `step_budget` it stops
    ///   again at once). The calls the `stop` left unrun are not run; the model is
    ///   shown each with the result `not run: the loop stopped (<reason>)`;
    /// - in a turn, after its `assistant` record and the `tool` records of its first
    ///   k calls: calls k and after may have been running when the run died (calls of
    ///   a turn may run together — [`Agent::set_parallel`] — and a transcript does
    ///   not say whether they did), so each of them is treated as possibly run. If its
    ///   tool is idempotent ([`crate::tools::Tool::idempotent`]) it is run again like
    ///   any call; if not, it is not run again (its effect may have happened): unless
    ///   one of the deterministic checks refuses it (then it never ran), it gets an
    ///   `ok:false` record whose error says the result was lost (its class is
    ///   [`CallFailure::ResultLost`](crate::vocabulary::CallFailure::ResultLost)) — without asking the
    ///   host's cancellation first, since it reports a call already started — counting against the tool-call budget and its tool's limit,
    ///   and the model decides what to do. [`Agent::in_flight_calls`] names calls k
    ///   and after;
    /// - anywhere else (after the `task`, after a complete turn, after an `assistant`
    ///   record whose `stop` was not written yet): the run just goes on, and what it
    ///   writes is what the uninterrupted run would have written.
    pub fn resume(
        budgets: Budgets,
        manifest: Manifest,
        records: &[Value],
    ) -> Result<Agent, ResumeError> {
        budgets.check().map_err(ResumeErrorKind::Budgets)?;
        let (seq0, task) = audited(records)?;
        let given = manifest.clone();
        let mut agent = Agent::with_first_seq(seq0, task, budgets, manifest)
            .map_err(ResumeErrorKind::Budgets)?;
        follow(&mut agent, records, Tools::Recorded).map_err(|d| match d.index {
            0 => ResumeErrorKind::Task(d),
            _ => ResumeErrorKind::Diverged(d),
        })?;
        // Followed with the tools each recorded setup offered; goes on with the host's.
        agent.swap_manifest(given);
        match &agent.state {
            // The stop is recorded (none is pending): go on after it.
            State::Done(_) if agent.records.is_empty() => agent.reopen(),
            // Every call of the turn with no record may have been running: calls of a
            // turn may run together, and the transcript does not say whether they did.
            State::Calls(turn) => {
                agent.in_flight = turn
                    .calls
                    .get(turn.next..)
                    .unwrap_or_default()
                    .iter()
                    .map(|c| c.id.clone())
                    .collect();
            }
            _ => {}
        }
        Ok(agent)
    }
}

/// Audits `records` as a run (one that ends without a `stop` is fine): the first
/// record's `seq` and task text.
pub(crate) fn audited(records: &[Value]) -> Result<(u64, &str), ResumeError> {
    let Some(first) = records.first() else {
        return Err(ResumeErrorKind::Empty.into());
    };
    let mut audit = LoopAudit::new();
    for record in records {
        audit.push_record(record);
    }
    if let Some(finding) = audit.finish_incomplete().findings.into_iter().next() {
        return Err(ResumeErrorKind::Malformed(finding).into());
    }
    let field = |key: &str| first.as_object().and_then(|o| o.get(key));
    let seq0 = field("seq").and_then(Value::as_f64).and_then(as_count);
    let task = field("payload").and_then(|p| task::text(p).ok());
    match (seq0, task) {
        (Some(seq0), Some(task)) => Ok((seq0, task)),
        _ => Err(ResumeErrorKind::Malformed(LoopFinding {
            index: 0,
            detail: String::from(
                "the task record needs a seq (an integer from 0 to 2^53-1) and a task string",
            ),
        })
        .into()),
    }
}

/// The budgets a `task` record states (`max_steps`, `max_tokens`, `max_tool_calls`,
/// `max_total_tokens`, `stop_sentinel`; `tool_limits` belong to the tools), for a host that resumes or
/// replays a transcript with the budgets it was written with. `None` when the record
/// is not a `task` record whose budgets are an object of counts and a string; members
/// the loop does not write are left out here, so the task record that
/// [`Agent::resume`] compares then differs.
pub(crate) fn recorded_budgets(task: &Value) -> Option<Budgets> {
    let record = task.as_object()?;
    if RecordKind::from_name(record.get("kind")?.as_str()?) != Some(RecordKind::Task) {
        return None;
    }
    task::recorded_budgets(record.get("payload")?).ok()
}
