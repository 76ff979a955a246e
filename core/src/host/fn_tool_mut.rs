//! A `FnMut` closure as a tool (`std`): [`FnTool::from_mut`] keeps it behind a lock.

use std::sync::{Mutex, PoisonError};

use crate::json::Value;
use crate::tools::{FnTool, ToolError, ToolSpec};

/// The closure type [`FnTool::from_mut`] is named by (any `Fn` closure would do).
type Plain = fn(&Value) -> Result<Value, ToolError>;

impl FnTool<Plain> {
    /// A tool that presents `spec` and runs a `FnMut` closure (feature `std`): the
    /// closure is kept behind a `std::sync::Mutex`, so its calls run one at a time
    /// even in a tool registered as concurrent. A call after one that panicked runs
    /// the closure as the panic left it (the panic is the earlier call's recorded
    /// failure). Without `std`, a tool with state implements [`Tool`](crate::tools::Tool) with atomics or
    /// the platform's lock.
    pub fn from_mut<M>(
        spec: ToolSpec,
        run: M,
    ) -> FnTool<impl Fn(&Value) -> Result<Value, ToolError> + Send + Sync>
    where
        M: FnMut(&Value) -> Result<Value, ToolError> + Send,
    {
        let cell = Mutex::new(run);
        FnTool::new(spec, move |arguments: &Value| {
            let mut run = cell.lock().unwrap_or_else(PoisonError::into_inner);
            run(arguments)
        })
    }
}
