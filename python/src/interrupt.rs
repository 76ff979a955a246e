//! Ctrl-C during a run: a `KeyboardInterrupt` raised in the model or a tool, or by a
//! signal handler at a check point, marks the run as interrupted; the driver's `cancel`
//! then says `true` and the run stops as `cancelled`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

/// Whether the run was interrupted; shared by the model, the tools and `cancel`.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Notes `error` if it is a `KeyboardInterrupt`; says whether it was.
    pub fn note(&self, py: Python<'_>, error: &PyErr) -> bool {
        let interrupted = error.is_instance_of::<PyKeyboardInterrupt>(py);
        if interrupted {
            self.0.store(true, Ordering::SeqCst);
        }
        interrupted
    }

    /// The driver's `cancel`: interrupted before, or a signal handler raises now.
    pub fn asked(&self) -> bool {
        if self.0.load(Ordering::SeqCst) {
            return true;
        }
        let raised = Python::attach(|py| py.check_signals().is_err());
        if raised {
            self.0.store(true, Ordering::SeqCst);
        }
        raised
    }
}
