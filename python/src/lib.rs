//! The native module `agentloop._native` of the Python package `agentloop`: PyO3
//! bindings over agentloop-core. Every rule lives in core; this crate converts Python
//! values, releases the GIL around file and CPU work, and raises core's sentences as
//! `agentloop.Error` subclasses.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod agent;
mod anchors;
mod chain;
mod errors;
mod http_model;
mod interrupt;
mod mcp;
mod py_model;
mod py_tool;
mod report;
mod resume;
mod run;
mod schema;
mod setup;
mod value;
mod verify;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::Fault>()?;
    m.add_class::<chain::Chain>()?;
    m.add_class::<chain::Writer>()?;
    m.add_class::<chain::Appended>()?;
    m.add_class::<schema::Violation>()?;
    m.add_class::<py_model::Reply>()?;
    m.add_class::<run::Outcome>()?;
    m.add_class::<agent::Agent>()?;
    m.add_class::<http_model::Provided>()?;
    m.add_function(wrap_pyfunction!(http_model::openai, m)?)?;
    m.add_function(wrap_pyfunction!(http_model::anthropic, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_native, m)?)?;
    m.add_function(wrap_pyfunction!(resume::resume_native, m)?)?;
    m.add_function(wrap_pyfunction!(verify::verify, m)?)?;
    m.add_function(wrap_pyfunction!(chain::canonical, m)?)?;
    m.add_function(wrap_pyfunction!(chain::parse, m)?)?;
    m.add_function(wrap_pyfunction!(schema::validate, m)?)?;
    m.add_function(wrap_pyfunction!(anchors::checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(anchors::keygen, m)?)?;
    m.add_function(wrap_pyfunction!(anchors::prove_inclusion, m)?)?;
    m.add_function(wrap_pyfunction!(anchors::prove_consistency, m)?)?;
    m.add_function(wrap_pyfunction!(anchors::check_proof, m)?)?;
    Ok(())
}
