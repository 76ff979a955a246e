//! MCP tools for agentloop: a client for [Model Context Protocol] servers over stdio
//! or Streamable HTTP, whose tools become agentloop tools registered as concurrent
//! ([`ToolOptions::concurrent`](agentloop_core::tools::ToolOptions::concurrent): the
//! driver's parallel path runs a turn's calls to them together).
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use agentloop_core::tools::Toolbox;
//! use agentloop_mcp::{register_tools, McpOptions, McpServer, Stderr};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut options = McpOptions::default();
//! options.stderr = Stderr::Append("mcp-filesystem.log".into());
//! let server = McpServer::spawn(
//!     "npx",
//!     &["-y", "@modelcontextprotocol/server-filesystem", "/tmp/work"],
//!     &options,
//! )?;
//! let mut toolbox = Toolbox::new();
//! let registration = register_tools(&[server], &mut toolbox, &BTreeMap::new())?;
//! for skipped in &registration.skipped {
//!     eprintln!("warning: {skipped}");
//! }
//! for tool in registration.renamed() {
//!     println!("{} is offered as {}", tool.mcp_name, tool.name);
//! }
//! # Ok(()) }
//! ```
//!
//! - [`McpServer::spawn`] starts a server (no shell), finds its protocol era (the
//!   stateless `server/discover`, else the `initialize` handshake) and gives a handle;
//!   [`McpServer::connect`] does the same with a remote server over Streamable HTTP,
//!   sending headers whose values are read from the environment (`Bearer $TOKEN`);
//!   [`McpServer::list_tools`] and [`McpServer::call_tool`] are the two requests
//!   agentloop makes.
//! - [`register_tools`] registers every tool of a list of servers into a
//!   [`Toolbox`](agentloop_core::tools::Toolbox) under provider-safe, unique names,
//!   and says which tools were renamed and which were skipped (and why).
//! - A result becomes the tool record's value in the shape [`ToolOutput`] documents:
//!   images, audio and blobs by media type, size and SHA-256.
//!
//! Threads and channels, no async runtime: each server over stdio has a reader and a
//! writer thread; a request over HTTP is a blocking POST (ureq, as `agentloop-http`)
//! on the caller's thread; every request has a timeout. docs/mcp.md says what is
//! recorded and the failure rules.
//!
//! Protocol: both eras of the specification over stdio and over Streamable HTTP — the
//! stateless revision
//! ([`MODERN_PROTOCOL_VERSIONS`]: no handshake, the version, identity and capabilities
//! on each request) and the handshake revisions ([`PROTOCOL_VERSIONS`], newest first),
//! chosen by what the server answers to the `server/discover` probe.
//!
//! [Model Context Protocol]: https://modelcontextprotocol.io/specification/2026-07-28
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod client;
mod content;
mod era;
mod error;
mod output;
mod params;
mod register;
mod transport;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

pub use client::{ListedTool, McpServer};
pub use content::ToolOutput;
pub use error::{Garbage, HttpFailure, McpError, RemoteError};
pub use register::{
    register_tools, McpTool, RegisterToolsError, RegisteredTool, Registration, SkippedTool,
};
pub use transport::{end_process_groups, ProcessGroup, INHERITED_ENV};

/// The handshake protocol versions this client speaks, newest first: it asks for the
/// first in `initialize` and accepts a server that answers with any of them.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The stateless protocol versions this client speaks (no handshake; the version,
/// identity and capabilities in each request's `_meta`), newest first: it probes with
/// the first in `server/discover` and speaks it to a server that lists it.
pub const MODERN_PROTOCOL_VERSIONS: [&str; 1] = ["2026-07-28"];

/// Where a server's standard error goes. Never into a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Stderr {
    /// Nowhere (`/dev/null`).
    #[default]
    Discard,
    /// To agentloop's own standard error.
    Inherit,
    /// Appended to this file (created if missing).
    Append(PathBuf),
}

/// How to start and talk to a server. [`Default`] gives the values named on each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOptions {
    /// How long the opening may take, probe and handshake together (a server fetched
    /// by `npx` on first use may need a while): 60 s. The `server/discover` probe waits
    /// at most a quarter of it, and at most 5 s (docs/mcp.md).
    pub init_timeout: Duration,
    /// How long each `tools/call`, and each page of `tools/list`, may take: 60 s. Over
    /// HTTP, the whole exchange: connection, request and the answer's last byte.
    pub call_timeout: Duration,
    /// At shutdown, how long the server gets to exit after its stdin is closed, and
    /// again after SIGTERM, before SIGKILL; also how long the reader waits for an
    /// exit status once the server's stdout ends: 2 s. (Not used over HTTP.)
    pub shutdown_grace: Duration,
    /// The longest line read from the server, without its newline (a longer one fails
    /// the requests waiting and is dropped as it comes): 16 MiB, as a record line.
    /// Over HTTP, the longest answer body, JSON or event stream (a longer one fails the
    /// request).
    pub max_line_bytes: usize,
    /// The most `tools/list` pages followed: 100.
    pub max_pages: usize,
    /// The most tools a server may list: 1000.
    pub max_tools: usize,
    /// The longest result recorded, as canonical JSON (a longer one fails the call):
    /// 4 MiB, well inside the 16 MiB record line limit.
    pub max_result_bytes: usize,
    /// The longest failure sentence recorded, as JSON (a longer one is cut, saying
    /// so): 64 KiB.
    pub max_error_bytes: usize,
    /// Record the base64 of images, audio and blobs besides their size and SHA-256:
    /// `false`.
    pub inline_media: bool,
    /// Trust the server's tool annotations: a tool with `readOnlyHint` or
    /// `idempotentHint` true is registered idempotent (a resumed run calls it again):
    /// `false`.
    pub trust_hints: bool,
    /// Where the server's stderr goes: [`Stderr::Discard`].
    pub stderr: Stderr,
    /// Pass agentloop's whole environment to the server. When `false` (the default)
    /// the server gets only [`INHERITED_ENV`] (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
    /// `TERM`, `USER`), so API keys do not reach it, plus [`McpOptions::env`].
    pub inherit_env: bool,
    /// Variables set for the server (after the inherited ones): none.
    pub env: Vec<(OsString, OsString)>,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            init_timeout: Duration::from_secs(60),
            call_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(2),
            max_line_bytes: agentloop_core::verify::MAX_LINE_BYTES,
            max_pages: 100,
            max_tools: 1000,
            max_result_bytes: 4 << 20,
            max_error_bytes: 64 << 10,
            inline_media: false,
            trust_hints: false,
            stderr: Stderr::Discard,
            inherit_env: false,
            env: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The parallel driver runs a turn's calls on several threads: a server handle and
    /// its tools may move to and be shared between threads.
    #[test]
    fn servers_and_tools_may_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<crate::McpServer>();
        send_sync::<crate::McpTool>();
        send_sync::<crate::McpError>();
    }
}
