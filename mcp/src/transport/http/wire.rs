//! The wire's small pieces: the headers a request's body gives (`MCP-Protocol-Version`,
//! `Mcp-Name`), a response's media type, what a ureq failure stands for, a secret
//! hidden from a sentence.

use std::time::Duration;

use agentloop_core::json::Value;
use agentloop_core::redact::hide_runs;

use crate::error::{HttpFailure, McpError};

/// The `_meta` key of a request's protocol version (era.rs writes it).
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// `text` with every whole `secret` and every run of 8 of its characters hidden.
pub(super) fn hide_whole(text: &str, secret: &str) -> String {
    hide_runs(
        &text.replace(secret, agentloop_core::redact::REDACTED),
        Some(secret),
    )
}

/// The `_meta` protocol version of a stateless request's params.
pub(super) fn meta_version(params: Option<&Value>) -> Option<&str> {
    params?
        .as_object()?
        .get("_meta")?
        .as_object()?
        .get(PROTOCOL_VERSION_KEY)?
        .as_str()
}

/// The `Mcp-Name` of a request: `params.name` of `tools/call` and `prompts/get`,
/// `params.uri` of `resources/read`.
pub(super) fn mcp_name<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params?.as_object()?.get(key)?.as_str()
}

/// A `Content-Type`'s media type, lowercase, without parameters.
pub(super) fn media_type(kind: &str) -> String {
    kind.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The error a ureq failure of request `method` stands for.
pub(super) fn failure(
    method: &str,
    error: ureq::Error,
    timeout: Duration,
    max_body: usize,
) -> McpError {
    let http = |failure| McpError::Http {
        method: String::from(method),
        failure,
    };
    match error {
        ureq::Error::Timeout(_) => McpError::Timeout {
            method: String::from(method),
            after: timeout,
        },
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => McpError::Timeout {
            method: String::from(method),
            after: timeout,
        },
        ureq::Error::BodyExceedsLimit(_) => http(HttpFailure::TooLarge(max_body)),
        other => http(HttpFailure::NoAnswer(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::members;

    #[test]
    fn a_secret_is_hidden_whole_and_in_runs() {
        assert_eq!(
            hide_whole("token abcdefghijklmnop and abcdefghij", "abcdefghijklmnop"),
            "token [redacted] and [redacted]"
        );
    }

    #[test]
    fn the_media_type_is_read_without_parameters() {
        assert_eq!(
            media_type("Application/JSON; charset=utf-8"),
            "application/json"
        );
        assert_eq!(media_type("text/event-stream"), "text/event-stream");
    }

    #[test]
    fn the_name_header_comes_from_the_params() {
        let params = members(vec![("name", Value::from("add"))]);
        assert_eq!(mcp_name("tools/call", Some(&params)), Some("add"));
        assert_eq!(mcp_name("tools/list", Some(&params)), None);
    }
}
