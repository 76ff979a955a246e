//! The tool traits — one call at a time ([`Tool`]) or shared by threads ([`SharedTool`]) — and closures as tools.

use core::fmt;

use super::*;
use crate::json::Value;

/// A tool a model may call.
pub trait Tool {
    /// Its name, description and argument schema; read once, at registration.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool. The loop calls it only with arguments that satisfy the schema.
    fn call(&mut self, arguments: &Value) -> Result<Value, ToolError>;

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

/// A tool that can run several calls at once, from several threads: its `call` takes
/// `&self`, and it is `Send + Sync`. Register it with [`Toolbox::register_shared`];
/// the driver's parallel path ([`crate::driver::RunOptions::parallel`]) runs the calls
/// of a turn to shared tools together, and the calls to other tools ([`Tool`]) one at
/// a time on the driver's thread. Otherwise it is a [`Tool`] like any other.
pub trait SharedTool: Send + Sync {
    /// Its name, description and argument schema; read once, at registration.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool, maybe on several threads at once. The loop calls it only with
    /// arguments that satisfy the schema.
    fn call(&self, arguments: &Value) -> Result<Value, ToolError>;

    /// Whether it is idempotent, as [`Tool::idempotent`]. The default is `false`.
    fn idempotent(&self) -> bool {
        false
    }
}

/// A [`SharedTool`] made of a spec and a closure that may run on several threads at
/// once.
pub struct SharedFnTool<F> {
    pub(super) spec: ToolSpec,
    pub(super) run: F,
    pub(super) idempotent: bool,
}

impl<F> SharedFnTool<F>
where
    F: Fn(&Value) -> Result<Value, ToolError> + Send + Sync,
{
    /// A tool that presents `spec` and runs `run`; not idempotent.
    pub fn new(spec: ToolSpec, run: F) -> Self {
        SharedFnTool {
            spec,
            run,
            idempotent: false,
        }
    }

    /// Declares the tool idempotent ([`Tool::idempotent`]).
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }
}

impl<F> fmt::Debug for SharedFnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedFnTool")
            .field("spec", &self.spec)
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

impl<F> SharedTool for SharedFnTool<F>
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

/// A tool made of a spec and a closure.
pub struct FnTool<F> {
    pub(super) spec: ToolSpec,
    pub(super) run: F,
    pub(super) idempotent: bool,
}

impl<F> FnTool<F>
where
    F: FnMut(&Value) -> Result<Value, ToolError>,
{
    /// A tool that presents `spec` and runs `run`; not idempotent.
    pub fn new(spec: ToolSpec, run: F) -> Self {
        FnTool {
            spec,
            run,
            idempotent: false,
        }
    }

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
    F: FnMut(&Value) -> Result<Value, ToolError>,
{
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&mut self, arguments: &Value) -> Result<Value, ToolError> {
        (self.run)(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}
