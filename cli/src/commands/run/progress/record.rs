//! How `run` shows each record as it is written: a line on stderr (the turn, the
//! call, the result, the tokens against the budget) or a `record` event.

use agentloop_core::agent::{Budgets, Record, RecordKind};
use agentloop_core::driver::Counts;
use agentloop_core::durable::Appended;
use agentloop_core::json::{Object, Value};

use super::{count, object};
use crate::diag::plural;
use crate::record_line::{bare, quoted};

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

pub(super) fn record_event(record: &Record, appended: &Appended, counts: Counts) -> Value {
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
pub(super) fn record_line(record: &Record, counts: Counts, budgets: &Budgets) -> String {
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
