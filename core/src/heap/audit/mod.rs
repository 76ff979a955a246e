//! The loop audit (`agentloop verify --loop`): beyond the chain, is a transcript a
//! well-formed run of the loop (SPEC section 4)?
//!
//! [`LoopAudit`] is a push-style state machine over records, like the verifier: it
//! keeps only the calls of the current turn still waiting for a `tool` record and a few
//! counters, so memory is bounded by the largest turn, not the transcript. What it
//! finds is a [`LoopFinding`] (a record index and a sentence); [`verify_loop_bytes`]
//! and, with `std`, [`verify_loop_reader`] and [`verify_loop_file`] verify the chain
//! and audit the run in one pass, adding the findings to the verifier's report as
//! faults of kind [`FaultKind::LoopMalformed`].
//!
//! The rules, for records at index 0, 1, …:
//! - one `task` first; `stop` last, and after a `stop` only a `resume` (which starts a
//!   continuation: `task … stop (resume … stop)*`);
//! - payloads have exactly the members the loop writes, of the right types: `task`
//!   `{task: string, budgets: object}`; `assistant` `{text: string, tool_calls:
//!   [{id, name, arguments}], tokens: integer ≥ 0}` with ids `call_<seq>_<index>`, and
//!   optionally `provider`: a non-empty object of `model`, `response_id`,
//!   `finish_reason` (strings), `input_tokens`, `cached_input_tokens` (integers ≥ 0,
//!   cached at most input);
//!   `tool` `{id, name, ok: true, value}` or `{id, name, ok: false, error: string}`;
//!   `stop` `{reason, steps, tokens, unrun_calls}` plus `error` (a string) exactly when
//!   the reason is `model_error`; `resume` `{after}` naming the reason of the `stop`
//!   before it;
//! - each `tool` record answers, in order, the next unanswered call of the `assistant`
//!   record before it (same id and name); a new turn does not start while a call is
//!   unanswered;
//! - a `stop` record's counts match the records: `steps` = `assistant` records and
//!   `tokens` = the sum of their `tokens` (both cumulative over a resumed transcript),
//!   `unrun_calls` = calls of the last turn with no `tool` record, `reason` one of the
//!   seven.
//!
//! A record that cannot be read as a record (the chain verification reports it) is
//! skipped; the audit goes on with the next one.

#[cfg(feature = "std")]
mod io;
#[cfg(test)]
mod tests;

#[cfg(feature = "std")]
pub use io::{verify_loop_file, verify_loop_reader};

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{parse_tolerant, Object, Value, RECORD_MAX_DEPTH};
use crate::quote::escape_controls;
use crate::verify::{self, Fault, FaultKind, Options, Report, MAX_FAULTS};
use crate::verify::{for_each_line_in, LineEvent};
use crate::vocabulary::{as_count, call_id, StopReason};

/// One way a transcript is not a well-formed run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopFinding {
    /// 0-based index of the record at fault; the record count when the finding is
    /// about the end of the transcript (a missing `stop`).
    pub index: u64,
    /// What was expected and what was found.
    pub detail: String,
}

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoopReport {
    /// Records seen.
    pub count: u64,
    /// Findings in record order, at most the audit's limit of them.
    pub findings: Vec<LoopFinding>,
    /// Findings left out to bound memory.
    pub omitted: u64,
}

impl LoopReport {
    /// Whether the transcript is a well-formed run.
    pub fn ok(&self) -> bool {
        self.findings.is_empty() && self.omitted == 0
    }
}

/// Where the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first record.
    Start,
    /// After the task, a `resume` or a turn whose calls are all answered.
    Running,
    /// After a `stop` (index, reason if it was a valid one).
    Stopped(u64, Option<StopReason>),
}

/// The audit's state between records. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct LoopAudit {
    count: u64,
    phase: Phase,
    /// The last `assistant` record's index, and its calls `(id, name)`.
    turn: Option<u64>,
    calls: Vec<(String, String)>,
    /// How many of `calls` have their `tool` record.
    answered: usize,
    steps: u64,
    tokens: u64,
    /// False once an `assistant` record's tokens could not be read: the sum is unknown
    /// (that record is reported, not every `stop` after it).
    tokens_known: bool,
    last_kind: Option<String>,
    max_findings: usize,
    findings: Vec<LoopFinding>,
    omitted: u64,
}

impl Default for LoopAudit {
    fn default() -> Self {
        LoopAudit::new()
    }
}

impl LoopAudit {
    /// An audit before the first record, keeping up to [`MAX_FAULTS`] findings.
    pub fn new() -> Self {
        LoopAudit::with_max_findings(MAX_FAULTS)
    }

    /// An audit that keeps at most `max` findings and counts the rest.
    pub fn with_max_findings(max: usize) -> Self {
        LoopAudit {
            count: 0,
            phase: Phase::Start,
            turn: None,
            calls: Vec::new(),
            answered: 0,
            steps: 0,
            tokens: 0,
            tokens_known: true,
            last_kind: None,
            max_findings: max,
            findings: Vec::new(),
            omitted: 0,
        }
    }

    /// Audits one complete line (without its `\n`). A line that is not a readable
    /// record is skipped (the chain verification reports it).
    pub fn push_line(&mut self, line: &[u8]) {
        match parse_tolerant(line, RECORD_MAX_DEPTH) {
            Ok((value, _)) => self.push_record(&value),
            Err(_) => self.push_unreadable(),
        }
    }

    /// Counts a record that could not be read (a line too long or not JSON).
    pub fn push_unreadable(&mut self) {
        self.count += 1;
    }

    /// Audits one parsed record.
    pub fn push_record(&mut self, record: &Value) {
        let index = self.count;
        self.count += 1;
        let Some(object) = record.as_object() else {
            return;
        };
        let Some(kind) = object.get("kind").and_then(Value::as_str) else {
            return;
        };
        let seq = object.get("seq").and_then(Value::as_f64).and_then(as_count);
        let payload = match object.get("payload") {
            Some(Value::Object(payload)) => Some(payload),
            Some(other) if is_loop_kind(kind) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("a {kind} payload must be an object, found {found}"),
                );
                None
            }
            _ => None,
        };
        self.order(index, kind);
        if let Some(payload) = payload {
            match kind {
                "task" => self.task(index, payload),
                "assistant" => self.assistant(index, seq, payload),
                "tool" => self.tool(index, payload),
                "stop" => self.stop(index, payload),
                "resume" => self.resume(index, payload),
                _ => {}
            }
        }
        self.last_kind = Some(String::from(kind));
    }

    /// Ends the audit: a transcript that does not end with `stop` is a finding.
    pub fn finish(mut self) -> LoopReport {
        let index = self.count;
        match (self.phase, self.last_kind.take()) {
            (Phase::Start, _) if index == 0 => self.find(
                index,
                String::from(
                    "the transcript has no records; a run has a task record first and a stop record last",
                ),
            ),
            (Phase::Start, _) => self.find(
                index,
                String::from("no record could be read; a run has a task record first and a stop record last"),
            ),
            (Phase::Stopped(..), _) => {}
            (_, last) => {
                let last = last.unwrap_or_default();
                self.find(
                    index,
                    format!(
                        "the transcript ends without a stop record (the last record is {} '{}' record)",
                        a(&last),
                        truncate(&last)
                    ),
                );
            }
        }
        self.report()
    }

    /// Ends the audit of an input that could not be read to its end: no finding about
    /// the end.
    pub fn finish_incomplete(self) -> LoopReport {
        self.report()
    }

    fn report(self) -> LoopReport {
        LoopReport {
            count: self.count,
            findings: self.findings,
            omitted: self.omitted,
        }
    }

    /// Keeps a finding. Its sentence may quote record strings (a kind, a call's id or
    /// name): their control characters are escaped here, for every finding at once.
    fn find(&mut self, index: u64, detail: String) {
        if self.findings.len() < self.max_findings {
            let detail = match escape_controls(&detail) {
                Cow::Borrowed(_) => detail,
                Cow::Owned(escaped) => escaped,
            };
            self.findings.push(LoopFinding { index, detail });
        } else {
            self.omitted += 1;
        }
    }

    /// The order of records: task first; after stop only resume; turns complete.
    fn order(&mut self, index: u64, kind: &str) {
        if self.phase == Phase::Start {
            if kind != "task" {
                self.find(
                    index,
                    format!(
                        "expected a task record first, found {} '{}' record",
                        a(kind),
                        truncate(kind)
                    ),
                );
            }
            self.phase = Phase::Running;
            if kind == "task" {
                return;
            }
        }
        match kind {
            "task" => self.find(
                index,
                String::from("a second task record; a run has one task record, the first"),
            ),
            "resume" => match self.phase {
                Phase::Stopped(..) => {}
                _ => self.find(
                    index,
                    String::from("a resume record that does not follow a stop record"),
                ),
            },
            "assistant" | "tool" | "stop" => {
                if let Phase::Stopped(at, _) = self.phase {
                    self.find(
                        index,
                        format!(
                            "{} {kind} record after the stop record at index {at}; only a \
                             resume record may follow a stop",
                            a(kind)
                        ),
                    );
                    // Go on as if the run had resumed, so one missing resume is one finding.
                    self.phase = Phase::Running;
                }
                if kind == "assistant" {
                    self.unanswered_before_turn(index);
                }
            }
            other => self.find(
                index,
                format!(
                    "{} '{}' record, which the loop does not write (task, assistant, tool, \
                     stop, resume)",
                    a(other),
                    truncate(other)
                ),
            ),
        }
    }

    /// A new turn while calls of the last one have no `tool` record.
    fn unanswered_before_turn(&mut self, index: u64) {
        let left = self.calls.len() - self.answered;
        if left > 0 {
            let (id, name) = &self.calls[self.answered];
            let detail = format!(
                "a new turn, but {left} call{} of the assistant record at index {} {} no tool \
                 record (next: {} '{}'); only a stop record may leave calls unrun",
                if left == 1 { "" } else { "s" },
                self.turn.unwrap_or_default(),
                if left == 1 { "has" } else { "have" },
                truncate(id),
                truncate(name)
            );
            self.find(index, detail);
        }
    }

    fn task(&mut self, index: u64, payload: &Object) {
        self.members(index, "task payload", payload, &["budgets", "task"], &[]);
        // An absent member is reported once, as missing, by `members`.
        if payload.contains_key("task") && !matches!(payload.get("task"), Some(Value::String(_))) {
            let found = describe_member(payload, "task");
            self.find(
                index,
                format!("task payload: task must be a string, found {found}"),
            );
        }
        if payload.contains_key("budgets")
            && !matches!(payload.get("budgets"), Some(Value::Object(_)))
        {
            let found = describe_member(payload, "budgets");
            self.find(
                index,
                format!("task payload: budgets must be an object, found {found}"),
            );
        }
    }

    fn assistant(&mut self, index: u64, seq: Option<u64>, payload: &Object) {
        self.steps += 1;
        self.turn = Some(index);
        self.calls.clear();
        self.answered = 0;
        self.members(
            index,
            "assistant payload",
            payload,
            &["text", "tokens", "tool_calls"],
            &["provider"],
        );
        match payload.get("provider") {
            None => {}
            Some(Value::Object(provider)) => self.provider(index, provider),
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("assistant payload: provider must be an object, found {found}"),
                );
            }
        }
        if payload.contains_key("text") && !matches!(payload.get("text"), Some(Value::String(_))) {
            let found = describe_member(payload, "text");
            self.find(
                index,
                format!("assistant payload: text must be a string, found {found}"),
            );
        }
        match count_member(payload, "tokens") {
            Ok(tokens) => self.tokens = self.tokens.saturating_add(tokens),
            Err(_) if !payload.contains_key("tokens") => self.tokens_known = false,
            Err(found) => {
                self.tokens_known = false;
                self.find(
                    index,
                    format!("assistant payload: tokens must be an integer from 0 to 2^53-1, found {found}"),
                );
            }
        }
        let calls = match payload.get("tool_calls") {
            Some(Value::Array(calls)) => calls,
            None => return,
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("assistant payload: tool_calls must be an array, found {found}"),
                );
                return;
            }
        };
        for (position, call) in calls.iter().enumerate() {
            let Some(call) = call.as_object() else {
                let found = describe(call);
                self.find(
                    index,
                    format!("assistant payload: call {position} must be an object {{id, name, arguments}}, found {found}"),
                );
                continue;
            };
            let what = format!("assistant payload: call {position}");
            self.members(index, &what, call, &["arguments", "id", "name"], &[]);
            let id = call.get("id").and_then(Value::as_str);
            let name = call.get("name").and_then(Value::as_str);
            if name.is_none() && call.contains_key("name") {
                let found = describe_member(call, "name");
                self.find(
                    index,
                    format!("{what}: name must be a string, found {found}"),
                );
            }
            match (id, seq) {
                (None, _) if !call.contains_key("id") => {}
                (None, _) => {
                    let found = describe_member(call, "id");
                    self.find(index, format!("{what}: id must be a string, found {found}"));
                }
                (Some(id), Some(seq)) => {
                    let want = call_id(seq, position);
                    if id != want {
                        self.find(
                            index,
                            format!(
                                "{what}: id is \"{}\", expected \"{want}\" (call_<seq>_<index>)",
                                truncate(id)
                            ),
                        );
                    }
                }
                (Some(_), None) => {}
            }
            self.calls.push((
                String::from(id.unwrap_or_default()),
                String::from(name.unwrap_or_default()),
            ));
        }
    }

    /// An `assistant` payload's `provider` member: only the members the loop writes
    /// (each reported one; none is required, but the loop writes no empty object),
    /// strings and counts, and no more cached input tokens than input tokens.
    fn provider(&mut self, index: u64, provider: &Object) {
        let what = "assistant payload: provider";
        self.members(index, what, provider, &[], &PROVIDER_MEMBERS);
        if provider.is_empty() {
            self.find(
                index,
                format!("{what} is empty; the loop leaves it out when nothing was reported"),
            );
        }
        for key in ["finish_reason", "model", "response_id"] {
            match provider.get(key) {
                None | Some(Value::String(_)) => {}
                Some(other) => {
                    let found = describe(other);
                    self.find(
                        index,
                        format!("{what}: {key} must be a string, found {found}"),
                    );
                }
            }
        }
        let mut counts = [None, None];
        for (slot, key) in counts
            .iter_mut()
            .zip(["input_tokens", "cached_input_tokens"])
        {
            match count_member(provider, key) {
                Ok(n) => *slot = Some(n),
                Err(_) if !provider.contains_key(key) => {}
                Err(found) => self.find(
                    index,
                    format!("{what}: {key} must be an integer from 0 to 2^53-1, found {found}"),
                ),
            }
        }
        if let [Some(input), Some(cached)] = counts {
            if cached > input {
                self.find(
                    index,
                    format!(
                        "{what}: cached_input_tokens is {cached}, more than input_tokens {input}"
                    ),
                );
            }
        }
    }

    fn tool(&mut self, index: u64, payload: &Object) {
        self.members(
            index,
            "tool payload",
            payload,
            &["id", "name", "ok"],
            &["error", "value"],
        );
        let has_value = payload.contains_key("value");
        let error_string = matches!(payload.get("error"), Some(Value::String(_)));
        match payload.get("ok") {
            Some(Value::Bool(true)) if has_value && !payload.contains_key("error") => {}
            Some(Value::Bool(true)) => self.find(
                index,
                String::from("tool payload: an ok:true record has a value and no error"),
            ),
            Some(Value::Bool(false)) if has_value || !error_string => {
                let found = describe_member(payload, "error");
                let value = if has_value { " and a value" } else { "" };
                self.find(
                    index,
                    format!(
                        "tool payload: an ok:false record has an error string and no value, \
                         found error {found}{value}"
                    ),
                );
            }
            Some(Value::Bool(false)) | None => {}
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("tool payload: ok must be a boolean, found {found}"),
                );
            }
        }
        let id = payload.get("id").and_then(Value::as_str);
        let name = payload.get("name").and_then(Value::as_str);
        let Some((want_id, want_name)) = self.calls.get(self.answered) else {
            let detail = match self.turn {
                None => String::from(
                    "a tool record answering no call: no assistant record comes before it",
                ),
                Some(at) => format!(
                    "a tool record answering no call: the assistant record at index {at} has {} \
                     call{}, all answered",
                    self.calls.len(),
                    if self.calls.len() == 1 { "" } else { "s" }
                ),
            };
            return self.find(index, detail);
        };
        if id == Some(want_id.as_str()) && name == Some(want_name.as_str()) {
            self.answered += 1;
            return;
        }
        let later = self.calls[self.answered..]
            .iter()
            .position(|(i, _)| Some(i.as_str()) == id);
        let detail = format!(
            "expected the tool record for {} '{}' (call {} of the assistant record at index {}), \
             found id {} and name {}",
            truncate(want_id),
            truncate(want_name),
            self.answered,
            self.turn.unwrap_or_default(),
            describe_member(payload, "id"),
            describe_member(payload, "name"),
        );
        self.find(index, detail);
        // Reported once, here: an answer to a later call skips the ones before it, and
        // any other record in this place is taken as the expected call's answer.
        self.answered += later.map_or(1, |skip| skip + 1);
    }

    fn stop(&mut self, index: u64, payload: &Object) {
        let reason = payload
            .get("reason")
            .and_then(Value::as_str)
            .and_then(StopReason::from_name);
        // `error` is checked against the reason below.
        self.members(
            index,
            "stop payload",
            payload,
            &["reason", "steps", "tokens", "unrun_calls"],
            &["error"],
        );
        if reason.is_none() && payload.contains_key("reason") {
            let names: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).collect();
            let found = describe_member(payload, "reason");
            self.find(
                index,
                format!(
                    "stop payload: reason must be one of {}, found {found}",
                    names.join(", ")
                ),
            );
        }
        match (reason, payload.get("error")) {
            (Some(StopReason::ModelError), Some(Value::String(_))) => {}
            (Some(StopReason::ModelError), other) => {
                let found = other.map_or(String::from("none"), describe);
                self.find(
                    index,
                    format!("stop payload: reason model_error needs an error sentence (a string), found {found}"),
                );
            }
            (Some(other), Some(_)) => self.find(
                index,
                format!("stop payload: error is present, but the reason is {other}; only model_error carries one"),
            ),
            _ => {}
        }
        let unrun = (self.calls.len() - self.answered) as u64;
        let checks = [
            ("steps", self.steps, "assistant records"),
            (
                "tokens",
                self.tokens,
                "the sum of the assistant records' tokens",
            ),
            (
                "unrun_calls",
                unrun,
                "calls of the last turn with no tool record",
            ),
        ];
        for (member, want, what) in checks {
            match count_member(payload, member) {
                Ok(found) if found == want => {}
                Ok(_) if member == "tokens" && !self.tokens_known => {}
                Err(_) if !payload.contains_key(member) => {}
                Ok(found) => self.find(
                    index,
                    format!(
                        "stop payload: {member} is {found}, but the records give {want} ({what})"
                    ),
                ),
                Err(found) => self.find(
                    index,
                    format!(
                        "stop payload: {member} must be an integer from 0 to 2^53-1, found {found}"
                    ),
                ),
            }
        }
        // The stop settles the last turn: its unanswered calls are unrun, not owed.
        self.answered = self.calls.len();
        self.phase = Phase::Stopped(index, reason);
    }

    fn resume(&mut self, index: u64, payload: &Object) {
        self.members(index, "resume payload", payload, &["after"], &[]);
        let after = payload.get("after").and_then(Value::as_str);
        match (self.phase, after) {
            (Phase::Stopped(_, Some(reason)), Some(after)) if after == reason.as_str() => {}
            (Phase::Stopped(..), _) if !payload.contains_key("after") => {}
            (Phase::Stopped(at, reason), _) => {
                let said = reason.map_or("no valid reason", |r| r.as_str());
                let found = describe_member(payload, "after");
                self.find(
                    index,
                    format!("resume payload: after must name the reason of the stop record at index {at} ({said}), found {found}"),
                );
            }
            _ => {}
        }
        self.phase = Phase::Running;
    }

    /// Reports members other than `required` and `optional`, and absent `required` ones.
    fn members(
        &mut self,
        index: u64,
        what: &str,
        payload: &Object,
        required: &[&str],
        optional: &[&str],
    ) {
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|m| !payload.contains_key(m))
            .collect();
        if !missing.is_empty() {
            self.find(index, format!("{what}: missing {}", quoted(&missing)));
        }
        let extra: Vec<&str> = payload
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !required.contains(k) && !optional.contains(k))
            .collect();
        if !extra.is_empty() {
            self.find(
                index,
                format!(
                    "{what}: unexpected {}, which the loop does not write",
                    quoted(&extra)
                ),
            );
        }
    }
}

/// The members an `assistant` payload's `provider` object may have.
const PROVIDER_MEMBERS: [&str; 5] = [
    "cached_input_tokens",
    "finish_reason",
    "input_tokens",
    "model",
    "response_id",
];

/// Audits parsed records.
pub fn audit_records(records: &[Value]) -> LoopReport {
    let mut audit = LoopAudit::new();
    for record in records {
        audit.push_record(record);
    }
    audit.finish()
}

/// Verifies a transcript held in memory ([`verify::verify_bytes`]) and audits it as
/// a run, the findings added to the report as `loop_malformed` faults.
pub fn verify_loop_bytes(bytes: &[u8], options: &Options) -> Report {
    let report = verify::verify_bytes(bytes, options);
    let mut audit = LoopAudit::with_max_findings(options.max_faults);
    for_each_line_in(bytes, options.max_line_bytes, |event| match event {
        LineEvent::Line(line) => audit.push_line(line),
        LineEvent::TooLong(_) => audit.push_unreadable(),
        // The verifier reports a torn tail; the audit never sees that record.
        LineEvent::TornTail(_) => {}
    });
    merge(report, audit.finish(), options.max_faults)
}

/// Adds an audit's findings to a verifier's report as faults of kind
/// [`FaultKind::LoopMalformed`], in record order (after the chain's faults of the same
/// record), each with `line` = index + 1 when it names a record of the file, and
/// `None` when it is about the end. The kept faults stay within `max_faults`; the
/// rest are counted in `faults_omitted`.
pub fn merge(mut report: Report, audit: LoopReport, max_faults: usize) -> Report {
    report.faults_omitted = report.faults_omitted.saturating_add(audit.omitted);
    for finding in audit.findings {
        if report.faults.len() >= max_faults {
            report.faults_omitted += 1;
            continue;
        }
        let line = (finding.index < audit.count).then_some(finding.index + 1);
        report.faults.push(Fault {
            index: Some(finding.index),
            line,
            kind: FaultKind::LoopMalformed,
            detail: finding.detail.into(),
        });
    }
    // Stable: the chain's faults of a record stay before the audit's, and faults with
    // no index (an unreadable input) stay last.
    report.faults.sort_by_key(|f| f.index.unwrap_or(u64::MAX));
    report
}

/// The indefinite article for a word.
fn a(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

fn is_loop_kind(kind: &str) -> bool {
    matches!(kind, "task" | "assistant" | "tool" | "stop" | "resume")
}

/// A member that must be a count (an integer from 0 to 2^53 − 1): the count, or a
/// description of what was found.
fn count_member(payload: &Object, key: &str) -> Result<u64, String> {
    match payload.get(key) {
        Some(value) => value
            .as_f64()
            .and_then(as_count)
            .ok_or_else(|| describe(value)),
        None => Err(String::from("none")),
    }
}

fn describe_member(payload: &Object, key: &str) -> String {
    payload.get(key).map_or(String::from("none"), describe)
}

/// A short description of a found value.
fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{}\"", truncate(s).escape_debug()),
        Value::Number(n) => {
            let mut buf = [0u8; 32];
            match crate::number::format_f64(*n, &mut buf) {
                Some(len) => format!("the number {}", String::from_utf8_lossy(&buf[..len])),
                None => String::from("a non-finite number"),
            }
        }
        Value::Bool(b) => format!("{b}"),
        Value::Null => String::from("null"),
        Value::Array(_) => String::from("an array"),
        Value::Object(_) => String::from("an object"),
    }
}

/// At most 70 characters of `s`, with `…` when cut.
fn truncate(s: &str) -> String {
    let mut shown: String = s.chars().take(70).collect();
    if shown.len() < s.len() {
        shown.push('…');
    }
    shown
}

fn quoted(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .map(|n| format!("'{}'", truncate(n).escape_debug()))
        .collect();
    shown.join(", ")
}
