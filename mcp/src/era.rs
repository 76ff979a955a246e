//! Which protocol era a server speaks, found as the 2026-07-28 stdio binding says a
//! dual-era client finds it ("stdio: Backward Compatibility"): `server/discover` first,
//! with the modern revision in `_meta`; a `DiscoverResult` means the stateless era, a
//! recognized modern error means a modern server (no fall back), any other error or no
//! answer means a handshake server, and the `initialize` handshake follows.
//!
//! Also the modern era's wire: the `_meta` envelope every request carries and the
//! `resultType` every result is read for.

use std::time::Duration;

use agentloop_core::json::{Object, Value};

use crate::error::{HttpFailure, McpError};
use crate::transport::{members, Link};
use crate::{MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS};

/// The `_meta` key of a request's protocol version.
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the client's identity.
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of the client's capabilities for a request.
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the server's identity on a result.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// `UnsupportedProtocolVersion`: the server is modern; `data.supported` names what it speaks.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The error codes the 2026-07-28 revision defines (`HeaderMismatch`,
/// `MissingRequiredClientCapability`, `UnsupportedProtocolVersion`): an answer with
/// one of them comes from a modern server, which is not spoken to with `initialize`.
const MODERN_ERRORS: [i64; 3] = [-32020, -32021, UNSUPPORTED_PROTOCOL_VERSION];

/// The longest the `server/discover` probe is waited for: a handshake server may leave
/// it unanswered.
const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// What the opening exchange learned about the server.
pub(crate) struct Opening {
    /// The revision agreed on.
    pub(crate) protocol_version: String,
    /// Whether it is a stateless (2026-07-28) revision: every request carries `_meta`.
    pub(crate) modern: bool,
    /// `serverInfo` (handshake) or `_meta["io.modelcontextprotocol/serverInfo"]` (discover).
    pub(crate) server_info: Option<Object>,
    /// `instructions`, if any.
    pub(crate) instructions: Option<String>,
    /// Whether the server declared the `tools` capability.
    pub(crate) has_tools: bool,
}

/// What the probe found.
enum Probe {
    /// A modern server, and what it said.
    Modern(Opening),
    /// Not (or not only) a modern server we can speak to: the handshake is next. The
    /// error is why (the probe's error, or its timeout).
    Handshake(McpError),
    /// A modern server we cannot speak to, or a failure that is not an answer.
    Fail(McpError),
}

/// `{"name": "agentloop", "version": <this crate's>}`.
fn client_info() -> Value {
    members(vec![
        ("name", Value::from("agentloop")),
        ("version", Value::from(env!("CARGO_PKG_VERSION"))),
    ])
}

/// `params` (an object, or none) with the modern `_meta` envelope for `version`: the
/// version, the client's identity and its capabilities (none).
pub(crate) fn with_envelope(params: Option<Value>, version: &str) -> Value {
    let envelope = members(vec![
        (PROTOCOL_VERSION_KEY, Value::from(version)),
        (CLIENT_INFO_KEY, client_info()),
        (CLIENT_CAPABILITIES_KEY, Value::Object(Object::new())),
    ]);
    let mut params = match params {
        Some(Value::Object(params)) => params,
        _ => Object::new(),
    };
    params.insert("_meta", envelope);
    Value::Object(params)
}

/// The result of `method` if it is complete. `resultType` absent (the handshake
/// revisions have none) or `"complete"` is; `"input_required"` asks for input this
/// client declared no capability to give ([`McpError::InputRequired`]); any other value
/// is not one this client knows.
pub(crate) fn complete(method: &str, result: Value) -> Result<Value, McpError> {
    let bad = |reason: String| McpError::BadAnswer {
        method: String::from(method),
        reason,
    };
    let Some(object) = result.as_object() else {
        return Ok(result);
    };
    match object.get("resultType") {
        None => Ok(result),
        Some(Value::String(kind)) if kind == "complete" => Ok(result),
        Some(Value::String(kind)) if kind == "input_required" => {
            let requests = match object.get("inputRequests") {
                Some(Value::Object(requests)) => requests
                    .iter()
                    .map(
                        |(_, request)| match request.as_object().and_then(|r| r.get("method")) {
                            Some(Value::String(method)) => method.clone(),
                            _ => String::from("?"),
                        },
                    )
                    .collect(),
                _ => Vec::new(),
            };
            Err(McpError::InputRequired {
                method: String::from(method),
                requests,
            })
        }
        Some(Value::String(kind)) => Err(bad(format!(
            "its \"resultType\" '{kind}' is not one this client knows"
        ))),
        Some(_) => Err(bad(String::from("its \"resultType\" is not a string"))),
    }
}

/// Finds the server's era and opens it, within `init_timeout` in all: the probe waits
/// at most a quarter of it (and at most 5 s), `initialize` the rest less a second
/// probe's share — kept for a server that came up after the first probe timed out and
/// refuses `initialize` naming the modern revision.
pub(crate) fn open(connection: &Link, init_timeout: Duration) -> Result<Opening, McpError> {
    let probe_wait = (init_timeout / 4).min(PROBE_LIMIT);
    let handshake_wait = init_timeout.saturating_sub(probe_wait * 2);
    let why_not_modern = match discover(connection, probe_wait) {
        Probe::Modern(opening) => return Ok(opening),
        Probe::Fail(error) => return Err(error),
        Probe::Handshake(why) => why,
    };
    let refused = match handshake(connection, handshake_wait) {
        Ok(opening) => return Ok(opening),
        Err(error @ (McpError::Rpc { .. } | McpError::Timeout { .. })) => error,
        Err(error) => return Err(error),
    };
    // A modern server that was slow to start: the probe timed out, and `initialize` is
    // refused naming the modern revision.
    let names_modern = match &refused {
        McpError::Rpc {
            code,
            data: Some(data),
            ..
        } if *code == UNSUPPORTED_PROTOCOL_VERSION => supported_in_error(data)
            .iter()
            .any(|v| MODERN_PROTOCOL_VERSIONS.contains(&v.as_str())),
        _ => false,
    };
    if names_modern {
        return match discover(connection, probe_wait) {
            Probe::Modern(opening) => Ok(opening),
            Probe::Fail(error) | Probe::Handshake(error) => Err(no_era(error, refused)),
        };
    }
    Err(no_era(why_not_modern, refused))
}

fn no_era(discover: McpError, initialize: McpError) -> McpError {
    McpError::NoEra {
        discover: Box::new(discover),
        initialize: Box::new(initialize),
    }
}

/// `server/discover` with the latest modern revision, and what its answer says.
fn discover(connection: &Link, wait: Duration) -> Probe {
    let method = "server/discover";
    let params = with_envelope(None, MODERN_PROTOCOL_VERSIONS[0]);
    let error = match connection.request(method, Some(params), wait) {
        Ok(result) => {
            return match complete(method, result).and_then(|r| discovered(&r)) {
                Ok(probe) => probe,
                Err(error) => Probe::Fail(error),
            }
        }
        Err(error) => error,
    };
    match &error {
        McpError::Timeout { .. } => Probe::Handshake(error),
        // Over HTTP, 400, 404 or 405 without a recognized modern error in the body
        // (2026-07-28 Streamable HTTP, "Backward Compatibility"); 401 or 403 is not
        // about the era.
        McpError::Http {
            failure: HttpFailure::Status(400 | 404 | 405),
            ..
        } => Probe::Handshake(error),
        McpError::Rpc { code, .. } if !MODERN_ERRORS.contains(code) => Probe::Handshake(error),
        McpError::Rpc { code, data, .. } if *code == UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = data.as_deref().map(supported_in_error).unwrap_or_default();
            if supported
                .iter()
                .any(|v| PROTOCOL_VERSIONS.contains(&v.as_str()))
            {
                Probe::Handshake(error)
            } else {
                Probe::Fail(McpError::NoCommonVersion {
                    method: String::from(method),
                    supported,
                })
            }
        }
        _ => Probe::Fail(error),
    }
}

/// `data.supported` of an `UnsupportedProtocolVersion` error (`data` as JSON text).
fn supported_in_error(data: &str) -> Vec<String> {
    let Ok(Value::Object(data)) = agentloop_core::json::parse(data.as_bytes()) else {
        return Vec::new();
    };
    match data.get("supported") {
        Some(Value::Array(versions)) => versions
            .iter()
            .filter_map(|v| match v {
                Value::String(v) => Some(v.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A `DiscoverResult`: the version chosen from `supportedVersions` (a modern one this
/// client speaks, else the handshake when it names one of ours), the capabilities, the
/// identity in `_meta` and the instructions.
fn discovered(result: &Value) -> Result<Probe, McpError> {
    let bad = |reason: &str| McpError::BadAnswer {
        method: String::from("server/discover"),
        reason: String::from(reason),
    };
    let result = result
        .as_object()
        .ok_or_else(|| bad("it is not an object"))?;
    let supported = match result.get("supportedVersions") {
        Some(Value::Array(versions)) => versions
            .iter()
            .map(|v| match v {
                Value::String(v) => Ok(v.clone()),
                _ => Err(bad(
                    "its \"supportedVersions\" has a member that is not a string",
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(bad("it has no \"supportedVersions\" array")),
    };
    let chosen = MODERN_PROTOCOL_VERSIONS
        .iter()
        .find(|v| supported.iter().any(|s| s == *v));
    let Some(version) = chosen else {
        if supported
            .iter()
            .any(|v| PROTOCOL_VERSIONS.contains(&v.as_str()))
        {
            return Ok(Probe::Handshake(McpError::NoCommonVersion {
                method: String::from("server/discover"),
                supported,
            }));
        }
        return Err(McpError::NoCommonVersion {
            method: String::from("server/discover"),
            supported,
        });
    };
    let server_info = match result.get("_meta") {
        None => None,
        Some(Value::Object(meta)) => match meta.get(SERVER_INFO_KEY) {
            None => None,
            Some(Value::Object(info)) => Some(info.clone()),
            Some(_) => return Err(bad("its \"_meta\" has a serverInfo that is not an object")),
        },
        Some(_) => return Err(bad("its \"_meta\" is not an object")),
    };
    let (has_tools, instructions) = capabilities_and_instructions(result, bad)?;
    Ok(Probe::Modern(Opening {
        protocol_version: String::from(*version),
        modern: true,
        server_info,
        instructions,
        has_tools,
    }))
}

/// Whether `capabilities` (required) has `tools`, and the `instructions` (optional).
fn capabilities_and_instructions(
    result: &Object,
    bad: impl Fn(&str) -> McpError,
) -> Result<(bool, Option<String>), McpError> {
    let has_tools = match result.get("capabilities") {
        Some(Value::Object(capabilities)) => capabilities.contains_key("tools"),
        _ => return Err(bad("it has no \"capabilities\" object")),
    };
    let instructions = match result.get("instructions") {
        Some(Value::String(text)) => Some(text.clone()),
        None => None,
        Some(_) => return Err(bad("its \"instructions\" is not a string")),
    };
    Ok((has_tools, instructions))
}

/// The handshake: `initialize` with the latest handshake revision, the answer's version
/// checked against [`PROTOCOL_VERSIONS`], then `notifications/initialized`.
pub(crate) fn handshake(connection: &Link, wait: Duration) -> Result<Opening, McpError> {
    let params = members(vec![
        ("protocolVersion", Value::from(PROTOCOL_VERSIONS[0])),
        ("capabilities", Value::Object(Object::new())),
        ("clientInfo", client_info()),
    ]);
    let result = connection.request("initialize", Some(params), wait)?;
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
    let server_info = match result.get("serverInfo") {
        Some(Value::Object(info)) => Some(info.clone()),
        None => None,
        Some(_) => return Err(bad("its \"serverInfo\" is not an object")),
    };
    let (has_tools, instructions) = capabilities_and_instructions(result, bad)?;
    connection.agree(version);
    connection.notify("notifications/initialized", None)?;
    Ok(Opening {
        protocol_version: version.clone(),
        modern: false,
        server_info,
        instructions,
        has_tools,
    })
}
