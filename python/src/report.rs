//! `Report` and `Fault`: what a verification found, as Python objects.

use agentloop_core::verify::{self, Report as CoreReport};
use pyo3::prelude::*;

/// One fault: the record (0-based index) and line (1-based) it is at, when it is at one,
/// its kind (SPEC section 3's name) and the sentence saying what is wrong.
#[pyclass(module = "agentloop", frozen, get_all)]
#[derive(Clone)]
pub struct Fault {
    /// The record's 0-based index, or None (a fault of the whole file).
    pub record: Option<u64>,
    /// The 1-based line number, or None.
    pub line: Option<u64>,
    /// The kind: `hash_mismatch`, `torn_tail`, …
    pub kind: String,
    /// What is wrong, in one sentence.
    pub detail: String,
}

#[pymethods]
impl Fault {
    fn __repr__(&self) -> String {
        format!(
            "Fault(record={}, line={}, kind={:?}, detail={:?})",
            opt(self.record),
            opt(self.line),
            self.kind,
            self.detail
        )
    }

    fn __str__(&self) -> String {
        match self.line {
            Some(line) => format!("line {line}: {}: {}", self.kind, self.detail),
            None => format!("{}: {}", self.kind, self.detail),
        }
    }
}

/// `None` or the number, as Python spells them.
fn opt(n: Option<u64>) -> String {
    n.map_or_else(|| String::from("None"), |n| n.to_string())
}

impl Fault {
    fn of(fault: &verify::Fault) -> Fault {
        Fault {
            record: fault.index,
            line: fault.line,
            kind: fault.kind.as_str().to_owned(),
            detail: fault.detail.to_string(),
        }
    }
}

/// What a verification found: true (`bool(report)`) when the transcript holds.
#[pyclass(module = "agentloop", frozen)]
pub struct Report {
    pub(crate) report: CoreReport,
}

#[pymethods]
impl Report {
    /// Whether there is no fault at all.
    #[getter]
    fn ok(&self) -> bool {
        self.report.ok()
    }

    /// The number of records read (complete lines).
    #[getter]
    fn count(&self) -> u64 {
        self.report.count
    }

    /// The head: the last record's hash (64 hex digits), or None.
    #[getter]
    fn head(&self) -> Option<String> {
        self.report.head.map(|h| h.to_string())
    }

    /// The RFC 6962 Merkle root of the records read (64 hex digits), or None.
    #[getter]
    fn root(&self) -> Option<String> {
        self.report.root.map(|h| h.to_string())
    }

    /// Every fault kept, in file order.
    #[getter]
    fn faults(&self) -> Vec<Fault> {
        self.report.faults.iter().map(Fault::of).collect()
    }

    /// Faults found beyond those kept.
    #[getter]
    fn faults_omitted(&self) -> u64 {
        self.report.faults_omitted
    }

    /// Records beyond the checkpoint's count, or None.
    #[getter]
    fn beyond_checkpoint(&self) -> Option<u64> {
        self.report.beyond_checkpoint
    }

    fn __bool__(&self) -> bool {
        self.report.ok()
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(ok={}, count={}, faults={})",
            if self.report.ok() { "True" } else { "False" },
            self.report.count,
            self.report.faults.len() as u64 + self.report.faults_omitted
        )
    }
}
