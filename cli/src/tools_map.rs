//! `FILE.tools.json`, next to a run's transcript: the tools the run offered, each as
//! offered (name, description, schema) and where it came from (the demo, or which
//! `--mcp` server under which of its names), with the servers' command lines, in
//! order. Format 1 only: a run written before the setup was recorded (format 2, the
//! task record's `setup`) wrote it, and resuming such a run is checked against all of
//! it but the servers' revisions (docs/resume.md), so that a recorded call never runs on
//! another tool. New runs write none.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use agentloop_core::json::{Object, Value};
use agentloop_mcp::McpServer;

use crate::args::ToolsArgs;
use crate::atomic::write_atomically;
use crate::failure::{Failure, SetupFailure};
use crate::input::{ReadError, Source};
use crate::record_line::{json_text, quoted};
use crate::toolset::{line, Offered};

/// `FILE.tools.json` for the transcript `out`.
pub fn map_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".tools.json");
    PathBuf::from(name)
}

fn object(members: Vec<(&str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// How the tools were offered: `{"servers", "tools", "skipped"}` (docs/cli.md), the
/// content of `FILE.tools.json`.
pub fn map(args: &ToolsArgs, servers: &[McpServer], offered: &Offered) -> Value {
    let servers = servers
        .iter()
        .enumerate()
        .map(|(index, server)| {
            // The `--mcp` servers come first, then the `--mcp-url` ones.
            let origin = match args.mcp.get(index) {
                Some(command) => {
                    let words = command.words.iter().map(|w| Value::from(w.as_str()));
                    ("command", Value::Array(words.collect()))
                }
                None => ("url", Value::from(server.url().unwrap_or_default())),
            };
            let mut members = vec![
                origin,
                ("protocol_version", Value::from(server.protocol_version())),
            ];
            if let Some(info) = server.server_info() {
                members.push(("server_info", Value::Object(info.clone())));
            }
            object(members)
        })
        .collect();
    let skipped = offered
        .registration
        .skipped
        .iter()
        .map(|s| {
            object(vec![
                ("server", Value::Number(s.server as f64)),
                ("mcp_name", Value::from(s.mcp_name.as_str())),
                ("reason", Value::from(s.reason.as_str())),
            ])
        })
        .collect();
    object(vec![
        ("servers", Value::Array(servers)),
        ("tools", tools_value(offered)),
        ("skipped", Value::Array(skipped)),
    ])
}

/// Each tool offered, in the toolbox's order, as offered: `{"name", "description",
/// "schema", "source": "demo"}` or `{"name", "description", "schema", "source": "mcp",
/// "server", "mcp_name", "idempotent"}`.
pub fn tools_value(offered: &Offered) -> Value {
    let by_name: BTreeMap<&str, &agentloop_mcp::RegisteredTool> = offered
        .registration
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    let tools = offered
        .toolbox
        .manifest()
        .specs()
        .iter()
        .map(|spec| {
            let name = spec.name.as_str();
            let mut members = vec![
                ("name", Value::from(name)),
                ("description", Value::from(spec.description.as_str())),
                ("schema", spec.schema.clone()),
            ];
            match by_name.get(name) {
                Some(tool) => members.extend([
                    ("source", Value::from("mcp")),
                    ("server", Value::Number(tool.server as f64)),
                    ("mcp_name", Value::from(tool.mcp_name.as_str())),
                    ("idempotent", Value::Bool(tool.idempotent)),
                ]),
                None => members.push(("source", Value::from("demo"))),
            }
            object(members)
        })
        .collect();
    Value::Array(tools)
}

/// Checks `map` (the tools this run offers) against `FILE.tools.json` when the file is
/// there and the run has MCP servers (`servers`) or is `resumed` (a resumed run without
/// its servers is checked too); when it is not there, writes it (atomically) if the run
/// has MCP servers.
pub fn keep(out: &Path, map: &Value, servers: bool, resumed: bool) -> Result<(), Failure> {
    if !(servers || resumed) {
        return Ok(());
    }
    let path = map_path(out);
    let name = path.display().to_string();
    let fail = |reason: String| {
        Failure::Setup(SetupFailure::ToolsMap {
            name: name.clone(),
            reason,
        })
    };
    // A whole document, read as any other: to the bound, and refused past it.
    match Source::Path(&path).read_document() {
        Ok(bytes) => {
            let recorded = agentloop_core::json::parse(&bytes)
                .map_err(|e| fail(format!("it is not JSON: {e}")))?;
            if !recorded
                .as_object()
                .is_some_and(|o| o.contains_key("tools"))
            {
                return Err(fail(String::from("it has no \"tools\" member")));
            }
            match difference(&recorded, map) {
                Some(difference) => Err(Failure::Setup(SetupFailure::ToolsMapDiffers {
                    name,
                    difference,
                })),
                None => Ok(()),
            }
        }
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => match servers {
            true => write_atomically(&path, &line(map))
                .map_err(|e| fail(format!("cannot write it: {e}"))),
            false => Ok(()),
        },
        Err(e) => Err(fail(format!("cannot read it: {e}"))),
    }
}

/// Where in the map a difference is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// MCP server N (`servers[N]`).
    Server(usize),
    /// The tool of this name (recorded, or offered now if it was not recorded).
    Tool(String),
    /// Elsewhere in the map.
    Map,
}

/// The first difference between the map recorded and this run's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapDifference {
    /// The tools offered, by name in order, differ (each list as names).
    Names {
        /// The names recorded.
        recorded: Vec<String>,
        /// The names this run offers.
        now: Vec<String>,
    },
    /// A value differs.
    Value {
        /// Which server or tool.
        place: Place,
        /// The path inside it (`.schema.properties.a`; empty: the whole of it).
        path: String,
        /// The value recorded, as canonical JSON (cut), or `None`: none.
        recorded: Option<String>,
        /// This run's, likewise.
        now: Option<String>,
    },
}

impl fmt::Display for MapDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapDifference::Names { recorded, now } => write!(
                f,
                "the tools recorded are {} and this run's are {}",
                names(recorded),
                names(now)
            ),
            MapDifference::Value {
                place,
                path,
                recorded,
                now,
            } => {
                match place {
                    Place::Server(index) => write!(f, "MCP server {index}")?,
                    Place::Tool(name) => write!(f, "the tool {}", quoted(name))?,
                    Place::Map => f.write_str("the map")?,
                }
                match path.as_str() {
                    "" => f.write_str(" differs")?,
                    path => write!(f, " differs at {path}")?,
                }
                let none = "nothing";
                write!(
                    f,
                    ": recorded {}, this run {}",
                    recorded.as_deref().unwrap_or(none),
                    now.as_deref().unwrap_or(none)
                )
            }
        }
    }
}

fn names(list: &[String]) -> String {
    match list {
        [] => String::from("none"),
        list => list.join(", "),
    }
}

/// The first difference between `recorded` and `now`: the servers (command lines,
/// identities), then the tools' names in order, then each tool, then the rest.
pub fn difference(recorded: &Value, now: &Value) -> Option<MapDifference> {
    let member = |map: &Value, key: &str| map.as_object().and_then(|o| o.get(key)).cloned();
    let items = |map: &Value, key: &str| match member(map, key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    // A server's revision is the client's choice, which changed (the client speaks
    // 2026-07-28 now): not compared.
    let revisionless = |map: &Value| -> Vec<Value> {
        let strip = |server: Value| match server {
            Value::Object(members) => Value::Object(without(&members, &["protocol_version"])),
            other => other,
        };
        items(map, "servers").into_iter().map(strip).collect()
    };
    let (servers, servers_now) = (revisionless(recorded), revisionless(now));
    for index in 0..servers.len().max(servers_now.len()) {
        if let Some((path, a, b)) = first_difference(servers.get(index), servers_now.get(index)) {
            return Some(value(Place::Server(index), path, a, b));
        }
    }
    let (tools, tools_now) = (items(recorded, "tools"), items(now, "tools"));
    let name = |tool: &Value| member(tool, "name").and_then(|n| n.as_str().map(str::to_owned));
    let recorded_names: Vec<String> = tools.iter().filter_map(name).collect();
    let names_now: Vec<String> = tools_now.iter().filter_map(name).collect();
    if recorded_names != names_now {
        return Some(MapDifference::Names {
            recorded: recorded_names,
            now: names_now,
        });
    }
    for (index, name) in recorded_names.iter().enumerate() {
        let now = tools_now
            .get(index)
            .map(|tool| as_recorded(&tools[index], tool));
        if let Some((path, a, b)) = first_difference(tools.get(index), now.as_ref()) {
            return Some(value(Place::Tool(name.clone()), path, a, b));
        }
    }
    let (rest, rest_now) = (without_lists(recorded), without_lists(now));
    first_difference(Some(&rest), Some(&rest_now)).map(|(path, a, b)| value(Place::Map, path, a, b))
}

/// The map without `servers` and `tools`, which `difference` compares first.
fn without_lists(map: &Value) -> Value {
    match map {
        Value::Object(members) => Value::Object(without(members, &["servers", "tools"])),
        other => other.clone(),
    }
}

fn without(members: &Object, keys: &[&str]) -> Object {
    let mut kept = Object::new();
    for (key, member) in members.iter() {
        if !keys.contains(&key) {
            kept.insert(key, member.clone());
        }
    }
    kept
}

/// This run's `tool` as a map of the recorded one's version holds it: a map written
/// before descriptions and schemas were recorded (neither member in `recorded`) is
/// compared on the rest (server, name on it, order), which it does record.
fn as_recorded(recorded: &Value, tool: &Value) -> Value {
    let old = recorded
        .as_object()
        .is_some_and(|o| !o.contains_key("description") && !o.contains_key("schema"));
    match (old, tool) {
        (true, Value::Object(members)) => {
            Value::Object(without(members, &["description", "schema"]))
        }
        _ => tool.clone(),
    }
}

fn value(place: Place, path: String, a: Option<&Value>, b: Option<&Value>) -> MapDifference {
    MapDifference::Value {
        place,
        path,
        recorded: a.map(json_text),
        now: b.map(json_text),
    }
}

/// The first place where `a` and `b` differ, depth first in key order (`None`: absent),
/// with the path to it (`.key`, `["key"]` for a key that is not an identifier, `[i]`).
fn first_difference<'a>(
    a: Option<&'a Value>,
    b: Option<&'a Value>,
) -> Option<(String, Option<&'a Value>, Option<&'a Value>)> {
    let found = |path: String, a, b| Some((path, a, b));
    match (a, b) {
        _ if a == b => None,
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: std::collections::BTreeSet<&str> =
                x.iter().chain(y.iter()).map(|(k, _)| k).collect();
            keys.into_iter().find_map(|key| {
                let (path, a, b) = first_difference(x.get(key), y.get(key))?;
                found(format!("{}{path}", step(key)), a, b)
            })
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            (0..x.len().max(y.len())).find_map(|index| {
                let (path, a, b) = first_difference(x.get(index), y.get(index))?;
                found(format!("[{index}]{path}"), a, b)
            })
        }
        _ => found(String::new(), a, b),
    }
}

/// `.key`, or `["key"]` when the key is not an identifier.
fn step(key: &str) -> String {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    match identifier {
        true => format!(".{key}"),
        false => format!("[{}]", quoted(key)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::json::parse;

    fn json(text: &str) -> Value {
        parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn the_map_sits_next_to_the_transcript() {
        assert_eq!(
            map_path(Path::new("runs/t.jsonl")),
            PathBuf::from("runs/t.jsonl.tools.json")
        );
    }

    #[test]
    fn each_tool_is_recorded_as_offered() {
        let args = ToolsArgs {
            demo_tools: true,
            mcp: Vec::new(),
            mcp_url: Vec::new(),
            mcp_header: Vec::new(),
            mcp_timeout: 60,
            mcp_init_timeout: 60,
            mcp_log: None,
            mcp_env: Vec::new(),
            mcp_trust_hints: false,
            mcp_inline_media: false,
        };
        let offered = crate::toolset::offer(&args, &[], &BTreeMap::new()).unwrap();
        let Value::Array(tools) = tools_value(&offered) else {
            panic!("not an array")
        };
        let specs: Vec<_> = offered.toolbox.manifest().specs().to_vec();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["add", "echo", "fail", "greet"]);
        for (tool, spec) in tools.iter().zip(&specs) {
            let expected = object(vec![
                ("name", Value::from(spec.name.as_str())),
                ("description", Value::from(spec.description.as_str())),
                ("schema", spec.schema.clone()),
                ("source", Value::from("demo")),
            ]);
            assert_eq!(tool, &expected);
        }
    }

    const MAP: &str = r#"{"servers":[{"command":["a"],"protocol_version":"v"},{"command":["b"],"protocol_version":"v"}],"skipped":[],"tools":[{"description":"d","idempotent":false,"mcp_name":"echo","name":"echo-0","schema":{"type":"object"},"server":0,"source":"mcp"},{"description":"d","idempotent":false,"mcp_name":"echo","name":"echo-1","schema":{"properties":{"a b":{"type":"string"}},"type":"object"},"server":1,"source":"mcp"}]}"#;

    #[test]
    fn the_first_difference_says_where_and_what() {
        let recorded = json(MAP);
        assert_eq!(difference(&recorded, &recorded), None);
        // Another revision agreed is not a difference (format 1, docs/resume.md).
        assert_eq!(
            difference(&recorded, &json(&MAP.replace(r#""v""#, r#""w""#))),
            None
        );
        let said = |now: &str| difference(&recorded, &json(now)).unwrap().to_string();
        // The servers swapped: the tools keep their names, not their servers.
        let swapped = MAP
            .replace(r#"["a"]"#, r#"["x"]"#)
            .replace(r#"["b"]"#, r#"["a"]"#)
            .replace(r#"["x"]"#, r#"["b"]"#);
        assert_eq!(
            said(&swapped),
            r#"MCP server 0 differs at .command[0]: recorded "a", this run "b""#
        );
        assert_eq!(
            said(&MAP.replace(r#",{"command":["b"],"protocol_version":"v"}"#, "")),
            r#"MCP server 1 differs: recorded {"command":["b"]}, this run nothing"#
        );
        assert_eq!(
            said(&MAP.replace(r#""a b":{"type":"string"}"#, r#""a b":{"type":"integer"}"#)),
            r#"the tool "echo-1" differs at .schema.properties["a b"].type: recorded "string", this run "integer""#
        );
        assert_eq!(
            said(&MAP.replace("echo-1", "echo-2")),
            "the tools recorded are echo-0, echo-1 and this run's are echo-0, echo-2"
        );
        assert_eq!(
            said(&MAP.replace(r#""skipped":[]"#, r#""skipped":[1]"#)),
            "the map differs at .skipped[0]: recorded nothing, this run 1"
        );
        // A map written before descriptions and schemas were recorded is held to what
        // it records: servers, names, order; a tool that lost only one of the two
        // members is a difference.
        let old = MAP
            .replace(r#""description":"d","#, "")
            .replace(r#","schema":{"type":"object"}"#, "")
            .replace(
                r#","schema":{"properties":{"a b":{"type":"string"}},"type":"object"}"#,
                "",
            );
        assert!(!old.contains("schema"), "{old}");
        assert_eq!(difference(&json(&old), &recorded), None);
        assert_eq!(
            difference(&json(&old), &json(&swapped))
                .unwrap()
                .to_string(),
            r#"MCP server 0 differs at .command[0]: recorded "a", this run "b""#
        );
        let half = MAP.replacen(r#""description":"d","#, "", 1);
        assert_eq!(
            difference(&json(&half), &recorded).unwrap().to_string(),
            r#"the tool "echo-0" differs at .description: recorded nothing, this run "d""#
        );
    }
}
