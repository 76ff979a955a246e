//! `show`'s line for one record: `seq=<seq> <kind> <summary>`.

use std::borrow::Cow;
use std::fmt;

use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};
use agentloop_core::vocabulary::member::{
    AFTER, ARGUMENTS, ERROR, NAME, OK, PROVIDER, REASON, SETUP, STEPS, TASK, TEXT, TOKENS,
    TOOL_CALLS, UNRUN_CALLS, VALUE,
};
use agentloop_core::vocabulary::{RecordKind, Setup, ToolSource};

use crate::terminal;

/// The most characters of one string or JSON text shown before it is cut with `...`.
pub const SHOWN_CHARS: usize = 120;

/// Why a parsed line is not a record `show` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotARecord {
    /// The line is JSON, but not an object (its type name).
    NotAnObject(&'static str),
    /// `seq` is absent or not a number.
    NoSeq,
    /// `kind` is absent or not a non-empty string.
    NoKind,
    /// `payload` is absent.
    NoPayload,
}

impl fmt::Display for NotARecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotARecord::NotAnObject(type_name) => {
                let article = match *type_name {
                    "array" | "object" => "an ",
                    "null" => "",
                    _ => "a ",
                };
                write!(
                    f,
                    "not a record: expected a JSON object, found {article}{type_name}"
                )
            }
            NotARecord::NoSeq => f.write_str("not a record: seq is absent or not a number"),
            NotARecord::NoKind => {
                f.write_str("not a record: kind is absent or not a non-empty string")
            }
            NotARecord::NoPayload => f.write_str("not a record: payload is absent"),
        }
    }
}

/// Formats one record as `seq=<seq> <kind> <summary>`.
pub fn record_line(value: &Value) -> Result<String, NotARecord> {
    let record = value
        .as_object()
        .ok_or(NotARecord::NotAnObject(value.type_name()))?;
    let seq = match record.get("seq") {
        Some(v @ Value::Number(_)) => json_text(v),
        _ => return Err(NotARecord::NoSeq),
    };
    let kind = match record.get("kind").and_then(Value::as_str) {
        Some(k) if !k.is_empty() => k,
        _ => return Err(NotARecord::NoKind),
    };
    let payload = record.get("payload").ok_or(NotARecord::NoPayload)?;
    let summary = payload
        .as_object()
        .and_then(|p| summary(kind, p))
        .unwrap_or_else(|| format!("payload={}", json_text(payload)));
    Ok(format!("seq={seq} {} {summary}", bare(kind)))
}

/// The summary of a payload of a kind the loop writes, or None to show it whole.
fn summary(kind: &str, payload: &Object) -> Option<String> {
    match RecordKind::from_name(kind)? {
        RecordKind::Task => {
            let task = format!("task={}", quoted(str_member(payload, TASK)?));
            Some(task + &setup(payload))
        }
        RecordKind::Assistant => {
            let text = str_member(payload, TEXT)?;
            let calls = match payload.get(TOOL_CALLS) {
                None => &[][..],
                Some(Value::Array(calls)) => calls.as_slice(),
                Some(_) => return None,
            };
            let mut line = format!("text={} calls={}", quoted(text), calls.len());
            for call in calls {
                let call = call.as_object()?;
                let name = str_member(call, NAME)?;
                let arguments = call.get(ARGUMENTS).map(json_text).unwrap_or_default();
                line.push_str(&format!(" {}({arguments})", bare(name)));
            }
            if let Some(provider) = payload.get(PROVIDER) {
                line.push_str(&format!(" provider={}", json_text(provider)));
            }
            Some(line)
        }
        RecordKind::Tool => {
            let name = bare(str_member(payload, NAME)?);
            match payload.get(OK)? {
                Value::Bool(true) => {
                    let value = payload.get(VALUE).unwrap_or(&Value::Null);
                    Some(format!("{name} ok=True value={}", json_text(value)))
                }
                Value::Bool(false) => {
                    let error = match payload.get(ERROR) {
                        Some(Value::String(s)) => quoted(s),
                        Some(other) => json_text(other),
                        None => String::from("null"),
                    };
                    Some(format!("{name} ok=False error={error}"))
                }
                _ => None,
            }
        }
        RecordKind::Stop => {
            let mut line = format!(
                "reason={} steps={} tokens={} unrun_calls={}",
                bare(str_member(payload, REASON)?),
                number_member(payload, STEPS)?,
                number_member(payload, TOKENS)?,
                number_member(payload, UNRUN_CALLS)?,
            );
            if let Some(error) = payload.get(ERROR) {
                let shown = match error {
                    Value::String(s) => quoted(s),
                    other => json_text(other),
                };
                line.push_str(&format!(" error={shown}"));
            }
            Some(line)
        }
        RecordKind::Resume => {
            let after = format!("after={}", bare(str_member(payload, AFTER)?));
            Some(after + &setup(payload))
        }
        RecordKind::Setup => {
            let reason = format!("reason={}", bare(str_member(payload, REASON)?));
            Some(reason + &setup(payload))
        }
    }
}

/// A `task`, `resume` or `setup` payload's setup (format 2), readably: ` model=… endpoint=…
/// system=… options=… tools=… servers=…` (each when there), a tool from an MCP server as
/// `name=mcpI:its-name`, a server as `I:name version revision`; a setup that does not
/// decode is shown as its JSON; nothing when there is none.
fn setup(payload: &Object) -> String {
    let Some(value) = payload.get(SETUP) else {
        return String::new();
    };
    let Ok(setup) = Setup::decode(value) else {
        return format!(" setup={}", json_text(value));
    };
    let mut line = String::new();
    if let Some(model) = &setup.model {
        line.push_str(&format!(
            " model={}:{}",
            bare(&model.provider),
            bare(&model.name)
        ));
    }
    if let Some(endpoint) = &setup.endpoint {
        line.push_str(&format!(" endpoint={}", quoted(endpoint)));
    }
    if let Some(system) = &setup.system {
        line.push_str(&format!(" system={}", quoted(system)));
    }
    if !setup.options.is_empty() {
        line.push_str(&format!(
            " options={}",
            json_text(&Value::Object(setup.options))
        ));
    }
    let tools: Vec<String> = setup
        .tools
        .iter()
        .map(|tool| match &tool.source {
            ToolSource::Host => tool.name.clone(),
            ToolSource::Mcp { server, name } => format!("{}=mcp{server}:{name}", tool.name),
        })
        .collect();
    line.push_str(&format!(" tools={}", bare(&tools.join(","))));
    let servers: Vec<String> = setup
        .servers
        .iter()
        .enumerate()
        .map(|(index, server)| {
            let info = server.server_info.as_ref();
            let get = |key: &str| info.and_then(|i| i.get(key)).and_then(Value::as_str);
            let name = get(NAME).unwrap_or("?");
            let version = get("version").unwrap_or("?");
            format!("{index}:{name} {version} {}", server.protocol_version)
        })
        .collect();
    if !servers.is_empty() {
        line.push_str(&format!(" servers={}", quoted(&servers.join(", "))));
    }
    line
}

/// A string member.
fn str_member<'a>(object: &'a Object, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// A number member, spelled canonically.
fn number_member(object: &Object, key: &str) -> Option<String> {
    match object.get(key)? {
        v @ Value::Number(_) => Some(json_text(v)),
        _ => None,
    }
}

/// Cuts `text` to [`SHOWN_CHARS`] characters, marking a cut with `...`.
pub(crate) fn cut(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

/// A string as a JSON string literal (escaped, so it stays on one line), cut first.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and escaping keeps the text valid UTF-8.
    let _ = jcs::write_str(&cut(text), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A name shown bare when it is plain (no white space, quotes, backslashes, nor
/// anything the terminal rule escapes), quoted otherwise; cut either way. So an escape
/// shown in a name is always inside quotes.
pub(crate) fn bare(text: &str) -> String {
    let plain = !text.is_empty()
        && !text
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\')
        && matches!(terminal::escape(text), Cow::Borrowed(_));
    if plain {
        cut(text)
    } else {
        quoted(text)
    }
}

/// A value's canonical JSON text, cut.
pub(crate) fn json_text(value: &Value) -> String {
    match jcs::to_vec(value) {
        Ok(bytes) => cut(&String::from_utf8_lossy(&bytes)),
        Err(e) => format!("<{e}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::json::parse;

    fn line(json: &str) -> Result<String, NotARecord> {
        record_line(&parse(json.as_bytes()).unwrap())
    }

    #[test]
    fn loop_kinds() {
        assert_eq!(
            line(r#"{"seq":2,"kind":"tool","payload":{"name":"multiply","ok":false,"error":"no tool named 'multiply'"}}"#).unwrap(),
            r#"seq=2 tool multiply ok=False error="no tool named 'multiply'""#
        );
        assert_eq!(
            line(r#"{"seq":1,"kind":"assistant","payload":{"text":"hi\n","tool_calls":[{"name":"add","arguments":{"b":1,"a":2}}]}}"#).unwrap(),
            r#"seq=1 assistant text="hi\n" calls=1 add({"a":2,"b":1})"#
        );
        assert_eq!(
            line(r#"{"seq":9,"kind":"stop","payload":{"reason":"model_error","steps":2,"tokens":10,"unrun_calls":0,"error":"x"}}"#).unwrap(),
            r#"seq=9 stop reason=model_error steps=2 tokens=10 unrun_calls=0 error="x""#
        );
        assert_eq!(
            line(r#"{"seq":0,"kind":"my kind","payload":[1]}"#).unwrap(),
            r#"seq=0 "my kind" payload=[1]"#
        );
        assert_eq!(
            line(r#"{"seq":0,"kind":"task","payload":{"text":"no task member"}}"#).unwrap(),
            r#"seq=0 task payload={"text":"no task member"}"#
        );
    }

    #[test]
    fn the_setup_and_the_provider_members_are_shown() {
        let task = r#"{"seq":0,"kind":"task","payload":{"task":"t","budgets":{},"setup":{"model":{"provider":"openai","name":"m"},"endpoint":"http://h/v1","system":"Be terse.","options":{"max_output_tokens":9},"tools":[{"name":"add","description":"d","schema":{"type":"object"},"idempotent":true,"source":"host"},{"name":"echo-0","description":"d","schema":{"type":"object"},"idempotent":false,"source":"mcp","server":0,"mcp_name":"echo"}],"servers":[{"command_sha256":"6204330bc3dea24e48c950a4123e6149b6c71fadc5b3a81b3f816aaa64249262","protocol_version":"2025-11-25","server_info":{"name":"fake","version":"1"}}]}}}"#;
        assert_eq!(
            line(task).unwrap(),
            r#"seq=0 task task="t" model=openai:m endpoint="http://h/v1" system="Be terse." options={"max_output_tokens":9} tools=add,echo-0=mcp0:echo servers="0:fake 1 2025-11-25""#
        );
        assert_eq!(
            line(r#"{"seq":3,"kind":"resume","payload":{"after":"no_tool_calls","setup":{"tools":[]}}}"#).unwrap(),
            r#"seq=3 resume after=no_tool_calls tools="""#
        );
        assert_eq!(
            line(r#"{"seq":1,"kind":"assistant","payload":{"text":"","tool_calls":[],"tokens":1,"provider":{"input_tokens":5}}}"#).unwrap(),
            r#"seq=1 assistant text="" calls=0 provider={"input_tokens":5}"#
        );
    }

    #[test]
    fn long_text_is_cut() {
        let long = "é".repeat(200);
        let shown = line(&format!(
            r#"{{"seq":0,"kind":"task","payload":{{"task":"{long}"}}}}"#
        ))
        .unwrap();
        assert_eq!(shown, format!("seq=0 task task=\"{}...\"", "é".repeat(120)));
    }

    #[test]
    fn not_records() {
        assert_eq!(line("[1]"), Err(NotARecord::NotAnObject("array")));
        assert_eq!(line(r#"{"kind":"k","payload":1}"#), Err(NotARecord::NoSeq));
        assert_eq!(
            line(r#"{"seq":0,"kind":"","payload":1}"#),
            Err(NotARecord::NoKind)
        );
        assert_eq!(line(r#"{"seq":0,"kind":"k"}"#), Err(NotARecord::NoPayload));
    }
}
