//! The one way the client speaks to a server, whatever carries the messages: a child
//! process's pipes ([`Connection`]) or HTTP ([`HttpConnection`]).

use std::time::Duration;

use agentloop_core::json::Value;

use super::http::HttpConnection;
use super::Connection;
use crate::error::McpError;

/// A server, over stdio or HTTP.
pub(crate) enum Link {
    /// A child process.
    Stdio(Connection),
    /// A URL.
    Http(HttpConnection),
}

impl Link {
    /// Sends request `method` and waits at most `timeout` for its result.
    pub(crate) fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        self.request_with(method, params, timeout, &[])
    }

    /// [`Link::request`], with `headers` besides over HTTP (a call's `Mcp-Param-*`).
    pub(crate) fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        headers: &[(String, String)],
    ) -> Result<Value, McpError> {
        match self {
            Link::Stdio(connection) => connection.request(method, params, timeout),
            Link::Http(connection) => connection.request(method, params, timeout, headers),
        }
    }

    /// Sends notification `method`.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        match self {
            Link::Stdio(connection) => connection.notify(method, params),
            Link::Http(connection) => connection.notify(method, params),
        }
    }

    /// Whether the server said its tool list changed since the last look (cleared).
    pub(crate) fn take_tools_changed(&self) -> bool {
        match self {
            Link::Stdio(connection) => connection.take_tools_changed(),
            Link::Http(connection) => connection.take_tools_changed(),
        }
    }

    /// The handshake agreed on `version`: over HTTP, the `MCP-Protocol-Version` of
    /// every later request.
    pub(crate) fn agree(&self, version: &str) {
        if let Link::Http(connection) = self {
            connection.agree(version);
        }
    }
}
