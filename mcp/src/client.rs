//! The MCP client: the `initialize` handshake, `tools/list`, `tools/call`.

use std::ffi::OsStr;
use std::process::ExitStatus;
use std::sync::Arc;

use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};

use crate::content::{self, ToolOutput};
use crate::error::McpError;
use crate::transport::{members, Connection, ProcessGroup};
use crate::{McpOptions, PROTOCOL_VERSIONS};

/// A running MCP server, spoken to over its standard input and output. Cheap to clone:
/// clones (and the tools registered from it) share the one process, which is reaped
/// when the last of them is dropped. Requests may be made from several threads at once.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Connection,
    options: McpOptions,
    protocol_version: String,
    server_info: Option<Object>,
    instructions: Option<String>,
    has_tools: bool,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("pid", &self.inner.connection.pid())
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
    /// `annotations.readOnlyHint`, if given.
    pub read_only_hint: Option<bool>,
    /// `annotations.idempotentHint`, if given.
    pub idempotent_hint: Option<bool>,
}

impl McpServer {
    /// Starts `program` with `args` (no shell: each argument is passed as it is) and
    /// runs the handshake: `initialize` with the latest protocol version this client
    /// speaks and `clientInfo` `{"name": "agentloop", "version": <this crate's>}`,
    /// waiting at most [`McpOptions::init_timeout`]; the server's answer must name a
    /// version this client speaks ([`PROTOCOL_VERSIONS`]: the server may pick an older
    /// one); then `notifications/initialized`. On any failure the process is reaped
    /// before this returns.
    pub fn spawn<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: &[S],
        options: &McpOptions,
    ) -> Result<McpServer, McpError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let connection = Connection::spawn(program.as_ref(), &args, options)?;
        let params = members(vec![
            ("protocolVersion", Value::from(PROTOCOL_VERSIONS[0])),
            ("capabilities", Value::Object(Object::new())),
            (
                "clientInfo",
                members(vec![
                    ("name", Value::from("agentloop")),
                    ("version", Value::from(env!("CARGO_PKG_VERSION"))),
                ]),
            ),
        ]);
        let result = connection.request("initialize", Some(params), options.init_timeout)?;
        let bad = |reason: &str| McpError::BadAnswer {
            method: String::from("initialize"),
            reason: String::from(reason),
        };
        let result = result
            .as_object()
            .ok_or_else(|| bad("it is not an object"))?;
        let version = match result.get("protocolVersion") {
            Some(Value::String(version)) => version,
            _ => return Err(bad("it has no string \"protocolVersion\"")),
        };
        if !PROTOCOL_VERSIONS.contains(&version.as_str()) {
            return Err(McpError::UnsupportedVersion(version.clone()));
        }
        let capabilities = match result.get("capabilities") {
            Some(Value::Object(capabilities)) => capabilities,
            _ => return Err(bad("it has no \"capabilities\" object")),
        };
        let server_info = match result.get("serverInfo") {
            Some(Value::Object(info)) => Some(info.clone()),
            None => None,
            Some(_) => return Err(bad("its \"serverInfo\" is not an object")),
        };
        let instructions = match result.get("instructions") {
            Some(Value::String(text)) => Some(text.clone()),
            None => None,
            Some(_) => return Err(bad("its \"instructions\" is not a string")),
        };
        connection.notify("notifications/initialized", None)?;
        Ok(McpServer {
            inner: Arc::new(Inner {
                protocol_version: version.clone(),
                has_tools: capabilities.contains_key("tools"),
                server_info,
                instructions,
                options: options.clone(),
                connection,
            }),
        })
    }

    /// The protocol version the handshake agreed on.
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol_version
    }

    /// The server's `serverInfo` (`name`, `version`, …), if it sent one.
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

    /// The server process's id (for logs and tests; never recorded).
    pub fn process_id(&self) -> u32 {
        self.inner.connection.pid()
    }

    /// The server's process group (its own, on Unix: the server and every process it
    /// starts), for ending it from another thread — a Ctrl-C handler — with
    /// [`end_process_groups`](crate::end_process_groups), while this handle and its
    /// tools are busy in a call. It does not keep the server running.
    pub fn process_group(&self) -> ProcessGroup {
        self.inner.connection.process_group()
    }

    /// `None` while the server runs; `Some(status)` once its output ended (the status
    /// is `None` when it was not known within the grace period). Once dead, every
    /// request fails at once with [`McpError::Exited`].
    pub fn exited(&self) -> Option<Option<ExitStatus>> {
        self.inner.connection.dead()
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
            let page = self
                .inner
                .connection
                .request("tools/list", params, options.call_timeout)?;
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
                None | Some(Value::Null) => return Ok(tools),
                Some(Value::String(next)) => cursor = Some(next.clone()),
                Some(_) => return Err(list_error("its \"nextCursor\" is not a string")),
            }
        }
        Err(McpError::TooManyPages(options.max_pages))
    }

    /// Calls tool `name` (its name on the server) with `arguments`: `tools/call`,
    /// waited for at most [`McpOptions::call_timeout`]. The result is mapped to the
    /// recorded shape ([`ToolOutput`], docs/mcp.md); a result that is not an error
    /// and is longer than [`McpOptions::max_result_bytes`] as canonical JSON is
    /// [`McpError::ResultTooLarge`].
    pub fn call_tool(&self, name: &str, arguments: &Value) -> Result<ToolOutput, McpError> {
        let options = &self.inner.options;
        let params = members(vec![
            ("name", Value::from(name)),
            ("arguments", arguments.clone()),
        ]);
        let result =
            self.inner
                .connection
                .request("tools/call", Some(params), options.call_timeout)?;
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
        read_only_hint,
        idempotent_hint,
        name,
    })
}
