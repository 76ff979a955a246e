//! A blocking driver: runs an [`Agent`] against a [`Model`] and a [`Toolbox`],
//! appending each record to a [`Chain`] and handing the line to a [`RecordSink`].
//!
//! ```
//! use agentloop_core::agent::{Budgets, StopReason};
//! use agentloop_core::{demo, driver, model::{Reply, Scripted}, verify};
//!
//! let mut model = Scripted::new([Reply::new("nothing to do")]);
//! let mut tools = demo::toolbox().unwrap();
//! let mut transcript = Vec::new();
//! let outcome = driver::run("idle", Budgets::default(), &mut model, &mut tools,
//!                           &mut || false, &mut transcript).unwrap();
//! assert_eq!(outcome.reason, StopReason::NoToolCalls);
//! assert!(verify::verify_bytes(&transcript, &verify::Options::default()).ok());
//! ```
//!
//! With [`RunOptions::parallel`] above 1 ([`run_with`], [`resume_with`]), the calls of a
//! turn are taken all at once ([`Agent::poll_batch_with`]) and run on up to that many
//! threads: the calls to shared tools ([`crate::tools::SharedTool`],
//! [`Toolbox::register_shared`]) together, those to other tools one at a time on the
//! driver's thread. Records are written in call order as the results come in, so the
//! transcript is the same bytes as with `parallel: 1` (which is [`run`] exactly).
//!
//! ```
//! use agentloop_core::agent::Budgets;
//! use agentloop_core::{demo, driver, model::Scripted};
//!
//! let scenario = demo::recover();
//! let (one_at_a_time, _) = scenario.run().unwrap();
//! let mut transcript = Vec::new();
//! driver::run_with(scenario.task, scenario.budgets.clone(),
//!                  &mut Scripted::new(scenario.replies.clone()),
//!                  &mut demo::toolbox().unwrap(), &mut || false, &mut transcript,
//!                  driver::RunOptions { parallel: 8 }).unwrap();
//! assert_eq!(transcript, one_at_a_time);
//! ```
//!
//! [`resume`] continues a transcript that stopped early or ended with `stop`
//! ([`Agent::resume`] says how), and [`replay`] runs a transcript's tools again to
//! find the first record a nondeterministic tool changes.
//!
//! With `std`, a tool that panics is caught (`std::panic::catch_unwind`) and recorded
//! as `tool '<name>' failed: panicked: <message>`; the process's panic hook still runs
//! (by default it prints the panic to stderr), and a build with `panic = "abort"`
//! cannot catch anything.

mod resume;

pub use resume::{
    replay, resume, resume_anchored, resume_anchored_with, resume_with, ReplayReport,
    ResumeRunError,
};

use core::fmt;

use alloc::vec::Vec;

use crate::agent::{Agent, BatchNeed, BudgetError, Budgets, FeedError, Need, Outcome};
use crate::chain::{AppendError, Chain};
use crate::json::Value;
use crate::model::{Model, ToolCall};
use crate::sink::{RecordSink, SinkError};
use crate::tools::{ToolError, Toolbox};

/// Why a run could not be carried out (the model's and tools' failures are not
/// errors: they are recorded, and the run stops or goes on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunError {
    /// The budgets were refused before anything was written.
    Budgets(BudgetError),
    /// The chain refused a record (its seq passed 2^53 − 1).
    Append(AppendError),
    /// The sink did not take a line; the transcript ends before it.
    Sink(SinkError),
    /// The driver fed the agent out of turn (a bug in the driver, reported, not panicked).
    Feed(FeedError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Budgets(e) => write!(f, "the budgets were refused: {e}"),
            RunError::Append(e) => write!(f, "a record could not be appended: {e}"),
            RunError::Sink(e) => write!(f, "a record could not be written: {e}"),
            RunError::Feed(e) => write!(f, "the driver fed the loop out of turn: {e}"),
        }
    }
}

impl core::error::Error for RunError {}

/// How the driver runs the calls of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Most calls of a turn run at once. 1 (the default; 0 is taken as 1): one at a
    /// time, `cancel` asked before each — exactly [`run`]. Above 1: the turn's calls
    /// are decided at once ([`Agent::poll_batch_with`]: `cancel` asked once before
    /// them), the calls to shared tools ([`crate::tools::SharedTool`]) run on up to
    /// this many threads (the driver's own included) and the calls to other tools one
    /// at a time on the driver's thread; records are written in call order as results
    /// come in, so the transcript is the same bytes. Without the `std` feature there
    /// are no threads: the calls of a batch run one at a time, in call order.
    pub parallel: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { parallel: 1 }
    }
}

/// Runs `task` to its end on a new chain (seq 0, prev = zeros); see [`run_on`].
pub fn run(
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, RunError> {
    run_on(
        &mut Chain::new(),
        task,
        budgets,
        model,
        toolbox,
        cancel,
        sink,
    )
}

/// [`run`], running the calls of a turn as `options` say ([`RunOptions::parallel`]).
pub fn run_with(
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    run_on_with(
        &mut Chain::new(),
        task,
        budgets,
        model,
        toolbox,
        cancel,
        sink,
        options,
    )
}

/// [`run_on`], running the calls of a turn as `options` say ([`RunOptions::parallel`]).
/// Every record is in the sink before the model or `cancel` is called again and before
/// a batch of calls starts; the records of a batch follow their results in call order.
#[allow(clippy::too_many_arguments)]
pub fn run_on_with(
    chain: &mut Chain,
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::with_first_seq(chain.next_seq(), task, budgets, manifest)
        .map_err(RunError::Budgets)?;
    let mut io = Io {
        chain,
        model,
        toolbox,
        cancel,
        sink,
    };
    drive_with(&mut agent, &mut io, options)
}

/// What the driver calls out to.
pub(crate) struct Io<'a> {
    pub(crate) chain: &'a mut Chain,
    pub(crate) model: &'a mut dyn Model,
    pub(crate) toolbox: &'a mut Toolbox,
    pub(crate) cancel: &'a mut dyn FnMut() -> bool,
    pub(crate) sink: &'a mut dyn RecordSink,
}

/// Runs `agent` to its end as `options` say.
pub(crate) fn drive_with(
    agent: &mut Agent,
    io: &mut Io<'_>,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    if options.parallel <= 1 {
        return drive(agent, io.chain, io.model, io.toolbox, io.cancel, io.sink);
    }
    loop {
        write_records(agent, io.chain, io.sink)?;
        let calls: Vec<ToolCall> = match agent.poll_batch_with(io.cancel) {
            BatchNeed::ModelReply { messages, manifest } => {
                let reply = io.model.reply(messages, manifest);
                agent.feed_reply(reply).map_err(RunError::Feed)?;
                continue;
            }
            BatchNeed::ToolResults { calls } => calls.to_vec(),
            // Written at the top of the loop, before the calls are handed out.
            BatchNeed::TakeRecords => continue,
            BatchNeed::Done(outcome) => {
                write_records(agent, io.chain, io.sink)?;
                return Ok(outcome);
            }
        };
        run_batch(agent, io, &calls, options.parallel)?;
    }
}

/// Feeds one result of a batch and writes the records it lets out.
fn feed_one(
    agent: &mut Agent,
    io: &mut Io<'_>,
    id: &str,
    result: Result<Value, ToolError>,
) -> Result<(), RunError> {
    agent
        .feed_tool_result_for(id, result)
        .map_err(RunError::Feed)?;
    write_records(agent, io.chain, io.sink)
}

/// Runs the calls of a batch: without threads, one at a time in call order.
#[cfg(not(feature = "std"))]
fn run_batch(
    agent: &mut Agent,
    io: &mut Io<'_>,
    calls: &[ToolCall],
    _parallel: usize,
) -> Result<(), RunError> {
    for call in calls {
        let result = call_tool(io.toolbox, call);
        feed_one(agent, io, &call.id, result)?;
    }
    Ok(())
}

/// Runs the calls of a batch: those to shared tools on up to `parallel - 1` threads
/// plus this one, the others on this thread first, one at a time in call order. Each
/// result is fed, and the records it lets out written, as it comes in.
#[cfg(feature = "std")]
fn run_batch(
    agent: &mut Agent,
    io: &mut Io<'_>,
    calls: &[ToolCall],
    parallel: usize,
) -> Result<(), RunError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;

    let mut shared = Vec::new();
    let mut exclusive = Vec::new();
    for call in calls {
        match io.toolbox.shared(&call.name) {
            Some(tool) => shared.push((call, tool)),
            None => exclusive.push(call),
        }
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The next shared call to run, if any is left and the batch goes on.
    let take = || {
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        shared.get(next.fetch_add(1, Ordering::SeqCst))
    };
    let run = |(call, tool): &(&ToolCall, alloc::sync::Arc<dyn crate::tools::SharedTool>)| {
        use std::panic::{catch_unwind, AssertUnwindSafe};
        let result = catch_unwind(AssertUnwindSafe(|| tool.call(&call.arguments)))
            .unwrap_or_else(|payload| Err(ToolError::new(panic_sentence(payload.as_ref()))));
        (call.id.clone(), result)
    };
    std::thread::scope(|scope| {
        let (sender, results) = mpsc::channel();
        let workers = parallel.saturating_sub(1).min(shared.len());
        for _ in 0..workers {
            let sender = sender.clone();
            let (take, run) = (&take, &run);
            // A thread that cannot be started leaves its calls to this one.
            let _ = std::thread::Builder::new().spawn_scoped(scope, move || {
                while let Some(job) = take() {
                    if sender.send(run(job)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let outcome = (|| {
            for call in &exclusive {
                let result = call_tool(io.toolbox, call);
                feed_one(agent, io, &call.id, result)?;
                while let Ok((id, result)) = results.try_recv() {
                    feed_one(agent, io, &id, result)?;
                }
            }
            while let Some(job) = take() {
                let (id, result) = run(job);
                feed_one(agent, io, &id, result)?;
                while let Ok((id, result)) = results.try_recv() {
                    feed_one(agent, io, &id, result)?;
                }
            }
            for (id, result) in results.iter() {
                feed_one(agent, io, &id, result)?;
            }
            Ok(())
        })();
        // A failed write: the calls not started yet are not started.
        stop.store(true, Ordering::SeqCst);
        outcome
    })
}

/// Runs `task` to its end, continuing `chain`: each record is appended to it and its
/// line handed to `sink` before the run goes on — before the model, a tool or `cancel`
/// is called again, so a sink that makes each line durable has every record before a
/// tool's call on disk while the tool runs. `cancel` is asked at every check
/// point (before each turn and before each call); answering `true` stops the run with
/// `cancelled`.
pub fn run_on(
    chain: &mut Chain,
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, RunError> {
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::with_first_seq(chain.next_seq(), task, budgets, manifest)
        .map_err(RunError::Budgets)?;
    drive(&mut agent, chain, model, toolbox, cancel, sink)
}

/// Runs `agent` to its end: writes its pending records, then answers each need. Every
/// record is in the sink before the model, a tool or `cancel` is called again.
fn drive(
    agent: &mut Agent,
    chain: &mut Chain,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, RunError> {
    loop {
        write_records(agent, chain, sink)?;
        let fed = match agent.poll_with(cancel) {
            Need::ModelReply { messages, manifest } => {
                let reply = model.reply(messages, manifest);
                agent.feed_reply(reply)
            }
            Need::ToolResult { call } => {
                let result = call_tool(toolbox, &call);
                agent.feed_tool_result(result)
            }
            // Written at the top of the loop, before the next poll.
            Need::TakeRecords => Ok(()),
            Need::Done(outcome) => {
                write_records(agent, chain, sink)?;
                return Ok(outcome);
            }
        };
        fed.map_err(RunError::Feed)?;
    }
}

/// Appends the agent's pending records to the chain and the sink.
fn write_records(
    agent: &mut Agent,
    chain: &mut Chain,
    sink: &mut dyn RecordSink,
) -> Result<(), RunError> {
    for record in agent.take_records() {
        let line = chain
            .append(record.kind.as_str(), &record.payload)
            .map_err(RunError::Append)?;
        sink.record(line).map_err(RunError::Sink)?;
    }
    Ok(())
}

/// Runs one call; with `std`, a panic becomes the tool's failure.
pub(crate) fn call_tool(toolbox: &mut Toolbox, call: &ToolCall) -> Result<Value, ToolError> {
    #[cfg(feature = "std")]
    {
        use std::panic::{catch_unwind, AssertUnwindSafe};
        // A tool that panicked stays registered: whatever it does on a later call is
        // recorded like any other result.
        catch_unwind(AssertUnwindSafe(|| {
            toolbox.call(&call.name, &call.arguments)
        }))
        .unwrap_or_else(|payload| Err(ToolError::new(panic_sentence(payload.as_ref()))))
    }
    #[cfg(not(feature = "std"))]
    {
        toolbox.call(&call.name, &call.arguments)
    }
}

/// `panicked: <message>` from a panic payload.
#[cfg(feature = "std")]
fn panic_sentence(payload: &(dyn core::any::Any + Send)) -> alloc::string::String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| {
            payload
                .downcast_ref::<alloc::string::String>()
                .map(|s| s.as_str())
        })
        .unwrap_or("a non-string panic payload");
    alloc::format!("panicked: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn run_errors_name_the_step_that_failed_and_why() {
        assert_eq!(
            RunError::Sink(SinkError::Full).to_string(),
            "a record could not be written: the record sink is full"
        );
        let budgets = RunError::Budgets(BudgetError::EmptySentinel).to_string();
        assert!(
            budgets.starts_with("the budgets were refused: "),
            "{budgets}"
        );
    }
}
