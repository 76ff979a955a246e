//! The tools `run` offers and `tools` prints: the demo tools, then each `--mcp`
//! server's (`agentloop_mcp`), named as docs/mcp.md says (`tools_map` records how).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use agentloop_core::demo;
use agentloop_core::jcs;
use agentloop_core::json::Value;
use agentloop_core::tools::{ToolOptions, Toolbox};
use agentloop_mcp::{register_tools, McpOptions, McpServer, Registration, Stderr};

use crate::args::ToolsArgs;
use crate::diag;
use crate::failure::{Failure, SetupFailure};

/// The tools offered, the MCP servers they came from and how they were named.
pub struct Offered {
    /// The toolbox (the MCP tools hold their servers: dropping it reaps them).
    pub toolbox: Toolbox,
    /// How the MCP tools were named, and which were skipped.
    pub registration: Registration,
}

/// The options every server is started with. `default_log` is where their stderr goes
/// when `--mcp-log` is not given (`None`: discarded).
pub fn options(args: &ToolsArgs, default_log: Option<PathBuf>) -> Result<McpOptions, Failure> {
    let mut env = Vec::new();
    for name in &args.mcp_env {
        match std::env::var_os(name) {
            Some(value) => env.push((OsString::from(name), value)),
            None => return Err(Failure::Setup(SetupFailure::McpEnvNotSet(name.clone()))),
        }
    }
    let stderr = match args.mcp_log.clone().or(default_log) {
        Some(path) => Stderr::Append(path),
        None => Stderr::Discard,
    };
    Ok(McpOptions {
        call_timeout: Duration::from_secs(args.mcp_timeout),
        init_timeout: Duration::from_secs(args.mcp_init_timeout),
        inline_media: args.mcp_inline_media,
        trust_hints: args.mcp_trust_hints,
        stderr,
        env,
        ..McpOptions::default()
    })
}

/// Starts every `--mcp` server, in order (each handshake done); the first that fails
/// is the error (those already started are reaped as they are dropped).
pub fn spawn(args: &ToolsArgs, options: &McpOptions) -> Result<Vec<McpServer>, Failure> {
    let mut servers = Vec::with_capacity(args.mcp.len());
    for (index, command) in args.mcp.iter().enumerate() {
        let Some((program, rest)) = command.words.split_first() else {
            return Err(Failure::Setup(SetupFailure::Mcp {
                index,
                command: command.text.clone(),
                error: String::from("the command is empty"),
            }));
        };
        let server = McpServer::spawn(program, rest, options).map_err(|error| {
            Failure::Setup(SetupFailure::Mcp {
                index,
                command: command.text.clone(),
                error: error.to_string(),
            })
        })?;
        servers.push(server);
    }
    Ok(servers)
}

/// The toolbox: the demo tools when asked (under their own names), then the servers'
/// tools; each with its limit from `limits` (by the name offered). A limit for a name
/// not offered is refused; a tool that cannot be offered is said on stderr as a
/// warning and left out.
pub fn offer(
    args: &ToolsArgs,
    servers: &[McpServer],
    limits: &BTreeMap<String, u64>,
) -> Result<Offered, Failure> {
    let mut toolbox = Toolbox::new();
    if args.demo_tools {
        // Concurrent, as the MCP tools are: a turn's calls to them run together.
        for tool in demo::all_tools() {
            let limit = limits.get(&tool.spec().name).copied();
            toolbox
                .register(tool, ToolOptions::new().limit(limit).concurrent())
                .map_err(Failure::DemoTools)?;
        }
    }
    let registration = register_tools(servers, &mut toolbox, limits).map_err(|error| {
        let agentloop_mcp::RegisterToolsError::List { server, error } = error;
        Failure::Setup(SetupFailure::Mcp {
            index: server,
            command: args
                .mcp
                .get(server)
                .map(|c| c.text.clone())
                .unwrap_or_default(),
            error: format!("could not list its tools: {error}"),
        })
    })?;
    for skipped in &registration.skipped {
        diag::say(format!("warning: {skipped}; the other tools are offered"));
    }
    let names: Vec<String> = toolbox.manifest().names().map(str::to_owned).collect();
    if let Some(name) = limits.keys().find(|name| !names.contains(name)) {
        return Err(Failure::Setup(SetupFailure::UnknownToolLimit {
            name: name.clone(),
            tools: names,
        }));
    }
    Ok(Offered {
        toolbox,
        registration,
    })
}

/// The canonical text of a value and a newline.
pub fn line(value: &Value) -> Vec<u8> {
    // The values here hold strings, integers and booleans: always encodable.
    let mut bytes = jcs::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_tools_are_offered_first_with_their_limits_and_a_stray_limit_is_refused() {
        let args = ToolsArgs {
            demo_tools: true,
            mcp: Vec::new(),
            mcp_timeout: 60,
            mcp_init_timeout: 60,
            mcp_log: None,
            mcp_env: Vec::new(),
            mcp_trust_hints: false,
            mcp_inline_media: false,
        };
        let limits = BTreeMap::from([(String::from("add"), 2)]);
        let offered = offer(&args, &[], &limits).unwrap();
        assert_eq!(offered.toolbox.manifest().limit("add"), Some(2));
        assert_eq!(offered.toolbox.manifest().limit("echo"), None);
        let stray = BTreeMap::from([(String::from("read_file"), 1)]);
        let refused = offer(&args, &[], &stray).err().unwrap();
        assert!(
            refused
                .to_string()
                .contains("the tools are add, echo, fail, greet"),
            "{refused}"
        );
    }
}
