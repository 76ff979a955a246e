//! The [`Toolbox`]: registered tools by name, called through their checks.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use core::fmt;

use super::*;
use crate::json::Value;

/// A registered tool: one call at a time, or shared by threads.
pub(super) enum Entry {
    Exclusive(Box<dyn Tool>),
    Shared(Arc<dyn SharedTool>),
}

/// A registry of tools, keyed by name: the [`Manifest`] plus the tools themselves.
#[derive(Default)]
pub struct Toolbox {
    pub(super) manifest: Manifest,
    pub(super) tools: BTreeMap<String, Entry>,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Registers a tool with no call limit (see [`Manifest::register`]).
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), RegisterError> {
        self.add(Box::new(tool), None)
    }

    /// Registers a tool the loop runs at most `limit` times per run.
    pub fn register_limited(
        &mut self,
        tool: impl Tool + 'static,
        limit: u64,
    ) -> Result<(), RegisterError> {
        self.add(Box::new(tool), Some(limit))
    }

    /// Registers a boxed tool, with an optional call limit.
    pub fn add(&mut self, tool: Box<dyn Tool>, limit: Option<u64>) -> Result<(), RegisterError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        self.manifest
            .register_with(spec, limit, tool.idempotent())?;
        self.tools.insert(name, Entry::Exclusive(tool));
        Ok(())
    }

    /// Registers a tool that may run several calls at once ([`SharedTool`]), with no
    /// call limit.
    pub fn register_shared(
        &mut self,
        tool: impl SharedTool + 'static,
    ) -> Result<(), RegisterError> {
        self.add_shared(Arc::new(tool), None)
    }

    /// Registers a shared tool ([`SharedTool`]), with an optional call limit.
    pub fn add_shared(
        &mut self,
        tool: Arc<dyn SharedTool>,
        limit: Option<u64>,
    ) -> Result<(), RegisterError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        self.manifest
            .register_with(spec, limit, tool.idempotent())?;
        self.tools.insert(name, Entry::Shared(tool));
        Ok(())
    }

    /// The tool `name` if it is a [`SharedTool`]: one the driver may run on another
    /// thread.
    pub fn shared(&self, name: &str) -> Option<Arc<dyn SharedTool>> {
        match self.tools.get(name) {
            Some(Entry::Shared(tool)) => Some(tool.clone()),
            _ => None,
        }
    }

    /// What the loop needs to know about the tools.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Runs the tool `name`. It does not check the arguments: the loop has (a
    /// [`crate::agent::Agent`] asks for a tool result only for a call that passed).
    pub fn call(&mut self, name: &str, arguments: &Value) -> Result<Value, ToolError> {
        match self.tools.get_mut(name) {
            Some(Entry::Exclusive(tool)) => tool.call(arguments),
            Some(Entry::Shared(tool)) => tool.call(arguments),
            None => Err(ToolError::new(alloc::format!(
                "no tool named '{name}' in this toolbox"
            ))),
        }
    }
}
