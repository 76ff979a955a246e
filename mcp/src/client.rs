//! The MCP client: the opening (era.rs), `tools/list`, `tools/call`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, PoisonError};

use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};
use agentloop_core::vocabulary::{ServerIdentity, ServerOrigin};

use crate::content::{self, ToolOutput};
use crate::era;
use crate::error::{HttpFailure, McpError};
use crate::params::{self, Param};
use crate::transport::{members, Connection, HttpConnection, Link, ProcessGroup};
use crate::McpOptions;
#[cfg(doc)]
use crate::PROTOCOL_VERSIONS;

/// An MCP server: a process spoken to over its standard input and output
/// ([`McpServer::spawn`]), or a remote server spoken to over Streamable HTTP
/// ([`McpServer::connect`]). Cheap to clone: clones (and the tools registered from it)
/// share the one process (reaped when the last of them is dropped) or connection
/// (whose session is ended then). Requests may be made from several threads at once.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Link,
    /// A process's command line's digest ([`ServerIdentity::command_digest`] of the
    /// program and its arguments); `None` over HTTP.
    command_sha256: Option<Hash>,
    options: McpOptions,
    protocol_version: String,
    /// Whether the revision is a stateless one (2026-07-28): requests carry `_meta`.
    modern: bool,
    server_info: Option<Object>,
    instructions: Option<String>,
    has_tools: bool,
    /// Over HTTP, each listed tool's `x-mcp-header` properties (params.rs).
    params: Mutex<BTreeMap<String, Vec<Param>>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = f.debug_struct("McpServer");
        match &self.inner.connection {
            Link::Stdio(connection) => debug.field("pid", &connection.pid()),
            Link::Http(connection) => debug.field("url", &connection.url()),
        };
        debug
            .field("protocol_version", &self.inner.protocol_version)
            .field("server_info", &self.inner.server_info)
            .finish_non_exhaustive()
    }
}

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// Its name on the server (what `tools/call` takes).
    pub name: String,
    /// Its `title`, if it has one.
    pub title: Option<String>,
    /// Its `description`, if it has one.
    pub description: Option<String>,
    /// Its `inputSchema` (MCP requires one; `None` when the server gave none).
    pub input_schema: Option<Value>,
    /// Its `outputSchema`, if it has one (`null` reads as none): the schema its
    /// results' `structuredContent` must match (docs/mcp.md, "Output schemas").
    pub output_schema: Option<Value>,
    /// `annotations.readOnlyHint`, if given.
    pub read_only_hint: Option<bool>,
    /// `annotations.idempotentHint`, if given.
    pub idempotent_hint: Option<bool>,
}

impl McpServer {
    /// Starts `program` with `args` (no shell: each argument is passed as it is) and
    /// finds which protocol era it speaks, as a dual-era client does over stdio
    /// (docs/mcp.md): `server/discover` with revision 2026-07-28 in `_meta` first; a
    /// server that answers it is spoken to statelessly from then on (every request
    /// carries `_meta`), any other server gets the handshake — `initialize` with the
    /// latest handshake revision and `clientInfo` `{"name": "agentloop", "version":
    /// <this crate's>}`, an answer naming a version this client speaks
    /// ([`PROTOCOL_VERSIONS`]: the server may pick an older one), then
    /// `notifications/initialized`. All within [`McpOptions::init_timeout`]. On any
    /// failure the process is reaped before this returns.
    pub fn spawn<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: &[S],
        options: &McpOptions,
    ) -> Result<McpServer, McpError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let connection = Connection::spawn(program.as_ref(), &args, options)?;
        // A word that is not UTF-8 is digested as `to_string_lossy` shows it: the
        // vocabulary digests JSON strings.
        let words: Vec<_> = core::iter::once(program.as_ref())
            .chain(args.iter().copied())
            .map(OsStr::to_string_lossy)
            .collect();
        let digest = ServerIdentity::command_digest(&words);
        McpServer::open(Link::Stdio(connection), Some(digest), options)
    }

    /// Connects to the server at `url` over Streamable HTTP (docs/mcp.md) and finds
    /// which protocol era it speaks, as a dual-era client does over HTTP: a
    /// `server/discover` POST in the stateless revision first; a server that answers it
    /// is spoken to statelessly (`Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version` on
    /// each POST); one that answers with an HTTP 4xx or a JSON-RPC error that is not a
    /// recognized modern one gets the handshake, as [`McpServer::spawn`] describes, and
    /// the session it gives (`Mcp-Session-Id`) is sent on every later request and
    /// ended with a DELETE when the last clone is dropped.
    ///
    /// Each of `headers` (name, value) is sent on every request; in a value, `$NAME`
    /// and `${NAME}` are replaced by environment variable `NAME` (which must be set)
    /// and `$$` by `$` — so a secret is named (`("Authorization", "Bearer $TOKEN")`),
    /// never written. A userinfo in `url` is sent as HTTP Basic authorization. No
    /// header value and no userinfo is ever shown: not by [`McpServer::url`], its
    /// `Debug` or an error sentence. Each request (body included) is bounded by its
    /// timeout and its body by [`McpOptions::max_line_bytes`]; redirects are not
    /// followed.
    pub fn connect<N: AsRef<str>, V: AsRef<str>>(
        url: &str,
        headers: &[(N, V)],
        options: &McpOptions,
    ) -> Result<McpServer, McpError> {
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(name, value)| (name.as_ref(), value.as_ref()))
            .collect();
        let connection = HttpConnection::open(url, &headers, options)?;
        McpServer::open(Link::Http(connection), None, options)
    }

    /// The opening exchange on `connection`, and the handle.
    fn open(
        connection: Link,
        command_sha256: Option<Hash>,
        options: &McpOptions,
    ) -> Result<McpServer, McpError> {
        let opening = era::open(&connection, options.init_timeout)?;
        Ok(McpServer {
            inner: Arc::new(Inner {
                command_sha256,
                protocol_version: opening.protocol_version,
                modern: opening.modern,
                has_tools: opening.has_tools,
                server_info: opening.server_info,
                instructions: opening.instructions,
                params: Mutex::new(BTreeMap::new()),
                options: options.clone(),
                connection,
            }),
        })
    }

    /// Request `method` in the server's era (with the `_meta` envelope in the stateless
    /// one), waited for at most [`McpOptions::call_timeout`]; its result if complete.
    fn request(
        &self,
        method: &str,
        params: Option<Value>,
        headers: &[(String, String)],
    ) -> Result<Value, McpError> {
        let inner = &self.inner;
        let params = match inner.modern {
            true => Some(era::with_envelope(params, &inner.protocol_version)),
            false => params,
        };
        let timeout = inner.options.call_timeout;
        let link = &inner.connection;
        let result = match link.request_with(method, params.clone(), timeout, headers) {
            // The server ended the handshake era's session over HTTP: a new one, as
            // the 2025-11-25 binding says, and the request again, once.
            Err(McpError::Http {
                failure: HttpFailure::SessionEnded,
                ..
            }) => {
                era::handshake(link, inner.options.init_timeout)?;
                link.request_with(method, params, timeout, headers)?
            }
            answer => answer?,
        };
        era::complete(method, result)
    }

    /// Whether it is spoken to over HTTP.
    pub(crate) fn is_remote(&self) -> bool {
        matches!(self.inner.connection, Link::Http(_))
    }

    /// The protocol version agreed on: `2026-07-28` with a server that answered
    /// `server/discover`, else the one its answer to `initialize` named.
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol_version
    }

    /// The server's identity (`name`, `version`, …), if it sent one: `serverInfo` in
    /// its answer to `initialize`, or `_meta["io.modelcontextprotocol/serverInfo"]` in
    /// its answer to `server/discover`.
    pub fn server_info(&self) -> Option<&Object> {
        self.inner.server_info.as_ref()
    }

    /// The server's `instructions`, if it sent any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// Whether the server declared the `tools` capability. Without it, [`Self::list_tools`]
    /// lists nothing and asks nothing.
    pub fn has_tools(&self) -> bool {
        self.inner.has_tools
    }

    /// The server process's id (for logs and tests; never recorded); `None` for a
    /// server over HTTP.
    pub fn process_id(&self) -> Option<u32> {
        match &self.inner.connection {
            Link::Stdio(connection) => Some(connection.pid()),
            Link::Http(_) => None,
        }
    }

    /// The server as a run's setup records it (`setup.servers[]`, docs/format.md):
    /// the SHA-256 of its command line ([`ServerIdentity::command_digest`] of the
    /// program and its arguments: a word may hold a secret) or its URL without
    /// userinfo ([`Self::url`]), the protocol version agreed and its `serverInfo`.
    pub fn identity(&self) -> ServerIdentity {
        let origin = match (self.inner.command_sha256, self.url()) {
            (Some(digest), _) => ServerOrigin::Command(digest),
            (None, url) => ServerOrigin::Url(String::from(url.unwrap_or_default())),
        };
        ServerIdentity {
            origin,
            protocol_version: self.inner.protocol_version.clone(),
            server_info: self.inner.server_info.clone(),
        }
    }

    /// The URL of a server over HTTP, without its userinfo; `None` for a process.
    pub fn url(&self) -> Option<&str> {
        match &self.inner.connection {
            Link::Stdio(_) => None,
            Link::Http(connection) => Some(connection.url()),
        }
    }

    /// The server's process group (its own, on Unix: the server and every process it
    /// starts), for ending it from another thread — a Ctrl-C handler — with
    /// [`end_process_groups`](crate::end_process_groups), while this handle and its
    /// tools are busy in a call. It does not keep the server running. A server over
    /// HTTP has none: its group ends nothing.
    pub fn process_group(&self) -> ProcessGroup {
        match &self.inner.connection {
            Link::Stdio(connection) => connection.process_group(),
            Link::Http(_) => ProcessGroup::none(),
        }
    }

    /// `None` while the server runs; `Some(status)` once its output ended (the status
    /// is `None` when it was not known within the grace period). Once dead, every
    /// request fails at once with [`McpError::Exited`]. Always `None` over HTTP.
    pub fn exited(&self) -> Option<Option<ExitStatus>> {
        match &self.inner.connection {
            Link::Stdio(connection) => connection.dead(),
            Link::Http(_) => None,
        }
    }

    /// Whether the server said its tool list changed
    /// (`notifications/tools/list_changed`) since the last look; the note is cleared, so
    /// the next look says no until it says so again. Over stdio the notification may
    /// come at any time; over HTTP only on an event stream that answers a request (the
    /// client opens no standing stream). Read the list again with
    /// [`McpServer::list_tools`].
    pub fn tools_changed(&self) -> bool {
        self.inner.connection.take_tools_changed()
    }

    /// The options it was started with.
    pub fn options(&self) -> &McpOptions {
        &self.inner.options
    }

    /// Every tool the server lists: `tools/list`, following `nextCursor` page by page,
    /// each page waited for at most [`McpOptions::call_timeout`]; more than
    /// [`McpOptions::max_pages`] pages or [`McpOptions::max_tools`] tools is an error.
    /// In the order the server gives them.
    pub fn list_tools(&self) -> Result<Vec<ListedTool>, McpError> {
        let mut tools = Vec::new();
        if !self.inner.has_tools {
            return Ok(tools);
        }
        let options = &self.inner.options;
        let mut cursor: Option<String> = None;
        for _ in 0..options.max_pages {
            let params = cursor
                .take()
                .map(|cursor| members(vec![("cursor", Value::from(cursor))]));
            // A stateless server's cache hints (`ttlMs`, `cacheScope`) need nothing: the
            // list is read at the start and again when the server says it changed.
            let page = self.request("tools/list", params, &[])?;
            let page = page
                .as_object()
                .ok_or_else(|| list_error("it is not an object"))?;
            let listed = match page.get("tools") {
                Some(Value::Array(listed)) => listed,
                _ => return Err(list_error("it has no \"tools\" array")),
            };
            for tool in listed {
                if tools.len() == options.max_tools {
                    return Err(McpError::TooManyTools(options.max_tools));
                }
                tools.push(listed_tool(tool, tools.len())?);
            }
            match page.get("nextCursor") {
                None | Some(Value::Null) => {
                    self.keep_params(&tools);
                    return Ok(tools);
                }
                Some(Value::String(next)) => cursor = Some(next.clone()),
                Some(_) => return Err(list_error("its \"nextCursor\" is not a string")),
            }
        }
        Err(McpError::TooManyPages(options.max_pages))
    }

    /// Over HTTP, keeps the `x-mcp-header` properties of each listed tool whose marks
    /// are valid (register.rs skips the others).
    fn keep_params(&self, tools: &[ListedTool]) {
        if !self.is_remote() {
            return;
        }
        let mut kept = self
            .inner
            .params
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for tool in tools {
            let read = tool.input_schema.as_ref().map(params::read);
            if let Some(Ok(marked)) = read.filter(|r| r.as_ref().is_ok_and(|p| !p.is_empty())) {
                kept.insert(tool.name.clone(), marked);
            }
        }
    }

    /// Calls tool `name` (its name on the server) with `arguments`: `tools/call`,
    /// waited for at most [`McpOptions::call_timeout`]. Over HTTP, the values of the
    /// properties its `inputSchema` marks with `x-mcp-header` are sent as
    /// `Mcp-Param-*` headers (as [`McpServer::list_tools`] read them). The result is
    /// mapped to the recorded shape ([`ToolOutput`], docs/mcp.md); a result that is not
    /// an error and is longer than [`McpOptions::max_result_bytes`] as canonical JSON
    /// is [`McpError::ResultTooLarge`].
    pub fn call_tool(&self, name: &str, arguments: &Value) -> Result<ToolOutput, McpError> {
        let options = &self.inner.options;
        let kept = self.inner.params.lock();
        let headers = kept
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .map(|marked| params::headers(marked, arguments));
        let params = members(vec![
            ("name", Value::from(name)),
            ("arguments", arguments.clone()),
        ]);
        let result = self.request("tools/call", Some(params), &headers.unwrap_or_default())?;
        let output = content::map_result(&result, options.inline_media).map_err(|reason| {
            McpError::BadAnswer {
                method: String::from("tools/call"),
                reason,
            }
        })?;
        if !output.is_error {
            // A parsed value has only finite numbers: it always encodes.
            let bytes = jcs::to_vec(&output.value).map_or(usize::MAX, |bytes| bytes.len());
            if bytes > options.max_result_bytes {
                return Err(McpError::ResultTooLarge {
                    bytes,
                    max: options.max_result_bytes,
                });
            }
        }
        Ok(output)
    }
}

fn list_error(reason: &str) -> McpError {
    McpError::BadAnswer {
        method: String::from("tools/list"),
        reason: String::from(reason),
    }
}

/// One entry of a `tools/list` page (`index` counts from the first page).
fn listed_tool(tool: &Value, index: usize) -> Result<ListedTool, McpError> {
    let bad = |what: &str| list_error(&format!("tool {index} {what}"));
    let tool = tool.as_object().ok_or_else(|| bad("is not an object"))?;
    let text = |key: &str| match tool.get(key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(bad(&format!("has a \"{key}\" that is not a string"))),
    };
    let name = text("name")?.ok_or_else(|| bad("has no \"name\""))?;
    let (mut read_only_hint, mut idempotent_hint) = (None, None);
    match tool.get("annotations") {
        None | Some(Value::Null) => {}
        Some(Value::Object(annotations)) => {
            for (key, hint) in [
                ("readOnlyHint", &mut read_only_hint),
                ("idempotentHint", &mut idempotent_hint),
            ] {
                *hint = match annotations.get(key) {
                    None => None,
                    Some(Value::Bool(value)) => Some(*value),
                    Some(_) => {
                        return Err(bad(&format!(
                            "has an \"annotations.{key}\" that is not a boolean"
                        )))
                    }
                };
            }
        }
        Some(_) => return Err(bad("has \"annotations\" that are not an object")),
    }
    Ok(ListedTool {
        title: text("title")?,
        description: text("description")?,
        input_schema: tool.get("inputSchema").cloned(),
        output_schema: tool
            .get("outputSchema")
            .filter(|schema| !matches!(schema, Value::Null))
            .cloned(),
        read_only_hint,
        idempotent_hint,
        name,
    })
}
