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
//! [`resume`] continues a transcript that stopped early or ended with `stop`
//! ([`Agent::resume`] says how), and [`replay`] runs a transcript's tools again to
//! find the first record a nondeterministic tool changes.
//!
//! With `std`, a tool that panics is caught (`std::panic::catch_unwind`) and recorded
//! as `tool '<name>' failed: panicked: <message>`; the process's panic hook still runs
//! (by default it prints the panic to stderr), and a build with `panic = "abort"`
//! cannot catch anything.

mod resume;

pub use resume::{replay, resume, resume_anchored, ReplayReport, ResumeRunError};

use core::fmt;

use crate::agent::{Agent, BudgetError, Budgets, FeedError, Need, Outcome};
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
