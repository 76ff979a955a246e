//! A blocking driver: runs an [`Agent`] against a [`Model`] and a [`Toolbox`],
//! appending each record to a [`Log`] (an in-memory [`Chain`], or a file's durable
//! writer), which builds and hashes its line once, and handing the line to an
//! [`OnRecord`] (every [`RecordSink`] is one).
//!
//! Two entry points: [`run`] runs a task on a new chain into a sink; [`drive`] runs an
//! [`Agent`] the host made — new ([`Agent::with_first_seq`]) or resumed ([`Resumable::read`]
//! a transcript, then [`Resumable::resume`]; or [`Agent::resume`]) — with what [`Io`] gives.
//!
//! ```
//! use agentloop_core::agent::{Budgets, StopReason};
//! use agentloop_core::{demo, driver, model::{Reply, Scripted}, verify};
//!
//! let mut model = Scripted::new([Reply::new("nothing to do")]);
//! let mut tools = demo::toolbox().unwrap();
//! let mut transcript = Vec::new();
//! let outcome = driver::run("idle", Budgets::default(), &mut model, &mut tools,
//!                           &mut || false, &mut transcript,
//!                           driver::RunOptions::default()).unwrap();
//! assert_eq!(outcome.reason, StopReason::NoToolCalls);
//! assert!(verify::verify_bytes(&transcript, &verify::Options::default()).ok());
//! ```
//!
//! With [`RunOptions::parallel`] above 1, the calls of a turn are handed out in call
//! order ([`Agent::set_parallel`]) as they can start, up to that many at once: a call
//! to a concurrent tool ([`crate::tools::ToolOptions::concurrent`]) on a worker thread
//! when one is free, any other on the driver's thread. Each call's check point —
//! `cancel` asked, then the budgets and the call's checks — comes just before it is
//! handed out, as one at a time; records are written in call order as the results come
//! in, so the transcript is the same bytes as with `parallel: 1`. Once `cancel` says
//! `true`, no other call starts: the calls running finish and are recorded, and the
//! run stops with the calls not started unrun.
//!
//! ```
//! use agentloop_core::agent::Budgets;
//! use agentloop_core::{demo, driver, model::Scripted};
//!
//! let scenario = demo::recover();
//! let (one_at_a_time, _) = scenario.run().unwrap();
//! let mut transcript = Vec::new();
//! driver::run(scenario.task, scenario.budgets.clone(),
//!             &mut Scripted::new(scenario.replies.clone()),
//!             &mut demo::toolbox().unwrap(), &mut || false, &mut transcript,
//!             driver::RunOptions { parallel: 8 }).unwrap();
//! assert_eq!(transcript, one_at_a_time);
//! ```
//!
//! [`drive`] appends each record to its [`Log`] (built and hashed there, once — a
//! [`Chain`] in memory, or a file's `durable::Writer`), then hands it to an
//! [`OnRecord`] as logged, with the run's [`Counts`] as of it (to keep the line
//! elsewhere and show progress), and asks for each turn with
//! [`Model::reply_unless_cancelled`], so a model that waits elsewhere (on its own
//! thread, on the network) can abandon the turn when `cancel` says so and the run
//! stops as cancelled at once. `agentloop run` is this driver.
//!
//! [`Resumable::read`] reads a transcript that stopped early or ended with `stop`, and
//! [`Resumable::resume`] makes the agent for [`drive`] to continue ([`Agent::resume`]
//! says how), and [`replay`] runs a transcript's tools
//! again to find the first record a nondeterministic tool changes.
//!
//! With `std`, a tool that panics is caught (`std::panic::catch_unwind`) and recorded
//! as `tool '<name>' failed: panicked: <message>`; the process's panic hook still runs
//! (by default it prints the panic to stderr), and a build with `panic = "abort"`
//! cannot catch anything.

mod calls;
mod resumable;
mod resume;

pub(crate) use calls::call_tool;
use calls::run_calls;
pub use resumable::Resumable;
pub(crate) use resume::OpenErrorKind;
pub use resume::{replay, OpenError, ReplayReport};

use core::fmt;

use crate::agent::{
    Agent, BudgetError, Budgets, FeedError, Need, Outcome, Record, RecordKind, SetupError,
};
use crate::chain::{AppendError, Chain, Log, LogError, Logged};
use crate::model::{Answer, Model};
use crate::sink::{RecordSink, SinkError};
use crate::tools::Toolbox;
use crate::vocabulary::Setup;

/// Why a run could not be carried out (the model's and tools' failures are not
/// errors: they are recorded, and the run stops or goes on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The budgets were refused before anything was written.
    Budgets(BudgetError),
    /// The chain refused a record (its seq passed 2^53 − 1).
    Append(AppendError),
    /// The sink did not take a line; the transcript ends before it.
    Sink(SinkError),
    /// The driver fed the agent out of turn (a bug in the driver, reported, not panicked).
    Feed(FeedError),
    /// A change of setup between turns was refused ([`Io::changes`]).
    Setup(SetupError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Budgets(e) => write!(f, "the budgets were refused: {e}"),
            RunError::Append(e) => write!(f, "a record could not be appended: {e}"),
            RunError::Sink(e) => write!(f, "a record could not be written: {e}"),
            RunError::Feed(e) => write!(f, "the driver fed the loop out of turn: {e}"),
            RunError::Setup(e) => write!(f, "the tools could not change between turns: {e}"),
        }
    }
}

impl core::error::Error for RunError {}

/// How the driver runs the calls of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Most calls of a turn run at once. 1 (the default; 0 is taken as 1): one at a
    /// time. Above 1: the calls are handed out in call order as they can start
    /// ([`Agent::set_parallel`]), each after its check point (`cancel` asked, then the
    /// budgets and the call's checks, as one at a time): a call to a concurrent tool
    /// ([`crate::tools::ToolOptions::concurrent`]) on one of up to `parallel - 1` worker
    /// threads when one is free, any other call on the driver's thread. Records are
    /// written in call order as results come in, so the transcript is the same bytes.
    /// Once `cancel` says `true`, no other call starts: the calls running finish and
    /// are recorded, and the run stops as cancelled with the rest unrun, as one at a
    /// time. Without the `std` feature there are no threads: calls run one at a time.
    pub parallel: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { parallel: 1 }
    }
}

/// Runs `task` to its end on a new chain (seq 0, prev = zeros), each record's line
/// going to `sink` before the run goes on — before the model, a tool or `cancel` is
/// called again. `cancel` is asked at every check point (before each turn and before
/// each call); answering `true` stops the run with `cancelled`. To continue another
/// log (a file's durable writer, an anchored chain) or a resumed run, make the
/// [`Agent`] and call [`drive`].
pub fn run(
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::new(task, budgets, manifest).map_err(RunError::Budgets)?;
    let mut sink = sink;
    let io = Io {
        log: &mut Chain::new(),
        model,
        toolbox,
        cancel,
        records: &mut sink,
        changes: None,
    };
    drive(&mut agent, io, options)
}

/// The run's counts as of a record, that record included: what the budgets bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Assistant turns recorded ([`Agent::steps`]).
    pub steps: u64,
    /// Output tokens counted ([`Agent::tokens`]).
    pub tokens: u64,
    /// Tokens in and out counted ([`Agent::total_tokens`]).
    pub total_tokens: u64,
    /// `tool` records written ([`Agent::tool_calls`]).
    pub tool_calls: u64,
}

/// What [`drive`] tells of each record once the log appended it: the record, as
/// logged (its line, `seq` and hash) and the run's counts as of it — to keep the line
/// somewhere else too and show progress. Every [`RecordSink`] is one (it takes the
/// line).
pub trait OnRecord {
    /// Takes `record`, appended as `logged` (its canonical line, `\n` included), with
    /// the counts as of it. Called in transcript order, each record before the model,
    /// a tool or `cancel` is called again. An error stops the run
    /// ([`RunError::Sink`]).
    fn on_record(
        &mut self,
        record: &Record,
        logged: &Logged<'_>,
        counts: Counts,
    ) -> Result<(), SinkError>;
}

impl<S: RecordSink + ?Sized> OnRecord for S {
    fn on_record(&mut self, _: &Record, logged: &Logged<'_>, _: Counts) -> Result<(), SinkError> {
        self.record(logged.line)
    }
}

/// What [`drive`] calls out to.
pub struct Io<'a> {
    /// The log the records continue, which builds and hashes each line: its next `seq`
    /// is the agent's ([`Agent::next_seq`]), its head the last record's hash.
    pub log: &'a mut dyn Log,
    /// The model, asked for each turn with [`Model::reply_unless_cancelled`].
    pub model: &'a mut dyn Model,
    /// The tools; the agent's manifest must be this toolbox's.
    pub toolbox: &'a mut Toolbox,
    /// Asked at every check point ([`RunOptions::parallel`] says which), and handed to
    /// the model while a turn is awaited; `true` stops the run with `cancelled`.
    pub cancel: &'a mut dyn FnMut() -> bool,
    /// Takes each record.
    pub records: &'a mut dyn OnRecord,
    /// Asked each time the model is about to be asked whether the tools changed (an
    /// MCP server's list did; [`ChangeSetup`]); `None` for tools that never change.
    pub changes: Option<&'a mut ChangeSetup<'a>>,
}

impl fmt::Debug for Io<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Io")
            .field("next", &self.log.next())
            .field("toolbox", &self.toolbox)
            .finish_non_exhaustive()
    }
}

/// What a host that may change the tools between turns gives [`drive`] ([`Io::changes`]):
/// asked with the toolbox in use each time the model is about to be asked, it answers
/// `None` (no change) or the toolbox to use from then on and the setup that states
/// it (its tools those of the toolbox's manifest, in order).
pub type ChangeSetup<'a> = dyn FnMut(&Toolbox) -> Option<(Toolbox, Setup)> + 'a;

/// Runs `agent` — new ([`Agent::with_first_seq`]) or resumed ([`Resumable::resume`],
/// [`Agent::resume`]) — to its end: writes its pending records, then answers each
/// need, running the calls of a turn as `options` say. Each record is appended to
/// `io.log` and handed to `io.records` before the model, a tool or `cancel` is called
/// again (the records of calls running together follow their results, in call order).
/// A turn the model abandons ([`Answer::Abandoned`]: the run was cancelled while it was
/// awaited) stops the run as cancelled ([`Agent::cancel`]). The bytes written are the
/// same whatever `options` say.
///
/// With [`Io::changes`], the host is asked before each request to the model whether
/// the tools changed (an MCP server's list did): a change is made with
/// [`Agent::change_setup`] (its `setup` record written before the request that offers
/// the new tools) and the new toolbox runs the calls from then on. A change the agent
/// refuses stops the driver with [`RunError::Setup`], the old toolbox kept.
pub fn drive(agent: &mut Agent, mut io: Io<'_>, options: RunOptions) -> Result<Outcome, RunError> {
    loop {
        write_records(agent, &mut io)?;
        agent.set_parallel(1);
        match agent.poll(io.cancel) {
            Need::ModelReply { .. } => ask_model(agent, &mut io)?,
            Need::ToolResults { .. } => run_calls(agent, &mut io, options.parallel)?,
            // Written at the top of the loop, before the next poll.
            Need::TakeRecords => {}
            Need::Done(outcome) => {
                write_records(agent, &mut io)?;
                return Ok(outcome);
            }
        }
    }
}

/// The model is about to be asked: first [`Io::changes`] says whether the tools changed
/// (then the `setup` record is pending, written at the top of [`drive`]'s loop before
/// the model is asked with the new tools); if not, the model is asked.
fn ask_model(agent: &mut Agent, io: &mut Io<'_>) -> Result<(), RunError> {
    let change = match io.changes.as_deref_mut() {
        Some(changes) => changes(io.toolbox),
        None => None,
    };
    if let Some((toolbox, setup)) = change {
        let manifest = toolbox.manifest().clone();
        agent
            .change_setup(manifest, setup)
            .map_err(RunError::Setup)?;
        *io.toolbox = toolbox;
        return Ok(());
    }
    // Awaiting a reply is no check point: this poll asks nothing and returns the need.
    let Need::ModelReply { messages, manifest } = agent.poll(io.cancel) else {
        return Ok(());
    };
    match io
        .model
        .reply_unless_cancelled(messages, manifest, io.cancel)
    {
        Answer::Reply(reply) => agent.feed_reply(reply).map_err(RunError::Feed),
        Answer::Abandoned => {
            agent.cancel();
            Ok(())
        }
    }
}

/// Appends the agent's pending records to the chain and hands each to the records,
/// with the counts as of it: those of the agent, less the records taken with it that
/// come after it (a batch's `tool` records come out together; an `assistant` record
/// is always taken before the next one is made).
fn write_records(agent: &mut Agent, io: &mut Io<'_>) -> Result<(), RunError> {
    let records = agent.take_records();
    let taken = |kind: RecordKind| records.iter().filter(|r| r.kind == kind).count() as u64;
    let mut later_tools = taken(RecordKind::Tool);
    let mut later_turns = taken(RecordKind::Assistant);
    for record in &records {
        match record.kind {
            RecordKind::Tool => later_tools = later_tools.saturating_sub(1),
            RecordKind::Assistant => later_turns = later_turns.saturating_sub(1),
            _ => {}
        }
        let counts = Counts {
            steps: agent.steps().saturating_sub(later_turns),
            tokens: agent.tokens(),
            total_tokens: agent.total_tokens(),
            tool_calls: agent.tool_calls().saturating_sub(later_tools),
        };
        let logged = io
            .log
            .append(record.kind.as_str(), &record.payload)
            .map_err(|e| match e {
                LogError::Append(e) => RunError::Append(e),
                LogError::Sink(e) => RunError::Sink(e),
            })?;
        io.records
            .on_record(record, &logged, counts)
            .map_err(RunError::Sink)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
