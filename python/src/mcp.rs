//! MCP servers by command line: each server is started (no shell) and its tools are
//! registered into the run's toolbox under provider-safe names (crate agentloop-mcp), as
//! `agentloop run --mcp` does.

use std::collections::BTreeMap;

use agentloop_core::tools::Toolbox;
use agentloop_mcp::{register_tools, McpOptions, McpServer, Registration};
use pyo3::prelude::*;

use crate::errors::LoopError;

/// Starts each server (`[program, arg, …]`) and registers its tools into `toolbox`;
/// with the call `limits` by name; returns the servers, which must live as long as the
/// run (dropping one ends it), and how their tools were registered.
pub fn start(
    py: Python<'_>,
    commands: Vec<Vec<String>>,
    toolbox: &mut Toolbox,
    limits: &BTreeMap<String, u64>,
) -> PyResult<(Vec<McpServer>, Registration)> {
    let options = McpOptions::default();
    let mut servers = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        let Some((program, args)) = command.split_first() else {
            return Err(LoopError::new_err(format!(
                "mcp[{i}] is an empty command line"
            )));
        };
        let started = py.detach(|| McpServer::spawn(program, args, &options));
        let server = started
            .map_err(|e| LoopError::new_err(format!("mcp[{i}] ({}): {e}", command.join(" "))))?;
        servers.push(server);
    }
    let registered = py.detach(|| register_tools(&servers, toolbox, limits));
    let registration = registered.map_err(|e| LoopError::new_err(e.to_string()))?;
    Ok((servers, registration))
}
