//! The one tool trait ([`Tool`]), closures as tools ([`FnTool`]), and how a tool is
//! registered ([`ToolOptions`]).

use alloc::boxed::Box;
use alloc::sync::Arc;
use core::fmt;

use super::*;
use crate::json::Value;

/// A tool a model may call.
///
/// `call` takes `&self` and the tool is `Send + Sync`, so one trait serves a run one
/// call at a time and a run that starts the calls of a turn together. Whether the
/// driver may run a tool's calls on worker threads is not the tool's say but its
/// registration's ([`ToolOptions::concurrent`]): a tool registered without it is
/// called on the driver's thread only, one call at a time. A tool with state keeps
/// it behind a lock or in atomics; a `FnMut` closure becomes a tool with
/// [`FnTool::from_mut`] (feature `std`).
pub trait Tool: Send + Sync {
    /// Its name, description and argument schema; read once, at registration.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool. The loop calls it only with arguments that satisfy the schema.
    fn call(&self, arguments: &Value) -> Result<Value, ToolError>;

    /// Whether running it twice with the same arguments has the same effect as running
    /// it once (a lookup, a pure computation). Read once, at registration. When a run
    /// is resumed after it was interrupted while a call was running, an idempotent tool
    /// is run again; any other tool is not (its effect may already have happened) and
    /// the call is recorded as `ok:false`, result lost ([`crate::agent::Agent::resume`]).
    /// The default is `false`: at most once.
    fn idempotent(&self) -> bool {
        false
    }
}

impl<T: Tool + ?Sized> Tool for Box<T> {
    fn spec(&self) -> ToolSpec {
        (**self).spec()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        (**self).call(arguments)
    }

    fn idempotent(&self) -> bool {
        (**self).idempotent()
    }
}

impl<T: Tool + ?Sized> Tool for Arc<T> {
    fn spec(&self) -> ToolSpec {
        (**self).spec()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        (**self).call(arguments)
    }

    fn idempotent(&self) -> bool {
        (**self).idempotent()
    }
}

/// How a tool is registered ([`Toolbox::register`]): its call limit, and whether its
/// calls may run at the same time. The default: no limit, one call at a time on the
/// driver's thread.
///
/// ```
/// use agentloop_core::tools::ToolOptions;
///
/// let options = ToolOptions::new().limit(3).concurrent();
/// assert_eq!((options.limit, options.concurrent), (Some(3), true));
/// assert_eq!(ToolOptions::default(), ToolOptions::new());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolOptions {
    /// The most calls the loop runs per run; `None`: no limit. A call past it is
    /// refused with an `ok:false` record ([`Manifest::register`]).
    pub limit: Option<u64>,
    /// Whether the driver may run several calls of the tool at once, on worker threads
    /// (when the run allows it: [`crate::driver::RunOptions::parallel`]). `false` (the
    /// default): its calls run on the driver's thread, one at a time, as for a tool
    /// that is only safe there (a C callback, a handle bound to one thread). The
    /// transcript is the same bytes either way.
    pub concurrent: bool,
}

impl ToolOptions {
    /// No limit, one call at a time.
    pub fn new() -> ToolOptions {
        ToolOptions::default()
    }

    /// At most `limit` calls per run (a count, or an `Option<u64>`: `None` is no limit).
    pub fn limit(mut self, limit: impl Into<Option<u64>>) -> ToolOptions {
        self.limit = limit.into();
        self
    }

    /// Its calls may run at the same time, on worker threads.
    pub fn concurrent(mut self) -> ToolOptions {
        self.concurrent = true;
        self
    }
}

/// A [`Tool`] made of a spec and a closure (`Fn + Send + Sync`; a `FnMut` one with
/// [`FnTool::from_mut`]).
pub struct FnTool<F> {
    pub(super) spec: ToolSpec,
    pub(super) run: F,
    pub(super) idempotent: bool,
}

impl<F> FnTool<F>
where
    F: Fn(&Value) -> Result<Value, ToolError> + Send + Sync,
{
    /// A tool that presents `spec` and runs `run`; not idempotent.
    pub fn new(spec: ToolSpec, run: F) -> Self {
        FnTool {
            spec,
            run,
            idempotent: false,
        }
    }
}

impl<F> FnTool<F> {
    /// Declares the tool idempotent ([`Tool::idempotent`]).
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }
}

impl<F> fmt::Debug for FnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("spec", &self.spec)
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

impl<F> Tool for FnTool<F>
where
    F: Fn(&Value) -> Result<Value, ToolError> + Send + Sync,
{
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        (self.run)(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}
