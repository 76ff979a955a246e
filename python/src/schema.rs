//! `validate(schema, instance)`: core's JSON Schema validator (draft 2020-12 and the
//! drafts it reads), as `agentloop validate` uses it.

use agentloop_core::schema::Schema;
use pyo3::prelude::*;

use crate::errors::SchemaError;
use crate::value::to_value;

/// One way an instance breaks a schema: the JSON path and what was expected and found.
#[pyclass(module = "agentloop", frozen, get_all)]
pub struct Violation {
    /// The JSON path of the offending value (`$.a[0]`).
    pub path: String,
    /// What was expected and found.
    pub message: String,
}

#[pymethods]
impl Violation {
    fn __repr__(&self) -> String {
        format!(
            "Violation(path={:?}, message={:?})",
            self.path, self.message
        )
    }

    fn __str__(&self) -> String {
        format!("{}: {}", self.path, self.message)
    }
}

/// Every way `instance` breaks `schema` (both JSON-able values); empty when it is
/// valid. A schema the validator cannot honour raises `SchemaError`.
#[pyfunction]
pub fn validate(
    schema: &Bound<'_, PyAny>,
    instance: &Bound<'_, PyAny>,
) -> PyResult<Vec<Violation>> {
    let document = to_value(schema)?;
    let compiled = Schema::compile(&document).map_err(|e| SchemaError::new_err(e.to_string()))?;
    let instance = to_value(instance)?;
    Ok(compiled
        .validate(&instance, "$")
        .into_iter()
        .map(|v| Violation {
            path: v.path,
            message: v.message,
        })
        .collect())
}
