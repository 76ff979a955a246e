//! Finding the MCP servers `.ci/run` installs for the tests (the reference filesystem
//! server and the SDKs' packages, npm under `npm/`; the Python packages with `pip`), each
//! finder reporting the skip ([`skip_or_fail`]: a failure in CI) when its server is
//! missing.

use std::path::PathBuf;
use std::process::Command;

use crate::{have_program, skip_or_fail, workspace_root};

/// Where `.ci/run` installs the MCP servers the tests drive: `$AGENTLOOP_MCP_SERVERS`
/// (a relative path is taken from the workspace root, as `.ci/run` does), else
/// `<workspace>/target/mcp-servers` (npm packages under `npm/`).
pub fn mcp_servers_dir() -> PathBuf {
    match std::env::var_os("AGENTLOOP_MCP_SERVERS") {
        Some(dir) if !dir.is_empty() => workspace_root().join(dir),
        _ => workspace_root().join("target").join("mcp-servers"),
    }
}

/// The reference filesystem server's entry point (run it with `node`), or `None` after
/// reporting the skip.
pub fn filesystem_server() -> Option<PathBuf> {
    if !have_program("node") {
        skip_or_fail("skipped: node is not installed (the MCP filesystem server runs on it)");
        return None;
    }
    let npm = mcp_servers_dir().join("npm");
    let entry = npm.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !entry.is_file() {
        skip_or_fail(&format!(
            "skipped: {} is missing; install it as .ci/run does: npm install --prefix {} \
             @modelcontextprotocol/server-filesystem@2026.8.31",
            entry.display(),
            npm.display()
        ));
        return None;
    }
    Some(entry)
}

/// The npm prefix holding the TypeScript SDK v2 (`@modelcontextprotocol/server`; run its
/// servers with `node` and `NODE_PATH` = the prefix's `node_modules`), or `None` after
/// reporting the skip.
pub fn typescript_sdk() -> Option<PathBuf> {
    if !have_program("node") {
        skip_or_fail("skipped: node is not installed (the TypeScript SDK server runs on it)");
        return None;
    }
    let prefix = mcp_servers_dir().join("npm");
    if !prefix
        .join("node_modules/@modelcontextprotocol/server/package.json")
        .is_file()
    {
        skip_or_fail(&format!(
            "skipped: the TypeScript SDK v2 is missing; install it as .ci/run does: npm \
             install --prefix {} @modelcontextprotocol/server@2.4.0",
            prefix.display()
        ));
        return None;
    }
    Some(prefix)
}

/// Whether `python3` has the Python SDK 2.x (`mcp`), after reporting the skip when not.
pub fn python_sdk() -> bool {
    let installed = Command::new("python3")
        .args(["-c", "import mcp.server.mcpserver"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !installed {
        skip_or_fail(
            "skipped: python3 with the PyPI package mcp 2.x is needed; install it as .ci/run \
             does: python3 -m pip install mcp==2.3.0",
        );
    }
    installed
}
