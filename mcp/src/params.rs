//! `x-mcp-header` (2026-07-28, Streamable HTTP, "Custom Headers from Tool
//! Parameters"): a tool's `inputSchema` may mark properties whose values a client over
//! HTTP sends as `Mcp-Param-{Name}` headers. A tool whose marks break the rules is
//! refused (not registered, saying why); the headers of a call are its arguments'
//! values at the marked paths.

use agentloop_core::json::{Object, Value};

use crate::transport::header_safe;

/// The annotation's key.
const KEY: &str = "x-mcp-header";

/// One marked property: the header's name after `Mcp-Param-`, and the chain of
/// `properties` keys that leads to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Param {
    name: String,
    path: Vec<String>,
}

/// The marked properties of `schema`, or why the marks make the tool invalid.
pub(crate) fn read(schema: &Value) -> Result<Vec<Param>, String> {
    let mut params = Vec::new();
    if let Some(root) = schema.as_object() {
        reachable(root, &mut Vec::new(), &mut params)?;
    }
    if marks(schema) != params.len() {
        return Err(format!(
            "its inputSchema has an \"{KEY}\" on a property not reached by \"properties\" \
             alone from the root"
        ));
    }
    for (at, param) in params.iter().enumerate() {
        if params[..at]
            .iter()
            .any(|p| p.name.eq_ignore_ascii_case(&param.name))
        {
            return Err(format!(
                "its inputSchema has the \"{KEY}\" '{}' twice",
                param.name
            ));
        }
    }
    Ok(params)
}

/// The marks on the properties reached from `schema` by `properties` keys alone.
fn reachable(
    schema: &Object,
    path: &mut Vec<String>,
    params: &mut Vec<Param>,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Ok(());
    };
    for (key, property) in properties.iter() {
        let Some(property) = property.as_object() else {
            continue;
        };
        path.push(String::from(key));
        if let Some(mark) = property.get(KEY) {
            let bad =
                |why: &str| format!("its inputSchema's \"{KEY}\" at {} {why}", path.join("."));
            let Some(name) = mark.as_str() else {
                return Err(bad("is not a string"));
            };
            let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if name.is_empty() || !name.bytes().all(token) {
                return Err(bad("is not an HTTP header name"));
            }
            match property.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                _ => return Err(bad("is not on a string, integer or boolean property")),
            }
            params.push(Param {
                name: String::from(name),
                path: path.clone(),
            });
        }
        reachable(property, path, params)?;
        path.pop();
    }
    Ok(())
}

/// How many schema objects in `value` carry the mark (a property *named* like it is
/// not one).
fn marks(value: &Value) -> usize {
    match value {
        Value::Object(object) => object
            .iter()
            .map(|(key, member)| {
                let own = usize::from(key == KEY);
                let inner = match (key, member) {
                    // The keys of `properties` (and the like) are names, not keywords.
                    (
                        "properties" | "patternProperties" | "$defs" | "definitions",
                        Value::Object(named),
                    ) => named.iter().map(|(_, schema)| marks(schema)).sum(),
                    _ => marks(member),
                };
                own + inner
            })
            .sum(),
        Value::Array(items) => items.iter().map(marks).sum(),
        _ => 0,
    }
}

/// The `Mcp-Param-*` headers of a call with `arguments`: each marked value present (not
/// `null`), a string as it is (or in the base64 sentinel), an integer in decimal, a
/// boolean `true` or `false`.
pub(crate) fn headers(params: &[Param], arguments: &Value) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for param in params {
        let mut value = Some(arguments);
        for key in &param.path {
            value = value.and_then(Value::as_object).and_then(|o| o.get(key));
        }
        let text = match value {
            Some(Value::String(text)) => header_safe(text),
            Some(Value::Bool(flag)) => flag.to_string(),
            Some(Value::Number(n)) if n.fract() == 0.0 && n.abs() < 2f64.powi(53) => {
                format!("{}", *n as i64)
            }
            _ => continue,
        };
        headers.push((format!("Mcp-Param-{}", param.name), text));
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        agentloop_core::json::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn marked_properties_are_read_and_their_values_sent() {
        let schema = json(
            r#"{"type":"object","properties":{
                "region":{"type":"string","x-mcp-header":"Region"},
                "query":{"type":"string"},
                "opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"},
                                                     "on":{"type":"boolean","x-mcp-header":"On"}}},
                "x-mcp-header":{"type":"string"}}}"#,
        );
        let params = read(&schema).unwrap();
        assert_eq!(params.len(), 3);
        let sent = headers(
            &params,
            &json(r#"{"region":"Hello, 世界","query":"q","opts":{"n":42,"on":false}}"#),
        );
        assert_eq!(
            sent,
            [
                ("Mcp-Param-N".into(), "42".into()),
                ("Mcp-Param-On".into(), "false".into()),
                (
                    "Mcp-Param-Region".into(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".into()
                ),
            ]
        );
        // A value absent or null: no header.
        assert_eq!(headers(&params, &json(r#"{"region":null}"#)), []);
    }

    #[test]
    fn marks_that_break_the_rules_refuse_the_tool() {
        for (schema, why) in [
            (
                r#"{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
                "not reached by \"properties\" alone",
            ),
            (
                r#"{"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}"#,
                "not reached",
            ),
            (
                r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
                "not on a string, integer or boolean property",
            ),
            (
                r#"{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}"#,
                "is not an HTTP header name",
            ),
            (
                r#"{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
                "'a' twice",
            ),
        ] {
            let error = read(&json(schema)).unwrap_err();
            assert!(error.contains(why), "{schema}: {error}");
        }
    }
}
