//! The package's exceptions: `agentloop.Error` and one subclass per kind of failure,
//! each carrying the Rust error's sentence.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    agentloop,
    Error,
    PyException,
    "The base of every error agentloop raises."
);
create_exception!(
    agentloop,
    EncodeError,
    Error,
    "A Python value with no JSON form (NaN, bytes, a non-str key, an inexact integer, …)."
);
create_exception!(
    agentloop,
    ParseError,
    Error,
    "JSON text that the strict parser refuses."
);
create_exception!(
    agentloop,
    WriteError,
    Error,
    "A transcript file that could not be opened or appended to."
);
create_exception!(
    agentloop,
    SchemaError,
    Error,
    "A JSON Schema the validator cannot honour."
);
create_exception!(
    agentloop,
    CheckpointError,
    Error,
    "A checkpoint or key that could not be read or made."
);
create_exception!(
    agentloop,
    ProofError,
    Error,
    "A proof that could not be made, or that does not hold."
);
create_exception!(
    agentloop,
    LoopError,
    Error,
    "A loop that could not be set up (a tool, a model, budgets)."
);

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("EncodeError", py.get_type::<EncodeError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("WriteError", py.get_type::<WriteError>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("CheckpointError", py.get_type::<CheckpointError>())?;
    m.add("ProofError", py.get_type::<ProofError>())?;
    m.add("LoopError", py.get_type::<LoopError>())?;
    Ok(())
}
