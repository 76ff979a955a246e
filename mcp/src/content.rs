//! A `tools/call` result as a tool record's value (docs/mcp.md, "What is recorded").
//!
//! ```text
//! {"content": [<item>, …], "structuredContent": <as sent, only if sent>}
//! ```
//!
//! Each item, by its `type`:
//!
//! | type | recorded |
//! | --- | --- |
//! | `text` | `{"type":"text","text"}` |
//! | `image`, `audio` | `{"type","mimeType","bytes","sha256"}` (`+ "data"` inline) |
//! | `resource` with `text` | `{"type":"resource","uri","mimeType"?,"text"}` |
//! | `resource` with `blob` | `{"type":"resource","uri","mimeType"?,"bytes","sha256"}` (`+ "blob"` inline) |
//! | `resource_link` | `{"type":"resource_link","uri","name"}` + `title`, `description`, `mimeType`, `size` when given |
//! | anything else | the item as sent, without `annotations` and `_meta` |
//!
//! `bytes` and `sha256` are the length and the SHA-256 (64 lowercase hex) of the
//! base64-decoded data; the base64 itself is kept only when the caller asks
//! ([`crate::McpOptions::inline_media`]). Members not listed (`annotations`, `_meta`,
//! anything unknown on a known type) are not recorded: they are display hints, and a
//! `lastModified` would make two runs of the same call record different bytes.

use agentloop_core::hash::Hash;
use agentloop_core::json::{Object, Value};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use sha2::{Digest, Sha256};

/// Standard base64; padding may be there or not.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A `tools/call` result, mapped.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The server's `isError` (absent = `false`): the tool ran and failed.
    pub is_error: bool,
    /// The record value: `{"content": […], "structuredContent"?: …}`.
    pub value: Value,
}

impl ToolOutput {
    /// What an error result says: its `text` items (and `resource` items' `text`)
    /// joined by newlines, or, when it has none, the canonical JSON of the whole value.
    pub fn error_text(&self) -> String {
        let texts: Vec<&str> = self
            .value
            .as_object()
            .and_then(|o| o.get("content"))
            .and_then(|c| match c {
                Value::Array(items) => Some(items),
                _ => None,
            })
            .into_iter()
            .flatten()
            .filter_map(|item| item.as_object()?.get("text")?.as_str())
            .collect();
        if texts.is_empty() {
            let json = agentloop_core::jcs::to_vec(&self.value).unwrap_or_default();
            return String::from_utf8_lossy(&json).into_owned();
        }
        texts.join("\n")
    }
}

/// Maps a `tools/call` result; `Err` says what is wrong with it.
pub(crate) fn map_result(result: &Value, inline: bool) -> Result<ToolOutput, String> {
    let result = result.as_object().ok_or("it is not an object")?;
    let is_error = match result.get("isError") {
        None => false,
        Some(Value::Bool(is_error)) => *is_error,
        Some(_) => return Err(String::from("its \"isError\" is not a boolean")),
    };
    let items = match result.get("content") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(String::from("its \"content\" is not an array")),
        None => return Err(String::from("it has no \"content\"")),
    };
    let content = items
        .iter()
        .enumerate()
        .map(|(i, item)| map_item(item, inline).map_err(|why| format!("content item {i} {why}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut value = Object::new();
    value.insert("content", Value::Array(content));
    if let Some(structured) = result.get("structuredContent") {
        value.insert("structuredContent", structured.clone());
    }
    Ok(ToolOutput {
        is_error,
        value: Value::Object(value),
    })
}

/// Reads `key` of `object` as a string: `Ok(None)` when absent.
fn text<'a>(object: &'a Object, key: &str) -> Result<Option<&'a str>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(format!("has a \"{key}\" that is not a string")),
    }
}

fn required<'a>(object: &'a Object, key: &str) -> Result<&'a str, String> {
    text(object, key)?.ok_or_else(|| format!("has no \"{key}\""))
}

/// `bytes` and `sha256` of base64 `data` (and the base64 itself when `inline`).
fn digest(into: &mut Object, key: &str, data: &str, inline: bool) -> Result<(), String> {
    let bytes = BASE64
        .decode(data)
        .map_err(|e| format!("has a \"{key}\" that is not base64: {e}"))?;
    into.insert("bytes", Value::Number(bytes.len() as f64));
    let hex = Hash(Sha256::digest(&bytes).into()).to_hex();
    into.insert(
        "sha256",
        Value::from(String::from_utf8_lossy(&hex).into_owned()),
    );
    if inline {
        into.insert(key, Value::from(data));
    }
    Ok(())
}

fn map_item(item: &Value, inline: bool) -> Result<Value, String> {
    let item = item.as_object().ok_or("is not an object")?;
    let kind = required(item, "type")?;
    let mut out = Object::new();
    out.insert("type", Value::from(kind));
    match kind {
        "text" => {
            out.insert("text", Value::from(required(item, "text")?));
        }
        "image" | "audio" => {
            out.insert("mimeType", Value::from(required(item, "mimeType")?));
            digest(&mut out, "data", required(item, "data")?, inline)?;
        }
        "resource" => {
            let resource = match item.get("resource") {
                Some(Value::Object(resource)) => resource,
                _ => return Err(String::from("has no \"resource\" object")),
            };
            let why = |e: String| format!("(resource) {e}");
            out.insert("uri", Value::from(required(resource, "uri").map_err(why)?));
            if let Some(mime) = text(resource, "mimeType").map_err(why)? {
                out.insert("mimeType", Value::from(mime));
            }
            match (
                text(resource, "text").map_err(why)?,
                text(resource, "blob").map_err(why)?,
            ) {
                (Some(text), None) => {
                    out.insert("text", Value::from(text));
                }
                (None, Some(blob)) => digest(&mut out, "blob", blob, inline).map_err(why)?,
                _ => {
                    return Err(String::from(
                        "(resource) must have exactly one of \"text\" and \"blob\"",
                    ))
                }
            }
        }
        "resource_link" => {
            out.insert("uri", Value::from(required(item, "uri")?));
            out.insert("name", Value::from(required(item, "name")?));
            for key in ["title", "description", "mimeType"] {
                if let Some(value) = text(item, key)? {
                    out.insert(key, Value::from(value));
                }
            }
            match item.get("size") {
                None => {}
                Some(Value::Number(size)) => {
                    out.insert("size", Value::Number(*size));
                }
                Some(_) => return Err(String::from("has a \"size\" that is not a number")),
            }
        }
        _ => {
            let mut kept = item.clone();
            kept.remove("annotations");
            kept.remove("_meta");
            return Ok(Value::Object(kept));
        }
    }
    Ok(Value::Object(out))
}

// `text` cut so that its JSON string encoding (RFC 8785 escapes, without the quotes)
// is at most `max` bytes: the first characters that fit, then `… (cut: N bytes in
// all)` — core's rule, shared with the loop's own cuts.
pub(crate) use agentloop_core::quote::cut_to_fit as cut;

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::json::parse;

    fn map(result: &str, inline: bool) -> Result<ToolOutput, String> {
        map_result(&parse(result.as_bytes()).unwrap(), inline)
    }

    fn json(value: &Value) -> String {
        String::from_utf8(agentloop_core::jcs::to_vec(value).unwrap()).unwrap()
    }

    /// SHA-256 of "hello" (base64 aGVsbG8=), computed by `printf hello | sha256sum`.
    const HELLO: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    #[test]
    fn every_content_type_maps_to_its_documented_shape() {
        let result = r#"{"content":[
            {"type":"text","text":"hi","annotations":{"priority":1},"_meta":{"x":1}},
            {"type":"image","data":"aGVsbG8=","mimeType":"image/png"},
            {"type":"audio","data":"aGVsbG8","mimeType":"audio/wav"},
            {"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"t"}},
            {"type":"resource","resource":{"uri":"file:///b","blob":"aGVsbG8="}},
            {"type":"resource_link","uri":"file:///c","name":"c","size":5,"title":"C",
             "description":"d","mimeType":"text/x","icons":[]},
            {"type":"future","x":1,"annotations":{},"_meta":{}}
          ],"structuredContent":{"n":1},"_meta":{"trace":"z"},"isError":false}"#;
        let output = map(result, false).unwrap();
        assert!(!output.is_error);
        assert_eq!(
            json(&output.value),
            format!(
                concat!(
                    r#"{{"content":[{{"text":"hi","type":"text"}},"#,
                    r#"{{"bytes":5,"mimeType":"image/png","sha256":"{h}","type":"image"}},"#,
                    r#"{{"bytes":5,"mimeType":"audio/wav","sha256":"{h}","type":"audio"}},"#,
                    r#"{{"mimeType":"text/plain","text":"t","type":"resource","uri":"file:///a"}},"#,
                    r#"{{"bytes":5,"sha256":"{h}","type":"resource","uri":"file:///b"}},"#,
                    r#"{{"description":"d","mimeType":"text/x","name":"c","size":5,"title":"C","#,
                    r#""type":"resource_link","uri":"file:///c"}},"#,
                    r#"{{"type":"future","x":1}}],"structuredContent":{{"n":1}}}}"#
                ),
                h = HELLO
            )
        );
        let inline = map(result, true).unwrap();
        let items = match inline.value.as_object().unwrap().get("content") {
            Some(Value::Array(items)) => items.clone(),
            _ => unreachable!(),
        };
        assert_eq!(
            items[1].as_object().unwrap().get("data"),
            Some(&Value::from("aGVsbG8="))
        );
        assert_eq!(
            items[2].as_object().unwrap().get("data"),
            Some(&Value::from("aGVsbG8"))
        );
        assert_eq!(
            items[4].as_object().unwrap().get("blob"),
            Some(&Value::from("aGVsbG8="))
        );
    }

    #[test]
    fn an_error_result_says_its_text_or_else_its_json() {
        let output = map(
            r#"{"content":[{"type":"text","text":"no such file"},{"type":"text","text":"really"}],"isError":true}"#,
            false,
        )
        .unwrap();
        assert!(output.is_error);
        assert_eq!(output.error_text(), "no such file\nreally");
        let silent = map(
            r#"{"content":[],"isError":true,"structuredContent":{"e":1}}"#,
            false,
        )
        .unwrap();
        assert_eq!(
            silent.error_text(),
            r#"{"content":[],"structuredContent":{"e":1}}"#
        );
    }

    #[test]
    fn a_malformed_result_is_refused_naming_what_is_wrong() {
        for (result, why) in [
            ("[]", "it is not an object"),
            (r#"{}"#, "it has no \"content\""),
            (r#"{"content":{}}"#, "its \"content\" is not an array"),
            (
                r#"{"content":[],"isError":"yes"}"#,
                "its \"isError\" is not a boolean",
            ),
            (r#"{"content":[1]}"#, "content item 0 is not an object"),
            (
                r#"{"content":[{"text":"a"}]}"#,
                "content item 0 has no \"type\"",
            ),
            (
                r#"{"content":[{"type":"text"}]}"#,
                "content item 0 has no \"text\"",
            ),
            (
                r#"{"content":[{"type":"text","text":1}]}"#,
                "content item 0 has a \"text\" that is not a string",
            ),
            (
                r#"{"content":[{"type":"text","text":""},{"type":"image","data":"@@","mimeType":"image/png"}]}"#,
                "content item 1 has a \"data\" that is not base64: Invalid symbol 64, offset 0.",
            ),
            (
                r#"{"content":[{"type":"image","data":"aGVsbG8="}]}"#,
                "content item 0 has no \"mimeType\"",
            ),
            (
                r#"{"content":[{"type":"resource"}]}"#,
                "content item 0 has no \"resource\" object",
            ),
            (
                r#"{"content":[{"type":"resource","resource":{"text":"a"}}]}"#,
                "content item 0 (resource) has no \"uri\"",
            ),
            (
                r#"{"content":[{"type":"resource","resource":{"uri":"u","text":"a","blob":"aGVsbG8="}}]}"#,
                "content item 0 (resource) must have exactly one of \"text\" and \"blob\"",
            ),
            (
                r#"{"content":[{"type":"resource_link","uri":"u","name":"n","size":"5"}]}"#,
                "content item 0 has a \"size\" that is not a number",
            ),
            (
                r#"{"content":[{"type":"resource_link","uri":"u"}]}"#,
                "content item 0 has no \"name\"",
            ),
        ] {
            assert_eq!(map(result, false).unwrap_err(), why, "{result}");
        }
    }

    #[test]
    fn cut_keeps_what_fits_as_json_and_says_how_long_the_text_was() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc… (cut: 4 bytes in all)");
        // A newline takes two bytes in JSON, a control character six.
        assert_eq!(cut("a\nb", 3), "a\n… (cut: 3 bytes in all)");
        assert_eq!(cut("\u{1}", 5), "… (cut: 1 bytes in all)");
        assert_eq!(cut("\u{1}", 6), "\u{1}");
        assert_eq!(cut("é", 1), "… (cut: 2 bytes in all)");
    }
}
