//! The short forms the crate's tests use: a run continuing a given log, and a
//! transcript resumed into a sink, each [`super::drive`] after making the agent.

use crate::agent::{Agent, Budgets, Outcome};
use crate::anchor::Anchor;
use crate::chain::Log;
use crate::model::Model;
use crate::sink::RecordSink;
use crate::tools::Toolbox;

use super::{drive, Io, OpenError, Resumable, RunError, RunOptions};

/// Runs `task` continuing `log`, one call at a time.
pub(crate) fn run_on(
    log: &mut dyn Log,
    task: &str,
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, RunError> {
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::with_first_seq(log.next().seq0, task, budgets, manifest)
        .map_err(RunError::Budgets)?;
    let mut sink = sink;
    let io = Io {
        log,
        model,
        toolbox,
        cancel,
        records: &mut sink,
        changes: None,
    };
    drive(&mut agent, io, RunOptions::default())
}

/// Continues the whole `transcript` into `sink`, one call at a time; a run error
/// panics (the tests that use this expect none).
pub(crate) fn resume(
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
) -> Result<Outcome, OpenError> {
    let (anchor, options) = (Anchor::GENESIS, RunOptions::default());
    resume_at(
        anchor, transcript, budgets, model, toolbox, cancel, sink, options,
    )
}

/// [`resume`] of a transcript whose chain starts at `anchor`, running the calls of a
/// turn as `options` say.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resume_at(
    anchor: Anchor,
    transcript: &[u8],
    budgets: Budgets,
    model: &mut dyn Model,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
    sink: &mut dyn RecordSink,
    options: RunOptions,
) -> Result<Outcome, OpenError> {
    let manifest = toolbox.manifest().clone();
    let (mut agent, mut chain) = Resumable::read(anchor, transcript)?.resume(budgets, manifest)?;
    let mut sink = sink;
    let io = Io {
        log: &mut chain,
        model,
        toolbox,
        cancel,
        records: &mut sink,
        changes: None,
    };
    Ok(drive(&mut agent, io, options).expect("the resumed run is carried out"))
}
