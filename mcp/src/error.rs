//! What can go wrong talking to an MCP server.
//!
//! A [`McpError`]'s sentence may end up in a transcript (a failed tool call is recorded
//! as `tool '<name>' failed: <sentence>`), so it never holds a process id, a clock
//! reading or the server's command line: the same failure gives the same sentence.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use agentloop_core::json::ParseError;

use crate::{MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS};

/// Why a request to an MCP server (or starting one) failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpError {
    /// The program could not be started.
    Spawn {
        /// The program, as given.
        program: String,
        /// The operating system's reason.
        error: String,
    },
    /// The file the server's stderr should go to could not be opened.
    StderrLog {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        error: String,
    },
    /// The server did not answer within the timeout. The server is left running: a
    /// later request may succeed (a `notifications/cancelled` was sent for this one).
    Timeout {
        /// The request's method (`initialize`, `tools/list`, `tools/call`).
        method: String,
        /// The timeout.
        after: Duration,
    },
    /// The server process is gone: it exited (with this status), or it closed its
    /// standard output (`None`: its status was not known within the shutdown grace
    /// period). The client is dead from then on: every later request fails at once
    /// with this error; the server is not restarted.
    Exited(Option<ExitStatus>),
    /// The server wrote a line on its standard output that is not a JSON-RPC message.
    /// It fails every request that was waiting for an answer when the line came; the
    /// server stays in use.
    Garbage(Garbage),
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The request's method.
        method: String,
        /// The error's code.
        code: i64,
        /// The error's message.
        message: String,
        /// The error's `data`, as canonical JSON, if it had one.
        data: Option<String>,
    },
    /// The server's answer is JSON-RPC but not what MCP says it should be.
    BadAnswer {
        /// The request's method.
        method: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered `initialize` with a protocol version this client does not
    /// speak ([`PROTOCOL_VERSIONS`]); the client disconnects.
    UnsupportedVersion(String),
    /// The server named the protocol versions it supports (in a `DiscoverResult` or an
    /// `UnsupportedProtocolVersion` error) and this client speaks none of them.
    NoCommonVersion {
        /// The request it answered (`server/discover`).
        method: String,
        /// The versions it named.
        supported: Vec<String>,
    },
    /// The server speaks neither era: it did not answer the `server/discover` probe
    /// with a `DiscoverResult` or a modern error, nor `initialize` with a result.
    NoEra {
        /// What the probe got.
        discover: Box<McpError>,
        /// What `initialize` got.
        initialize: Box<McpError>,
    },
    /// A stateless server answered with `resultType` `"input_required"`: it needs input
    /// (elicitation, sampling, roots) that this client, which declares no capabilities,
    /// does not give. The request fails; it is not retried.
    InputRequired {
        /// The request's method.
        method: String,
        /// The method of each input request, in the order of their keys.
        requests: Vec<String>,
    },
    /// The server is not reading its standard input: this many messages are already
    /// waiting to be written to it.
    Busy(usize),
    /// `tools/list` gave more pages than the limit ([`crate::McpOptions::max_pages`]).
    TooManyPages(usize),
    /// `tools/list` gave more tools than the limit ([`crate::McpOptions::max_tools`]).
    TooManyTools(usize),
    /// A tool's result, mapped to its record value, is longer than the limit
    /// ([`crate::McpOptions::max_result_bytes`]) as canonical JSON.
    ResultTooLarge {
        /// Its length in bytes.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A request to a server over HTTP ([`crate::McpServer::connect`]) failed below
    /// JSON-RPC: no answer, an HTTP status, a redirect, a body of the wrong type or size.
    Http {
        /// The request's method.
        method: String,
        /// What went wrong.
        failure: HttpFailure,
    },
    /// A server's URL or one of its headers cannot be used; nothing was sent.
    Remote(RemoteError),
}

/// How an exchange with a server over HTTP failed below JSON-RPC. No sentence holds a
/// header value or the URL's userinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFailure {
    /// No answer: the connection failed, or was cut (ureq's reason).
    NoAnswer(String),
    /// An HTTP error status whose body is not a JSON-RPC error.
    Status(u16),
    /// A redirect, which is not followed (it could carry the headers elsewhere).
    Redirect {
        /// The status (301, 302, 303, 307, 308).
        status: u16,
        /// Its `Location`, without userinfo, if it gave one.
        location: Option<String>,
    },
    /// A body whose `Content-Type` is neither `application/json` nor
    /// `text/event-stream` (the type given, or `None` for none).
    ContentType(Option<String>),
    /// A body longer than [`crate::McpOptions::max_line_bytes`].
    TooLarge(usize),
    /// A request answered with no body (202 or 204).
    NoBody(u16),
    /// The event stream ended before the answer came.
    StreamEnded,
    /// The server answered 404 to a request with the session it gave: it ended the
    /// session. (A request is sent once more in a new session; this is the error when
    /// that fails the same way.)
    SessionEnded,
}

/// Why a server's URL or headers were refused ([`crate::McpServer::connect`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteError {
    /// The URL is not an `http://` or `https://` URL with a host (shown without
    /// userinfo): why.
    BadUrl(String, &'static str),
    /// A header name that is not an HTTP token, or one the client sets itself.
    BadHeaderName(String, &'static str),
    /// A header's value names an environment variable that is not set.
    VariableNotSet {
        /// The header.
        header: String,
        /// The variable.
        variable: String,
    },
    /// A header's value (after expansion) cannot be sent: the header, and why (never
    /// the value).
    BadHeaderValue(String, &'static str),
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpFailure::NoAnswer(reason) => write!(f, "no answer ({reason})"),
            HttpFailure::Status(status) => write!(
                f,
                "HTTP status {status}, with no JSON-RPC error in the body"
            ),
            HttpFailure::Redirect { status, location } => {
                write!(f, "a redirect (HTTP {status}")?;
                if let Some(location) = location {
                    write!(f, " to {location}")?;
                }
                f.write_str("), which is not followed")
            }
            HttpFailure::ContentType(Some(kind)) => write!(
                f,
                "a body of type '{kind}', not application/json or text/event-stream"
            ),
            HttpFailure::ContentType(None) => f.write_str(
                "a body with no Content-Type (application/json or text/event-stream is needed)",
            ),
            HttpFailure::TooLarge(max) => {
                write!(f, "a body longer than the limit of {max} bytes")
            }
            HttpFailure::NoBody(status) => write!(f, "HTTP status {status} with no body"),
            HttpFailure::StreamEnded => {
                f.write_str("an event stream that ended before the answer came")
            }
            HttpFailure::SessionEnded => {
                f.write_str("HTTP status 404 for the session the server gave: it ended the session")
            }
        }
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoteError::BadUrl(url, why) => write!(f, "the MCP server URL \"{url}\" {why}"),
            RemoteError::BadHeaderName(name, why) => {
                write!(f, "the MCP header name '{name}' {why}")
            }
            RemoteError::VariableNotSet { header, variable } => write!(
                f,
                "the MCP header '{header}' names the environment variable {variable}, which is not set"
            ),
            RemoteError::BadHeaderValue(header, why) => {
                write!(f, "the value of the MCP header '{header}' {why}")
            }
        }
    }
}

/// How a line on the server's standard output fails to be a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Garbage {
    /// The line is longer than [`crate::McpOptions::max_line_bytes`] (without its
    /// newline); its bytes were dropped as they came.
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The line is not JSON the strict parser accepts (I-JSON: no duplicate keys, no
    /// lone surrogates, integers exact as doubles, at most 128 levels deep).
    NotJson(ParseError),
    /// The line is JSON but not a JSON-RPC 2.0 message: the rule it breaks.
    NotMessage(&'static str),
}

impl fmt::Display for Garbage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Garbage::TooLong { len, max } => {
                write!(f, "it is {len} bytes long, more than the limit of {max}")
            }
            Garbage::NotJson(error) => write!(f, "it is not JSON the parser accepts: {error}"),
            Garbage::NotMessage(rule) => f.write_str(rule),
        }
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Spawn { program, error } => {
                write!(f, "could not start the MCP server '{program}': {error}")
            }
            McpError::StderrLog { path, error } => write!(
                f,
                "could not open {} for the MCP server's stderr: {error}",
                path.display()
            ),
            McpError::Timeout { method, after } => write!(
                f,
                "the MCP server did not answer '{method}' within {after:?}"
            ),
            McpError::Exited(status) => {
                match status {
                    Some(status) => write!(f, "the MCP server exited ({status})")?,
                    None => f.write_str("the MCP server closed its output")?,
                }
                f.write_str("; it is not restarted, so every call to its tools fails")
            }
            McpError::Garbage(garbage) => write!(
                f,
                "the MCP server wrote a line that is not a JSON-RPC message: {garbage}"
            ),
            McpError::Rpc {
                method,
                code,
                message,
                data,
            } => {
                write!(f, "'{method}' failed with JSON-RPC error {code}: {message}")?;
                match data {
                    Some(data) => write!(f, " (data: {data})"),
                    None => Ok(()),
                }
            }
            McpError::BadAnswer { method, reason } => {
                write!(
                    f,
                    "the MCP server's answer to '{method}' is malformed: {reason}"
                )
            }
            McpError::UnsupportedVersion(version) => write!(
                f,
                "the MCP server answered 'initialize' with protocol version '{version}', \
                 which this client does not speak (it speaks {})",
                PROTOCOL_VERSIONS.join(", ")
            ),
            McpError::NoCommonVersion { method, supported } => write!(
                f,
                "the MCP server answered '{method}' that it supports protocol versions \
                 [{}], none of which this client speaks (it speaks {}, {})",
                supported.join(", "),
                MODERN_PROTOCOL_VERSIONS.join(", "),
                PROTOCOL_VERSIONS.join(", ")
            ),
            McpError::NoEra {
                discover,
                initialize,
            } => write!(
                f,
                "the MCP server answered neither protocol era this client speaks: to the \
                 2026-07-28 probe, {discover}; to the handshake, {initialize}"
            ),
            McpError::InputRequired { method, requests } => write!(
                f,
                "the MCP server answered '{method}' asking for input ({}), which agentloop \
                 does not give (it declares no client capabilities), so the request fails",
                match requests.is_empty() {
                    true => String::from("no requests named"),
                    false => requests.join(", "),
                }
            ),
            McpError::Busy(queued) => write!(
                f,
                "the MCP server is not reading its input ({queued} messages are waiting \
                 to be written to it)"
            ),
            McpError::TooManyPages(max) => write!(
                f,
                "the MCP server's tool list has more than {max} pages (the page limit)"
            ),
            McpError::TooManyTools(max) => {
                write!(
                    f,
                    "the MCP server lists more than {max} tools (the tool limit)"
                )
            }
            McpError::ResultTooLarge { bytes, max } => write!(
                f,
                "the result is {bytes} bytes as JSON, more than the limit of {max} bytes \
                 for a recorded result"
            ),
            McpError::Http { method, failure } => {
                write!(
                    f,
                    "'{method}' to the MCP server over HTTP failed: {failure}"
                )
            }
            McpError::Remote(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for McpError {}
