//! `verify(path, *, loop, checkpoints, keys, origin, lenient)`: the CLI's `verify`,
//! through the same core calls, with the GIL released while the file is read.

use std::fs;
use std::path::PathBuf;

use agentloop_core::audit;
use agentloop_core::note::VerifierKey;
use agentloop_core::tlog::{read_checkpoint, ByCheckpoints, CheckpointText};
use agentloop_core::verify::{self as core_verify, Options, Parallel};
use pyo3::prelude::*;

use crate::errors::CheckpointError;
use crate::report::Report;
use crate::value::text_bytes;

/// Reads checkpoint texts (str or bytes), named `checkpoints[i]` in faults.
pub fn read_checkpoints(texts: &[Bound<'_, PyAny>]) -> PyResult<Vec<(String, CheckpointText)>> {
    let mut given = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let name = format!("checkpoints[{i}]");
        let bytes = text_bytes(text, &name)?;
        let parsed = read_checkpoint(&bytes)
            .map_err(|e| CheckpointError::new_err(format!("{name}: {e}")))?;
        given.push((name, parsed));
    }
    Ok(given)
}

/// Reads verifier keys (`name+id+base64`).
pub fn read_keys(keys: &[String]) -> PyResult<Vec<VerifierKey>> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            k.parse()
                .map_err(|e| CheckpointError::new_err(format!("keys[{i}]: {e}")))
        })
        .collect()
}

/// Verifies the transcript file at `path` (SPEC section 3) and returns every fault.
#[pyfunction]
#[pyo3(signature = (path, *, r#loop = false, checkpoints = Vec::new(), keys = Vec::new(), origin = None, lenient = false))]
pub fn verify(
    py: Python<'_>,
    path: PathBuf,
    r#loop: bool,
    checkpoints: Vec<Bound<'_, PyAny>>,
    keys: Vec<String>,
    origin: Option<String>,
    lenient: bool,
) -> PyResult<Report> {
    let given = read_checkpoints(&checkpoints)?;
    let trusted = read_keys(&keys)?;
    let options = Options {
        lenient,
        ..Options::default()
    };
    let by = ByCheckpoints::new(options, given, &trusted, origin.as_deref())
        .map_err(|e| CheckpointError::new_err(e.to_string()))?;
    let report = py.detach(|| {
        let report = if r#loop {
            audit::verify_loop_file(&path, by.options())
        } else {
            core_verify::verify_file(&path, by.options(), &Parallel::default())
        };
        by.finish(report, || fs::read(&path).ok())
    });
    Ok(Report { report })
}
