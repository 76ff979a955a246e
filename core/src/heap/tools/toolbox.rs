//! The [`Toolbox`]: registered tools by name, called through their checks.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use core::fmt;

use super::*;
use crate::json::Value;

/// A registered tool and whether its calls may run at the same time.
struct Entry {
    tool: Arc<dyn Tool>,
    concurrent: bool,
}

/// A registry of tools, keyed by name: the [`Manifest`] plus the tools themselves.
#[derive(Default)]
pub struct Toolbox {
    pub(super) manifest: Manifest,
    tools: BTreeMap<String, Entry>,
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

    /// Registers `tool` as `options` say (its call limit, whether its calls may run at
    /// the same time); its spec is checked and compiled as [`Manifest::register`] says.
    /// A boxed or shared tool (`Box<dyn Tool>`, `Arc<dyn Tool>`) is a tool too.
    pub fn register(
        &mut self,
        tool: impl Tool + 'static,
        options: ToolOptions,
    ) -> Result<(), RegisterError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        self.manifest
            .register_with(spec, options.limit, tool.idempotent())?;
        let entry = Entry {
            tool: Arc::new(tool),
            concurrent: options.concurrent,
        };
        self.tools.insert(name, entry);
        Ok(())
    }

    /// The tool `name` if it was registered as concurrent ([`ToolOptions::concurrent`]):
    /// one a host may run on another thread, beside other calls.
    pub fn concurrent(&self, name: &str) -> Option<Arc<dyn Tool>> {
        match self.tools.get(name) {
            Some(entry) if entry.concurrent => Some(entry.tool.clone()),
            _ => None,
        }
    }

    /// What the loop needs to know about the tools.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Runs the tool `name`. It does not check the arguments: the loop has (a
    /// [`crate::agent::Agent`] asks for a tool result only for a call that passed).
    pub fn call(&self, name: &str, arguments: &Value) -> Result<Value, ToolError> {
        match self.tools.get(name) {
            Some(entry) => entry.tool.call(arguments),
            None => Err(ToolError::new(alloc::format!(
                "no tool named '{name}' in this toolbox"
            ))),
        }
    }
}
