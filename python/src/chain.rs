//! `Chain` (records in memory), the durable `Writer` (a transcript file), `canonical`
//! and `parse`: core's `chain::Chain`, `durable::Writer`, `jcs` and the strict parser.

use std::path::PathBuf;

use agentloop_core::chain::Chain as CoreChain;
use agentloop_core::durable::{SyncPolicy, Writer as CoreWriter, WriterOptions};
use agentloop_core::{jcs, json};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{EncodeError, ParseError, WriteError};
use crate::value::{text_bytes, to_python, to_value};

/// The canonical (RFC 8785) bytes of a JSON-able Python value.
#[pyfunction]
pub fn canonical<'py>(py: Python<'py>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let value = to_value(value)?;
    let bytes = jcs::to_vec(&value).map_err(|e| EncodeError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The Python value of I-JSON text (str or bytes), read by the strict parser.
#[pyfunction]
pub fn parse<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let bytes = text_bytes(text, "text")?;
    let value = json::parse(&bytes).map_err(|e| {
        let (line, column) = e.line_column(&bytes);
        ParseError::new_err(format!("line {line}, column {column}: {}", e.kind()))
    })?;
    to_python(py, &value)
}

/// A hash chain held in memory: `append` returns each record's line.
#[pyclass(module = "agentloop")]
pub struct Chain {
    chain: CoreChain,
}

#[pymethods]
impl Chain {
    #[new]
    fn new() -> Chain {
        Chain {
            chain: CoreChain::new(),
        }
    }

    /// Appends a record and returns its line (canonical JSON and a newline).
    fn append<'py>(
        &mut self,
        py: Python<'py>,
        kind: &str,
        payload: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let value = to_value(payload)?;
        let line = self
            .chain
            .append(kind, &value)
            .map_err(|e| EncodeError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, line))
    }

    /// The hash of the last record (64 hex digits).
    #[getter]
    fn head(&self) -> String {
        self.chain.head().to_string()
    }

    /// The number of records appended.
    #[getter]
    fn count(&self) -> u64 {
        self.chain.count()
    }

    /// The RFC 6962 Merkle root of the records (64 hex digits).
    #[getter]
    fn root(&self) -> String {
        self.chain.root().to_string()
    }

    fn __len__(&self) -> usize {
        usize::try_from(self.chain.count()).unwrap_or(usize::MAX)
    }
}

/// What `Writer.append` wrote: the record's `seq` and hash (the file's new head).
#[pyclass(module = "agentloop", frozen, get_all)]
pub struct Appended {
    /// The record's `seq`.
    pub seq: u64,
    /// The record's hash, 64 hex digits.
    pub head: String,
}

#[pymethods]
impl Appended {
    fn __repr__(&self) -> String {
        format!("Appended(seq={}, head={:?})", self.seq, self.head)
    }
}

/// A transcript file opened for appending: verified when opened, each record written
/// whole and synced by policy, locked against other writers. A context manager.
#[pyclass(module = "agentloop")]
pub struct Writer {
    writer: Option<CoreWriter>,
    path: PathBuf,
}

/// The sync policy named `always`, `close` or `every:N`.
fn sync_policy(name: &str) -> PyResult<SyncPolicy> {
    match name {
        "always" => return Ok(SyncPolicy::Always),
        "close" => return Ok(SyncPolicy::OnClose),
        _ => {}
    }
    name.strip_prefix("every:")
        .and_then(|n| n.parse().ok())
        .map(SyncPolicy::EveryN)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "sync must be 'always', 'close' or 'every:N' with N ≥ 1, not {name:?}"
            ))
        })
}

impl Writer {
    fn open_writer(&mut self) -> PyResult<&mut CoreWriter> {
        let path = self.path.display().to_string();
        self.writer
            .as_mut()
            .ok_or_else(|| WriteError::new_err(format!("{path}: the writer is closed")))
    }

    fn failed(&self, e: impl std::fmt::Display) -> PyErr {
        WriteError::new_err(format!("{}: {e}", self.path.display()))
    }
}

#[pymethods]
impl Writer {
    #[new]
    #[pyo3(signature = (path, *, sync = "always"))]
    fn new(py: Python<'_>, path: PathBuf, sync: &str) -> PyResult<Writer> {
        let options = WriterOptions {
            sync: sync_policy(sync)?,
            ..WriterOptions::default()
        };
        let opened = py.detach(|| CoreWriter::open(&path, options));
        match opened {
            Ok(writer) => Ok(Writer {
                writer: Some(writer),
                path,
            }),
            Err(e) => Err(WriteError::new_err(format!("{}: {e}", path.display()))),
        }
    }

    /// Appends a record whose payload is any JSON-able value.
    fn append(
        &mut self,
        py: Python<'_>,
        kind: &str,
        payload: &Bound<'_, PyAny>,
    ) -> PyResult<Appended> {
        let value = to_value(payload)?;
        let writer = self.open_writer()?;
        let appended = py.detach(|| writer.append(kind, &value));
        let appended = appended.map_err(|e| self.failed(e))?;
        Ok(Appended {
            seq: appended.seq,
            head: appended.head.to_string(),
        })
    }

    /// Syncs what was appended to the disk.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        let writer = self.open_writer()?;
        let synced = py.detach(|| writer.sync());
        synced.map_err(|e| self.failed(e))
    }

    /// Syncs and closes the file; closing twice is no error.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        match self.writer.take() {
            Some(writer) => py.detach(|| writer.close()).map_err(|e| self.failed(e)),
            None => Ok(()),
        }
    }

    /// The number of records in the file.
    #[getter]
    fn count(&mut self) -> PyResult<u64> {
        Ok(self.open_writer()?.count())
    }

    /// The file's head (64 hex digits).
    #[getter]
    fn head(&mut self) -> PyResult<String> {
        Ok(self.open_writer()?.head().to_string())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        _exc: &Bound<'_, pyo3::types::PyTuple>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}
