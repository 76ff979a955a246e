//! MCP tools as agentloop tools: [`register_tools`] lists every server's tools and
//! registers each into a [`Toolbox`] under a provider-safe, unique name.
//!
//! # Names
//! Servers are taken in the order given (server 0, 1, …), each server's tools sorted
//! by their MCP name (byte order), so the result does not depend on the order a server
//! lists them in. A tool's name is:
//!
//! 1. its MCP name, when that matches `^[a-zA-Z0-9_-]{1,64}$` (MCP also allows `.` and
//!    up to 128 characters; providers do not); otherwise
//!    [`provider_safe_name`] of it: its first 40 characters with every other character
//!    replaced by `_`, then `-` and 16 hex digits of the SHA-256 of the whole name
//!    (`fs.read` → `fs_read-<16 hex>`);
//! 2. when that name is already taken — by a tool already in the toolbox, or by an
//!    earlier server's tool — the name cut to leave room, then `-<server index>`
//!    (`read` from server 1 → `read-1`), and if that is taken too `-<server index>-2`,
//!    `-3`, … until one is free.
//!
//! The first server keeps the plain names: put the server whose names matter most
//! first. [`Registration::tools`] gives every tool's MCP name and registered name, for
//! the caller to record.
//!
//! # Skipped tools
//! A tool the toolbox refuses (a schema the validator does not accept, a root that is
//! not `"type": "object"`), one with no `inputSchema`, one whose `outputSchema` the
//! validator does not accept (its calls could not be checked), and every tool whose MCP name a
//! server lists twice are skipped: [`Registration::skipped`] says which and why, and
//! the others are registered. A skipped tool's name is not taken.
//!
//! # Idempotence
//! MCP tools are registered as **not** idempotent (a resumed run does not call one
//! again that may have run: its call is recorded as result lost), unless the server's
//! options say to trust its hints ([`crate::McpOptions::trust_hints`]): then a tool
//! with `annotations.readOnlyHint: true` or `idempotentHint: true` is idempotent. The
//! specification says annotations are untrusted unless the server is.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use agentloop_core::json::Value;
use agentloop_core::schema::Schema;
use agentloop_core::tools::{
    provider_safe_name, Manifest, Tool, ToolError, ToolOptions, ToolSpec, Toolbox, MAX_NAME_CHARS,
};
use agentloop_core::vocabulary::{OfferedTool, ToolSource};

use crate::client::{ListedTool, McpServer};
use crate::content::cut;
use crate::error::McpError;
use crate::output;

/// One MCP tool as an agentloop [`Tool`]: a call is a `tools/call` to its server.
/// It is registered as concurrent ([`ToolOptions::concurrent`]): calls may be made from
/// several threads at once — the driver's parallel path runs a turn's calls together — each request waiting for its own answer (by JSON-RPC id)
/// on the server's one connection; the server answers them as it does.
///
/// A call fails (the loop records `ok:false`) with:
/// - `the server reported an error: <its text>` when the result has `isError: true`;
/// - when the tool has an `outputSchema`, `its structuredContent does not match its
///   outputSchema: <violations>` or `the tool has an outputSchema but its result has
///   no structuredContent` (docs/mcp.md, "Output schemas");
/// - the [`McpError`]'s sentence otherwise: a JSON-RPC error (`'tools/call' failed with
///   JSON-RPC error <code>: <message>`), a timeout, garbage on stdout, a result too
///   large to record, or a server that has exited.
///
/// Every failure sentence is cut to [`crate::McpOptions::max_error_bytes`] (as JSON).
#[derive(Debug)]
pub struct McpTool {
    server: McpServer,
    mcp_name: String,
    spec: ToolSpec,
    idempotent: bool,
    /// Its compiled `outputSchema`, if it has one.
    output: Option<Schema>,
}

impl McpTool {
    /// The tool's name on its server.
    pub fn mcp_name(&self) -> &str {
        &self.mcp_name
    }

    /// Its server.
    pub fn server(&self) -> &McpServer {
        &self.server
    }
}

impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        let max = self.server.options().max_error_bytes;
        match self.server.call_tool(&self.mcp_name, arguments) {
            Ok(output) if output.is_error => Err(ToolError::new(cut(
                &format!("the server reported an error: {}", output.error_text()),
                max,
            ))),
            Ok(result) => match self
                .output
                .as_ref()
                .map(|schema| output::check(schema, &result))
            {
                Some(Err(why)) => Err(ToolError::new(cut(&why, max))),
                _ => Ok(result.value),
            },
            Err(error) => Err(ToolError::new(cut(&error.to_string(), max))),
        }
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

/// A registered tool: which server, its name there, its name in the toolbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredTool {
    /// The server's index in the list given to [`register_tools`].
    pub server: usize,
    /// Its name on the server.
    pub mcp_name: String,
    /// Its name in the toolbox (what models see and transcripts record).
    pub name: String,
    /// Whether it was registered as idempotent.
    pub idempotent: bool,
}

/// A tool that was not registered, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The server's index in the list given to [`register_tools`].
    pub server: usize,
    /// Its name on the server.
    pub mcp_name: String,
    /// Why, as a sentence.
    pub reason: String,
}

impl fmt::Display for SkippedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MCP server {}: tool '{}' skipped: {}",
            self.server, self.mcp_name, self.reason
        )
    }
}

/// What [`register_tools`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registration {
    /// The tools registered, by server and then MCP name.
    pub tools: Vec<RegisteredTool>,
    /// The tools skipped, by server and then MCP name.
    pub skipped: Vec<SkippedTool>,
}

impl Registration {
    /// The registered tools whose toolbox name is not their MCP name.
    pub fn renamed(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.tools.iter().filter(|t| t.name != t.mcp_name)
    }

    /// The tools of `manifest` as a run's setup records them (`setup.tools[]`,
    /// [`OfferedTool::from_manifest`]), each tool this registration registered marked
    /// with its source: its server's index in the list given to [`register_tools`]
    /// (the index of that server's [`McpServer::identity`] in `setup.servers`) and its
    /// name there. The others are the host's.
    pub fn offered_tools(&self, manifest: &Manifest) -> Vec<OfferedTool> {
        let mut offered = OfferedTool::from_manifest(manifest);
        for tool in &mut offered {
            if let Some(registered) = self.tools.iter().find(|t| t.name == tool.name) {
                tool.source = ToolSource::Mcp {
                    server: registered.server as u64,
                    name: registered.mcp_name.clone(),
                };
            }
        }
        offered
    }
}

/// A server's tools could not be listed; nothing was registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterToolsError {
    /// `tools/list` failed on this server.
    List {
        /// The server's index.
        server: usize,
        /// Why.
        error: McpError,
    },
}

impl fmt::Display for RegisterToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterToolsError::List { server, error } => {
                write!(
                    f,
                    "could not list the tools of MCP server {server}: {error}"
                )
            }
        }
    }
}

impl std::error::Error for RegisterToolsError {}

/// Lists the tools of every server in `servers` and registers them into `toolbox`,
/// named as the module documentation says. `limits` gives call limits by toolbox name
/// (a name it does not register is left alone: compare with the result). Every server
/// is listed before anything is registered, so a listing error leaves the toolbox as
/// it was.
pub fn register_tools(
    servers: &[McpServer],
    toolbox: &mut Toolbox,
    limits: &BTreeMap<String, u64>,
) -> Result<Registration, RegisterToolsError> {
    let mut listed = Vec::with_capacity(servers.len());
    for (index, server) in servers.iter().enumerate() {
        let mut tools = server
            .list_tools()
            .map_err(|error| RegisterToolsError::List {
                server: index,
                error,
            })?;
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        listed.push(tools);
    }
    let mut taken: BTreeSet<String> = toolbox.manifest().names().map(String::from).collect();
    let mut registration = Registration::default();
    for (index, (server, tools)) in servers.iter().zip(listed).enumerate() {
        let skip = |tool: &ListedTool, reason: String| SkippedTool {
            server: index,
            mcp_name: tool.name.clone(),
            reason,
        };
        for (at, tool) in tools.iter().enumerate() {
            let twice = |other: Option<&ListedTool>| other.is_some_and(|o| o.name == tool.name);
            if twice(at.checked_sub(1).and_then(|i| tools.get(i))) || twice(tools.get(at + 1)) {
                let reason = String::from("the server lists more than one tool of this name");
                registration.skipped.push(skip(tool, reason));
                continue;
            }
            let Some(schema) = tool.input_schema.clone() else {
                let reason = String::from("the server gave no inputSchema");
                registration.skipped.push(skip(tool, reason));
                continue;
            };
            // Over HTTP, a tool whose `x-mcp-header` marks break the rules is refused,
            // as the 2026-07-28 Streamable HTTP binding says a client must.
            if let (true, Err(reason)) = (server.is_remote(), crate::params::read(&schema)) {
                registration.skipped.push(skip(tool, reason));
                continue;
            }
            let output = match tool.output_schema.as_ref().map(output::compile) {
                Some(Err(reason)) => {
                    registration.skipped.push(skip(tool, reason));
                    continue;
                }
                compiled => compiled.and_then(Result::ok),
            };
            let name = free_name(&tool.name, index, &taken);
            let description = tool
                .description
                .clone()
                .or_else(|| tool.title.clone())
                .unwrap_or_default();
            let trusted = server.options().trust_hints;
            let idempotent = trusted
                && (tool.read_only_hint == Some(true) || tool.idempotent_hint == Some(true));
            let mcp_tool = McpTool {
                server: server.clone(),
                mcp_name: tool.name.clone(),
                spec: ToolSpec::new(name.clone(), description, schema),
                idempotent,
                output,
            };
            match toolbox.register(
                mcp_tool,
                ToolOptions::new()
                    .limit(limits.get(&name).copied())
                    .concurrent(),
            ) {
                Ok(()) => {
                    taken.insert(name.clone());
                    registration.tools.push(RegisteredTool {
                        server: index,
                        mcp_name: tool.name.clone(),
                        name,
                        idempotent,
                    });
                }
                Err(error) => registration.skipped.push(skip(tool, error.to_string())),
            }
        }
    }
    Ok(registration)
}

/// The name tool `mcp_name` of server `server` gets, given the names taken.
fn free_name(mcp_name: &str, server: usize, taken: &BTreeSet<String>) -> String {
    let base = provider_safe_name(mcp_name);
    if !taken.contains(base.as_ref()) {
        return base.into_owned();
    }
    (1..)
        .map(|k: u64| {
            let suffix = match k {
                1 => format!("-{server}"),
                k => format!("-{server}-{k}"),
            };
            // `base` is ASCII: bytes are characters.
            let keep = base.len().min(MAX_NAME_CHARS.saturating_sub(suffix.len()));
            format!("{}{suffix}", &base[..keep])
        })
        .find(|name| !taken.contains(name))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| String::from(*n)).collect()
    }

    #[test]
    fn a_safe_free_name_is_kept_and_a_taken_one_gets_the_server_index() {
        assert_eq!(free_name("read", 0, &taken(&[])), "read");
        assert_eq!(free_name("read", 1, &taken(&["read"])), "read-1");
        assert_eq!(
            free_name("read", 1, &taken(&["read", "read-1"])),
            "read-1-2"
        );
        assert_eq!(
            free_name("read", 3, &taken(&["read", "read-3", "read-3-2"])),
            "read-3-3"
        );
    }

    #[test]
    fn an_unsafe_name_is_made_safe_and_a_long_one_is_cut_to_fit_its_suffix() {
        let safe = free_name("fs.read", 0, &taken(&[]));
        assert_eq!(safe, provider_safe_name("fs.read"));
        assert!(safe.starts_with("fs_read-"), "{safe}");
        let long = "x".repeat(64);
        assert_eq!(free_name(&long, 0, &taken(&[])), long);
        let moved = free_name(&long, 12, &taken(&[&long]));
        assert_eq!(moved, format!("{}-12", "x".repeat(61)));
        let next = free_name(&long, 12, &taken(&[&long, &moved]));
        assert_eq!(next, format!("{}-12-2", "x".repeat(59)));
        for name in [moved, next] {
            // A provider-safe name is the one provider_safe_name leaves as it is.
            assert_eq!(provider_safe_name(&name), name.as_str());
        }
    }
}
