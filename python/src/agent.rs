//! `Agent`: the loop as core's sans-I/O state machine, for a host with its own event
//! loop (asyncio, a GUI): it asks for a model reply or tool results, the host answers
//! when it has them, and takes the records' lines to write them itself.

use agentloop_core::agent::{Agent as CoreAgent, Need};
use agentloop_core::chain::Chain;
use agentloop_core::json::Value;
use agentloop_core::model::ModelError;
use agentloop_core::tools::{Manifest, ToolError, ToolSpec};
use agentloop_core::vocabulary::Setup;
use agentloop_mcp::Registration;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::LoopError;
use crate::http_model::Provided;
use crate::py_model::{message_value, spec_value, Reply};
use crate::py_tool::tool_output;
use crate::run::{outcome_of, Outcome};
use crate::value::{to_python, to_value};

/// The loop, driven by the host: `poll()` says what it needs next.
#[pyclass(module = "agentloop", subclass)]
pub struct Agent {
    agent: CoreAgent,
    chain: Chain,
}

/// A failure of the host's feeding, as a `LoopError`.
fn refused(e: impl std::fmt::Display) -> PyErr {
    LoopError::new_err(e.to_string())
}

/// The setup `given` states: a built-in model's, with `manifest`'s tools as the
/// host's; or a `setup` member, decoded.
fn stated(given: &Bound<'_, PyAny>, manifest: &Manifest) -> PyResult<Setup> {
    match given.cast::<Provided>() {
        Ok(model) => {
            let none = Registration::default();
            Ok(crate::setup::with_tools(
                model.get().setup(),
                manifest,
                &none,
                &[],
            ))
        }
        Err(_) => Setup::decode(&to_value(given)?).map_err(|e| refused(format!("setup: {e}"))),
    }
}

#[pymethods]
impl Agent {
    /// A run of `task` with tools given as `(name, description, schema)`; `setup`, the
    /// setup its `task` record states: a built-in model (`OpenAI(…)`, `Anthropic(…)`:
    /// its model, endpoint, system prompt and options, the tools the host's), or the
    /// `setup` member itself as docs/format.md gives it (its tools the declared ones,
    /// in order).
    #[new]
    #[pyo3(signature = (task, *, tools, budgets = None, setup = None))]
    fn new(
        task: &str,
        tools: Vec<(String, String, Bound<'_, PyAny>)>,
        budgets: Option<&Bound<'_, pyo3::types::PyDict>>,
        setup: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Agent> {
        let mut manifest = Manifest::new();
        for (name, description, schema) in tools {
            let spec = ToolSpec::new(name, description, to_value(&schema)?);
            manifest.register(spec, None).map_err(refused)?;
        }
        let setup = setup.map(|s| stated(s, &manifest)).transpose()?;
        let mut agent =
            CoreAgent::new(task, crate::run::budgets(budgets)?, manifest).map_err(refused)?;
        if let Some(setup) = setup {
            agent = agent
                .with_setup(setup)
                .map_err(|e| refused(format!("setup: {e}")))?;
        }
        Ok(Agent {
            agent,
            chain: Chain::new(),
        })
    }

    /// What the loop needs: `("model", messages, manifest)`, `("tools", calls)` (each
    /// call `{"id", "name", "arguments"}`), `("records",)` (take them), or `("done",
    /// outcome)`. `cancelled=True` stops the run at this check point.
    #[pyo3(signature = (*, cancelled = false))]
    fn poll<'py>(&mut self, py: Python<'py>, cancelled: bool) -> PyResult<Bound<'py, PyAny>> {
        let mut cancel = || cancelled;
        let shown = match self.agent.poll(&mut cancel) {
            Need::ModelReply { messages, manifest } => {
                let messages = Value::Array(messages.iter().map(message_value).collect());
                let manifest = Value::Array(manifest.iter().map(spec_value).collect());
                (
                    "model",
                    to_python(py, &messages)?,
                    to_python(py, &manifest)?,
                )
                    .into_pyobject(py)?
            }
            Need::ToolResults { calls } => {
                let calls = calls.iter().map(|c| {
                    let mut o = agentloop_core::json::Object::new();
                    o.insert("id", Value::from(c.id.as_str()));
                    o.insert("name", Value::from(c.name.as_str()));
                    o.insert("arguments", c.arguments.clone());
                    Value::Object(o)
                });
                ("tools", to_python(py, &Value::Array(calls.collect()))?).into_pyobject(py)?
            }
            Need::TakeRecords => ("records",).into_pyobject(py)?,
            Need::Done(outcome) => {
                let outcome = Bound::new(py, outcome_of(outcome, None))?;
                ("done", outcome).into_pyobject(py)?
            }
        };
        Ok(shown.into_any())
    }

    /// Feeds the model's reply, or its failure (an exception: its message is the
    /// `model_error`).
    fn feed_reply(&mut self, py: Python<'_>, reply: &Bound<'_, PyAny>) -> PyResult<()> {
        let answer = match reply.cast::<Reply>() {
            Ok(reply) => Ok(reply.get().reply.clone()),
            Err(_) => match reply.cast::<pyo3::exceptions::PyBaseException>() {
                Ok(e) => Err(ModelError::new(crate::py_tool::exception_sentence(
                    py,
                    &PyErr::from_value(e.clone().into_any()),
                ))),
                Err(_) => Err(ModelError::new(format!(
                    "the model returned a {}, not an agentloop.Reply",
                    reply.get_type().name()?
                ))),
            },
        };
        self.agent.feed_reply(answer).map_err(refused)
    }

    /// Feeds the result of the call `call_id`: its value, or (`error=`) the sentence of
    /// its failure.
    #[pyo3(signature = (call_id, value = None, *, error = None))]
    fn feed_result(
        &mut self,
        call_id: &str,
        value: Option<&Bound<'_, PyAny>>,
        error: Option<String>,
    ) -> PyResult<()> {
        let result = match (error, value) {
            (Some(sentence), _) => Err(ToolError::new(sentence)),
            (None, Some(value)) => tool_output(value),
            (None, None) => Ok(Value::Null),
        };
        self.agent
            .feed_tool_result(call_id, result)
            .map_err(refused)
    }

    /// Stops the run now, as `cancelled`.
    fn cancel(&mut self) {
        self.agent.cancel();
    }

    /// The lines (canonical JSON and a newline, hash-chained) of the records made
    /// since the last call, to write in order.
    fn take_records<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let mut lines = Vec::new();
        for record in self.agent.take_records() {
            let line = self
                .chain
                .append(record.kind.as_str(), &record.payload)
                .map_err(refused)?;
            lines.push(PyBytes::new(py, line));
        }
        Ok(lines)
    }

    /// How the run ended, once it has.
    #[getter]
    fn outcome(&self) -> Option<Outcome> {
        self.agent.outcome().cloned().map(|o| outcome_of(o, None))
    }
}
