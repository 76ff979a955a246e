//! Script files: a JSON array of exchanges, for the `agentloop-standin` binary.
//!
//! ```json
//! [
//!   {"status": 429, "headers": {"Retry-After": "3"}, "json": {"error": {"message": "slow down"}}},
//!   {"status": 200, "body": "{\"id\":\"chatcmpl-1\"}", "delay_ms": 50},
//!   {"status": 200, "body_hex": "7b0a", "cut_after": 1}
//! ]
//! ```
//!
//! Each exchange may have `status` (an integer from 100 to 999; 200 when absent),
//! `headers` (an object of strings, sent in the order written), at most one of `body`
//! (a string, sent as its UTF-8 bytes), `json` (any JSON, sent compact) and
//! `body_hex` (the bytes in hexadecimal), `delay_ms` (an integer) and `cut_after` (an
//! integer: send only that many bytes of the body, then close). Any other member is
//! refused.

use std::fmt;
use std::time::Duration;

use crate::json::{self, quote, Json};
use crate::Exchange;

/// Why a script could not be read: where (the exchange's 0-based index, when the
/// problem is in one) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The exchange the problem is in, when it is in one.
    pub exchange: Option<usize>,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.exchange {
            Some(i) => write!(f, "exchange {i}: {}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

impl std::error::Error for ScriptError {}

/// Reads a script (see the module docs).
pub fn parse(text: &str) -> Result<Vec<Exchange>, ScriptError> {
    let whole = |what: String| ScriptError {
        exchange: None,
        what,
    };
    let value = json::parse(text).map_err(|e| whole(format!("the script is not JSON: {e}")))?;
    let Json::Array(items) = value else {
        return Err(whole(format!(
            "the script must be an array of exchanges, not {}",
            value.type_name()
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            exchange(item).map_err(|what| ScriptError {
                exchange: Some(i),
                what,
            })
        })
        .collect()
}

fn integer(value: &Json, name: &str) -> Result<u64, String> {
    value.as_u64().ok_or_else(|| {
        format!(
            "{name} must be a non-negative integer, not {}",
            value.type_name()
        )
    })
}

fn exchange(item: &Json) -> Result<Exchange, String> {
    let Json::Object(members) = item else {
        return Err(format!(
            "an exchange must be an object, not {}",
            item.type_name()
        ));
    };
    let mut exchange = Exchange::ok(Vec::new());
    let mut body_from: Option<&str> = None;
    for (name, value) in members {
        match name.as_str() {
            "status" => {
                let status = integer(value, "status")?;
                exchange.status = match u16::try_from(status) {
                    Ok(s) if (100..=999).contains(&s) => s,
                    _ => return Err(format!("status {status} is not from 100 to 999")),
                };
            }
            "headers" => {
                let Json::Object(headers) = value else {
                    return Err(format!("headers must be an object, not {}", value.type_name()));
                };
                for (header, value) in headers {
                    let Some(value) = value.as_str() else {
                        return Err(format!("header {header:?} must be a string"));
                    };
                    let bad = |s: &str| s.contains(['\r', '\n']);
                    if header.is_empty() || header.contains([':', ' ']) || bad(header) || bad(value)
                    {
                        return Err(format!("header {header:?}: {value:?} cannot be sent"));
                    }
                    exchange.headers.push((header.clone(), value.to_string()));
                }
            }
            "body" | "json" | "body_hex" => {
                if let Some(earlier) = body_from {
                    return Err(format!("both {earlier} and {name} give the body"));
                }
                body_from = Some(name);
                exchange.body = match name.as_str() {
                    "body" => value
                        .as_str()
                        .ok_or_else(|| format!("body must be a string, not {}", value.type_name()))?
                        .as_bytes()
                        .to_vec(),
                    "json" => value.to_string().into_bytes(),
                    _ => from_hex(value.as_str().ok_or_else(|| {
                        format!("body_hex must be a string, not {}", value.type_name())
                    })?)?,
                };
            }
            "delay_ms" => exchange.delay = Duration::from_millis(integer(value, "delay_ms")?),
            "cut_after" => {
                let n = integer(value, "cut_after")?;
                exchange.cut_after =
                    Some(usize::try_from(n).map_err(|_| format!("cut_after {n} is too large"))?);
            }
            other => {
                return Err(format!(
                    "unknown member {other:?} (have: status, headers, body, json, body_hex, delay_ms, cut_after)"
                ))
            }
        }
    }
    Ok(exchange)
}

fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("body_hex must be an even number of hexadecimal digits".to_string());
    }
    Ok((0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or(0))
        .collect())
}

/// Writes exchanges as a script that [`parse`] reads back to the same exchanges: one
/// exchange a line, the body as `body` when it is UTF-8, else `body_hex`.
pub fn to_json(exchanges: &[Exchange]) -> String {
    let mut out = String::from("[\n");
    for (i, exchange) in exchanges.iter().enumerate() {
        let mut members = vec![format!("\"status\":{}", exchange.status)];
        if !exchange.headers.is_empty() {
            let headers: Vec<String> = exchange
                .headers
                .iter()
                .map(|(n, v)| format!("{}:{}", quote(n), quote(v)))
                .collect();
            members.push(format!("\"headers\":{{{}}}", headers.join(",")));
        }
        match std::str::from_utf8(&exchange.body) {
            Ok(text) => members.push(format!("\"body\":{}", quote(text))),
            Err(_) => {
                let hex: String = exchange.body.iter().map(|b| format!("{b:02x}")).collect();
                members.push(format!("\"body_hex\":\"{hex}\""));
            }
        }
        if !exchange.delay.is_zero() {
            members.push(format!("\"delay_ms\":{}", exchange.delay.as_millis()));
        }
        if let Some(n) = exchange.cut_after {
            members.push(format!("\"cut_after\":{n}"));
        }
        out.push_str(&format!("  {{{}}}", members.join(",")));
        out.push_str(if i + 1 < exchanges.len() { ",\n" } else { "\n" });
    }
    out.push_str("]\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canned;

    #[test]
    fn reads_every_member() {
        let script = parse(
            r#"[
              {"status": 429, "headers": {"Retry-After": "3", "x-a": "b"}, "json": {"e" : [1, 2.50]}},
              {"body": "plain", "delay_ms": 50},
              {"status": 200, "body_hex": "7B0a", "cut_after": 1},
              {}
            ]"#,
        )
        .unwrap();
        assert_eq!(
            script[0],
            Exchange::new(429, "{\"e\":[1,2.50]}")
                .with_header("Retry-After", "3")
                .with_header("x-a", "b")
        );
        assert_eq!(
            script[1],
            Exchange::ok("plain").with_delay(Duration::from_millis(50))
        );
        assert_eq!(script[2], Exchange::ok(vec![0x7b, 0x0a]).cut_after(1));
        assert_eq!(script[3], Exchange::ok(""));
    }

    #[test]
    fn writes_what_it_reads_back() {
        let exchanges = vec![
            canned::openai::rate_limited(3),
            canned::anthropic::tool_use(None, &[("add", "{\"a\":1}")])
                .with_delay(Duration::from_millis(7)),
            Exchange::ok(vec![0xff, 0x00, b'"']).cut_after(2),
            canned::bad_gateway_html(),
        ];
        assert_eq!(parse(&to_json(&exchanges)).unwrap(), exchanges);
        assert_eq!(parse(&to_json(&[])).unwrap(), Vec::new());
    }

    #[test]
    fn refuses_a_bad_script_naming_the_exchange() {
        for (text, exchange, what) in [
            ("{}", None, "must be an array of exchanges, not an object"),
            (
                "[1",
                None,
                "the script is not JSON: expected ',' or ']' at byte 2",
            ),
            ("[{}, 3]", Some(1), "must be an object, not a number"),
            (
                "[{\"status\": 99}]",
                Some(0),
                "status 99 is not from 100 to 999",
            ),
            (
                "[{\"status\": \"200\"}]",
                Some(0),
                "status must be a non-negative integer, not a string",
            ),
            (
                "[{\"body\": \"a\", \"json\": 1}]",
                Some(0),
                "both body and json give the body",
            ),
            (
                "[{\"body_hex\": \"abc\"}]",
                Some(0),
                "even number of hexadecimal digits",
            ),
            (
                "[{\"headers\": {\"a\": 1}}]",
                Some(0),
                "header \"a\" must be a string",
            ),
            (
                "[{\"headers\": {\"a\": \"b\\r\\nc: d\"}}]",
                Some(0),
                "cannot be sent",
            ),
            ("[{\"delay\": 1}]", Some(0), "unknown member \"delay\""),
            (
                "[{\"cut_after\": -1}]",
                Some(0),
                "cut_after must be a non-negative integer",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.exchange, exchange, "{text}");
            assert!(err.what.contains(what), "{text}: {err}");
        }
    }
}
