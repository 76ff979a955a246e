//! How `run` shows each record as it is written: a line on stderr (the turn, the
//! call, the result, the tokens against the budget) or a `record` event.

use agentloop_core::agent::{Budgets, Record, RecordKind};
use agentloop_core::driver::Counts;
use agentloop_core::durable::Appended;
use agentloop_core::json::{Object, Value};
use agentloop_core::model::ToolCall;
use agentloop_core::vocabulary::member::{
    AFTER, BUDGETS, ERROR, ID, NAME, OK, REASON, TASK, TEXT, UNRUN_CALLS,
};
use agentloop_core::vocabulary::{
    AssistantPayload, ResumePayload, SetupPayload, StopPayload, TaskPayload, ToolPayload,
};

use super::{count, object};
use crate::diag::plural;
use crate::record_line::{bare, quoted};

fn payload(record: &Record) -> Option<&Object> {
    record.payload.as_object()
}

/// The calls of an `assistant` record (none for another record).
fn calls(record: &Record) -> Vec<ToolCall> {
    match record.kind {
        RecordKind::Assistant => AssistantPayload::decode(&record.payload)
            .map(|turn| turn.tool_calls)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
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
        RecordKind::Task => copy(&mut members, &[TASK, BUDGETS]),
        RecordKind::Assistant => {
            let calls = calls(record)
                .into_iter()
                .map(|call| {
                    object(vec![
                        (ID, Value::from(call.id)),
                        (NAME, Value::from(call.name)),
                    ])
                })
                .collect();
            members.push(("calls", Value::Array(calls)));
            copy(&mut members, &[TEXT]);
        }
        RecordKind::Tool => copy(&mut members, &[ID, NAME, OK, ERROR]),
        RecordKind::Stop => copy(&mut members, &[REASON, UNRUN_CALLS, ERROR]),
        RecordKind::Resume => copy(&mut members, &[AFTER]),
        RecordKind::Setup => copy(&mut members, &[REASON]),
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

/// One record as a progress line (see docs/cli.md): its payload decoded (the loop's
/// own records always decode; one that did not would show its seq and kind only).
pub(super) fn record_line(record: &Record, counts: Counts, budgets: &Budgets) -> String {
    let seq = record.seq;
    let turn = counts.steps;
    let payload = &record.payload;
    let line = match record.kind {
        RecordKind::Task => TaskPayload::decode(payload)
            .map(|task| format!("seq {seq} task {}", quoted(&task.task))),
        RecordKind::Assistant => AssistantPayload::decode(payload).map(|assistant| {
            let what = if assistant.tool_calls.is_empty() {
                format!("answer {}", quoted(&assistant.text))
            } else {
                let names: Vec<String> = assistant
                    .tool_calls
                    .iter()
                    .map(|call| bare(&call.name))
                    .collect();
                format!("calls {}", names.join(", "))
            };
            format!(
                "seq {seq} turn {turn}: {what}; {}",
                tokens_text(counts, budgets)
            )
        }),
        RecordKind::Tool => ToolPayload::decode(payload).map(|tool| {
            let name = bare(&tool.name);
            let mut line = match &tool.result {
                Ok(_) => format!("seq {seq} turn {turn}: {name} ok"),
                Err(error) => format!("seq {seq} turn {turn}: {name} failed: {}", quoted(error)),
            };
            if let Some(max) = budgets.max_tool_calls {
                line.push_str(&format!("; tool calls {}/{max}", counts.tool_calls));
            }
            line
        }),
        RecordKind::Stop => StopPayload::decode(payload).map(|stop| {
            let mut line = format!(
                "seq {seq} stop {}: {}, {}, {}",
                bare(stop.reason.as_str()),
                plural(stop.steps, "turn"),
                plural(stop.tokens, "token"),
                plural(counts.tool_calls, "tool call"),
            );
            if stop.unrun_calls > 0 {
                line.push_str(&format!(
                    ", {} left unrun",
                    plural(stop.unrun_calls, "call")
                ));
            }
            if let Some(error) = stop.error.filter(|e| !e.is_empty()) {
                line.push_str(&format!("; error {}", quoted(&error)));
            }
            line
        }),
        RecordKind::Resume => ResumePayload::decode(payload)
            .map(|resume| format!("seq {seq} resume after {}", bare(resume.after.as_str()))),
        RecordKind::Setup => SetupPayload::decode(payload).map(|changed| {
            let names: Vec<String> = changed.setup.tools.iter().map(|t| bare(&t.name)).collect();
            format!(
                "seq {seq} setup {}: tools {}",
                bare(changed.reason.as_str()),
                names.join(", ")
            )
        }),
    };
    line.unwrap_or_else(|_| format!("seq {seq} {}", record.kind))
}
