//! A remote server's URL and headers, checked before anything is sent: the URL is
//! shown without its userinfo, a header's value is expanded from the environment
//! (`$NAME`, `${NAME}`, `$$` for a dollar) and never shown.

use crate::error::{McpError, RemoteError};

/// Headers the client sets itself, which a caller may not set (lowercase).
const RESERVED: [&str; 11] = [
    "accept",
    "connection",
    "content-length",
    "content-type",
    "host",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
    "transfer-encoding",
];

/// `url` checked (an `http://` or `https://` URL with a host), and as it is shown.
pub(crate) fn check_url(url: &str) -> Result<String, McpError> {
    let shown = agentloop_core::redact::without_userinfo(url).into_owned();
    let bad = |why| McpError::Remote(RemoteError::BadUrl(shown.clone(), why));
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(bad("does not start with http:// or https://"));
    }
    let uri: ureq::http::Uri = url.parse().map_err(|_| bad("is not a URL"))?;
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("has no host"));
    }
    Ok(shown)
}

/// Header `name` with `template` expanded from the environment.
pub(crate) fn header(name: &str, template: &str) -> Result<(String, String), McpError> {
    let bad_name = |why| McpError::Remote(RemoteError::BadHeaderName(String::from(name), why));
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(bad_name("is not an HTTP header name"));
    }
    let lower = name.to_ascii_lowercase();
    if RESERVED.contains(&lower.as_str()) || lower.starts_with("mcp-param-") {
        return Err(bad_name("is one the MCP client sets itself"));
    }
    let value = expand(name, template)?;
    let bad_value = |why| McpError::Remote(RemoteError::BadHeaderValue(String::from(name), why));
    if !value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
    {
        return Err(bad_value(
            "has a character a header cannot carry (only printable ASCII can be sent)",
        ));
    }
    if value.trim() != value {
        return Err(bad_value("begins or ends with white space"));
    }
    Ok((String::from(name), value))
}

/// `template` with each `$NAME` and `${NAME}` replaced by the variable's value and
/// each `$$` by `$`.
fn expand(header: &str, template: &str) -> Result<String, McpError> {
    let bad = |why| McpError::Remote(RemoteError::BadHeaderValue(String::from(header), why));
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, next) = if let Some(after) = after.strip_prefix('$') {
            out.push('$');
            rest = after;
            continue;
        } else if let Some(braced) = after.strip_prefix('{') {
            let end = braced
                .find('}')
                .ok_or_else(|| bad("has a '${' with no '}'"))?;
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        let valid = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(bad(
                "has a '$' not followed by a variable name (write $$ for a dollar sign)",
            ));
        }
        match std::env::var(name) {
            Ok(value) => out.push_str(&value),
            Err(_) => {
                return Err(McpError::Remote(RemoteError::VariableNotSet {
                    header: String::from(header),
                    variable: String::from(name),
                }))
            }
        }
        rest = next;
    }
    out.push_str(rest);
    Ok(out)
}

/// A value for the `Mcp-Name` header: as it is when it is plain visible ASCII (and
/// spaces inside), else `=?base64?…?=` of its UTF-8 (the 2026-07-28 Streamable HTTP
/// "Value Encoding").
pub(crate) fn header_safe(value: &str) -> String {
    use base64::Engine;
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    match plain {
        true => String::from(value),
        false => format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_expanded_from_the_environment_and_never_shown() {
        // PATH is set wherever the tests run.
        let path = std::env::var("PATH").unwrap();
        let (_, value) = header("X-Path", "a ${PATH} $PATH.x $$").unwrap();
        assert_eq!(value, format!("a {path} {path}.x $"));
        let unset = header("Authorization", "Bearer $AGENTLOOP_SURELY_UNSET_VARIABLE")
            .unwrap_err()
            .to_string();
        assert_eq!(
            unset,
            "the MCP header 'Authorization' names the environment variable \
             AGENTLOOP_SURELY_UNSET_VARIABLE, which is not set"
        );
        for (template, why) in [
            ("a $ b", "has a '$' not followed"),
            ("${PATH", "has a '${' with no '}'"),
            ("${1X}", "has a '$' not followed"),
            ("line\nbreak", "has a character a header cannot carry"),
            (" padded", "begins or ends with white space"),
        ] {
            let error = header("X-A", template).unwrap_err().to_string();
            assert!(error.contains(why), "{template:?}: {error}");
            assert!(!error.contains(&path), "{error}");
        }
        for name in [
            "",
            "Bad Name",
            "Mcp-Session-Id",
            "accept",
            "Mcp-Param-Region",
        ] {
            assert!(header(name, "v").is_err(), "{name}");
        }
    }

    #[test]
    fn urls_are_checked_and_shown_without_userinfo() {
        assert_eq!(
            check_url("https://user:s3cret@host:8443/mcp").unwrap(),
            "https://host:8443/mcp"
        );
        let refused = check_url("ftp://user:s3cret@host/mcp")
            .unwrap_err()
            .to_string();
        assert_eq!(
            refused,
            "the MCP server URL \"ftp://host/mcp\" does not start with http:// or https://"
        );
        assert!(check_url("http:///mcp").is_err());
    }

    #[test]
    fn a_name_that_is_not_plain_ascii_is_sent_in_base64() {
        assert_eq!(header_safe("get_weather"), "get_weather");
        assert_eq!(
            header_safe("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_safe(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            header_safe("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }
}
