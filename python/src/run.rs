//! `run(task, model, tools, budgets, out)`: core's blocking driver with a Python model
//! and Python tools, the GIL released but while Python code runs; Ctrl-C (any
//! exception a signal handler raises) stops the run as `cancelled`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentloop_core::agent::{Agent, Outcome as CoreOutcome};
use agentloop_core::chain::Chain;
use agentloop_core::driver::{self, Io, RunError, RunOptions};
use agentloop_core::durable::{Writer, WriterOptions};
use agentloop_core::model::Model;
use agentloop_core::sink::RecordSink;
use agentloop_core::tools::{ToolOptions, ToolSpec, Toolbox};
use agentloop_core::vocabulary::{Budgets, Setup};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::LoopError;
use crate::http_model::Provided;
use crate::interrupt::Interrupt;
use crate::py_model::PyModel;
use crate::py_tool::PyTool;
use crate::setup;
use crate::value::to_value;

/// How a run ended, and its transcript's bytes when it was kept in memory.
#[pyclass(module = "agentloop", frozen, get_all)]
pub struct Outcome {
    /// The stop reason: `no_tool_calls`, `sentinel`, `step_budget`, `token_budget`,
    /// `model_error`, `cancelled`, …
    pub reason: String,
    /// Assistant turns taken.
    pub steps: u64,
    /// Tokens counted.
    pub tokens: u64,
    /// Tool calls run.
    pub tool_calls: u64,
    /// Calls asked for but not run.
    pub unrun_calls: u64,
    /// The model's error, when the run stopped on one.
    pub error: Option<String>,
    /// The transcript, when no `out` file was given.
    pub transcript: Option<Py<PyBytes>>,
}

#[pymethods]
impl Outcome {
    fn __repr__(&self) -> String {
        format!(
            "Outcome(reason={:?}, steps={}, tokens={}, tool_calls={})",
            self.reason, self.steps, self.tokens, self.tool_calls
        )
    }
}

/// A tool as the Python layer hands it over: `(name, description, schema, function,
/// idempotent)`.
pub type ToolTuple<'py> = (String, String, Bound<'py, PyAny>, Py<PyAny>, bool);

/// The toolbox of the Python tools, with the call limits by name.
pub fn toolbox(
    tools: Vec<ToolTuple<'_>>,
    interrupt: &Interrupt,
    limits: &BTreeMap<String, u64>,
) -> PyResult<Toolbox> {
    let mut toolbox = Toolbox::new();
    for (name, description, schema, function, idempotent) in tools {
        let spec_name = name.clone();
        let spec = ToolSpec::new(name, description, to_value(&schema)?);
        let tool = PyTool::new(spec, function, idempotent, interrupt.clone());
        let limit = limits.get(&spec_name).copied();
        toolbox
            .register(tool, ToolOptions::new().limit(limit))
            .map_err(|e| LoopError::new_err(e.to_string()))?;
    }
    Ok(toolbox)
}

/// One budget: a count at least 0.
fn count(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<u64>> {
    match dict.get_item(key)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v.extract::<u64>().map(Some).map_err(|_| {
            LoopError::new_err(format!(
                "budgets[{key:?}] must be an int ≥ 0 or None, not {v}"
            ))
        }),
    }
}

/// The budgets of a dict of `max_steps`, `max_tokens`, `max_tool_calls`,
/// `max_total_tokens` and `stop_sentinel`.
pub fn budgets(dict: Option<&Bound<'_, PyDict>>) -> PyResult<Budgets> {
    let Some(dict) = dict else {
        return Ok(Budgets::default());
    };
    const KNOWN: [&str; 5] = [
        "max_steps",
        "max_tokens",
        "max_tool_calls",
        "max_total_tokens",
        "stop_sentinel",
    ];
    for key in dict.keys() {
        let key: String = key.extract()?;
        if !KNOWN.contains(&key.as_str()) {
            return Err(LoopError::new_err(format!(
                "budgets has no {key:?}: the budgets are {}",
                KNOWN.join(", ")
            )));
        }
    }
    Ok(Budgets {
        max_steps: count(dict, "max_steps")?,
        max_tokens: count(dict, "max_tokens")?,
        max_tool_calls: count(dict, "max_tool_calls")?,
        max_total_tokens: count(dict, "max_total_tokens")?,
        stop_sentinel: dict
            .get_item("stop_sentinel")?
            .map(|v| v.extract())
            .transpose()?,
    })
}

/// The model: a built-in HTTP model, or a Python callable.
pub fn model_of(
    py: Python<'_>,
    model: Py<PyAny>,
    interrupt: &Interrupt,
) -> PyResult<Box<dyn Model + Send>> {
    Ok(match model.bind(py).cast::<Provided>() {
        Ok(spec) => Box::new(spec.get().start()?),
        Err(_) => Box::new(PyModel::new(model, interrupt.clone())),
    })
}

/// What the setup records of the model: a built-in HTTP model's provider, name,
/// endpoint, system prompt and options; nothing of a Python callable.
pub fn model_setup(py: Python<'_>, model: &Py<PyAny>) -> Setup {
    match model.bind(py).cast::<Provided>() {
        Ok(spec) => spec.get().setup(),
        Err(_) => Setup::default(),
    }
}

/// The transcript file, which must be new or empty: a run starts a chain.
fn open_out(py: Python<'_>, path: &Path) -> PyResult<Writer> {
    let name = path.display().to_string();
    let writer = py
        .detach(|| Writer::open(path, WriterOptions::default()))
        .map_err(|e| LoopError::new_err(format!("{name}: {e}")))?;
    if writer.count() > 0 {
        return Err(LoopError::new_err(format!(
            "{name} already holds {} records: a run starts a new transcript",
            writer.count()
        )));
    }
    Ok(writer)
}

/// Runs `task` to its end; its `task` record states the run's setup (the model, when
/// it is a built-in one, and the tools with their sources) unless `setup` is false.
// Each argument is one of `run`'s Python keyword arguments.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (task, *, model, tools, budgets = None, out = None, mcp = Vec::new(), setup = true))]
pub fn run_native(
    py: Python<'_>,
    task: &str,
    model: Py<PyAny>,
    tools: Vec<ToolTuple<'_>>,
    budgets: Option<&Bound<'_, PyDict>>,
    out: Option<PathBuf>,
    mcp: Vec<Vec<String>>,
    setup: bool,
) -> PyResult<Outcome> {
    let budgets = self::budgets(budgets)?;
    let interrupt = Interrupt::default();
    let mut toolbox = toolbox(tools, &interrupt, &BTreeMap::new())?;
    // Ended when the run is over (dropped at the end of this call).
    let (servers, registration) = crate::mcp::start(py, mcp, &mut toolbox, &BTreeMap::new())?;
    let manifest = toolbox.manifest().clone();
    let stated = setup::with_tools(model_setup(py, &model), &manifest, &registration, &servers);
    let mut agent = Agent::new(task, budgets, manifest)
        .map_err(|e| LoopError::new_err(RunError::Budgets(e).to_string()))?;
    if setup {
        agent = agent
            .with_setup(stated)
            .map_err(|e| LoopError::new_err(e.to_string()))?;
    }
    let mut model = model_of(py, model, &interrupt)?;
    let mut file = out.as_ref().map(|p| open_out(py, p)).transpose()?;
    let mut memory = Vec::new();
    let sink: &mut (dyn RecordSink + Send) = match &mut file {
        Some(writer) => writer,
        None => &mut memory,
    };
    let mut cancel = || interrupt.asked();
    let outcome = py.detach(|| {
        let io = Io {
            log: &mut Chain::new(),
            model: &mut *model,
            toolbox: &mut toolbox,
            cancel: &mut cancel,
            records: &mut { sink },
            changes: None,
        };
        driver::drive(&mut agent, io, RunOptions::default())
    });
    let outcome = outcome.map_err(|e| LoopError::new_err(e.to_string()))?;
    if let Some(writer) = file {
        py.detach(|| writer.close())
            .map_err(|e| LoopError::new_err(e.to_string()))?;
    }
    let transcript = out.is_none().then(|| PyBytes::new(py, &memory).unbind());
    Ok(outcome_of(outcome, transcript))
}

/// The Python outcome of a run.
pub fn outcome_of(outcome: CoreOutcome, transcript: Option<Py<PyBytes>>) -> Outcome {
    Outcome {
        reason: outcome.reason.as_str().to_owned(),
        steps: outcome.steps,
        tokens: outcome.tokens,
        tool_calls: outcome.tool_calls,
        unrun_calls: outcome.unrun_calls,
        error: outcome.error,
        transcript,
    }
}
