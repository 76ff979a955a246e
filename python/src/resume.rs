//! `resume(path, model=…, tools=…)`: continues a run that stopped early (Ctrl-C, a
//! crash, a budget reached by the model's error), as `agentloop run --resume`: the file
//! is opened by the durable writer, core's `Resumable` rebuilds the agent from its
//! records (the task, budgets and call limits are the ones the `task` record states),
//! and the driver goes on appending to the same file.

use std::path::PathBuf;

use agentloop_core::driver::{self, Io, RunOptions};
use agentloop_core::durable::{Writer, WriterOptions};
use agentloop_core::sink::{RecordSink, SinkError};
use pyo3::prelude::*;

use crate::errors::LoopError;
use crate::interrupt::Interrupt;
use crate::run::{model_of, model_setup, outcome_of, toolbox, Outcome, ToolTuple};
use crate::setup;

/// Takes no record: the writer, the driver's log, has written each already.
struct Written;

impl RecordSink for Written {
    fn record(&mut self, _: &[u8]) -> Result<(), SinkError> {
        Ok(())
    }
}

/// Continues the run in the transcript at `path`. The setup this run makes must be
/// the one in force where the transcript ends (its first difference is refused),
/// unless `new_setup` states it in the `resume` record after a `stop`.
#[pyfunction]
#[pyo3(signature = (path, *, model, tools, mcp = Vec::new(), new_setup = false))]
pub fn resume_native(
    py: Python<'_>,
    path: PathBuf,
    model: Py<PyAny>,
    tools: Vec<ToolTuple<'_>>,
    mcp: Vec<Vec<String>>,
    new_setup: bool,
) -> PyResult<Outcome> {
    let name = path.display().to_string();
    let refused = |e: &dyn std::fmt::Display| LoopError::new_err(format!("{name}: {e}"));
    let opened = py.detach(|| Writer::open_resumable(&path, WriterOptions::default()));
    let (mut writer, resumable) = opened.map_err(|e| refused(&e))?;
    if resumable.is_empty() {
        return Err(refused(&"the file holds no run to resume"));
    }
    let stated = resumable.stated().map_err(|e| refused(&e))?;
    let in_force = resumable.setup().map_err(|e| refused(&e))?;
    let interrupt = Interrupt::default();
    let mut toolbox = toolbox(tools, &interrupt, &stated.tool_limits)?;
    let (servers, registration) = crate::mcp::start(py, mcp, &mut toolbox, &stated.tool_limits)?;
    let given = setup::with_tools(
        model_setup(py, &model),
        toolbox.manifest(),
        &registration,
        &servers,
    );
    let (mut agent, _) = resumable
        .resume(stated.budgets, toolbox.manifest().clone())
        .map_err(|e| refused(&e))?;
    match (in_force, new_setup) {
        (_, true) => {
            agent = agent
                .with_setup(given)
                .map_err(|e| refused(&format!("the new setup cannot be stated: {e}")))?
        }
        (Some(in_force), false) => {
            if let Some(difference) = in_force.difference(&given) {
                return Err(refused(&format!(
                    "this run's setup differs from the transcript's: {difference}; give the \
                     same model, tools and mcp servers in the same order (or new_setup=True \
                     after a stop); nothing was run"
                )));
            }
        }
        // A transcript whose task record states no setup (format 1) has none to hold
        // this run to.
        (None, false) => {}
    }
    let mut model = model_of(py, model, &interrupt)?;
    let mut cancel = || interrupt.asked();
    let outcome = py.detach(|| {
        let io = Io {
            log: &mut writer,
            model: &mut *model,
            toolbox: &mut toolbox,
            cancel: &mut cancel,
            records: &mut Written,
            changes: None,
        };
        driver::drive(&mut agent, io, RunOptions::default())
    });
    let outcome = outcome.map_err(|e| refused(&e))?;
    py.detach(|| writer.close()).map_err(|e| refused(&e))?;
    Ok(outcome_of(outcome, None))
}
