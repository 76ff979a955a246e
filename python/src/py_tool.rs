//! A Python callable as a core `Tool`: called with the (schema-checked) arguments as
//! keyword arguments; an exception is the call's failure (an `ok:false` record), and a
//! result with no JSON form fails as a Rust typed tool's does.

use agentloop_core::json::Value;
use agentloop_core::tools::{Tool, ToolError, ToolSpec};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::interrupt::Interrupt;
use crate::value::{to_python, to_value_raw};

/// A Python function behind a tool spec.
pub struct PyTool {
    spec: ToolSpec,
    function: Py<PyAny>,
    idempotent: bool,
    interrupt: Interrupt,
}

impl PyTool {
    /// The tool `spec` that calls `function`.
    pub fn new(
        spec: ToolSpec,
        function: Py<PyAny>,
        idempotent: bool,
        interrupt: Interrupt,
    ) -> PyTool {
        PyTool {
            spec,
            function,
            idempotent,
            interrupt,
        }
    }
}

/// The sentence of a Python exception: its message, or its type's name when it has none.
pub fn exception_sentence(py: Python<'_>, error: &PyErr) -> String {
    let value = error.value(py);
    let message = value.str().map(|s| s.to_string()).unwrap_or_default();
    if message.is_empty() {
        return value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| String::from("an exception"));
    }
    message
}

/// A tool's Python result as a value; one with no JSON form is the call's failure, with
/// the sentence of core's typed tools (`tools::output_value`).
pub fn tool_output(result: &Bound<'_, PyAny>) -> Result<Value, ToolError> {
    to_value_raw(result)
        .map_err(|error| ToolError::new(format!("its result cannot be written as JSON: {error}")))
}

impl Tool for PyTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        Python::attach(|py| {
            let fail = |e: PyErr| {
                // Ctrl-C in a tool fails the call and stops the run as cancelled.
                self.interrupt.note(py, &e);
                ToolError::new(exception_sentence(py, &e))
            };
            let kwargs = to_python(py, arguments).map_err(fail)?;
            let kwargs = kwargs.cast::<PyDict>().ok();
            let result = self.function.bind(py).call((), kwargs).map_err(fail)?;
            tool_output(&result)
        })
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}
