//! The loop audit's alloc layer: [`LoopAudit`], its findings and the in-memory entry
//! points. Public as [`crate::audit`], with the readers of `host/`.

mod describe;
mod kinds;
mod setup;
#[cfg(test)]
mod setup_tests;
#[cfg(test)]
mod tests;

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{Value, RECORD_MAX_DEPTH};
use crate::quote::escape_controls;
use crate::tools::Manifest;
use crate::verify::{self, Fault, FaultKind, Options, Report, MAX_FAULTS};
use crate::verify::{for_each_line_in, LineEvent};
use crate::vocabulary::{as_count, RecordKind, StopReason};
use agentloop_json::__private::parse_tolerant;
use describe::{a, describe, is_loop_kind, truncate};

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

/// The audit's state between records. See the [module documentation](crate::audit).
#[derive(Debug, Clone)]
pub struct LoopAudit {
    count: u64,
    phase: Phase,
    /// The last `assistant` record's index, and its calls `(id, name)`.
    turn: Option<u64>,
    calls: Vec<(String, String)>,
    /// What the setup in force says of each of `calls` (`None`: no setup).
    expected: Vec<Option<Result<(), String>>>,
    /// The tools the setup in force offers (format 2), compiled.
    offered: Option<Manifest>,
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
            expected: Vec::new(),
            offered: None,
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
            match RecordKind::from_name(kind) {
                Some(RecordKind::Task) => self.task(index, payload),
                Some(RecordKind::Assistant) => self.assistant(index, seq, payload),
                Some(RecordKind::Tool) => self.tool(index, payload),
                Some(RecordKind::Stop) => self.stop(index, payload),
                Some(RecordKind::Resume) => self.resume(index, payload),
                Some(RecordKind::Setup) => self.setup_record(index, payload),
                None => {}
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

    /// Ends the audit ([`LoopAudit::finish`]) and adds its findings to `report`, a
    /// verifier's report on the same records, as faults of kind
    /// [`FaultKind::LoopMalformed`]: in record order after the chain's faults of the same
    /// record, within `max_faults` (the rest counted in `faults_omitted`). For records
    /// already verified and parsed; [`verify_loop_bytes`] verifies and audits bytes.
    pub fn finish_into(self, report: Report, max_faults: usize) -> Report {
        merge(report, self.finish(), max_faults)
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
            if kind != RecordKind::Task.as_str() {
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
            if kind == RecordKind::Task.as_str() {
                return;
            }
        }
        match RecordKind::from_name(kind) {
            Some(RecordKind::Task) => self.find(
                index,
                String::from("a second task record; a run has one task record, the first"),
            ),
            Some(RecordKind::Resume) => match self.phase {
                Phase::Stopped(..) => {}
                _ => self.find(
                    index,
                    String::from("a resume record that does not follow a stop record"),
                ),
            },
            Some(RecordKind::Setup) => self.setup_between_turns(index),
            Some(RecordKind::Assistant | RecordKind::Tool | RecordKind::Stop) => {
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
                if kind == RecordKind::Assistant.as_str() {
                    self.unanswered_before_turn(index);
                }
            }
            None => self.find(
                index,
                format!(
                    "{} '{}' record, which the loop does not write (task, assistant, tool, \
                     stop, resume, setup)",
                    a(kind),
                    truncate(kind)
                ),
            ),
        }
    }

    /// A `setup` record is written between turns only: not after a `stop` (a run that
    /// goes on with another setup says so in its `resume` record), not inside a turn.
    fn setup_between_turns(&mut self, index: u64) {
        if let Phase::Stopped(at, _) = self.phase {
            return self.find(
                index,
                format!(
                    "a setup record after the stop record at index {at}; only a resume record \
                     may follow a stop (it states a changed setup itself)"
                ),
            );
        }
        let left = self.calls.len() - self.answered;
        if left > 0 {
            let detail = format!(
                "a setup record inside the turn of the assistant record at index {} ({left} \
                 call{} left with no tool record); the setup changes only between turns",
                self.turn.unwrap_or_default(),
                if left == 1 { "" } else { "s" },
            );
            self.find(index, detail);
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
}

/// Audits parsed records.
#[cfg(test)]
pub(crate) fn audit_records(records: &[Value]) -> LoopReport {
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
        LineEvent::TornTail(_) | LineEvent::LongTornTail(_) => {}
    });
    audit.finish_into(report, options.max_faults)
}

/// Adds an audit's findings to a verifier's report as faults of kind
/// [`FaultKind::LoopMalformed`], in record order (after the chain's faults of the same
/// record), each with `line` = index + 1 when it names a record of the file, and
/// `None` when it is about the end. The kept faults stay within `max_faults`; the
/// rest are counted in `faults_omitted`.
pub(crate) fn merge(mut report: Report, audit: LoopReport, max_faults: usize) -> Report {
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
