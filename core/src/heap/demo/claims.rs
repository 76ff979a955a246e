//! The claims a demo transcript must bear out, checked from its bytes alone.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{kinds_text, Scenario};
use crate::agent::{call_id, RecordKind, StopReason};
use crate::jcs::to_vec;
use crate::json::{self, Object, Value};
use crate::vocabulary::member::{
    BUDGETS, ERROR, ID, MAX_TOKENS, NAME, OK, REASON, STEPS, TOKENS, TOOL_CALLS, UNRUN_CALLS, VALUE,
};

/// One claim about a transcript, and whether it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// What is claimed, e.g. `5 records: task assistant tool assistant stop`.
    pub what: String,
    /// Whether the transcript bears it out.
    pub held: bool,
    /// What was found instead, when it did not hold.
    pub found: String,
}

impl Claim {
    fn new(what: String, found: String, held: bool) -> Claim {
        let found = if held { String::new() } else { found };
        Claim { what, held, found }
    }
}

/// A record as read back: its seq, kind and payload object.
struct Read {
    seq: f64,
    kind: String,
    payload: Object,
}

fn text(value: &Value) -> String {
    to_vec(value)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

fn number(payload: &Object, key: &str) -> Option<f64> {
    payload.get(key).and_then(Value::as_f64)
}

fn calls(payload: &Object) -> &[Value] {
    match payload.get(TOOL_CALLS) {
        Some(Value::Array(calls)) => calls,
        _ => &[],
    }
}

fn read(transcript: &[u8]) -> Result<Vec<Read>, String> {
    let mut records = Vec::new();
    let body = transcript.strip_suffix(b"\n").unwrap_or(transcript);
    if body.is_empty() {
        return Ok(records);
    }
    for (index, line) in body.split(|&b| b == b'\n').enumerate() {
        let value =
            json::parse_record_line(line).map_err(|e| format!("line {}: {e}", index + 1))?;
        let record = value.as_object();
        let seq = record.and_then(|r| number(r, "seq"));
        let kind = record.and_then(|r| r.get("kind")).and_then(Value::as_str);
        let payload = record
            .and_then(|r| r.get("payload"))
            .and_then(Value::as_object);
        match (seq, kind, payload) {
            (Some(seq), Some(kind), Some(payload)) => records.push(Read {
                seq,
                kind: kind.into(),
                payload: payload.clone(),
            }),
            _ => return Err(format!("line {}: not a loop record", index + 1)),
        }
    }
    Ok(records)
}

/// Checks `transcript` against what `scenario` must show.
pub fn check(scenario: &Scenario, transcript: &[u8]) -> Vec<Claim> {
    let records = match read(transcript) {
        Ok(records) => records,
        Err(found) => {
            let what = String::from("every line is a record the loop wrote");
            return alloc::vec![Claim::new(what, found, false)];
        }
    };
    let mut claims = Vec::new();
    let expected = &scenario.expect;
    let kinds: Vec<&str> = records.iter().map(|r| r.kind.as_str()).collect();
    let want = kinds_text(&expected.kinds);
    claims.push(Claim::new(
        format!("{} records: {want}", expected.kinds.len()),
        format!("{} records: {}", kinds.len(), kinds.join(" ")),
        kinds.join(" ") == want,
    ));
    claims.push(stop_claim(&records, expected.reason));
    claims.push(ids_claim(&records));
    for (seq, want) in &expected.tools {
        claims.push(tool_claim(&records, *seq, want));
    }
    if expected.reason == StopReason::TokenBudget {
        claims.push(budget_claim(&records));
    }
    claims
}

/// Counts recomputed from the records: steps, tokens, and the last turn's unrun calls.
fn counts(records: &[Read]) -> (f64, f64, f64) {
    let assistants: Vec<&Read> = records
        .iter()
        .filter(|r| r.kind == RecordKind::Assistant.as_str())
        .collect();
    let tokens = assistants
        .iter()
        .filter_map(|r| number(&r.payload, TOKENS))
        .sum();
    let last_turn = records
        .iter()
        .rposition(|r| r.kind == RecordKind::Assistant.as_str());
    let unrun = last_turn.map_or(0, |at| {
        // From the assistant record itself, which is not a tool record.
        let answered = records[at..]
            .iter()
            .filter(|r| r.kind == RecordKind::Tool.as_str())
            .count();
        calls(&records[at].payload).len().saturating_sub(answered)
    });
    (assistants.len() as f64, tokens, unrun as f64)
}

fn stop_claim(records: &[Read], reason: StopReason) -> Claim {
    let (steps, tokens, unrun) = counts(records);
    let what = format!(
        "stop: reason {reason}, steps {steps} = assistant records, tokens {tokens} = their \
         sum, unrun_calls {unrun} = calls of the last turn with no tool record"
    );
    let Some(stop) = records
        .last()
        .filter(|r| r.kind == RecordKind::Stop.as_str())
    else {
        return Claim::new(what, String::from("the last record is not a stop"), false);
    };
    let p = &stop.payload;
    let held = p.get(REASON).and_then(Value::as_str) == Some(reason.as_str())
        && number(p, STEPS) == Some(steps)
        && number(p, TOKENS) == Some(tokens)
        && number(p, UNRUN_CALLS) == Some(unrun);
    Claim::new(
        what,
        format!("stop {}", text(&Value::Object(p.clone()))),
        held,
    )
}

/// Every call id is `call_<seq>_<index>`, and each `tool` record answers the next call
/// of the assistant record before it, in order.
fn ids_claim(records: &[Read]) -> Claim {
    let what = String::from(
        "call ids are call_<seq>_<index>; each tool record answers the next call, in order",
    );
    let mut pending: Vec<(String, String)> = Vec::new();
    for record in records {
        match RecordKind::from_name(&record.kind) {
            Some(RecordKind::Assistant) => {
                pending.clear();
                for (index, call) in calls(&record.payload).iter().enumerate() {
                    let call = call.as_object();
                    let id = call.and_then(|c| c.get(ID)).and_then(Value::as_str);
                    let name = call.and_then(|c| c.get(NAME)).and_then(Value::as_str);
                    let want = call_id(record.seq as u64, index);
                    if id != Some(want.as_str()) {
                        let found = format!("seq {}: call {index} has id {id:?}", record.seq);
                        return Claim::new(what, found, false);
                    }
                    pending.push((want, String::from(name.unwrap_or(""))));
                }
                pending.reverse();
            }
            Some(RecordKind::Tool) => {
                let p = &record.payload;
                let got = (
                    p.get(ID).and_then(Value::as_str),
                    p.get(NAME).and_then(Value::as_str),
                );
                let next = pending.pop();
                if next
                    .as_ref()
                    .map(|(i, n)| (Some(i.as_str()), Some(n.as_str())))
                    != Some(got)
                {
                    let found = format!("seq {}: tool record answers {got:?}", record.seq);
                    return Claim::new(what, found, false);
                }
            }
            _ => {}
        }
    }
    Claim::new(what, String::new(), true)
}

fn tool_claim(records: &[Read], seq: u64, want: &Result<Value, &'static str>) -> Claim {
    let what = match want {
        Ok(value) => format!("seq={seq} tool ok=true value={}", text(value)),
        Err(error) => format!("seq={seq} tool ok=false error=\"{error}\""),
    };
    let Some(record) = records
        .iter()
        .find(|r| r.seq == seq as f64 && r.kind == RecordKind::Tool.as_str())
    else {
        return Claim::new(what, format!("no tool record at seq {seq}"), false);
    };
    let p = &record.payload;
    let held = match want {
        Ok(value) => p.get(OK) == Some(&Value::Bool(true)) && p.get(VALUE) == Some(value),
        Err(error) => {
            p.get(OK) == Some(&Value::Bool(false))
                && p.get(ERROR).and_then(Value::as_str) == Some(*error)
        }
    };
    Claim::new(what, text(&Value::Object(p.clone())), held)
}

/// The over-budget turn is recorded, the sum before it was within the budget, and all
/// its calls are unrun.
fn budget_claim(records: &[Read]) -> Claim {
    let max = records
        .first()
        .and_then(|r| r.payload.get(BUDGETS))
        .and_then(Value::as_object)
        .and_then(|b| number(b, MAX_TOKENS));
    let (_, tokens, unrun) = counts(records);
    let last = records
        .iter()
        .rev()
        .find(|r| r.kind == RecordKind::Assistant.as_str());
    let last_tokens = last.and_then(|r| number(&r.payload, TOKENS)).unwrap_or(0.0);
    let last_calls = last.map_or(0, |r| calls(&r.payload).len()) as f64;
    let max_text = max.map_or(String::from("unset"), |m| format!("{m}"));
    let what = format!(
        "the turn that took tokens to {tokens} > max_tokens {max_text} is recorded, \
         its {last_calls} calls unrun"
    );
    let held = max.is_some_and(|m| tokens > m && tokens - last_tokens <= m)
        && last_calls > 0.0
        && unrun == last_calls;
    let found = format!("{unrun} of the last turn's {last_calls} calls unrun");
    Claim::new(what, found, held)
}
