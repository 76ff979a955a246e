//! What `run` shows as it goes: one line per record on stderr, or with `--json` one
//! JSON event per record on stdout; a start and an end (docs/cli.md has the shapes).

use std::io::{self, Write};

use agentloop_core::agent::{Budgets, Record, RecordKind};
use agentloop_core::driver::Counts;
use agentloop_core::durable::Appended;
use agentloop_core::json::{Object, Value};

use crate::diag::plural;
use crate::failure::Failure;
use crate::record_line::{bare, quoted};
use crate::report_json::to_line;
use crate::terminal;

/// How the run began, for the first line or event.
pub struct Start<'a> {
    /// `--out`, as given.
    pub file: &'a str,
    /// `openai:NAME` or `anthropic:NAME`.
    pub model: String,
    /// The URL requests go to.
    pub url: &'a str,
    /// The tools offered, by name.
    pub tools: Vec<String>,
    /// The MCP tools offered under another name than their own: (name, server,
    /// name on the server).
    pub renamed: Vec<(String, usize, String)>,
    /// Records already in the file (a resumed run), 0 for a new one.
    pub records: u64,
    /// The budgets in force.
    pub budgets: &'a Budgets,
}

/// How the run ended, for the last event.
pub struct End<'a> {
    /// The stop reason.
    pub reason: &'a str,
    /// The exit status the command ends with.
    pub exit: u8,
    /// Records in the file.
    pub count: u64,
    /// The file's head.
    pub head: String,
    /// The checkpoint written, if any.
    pub checkpoint: Option<String>,
}

/// Where the progress goes: lines on stderr and the summary on `out`, or every event
/// on `out` as JSON.
pub struct Progress<'o> {
    out: &'o mut dyn Write,
    json: bool,
    budgets: Budgets,
}

impl<'o> Progress<'o> {
    /// Progress lines on stderr, the summary on `out`; JSON events on `out` instead
    /// when `json`.
    pub fn new(out: &'o mut dyn Write, json: bool, budgets: Budgets) -> Progress<'o> {
        Progress { out, json, budgets }
    }

    /// The first line or event.
    pub fn start(&mut self, start: &Start<'_>) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &start_event(start))
        } else {
            say(&start_line(start));
            Ok(())
        }
    }

    /// One record, just appended.
    pub fn record(
        &mut self,
        record: &Record,
        appended: &Appended,
        counts: Counts,
    ) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &record_event(record, appended, counts))
        } else {
            say(&record_line(record, counts, &self.budgets));
            Ok(())
        }
    }

    /// The end: the end event, or the summary lines (`text`, each ending in a newline).
    pub fn end(&mut self, end: &End<'_>, text: &str) -> Result<(), Failure> {
        if self.json {
            emit(self.out, &end_event(end))
        } else {
            self.out
                .write_all(terminal::escape_lines(text).as_bytes())
                .and_then(|()| self.out.flush())
                .map_err(Failure::Stdout)
        }
    }
}

/// Writes one event line and pushes it out, so a reader sees it as the run goes.
fn emit(out: &mut dyn Write, event: &Value) -> Result<(), Failure> {
    let line = to_line(event).map_err(|error| Failure::Encode {
        name: String::from("a progress event"),
        error,
    })?;
    out.write_all(&line)
        .and_then(|()| out.flush())
        .map_err(Failure::Stdout)
}

/// Writes a progress line to stderr, escaped by the one rule of [`terminal`] (it shows
/// model text and tool names); a failure to write there is ignored (there is nowhere
/// to report it).
fn say(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{}", terminal::escape(line));
}

fn count(n: u64) -> Value {
    Value::Number(n as f64)
}

fn object(members: Vec<(&str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// The budgets that are set, as the task record states them.
fn budgets_value(budgets: &Budgets) -> Value {
    let mut members = Vec::new();
    for (name, limit) in [
        ("max_steps", budgets.max_steps),
        ("max_tokens", budgets.max_tokens),
        ("max_tool_calls", budgets.max_tool_calls),
        ("max_total_tokens", budgets.max_total_tokens),
    ] {
        if let Some(limit) = limit {
            members.push((name, count(limit)));
        }
    }
    if let Some(sentinel) = &budgets.stop_sentinel {
        members.push(("stop_sentinel", Value::from(sentinel.as_str())));
    }
    object(members)
}

/// `budgets: max_steps 4, max_tokens 1000` or `no budgets`.
fn budgets_text(budgets: &Budgets) -> String {
    let mut set = Vec::new();
    for (name, limit) in [
        ("max_steps", budgets.max_steps),
        ("max_tokens", budgets.max_tokens),
        ("max_tool_calls", budgets.max_tool_calls),
        ("max_total_tokens", budgets.max_total_tokens),
    ] {
        if let Some(limit) = limit {
            set.push(format!("{name} {limit}"));
        }
    }
    if let Some(sentinel) = &budgets.stop_sentinel {
        set.push(format!("stop_sentinel {}", quoted(sentinel)));
    }
    if set.is_empty() {
        String::from("no budgets")
    } else {
        format!("budgets: {}", set.join(", "))
    }
}

fn start_event(start: &Start<'_>) -> Value {
    object(vec![
        ("event", Value::from("start")),
        ("file", Value::from(start.file)),
        ("model", Value::from(start.model.as_str())),
        ("url", Value::from(start.url)),
        (
            "tools",
            Value::Array(
                start
                    .tools
                    .iter()
                    .map(|t| Value::from(t.as_str()))
                    .collect(),
            ),
        ),
        ("records", count(start.records)),
        ("budgets", budgets_value(start.budgets)),
        (
            "renamed",
            Value::Array(
                start
                    .renamed
                    .iter()
                    .map(|(name, server, mcp_name)| {
                        object(vec![
                            ("name", Value::from(name.as_str())),
                            ("server", count(*server as u64)),
                            ("mcp_name", Value::from(mcp_name.as_str())),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// `run: openai:gpt-4.1-mini at URL; tools add, echo; t.jsonl (new); no budgets`.
fn start_line(start: &Start<'_>) -> String {
    let tools = if start.tools.is_empty() {
        String::from("no tools")
    } else {
        let names: Vec<String> = start
            .tools
            .iter()
            .map(
                |name| match start.renamed.iter().find(|(n, _, _)| n == name) {
                    Some((_, server, mcp_name)) => format!(
                        "{} (MCP server {server}'s {})",
                        bare(name),
                        quoted(mcp_name)
                    ),
                    None => bare(name),
                },
            )
            .collect();
        format!("tools {}", names.join(", "))
    };
    let file = if start.records == 0 {
        format!("{} (new)", start.file)
    } else {
        format!(
            "{} (resumed after {})",
            start.file,
            plural(start.records, "record")
        )
    };
    format!(
        "run: {} at {}; {tools}; {file}; {}",
        bare(&start.model),
        start.url,
        budgets_text(start.budgets)
    )
}

fn payload(record: &Record) -> Option<&Object> {
    record.payload.as_object()
}

fn str_of<'a>(record: &'a Record, key: &str) -> &'a str {
    payload(record)
        .and_then(|p| p.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn u64_of(record: &Record, key: &str) -> u64 {
    payload(record)
        .and_then(|p| p.get(key))
        .and_then(Value::as_f64)
        .map_or(0, |n| n as u64)
}

/// The calls of an `assistant` record, as (id, name).
fn calls(record: &Record) -> Vec<(&str, &str)> {
    let Some(Value::Array(calls)) = payload(record).and_then(|p| p.get("tool_calls")) else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(Value::as_object)
        .map(|call| {
            let member = |key| call.get(key).and_then(Value::as_str).unwrap_or("");
            (member("id"), member("name"))
        })
        .collect()
}

fn record_event(record: &Record, appended: &Appended, counts: Counts) -> Value {
    let mut members = vec![
        ("event", Value::from("record")),
        ("seq", count(appended.seq)),
        ("kind", Value::from(record.kind.as_str())),
        ("hash", Value::String(appended.head.to_string())),
        ("turn", count(counts.steps)),
        ("tokens", count(counts.tokens)),
        ("total_tokens", count(counts.total_tokens)),
        ("tool_calls", count(counts.tool_calls)),
    ];
    let copy = |members: &mut Vec<(&str, Value)>, keys: &[&'static str]| {
        if let Some(p) = payload(record) {
            for &key in keys {
                if let Some(value) = p.get(key) {
                    members.push((key, value.clone()));
                }
            }
        }
    };
    match record.kind {
        RecordKind::Task => copy(&mut members, &["task", "budgets"]),
        RecordKind::Assistant => {
            let calls = calls(record)
                .into_iter()
                .map(|(id, name)| {
                    object(vec![("id", Value::from(id)), ("name", Value::from(name))])
                })
                .collect();
            members.push(("calls", Value::Array(calls)));
            copy(&mut members, &["text"]);
        }
        RecordKind::Tool => copy(&mut members, &["id", "name", "ok", "error"]),
        RecordKind::Stop => copy(&mut members, &["reason", "unrun_calls", "error"]),
        RecordKind::Resume => copy(&mut members, &["after"]),
    }
    object(members)
}

/// `tokens 10/1000`, plus `, total 29/5000` when `max_total_tokens` is set.
fn tokens_text(counts: Counts, budgets: &Budgets) -> String {
    let mut text = match budgets.max_tokens {
        Some(max) => format!("tokens {}/{max}", counts.tokens),
        None => format!("tokens {}", counts.tokens),
    };
    if let Some(max) = budgets.max_total_tokens {
        text.push_str(&format!(", total {}/{max}", counts.total_tokens));
    }
    text
}

/// One record as a progress line (see docs/cli.md).
fn record_line(record: &Record, counts: Counts, budgets: &Budgets) -> String {
    let seq = record.seq;
    let turn = counts.steps;
    match record.kind {
        RecordKind::Task => format!("seq {seq} task {}", quoted(str_of(record, "task"))),
        RecordKind::Assistant => {
            let calls = calls(record);
            let what = if calls.is_empty() {
                format!("answer {}", quoted(str_of(record, "text")))
            } else {
                let names: Vec<String> = calls.iter().map(|(_, name)| bare(name)).collect();
                format!("calls {}", names.join(", "))
            };
            format!(
                "seq {seq} turn {turn}: {what}; {}",
                tokens_text(counts, budgets)
            )
        }
        RecordKind::Tool => {
            let name = bare(str_of(record, "name"));
            let ok = matches!(
                payload(record).and_then(|p| p.get("ok")),
                Some(Value::Bool(true))
            );
            let mut line = if ok {
                format!("seq {seq} turn {turn}: {name} ok")
            } else {
                format!(
                    "seq {seq} turn {turn}: {name} failed: {}",
                    quoted(str_of(record, "error"))
                )
            };
            if let Some(max) = budgets.max_tool_calls {
                line.push_str(&format!("; tool calls {}/{max}", counts.tool_calls));
            }
            line
        }
        RecordKind::Stop => {
            let mut line = format!(
                "seq {seq} stop {}: {}, {}, {}",
                bare(str_of(record, "reason")),
                plural(u64_of(record, "steps"), "turn"),
                plural(u64_of(record, "tokens"), "token"),
                plural(counts.tool_calls, "tool call"),
            );
            let unrun = u64_of(record, "unrun_calls");
            if unrun > 0 {
                line.push_str(&format!(", {} left unrun", plural(unrun, "call")));
            }
            let error = str_of(record, "error");
            if !error.is_empty() {
                line.push_str(&format!("; error {}", quoted(error)));
            }
            line
        }
        RecordKind::Resume => format!("seq {seq} resume after {}", bare(str_of(record, "after"))),
    }
}

fn end_event(end: &End<'_>) -> Value {
    object(vec![
        ("event", Value::from("end")),
        ("reason", Value::from(end.reason)),
        ("exit", count(u64::from(end.exit))),
        ("count", count(end.count)),
        ("head", Value::from(end.head.as_str())),
        ("verified", Value::Bool(true)),
        (
            "checkpoint",
            end.checkpoint.as_deref().map_or(Value::Null, Value::from),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::jcs;
    use agentloop_core::json::parse;
    use agentloop_core::Hash;

    fn record(seq: u64, kind: RecordKind, payload: &str) -> Record {
        Record {
            seq,
            kind,
            payload: parse(payload.as_bytes()).unwrap(),
        }
    }

    fn counts(turn: u64, tokens: u64, total_tokens: u64, tool_calls: u64) -> Counts {
        Counts {
            steps: turn,
            tokens,
            total_tokens,
            tool_calls,
        }
    }

    fn text(value: &Value) -> String {
        String::from_utf8(jcs::to_vec(value).unwrap()).unwrap()
    }

    #[test]
    fn lines_say_the_turn_the_call_the_result_and_the_tokens_against_the_budget() {
        let budgets = Budgets {
            max_tokens: Some(1000),
            max_total_tokens: Some(5000),
            max_tool_calls: Some(3),
            ..Budgets::default()
        };
        let cases = [
            (
                record(
                    0,
                    RecordKind::Task,
                    r#"{"task":"add 2 and 40","budgets":{}}"#,
                ),
                counts(0, 0, 0, 0),
                "seq 0 task \"add 2 and 40\"",
            ),
            (
                record(
                    1,
                    RecordKind::Assistant,
                    r#"{"text":"","tool_calls":[{"id":"call_1_0","name":"add","arguments":{}},{"id":"call_1_1","name":"a b","arguments":{}}],"tokens":10}"#,
                ),
                counts(1, 10, 29, 0),
                "seq 1 turn 1: calls add, \"a b\"; tokens 10/1000, total 29/5000",
            ),
            (
                record(
                    2,
                    RecordKind::Tool,
                    r#"{"id":"call_1_0","name":"add","ok":true,"value":{"sum":42}}"#,
                ),
                counts(1, 10, 29, 1),
                "seq 2 turn 1: add ok; tool calls 1/3",
            ),
            (
                record(
                    3,
                    RecordKind::Tool,
                    r#"{"id":"call_1_1","name":"fail","ok":false,"error":"broken\non purpose"}"#,
                ),
                counts(1, 10, 29, 2),
                "seq 3 turn 1: fail failed: \"broken\\non purpose\"; tool calls 2/3",
            ),
            (
                record(
                    4,
                    RecordKind::Assistant,
                    r#"{"text":"42","tool_calls":[],"tokens":10}"#,
                ),
                counts(2, 20, 58, 2),
                "seq 4 turn 2: answer \"42\"; tokens 20/1000, total 58/5000",
            ),
            (
                record(
                    5,
                    RecordKind::Stop,
                    r#"{"reason":"cancelled","steps":2,"tokens":20,"unrun_calls":1}"#,
                ),
                counts(2, 20, 58, 2),
                "seq 5 stop cancelled: 2 turns, 20 tokens, 2 tool calls, 1 call left unrun",
            ),
            (
                record(6, RecordKind::Resume, r#"{"after":"cancelled"}"#),
                counts(2, 20, 58, 2),
                "seq 6 resume after cancelled",
            ),
            (
                record(
                    7,
                    RecordKind::Stop,
                    r#"{"reason":"model_error","steps":1,"tokens":1,"unrun_calls":0,"error":"HTTP 500"}"#,
                ),
                counts(1, 1, 1, 0),
                "seq 7 stop model_error: 1 turn, 1 token, 0 tool calls; error \"HTTP 500\"",
            ),
        ];
        for (record, counts, expected) in cases {
            assert_eq!(record_line(&record, counts, &budgets), expected);
        }
        // Without budgets: the counts alone.
        let turn = record(
            1,
            RecordKind::Assistant,
            r#"{"text":"hi","tool_calls":[],"tokens":1}"#,
        );
        assert_eq!(
            record_line(&turn, counts(1, 1, 20, 0), &Budgets::default()),
            "seq 1 turn 1: answer \"hi\"; tokens 1"
        );
    }

    #[test]
    fn events_carry_the_record_its_hash_and_the_counts() {
        let appended = Appended {
            seq: 1,
            head: Hash::ZERO,
        };
        let turn = record(
            1,
            RecordKind::Assistant,
            r#"{"text":"x","tool_calls":[{"id":"call_1_0","name":"add","arguments":{"a":1}}],"tokens":3,"provider":{"input_tokens":9}}"#,
        );
        assert_eq!(
            text(&record_event(&turn, &appended, counts(1, 3, 12, 0))),
            format!(
                r#"{{"calls":[{{"id":"call_1_0","name":"add"}}],"event":"record","hash":"{}","kind":"assistant","seq":1,"text":"x","tokens":3,"tool_calls":0,"total_tokens":12,"turn":1}}"#,
                Hash::ZERO
            )
        );
        let tool = record(
            2,
            RecordKind::Tool,
            r#"{"id":"call_1_0","name":"fail","ok":false,"error":"no"}"#,
        );
        let event = text(&record_event(&tool, &appended, counts(1, 3, 12, 1)));
        assert!(
            event.contains(r#""error":"no","event":"record""#),
            "{event}"
        );
        assert!(
            event.contains(r#""id":"call_1_0""#) && event.contains(r#""ok":false"#),
            "{event}"
        );
        let stop = record(
            3,
            RecordKind::Stop,
            r#"{"reason":"no_tool_calls","steps":1,"tokens":3,"unrun_calls":0}"#,
        );
        let event = text(&record_event(&stop, &appended, counts(1, 3, 12, 1)));
        assert!(
            event.contains(r#""reason":"no_tool_calls""#) && event.contains(r#""unrun_calls":0"#),
            "{event}"
        );
        assert!(!event.contains("steps"), "{event}");

        let budgets = Budgets {
            max_steps: Some(4),
            stop_sentinel: Some(String::from("DONE")),
            ..Budgets::default()
        };
        let start = Start {
            file: "t.jsonl",
            model: String::from("openai:m"),
            url: "http://127.0.0.1:9/v1/chat/completions",
            tools: vec![String::from("add"), String::from("fs_read-1")],
            renamed: vec![(String::from("fs_read-1"), 1, String::from("fs.read"))],
            records: 0,
            budgets: &budgets,
        };
        assert_eq!(
            text(&start_event(&start)),
            r#"{"budgets":{"max_steps":4,"stop_sentinel":"DONE"},"event":"start","file":"t.jsonl","model":"openai:m","records":0,"renamed":[{"mcp_name":"fs.read","name":"fs_read-1","server":1}],"tools":["add","fs_read-1"],"url":"http://127.0.0.1:9/v1/chat/completions"}"#
        );
        assert_eq!(
            start_line(&start),
            "run: openai:m at http://127.0.0.1:9/v1/chat/completions; tools add, fs_read-1 (MCP server 1's \"fs.read\"); t.jsonl (new); budgets: max_steps 4, stop_sentinel \"DONE\""
        );
        let resumed = Start {
            tools: Vec::new(),
            renamed: Vec::new(),
            records: 5,
            budgets: &Budgets::default(),
            ..start
        };
        assert_eq!(
            start_line(&resumed),
            "run: openai:m at http://127.0.0.1:9/v1/chat/completions; no tools; t.jsonl (resumed after 5 records); no budgets"
        );
        let end = End {
            reason: "cancelled",
            exit: 130,
            count: 4,
            head: Hash::ZERO.to_string(),
            checkpoint: None,
        };
        assert_eq!(
            text(&end_event(&end)),
            format!(
                r#"{{"checkpoint":null,"count":4,"event":"end","exit":130,"head":"{}","reason":"cancelled","verified":true}}"#,
                Hash::ZERO
            )
        );
    }
}
