//! The verifier's alloc layer: the [`Verifier`] state machine, its reports and the
//! in-memory entry points. Public as `agentloop_core::verify` too, with the readers of core's `host/`.

mod checkpoint;
mod fault;
pub(crate) mod lines;

pub use crate::checkpoint::Checkpoint;
pub use crate::fault_kind::FaultKind;
pub use checkpoint::{CheckpointError, ParseCheckpoint};
pub use fault::{Detail, Fault, Report};
// A transcript split into lines as the verifiers read it (torn tail and long lines
// told apart): what the verifiers, the CLI's `show` and `view` and the fuzz targets
// build on, not API (`verify_bytes`, `verify_reader` are the ways to verify).
#[doc(hidden)]
pub use lines::{for_each_line_in, LineEvent};

use alloc::string::String;
use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::anchor::Anchor;
use crate::finding::{Finding as Check, Found, JsonType};
use crate::hash::Hash;
use crate::json::__private::parse_tolerant;
use crate::json::{Object, ParseError, Value, RECORD_MAX_DEPTH};
use crate::parse_detail::{number_problem, parse_detail};
use crate::record::FIELDS;
use crate::sink::CompareSink;
use crate::stream::engine::{At, Engine, Facts};
use crate::stream::{name_start, Departure, LineChecker, Sealed};
use agentloop_json::jcs::{write_object_except, write_value};

/// Default cap on the faults kept in a report (the SPEC asks for at least 10,000).
pub const MAX_FAULTS: usize = 10_000;

/// Default longest line accepted: 16 MiB. A longer line is `bad_json`; a reader never
/// buffers more than this (plus one read block). The value of the streaming verifier's
/// `stream::MAX_LINE_BYTES`, as a `usize`: a line this verifier reads is in memory.
pub const MAX_LINE_BYTES: usize = agentloop_transcript::stream::MAX_LINE_BYTES as usize;

/// How to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Where the chain starts; `(0, zeros)` by default.
    pub anchor: Anchor,
    /// Accept lines that are not in canonical form (no `not_canonical`).
    pub lenient: bool,
    /// An external `(count, head)` to check for truncation and rewrites.
    pub checkpoint: Option<Checkpoint>,
    /// Faults kept in the report; the rest are counted in `faults_omitted`.
    pub max_faults: usize,
    /// Longest line accepted, in bytes, without its newline.
    pub max_line_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            anchor: Anchor::GENESIS,
            lenient: false,
            checkpoint: None,
            max_faults: MAX_FAULTS,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// Verifies a whole transcript held in memory.
pub fn verify_bytes(bytes: &[u8], options: &Options) -> Report {
    let mut verifier = Verifier::new(*options);
    for_each_line_in(bytes, options.max_line_bytes, |event| {
        verifier.push_event(event)
    });
    verifier.finish()
}

/// Verifies records that are already parsed (no lines: no `not_canonical`, no line
/// numbers).
pub fn verify_records(records: &[Value], options: &Options) -> Report {
    let mut verifier = Verifier::new(*options);
    for record in records {
        verifier.push_record(record);
    }
    verifier.finish()
}

/// The verifier's state between records.
#[derive(Debug, Clone)]
pub struct Verifier {
    options: Options,
    /// The record and chain checks (shared with the streaming verifier).
    engine: Engine,
    faults: Vec<Fault>,
    /// The fast path; `None` parses every line.
    fast: Option<LineChecker>,
}

impl Verifier {
    /// A verifier before the first record.
    pub fn new(options: Options) -> Self {
        Verifier {
            fast: Some(LineChecker::new()),
            ..Verifier::without_fast_path(options)
        }
    }

    /// A verifier that parses and canonicalises every line: the reference the fast path
    /// is tested against (the same reports, more slowly).
    pub fn without_fast_path(options: Options) -> Self {
        Verifier {
            fast: None,
            options,
            engine: Engine::new(options.anchor, options.checkpoint, options.max_faults),
            faults: Vec::new(),
        }
    }

    /// Checks one complete line, without its `\n`.
    pub fn push_line(&mut self, line: &[u8]) {
        let sealed = match self.fast.as_mut() {
            Some(fast) if line.len() <= self.options.max_line_bytes => fast.check(line),
            _ => None,
        };
        self.push_checked(line, sealed);
    }

    /// Checks one complete line, given what [`LineChecker::check`] found in it (`None`
    /// when it did not accept the line or was not asked): a verifier checking lines on
    /// other threads passes their findings in, in line order. The parallel verifier's
    /// plumbing (core's `verify_reader_parallel`), not API.
    #[doc(hidden)]
    pub fn push_checked(&mut self, line: &[u8], sealed: Option<Sealed>) {
        let at = self.engine.next(true);
        if line.is_empty() {
            return self.unread(at, FaultKind::BadJson, Check::EmptyLine);
        }
        if line.len() > self.options.max_line_bytes {
            return self.oversized(at, line.len());
        }
        if let Some(sealed) = sealed {
            return self.engine.sealed(&mut self.faults, at, &sealed);
        }
        match parse_tolerant(line, RECORD_MAX_DEPTH) {
            Err(e) => self.unread(at, FaultKind::BadJson, parse_detail(&e)),
            Ok((value, number_issue)) => self.check(at, &value, number_issue, Some(line)),
        }
    }

    /// Reports a complete line of `len` bytes that is longer than the limit, without
    /// its bytes (a reader stops buffering a line at the limit): `bad_json`.
    pub fn push_long_line(&mut self, len: usize) {
        let at = self.engine.next(true);
        self.oversized(at, len);
    }

    fn oversized(&mut self, at: At, len: usize) {
        let detail = Check::LineTooLong {
            len: len as u64,
            limit: self.options.max_line_bytes as u64,
        };
        self.unread(at, FaultKind::BadJson, detail);
    }

    /// A line that could not be read as a record: its fault, then the chain goes on.
    fn unread(&mut self, at: At, kind: FaultKind, detail: Check) {
        self.engine.fault(&mut self.faults, at, kind, detail);
        self.engine.unread();
    }

    /// Takes what the line splitting ([`for_each_line_in`], or with `std` `for_each_line` over a reader) found.
    #[doc(hidden)]
    pub fn push_event(&mut self, event: LineEvent<'_>) {
        match event {
            LineEvent::Line(line) => self.push_line(line),
            LineEvent::TooLong(len) => self.push_long_line(len),
            LineEvent::TornTail(tail) => self.push_torn_tail(tail),
            LineEvent::LongTornTail(len) => self.push_long_torn_tail(len),
        }
    }

    /// Checks one record that is already parsed.
    pub fn push_record(&mut self, record: &Value) {
        let at = self.engine.next(false);
        self.check(at, record, None, None);
    }

    /// Reports that the input ended with `tail` and no `\n`: a torn last append. Its
    /// detail says whether `tail`, given its `\n`, would be a record with no fault
    /// that continues the chain (only the newline is missing).
    pub fn push_torn_tail(&mut self, tail: &[u8]) {
        let complete = self.ends_clean(tail);
        self.engine
            .torn_tail(&mut self.faults, tail.len() as u64, complete);
    }

    /// Reports that the input ended with `len` bytes and no `\n`, more than the line
    /// limit (so not kept): a torn last append.
    pub fn push_long_torn_tail(&mut self, len: usize) {
        self.engine.torn_tail(&mut self.faults, len as u64, false);
    }

    /// Whether `line` would be checked without a fault: the torn tail's judgement, on
    /// a copy of the chain's state.
    fn ends_clean(&self, line: &[u8]) -> bool {
        let mut probe = Verifier {
            options: self.options,
            engine: self.engine.clone(),
            faults: Vec::new(),
            fast: self.fast.clone(),
        };
        probe.push_line(line);
        probe.faults.is_empty() && probe.engine.faults_omitted() == self.engine.faults_omitted()
    }

    /// Whether no fault has been found so far (a caller holding the input can stop
    /// keeping it at the first fault).
    pub fn is_clean(&self) -> bool {
        self.faults.is_empty() && self.engine.faults_omitted() == 0
    }

    /// Reports that the input could not be read. Like checkpoint faults, it is kept
    /// even when the fault list is full: it says the report is incomplete.
    pub fn push_unreadable(&mut self, detail: String) {
        self.faults.push(Fault {
            index: None,
            line: None,
            kind: FaultKind::Unreadable,
            detail: detail.into(),
        });
    }

    /// Records read so far.
    pub fn count(&self) -> u64 {
        self.engine.count()
    }

    /// Applies the checkpoint, if any, and returns the report.
    pub fn finish(mut self) -> Report {
        let end = self.engine.finish(&mut self.faults);
        let unreadable = self.faults.iter().any(|f| f.kind == FaultKind::Unreadable);
        Report {
            count: end.count,
            // Before any record the head is the anchor's prev0, after one the stored
            // hash; unknown when the input could not be read to its end.
            head: end.head.filter(|_| !unreadable),
            root: end.root.filter(|_| !unreadable),
            first: end.first,
            faults: self.faults,
            faults_omitted: end.faults_omitted,
            beyond_checkpoint: end.beyond_checkpoint,
        }
    }

    /// A parsed line (or record): the same facts the streaming checker gathers, for the
    /// engine's checks; then, for a line, whether it is in canonical form.
    fn check(
        &mut self,
        at: At,
        value: &Value,
        number_issue: Option<ParseError>,
        line: Option<&[u8]>,
    ) {
        let check_canonical = line.is_some() && !self.options.lenient && number_issue.is_none();
        let not_canonical = line
            .filter(|_| check_canonical)
            .filter(|line| {
                let mut cmp = CompareSink::new(line);
                !(write_value(value, &mut cmp).is_ok() && cmp.matches())
            })
            .map(|line| not_canonical_detail(value, line));
        match value.as_object() {
            None => {
                let found = json_type(value);
                let detail = Check::NotAnObject { found };
                self.engine
                    .fault(&mut self.faults, at, FaultKind::NotAnObject, detail);
                if let Some(detail) = not_canonical {
                    self.engine
                        .fault(&mut self.faults, at, FaultKind::NotCanonical, detail);
                }
                self.engine.unread();
            }
            Some(record) => {
                let facts = facts(record, number_issue.as_ref());
                self.engine.record(&mut self.faults, at, facts);
                if let Some(detail) = not_canonical {
                    self.engine
                        .fault(&mut self.faults, at, FaultKind::NotCanonical, detail);
                }
            }
        }
    }
}

/// What a parsed record holds, as the streaming checker would gather it from the same
/// record's canonical line.
fn facts(record: &Object, number_issue: Option<&ParseError>) -> Facts {
    let mut absent = 0u8;
    for (i, field) in FIELDS.iter().enumerate() {
        if !record.contains_key(field) {
            absent |= 1 << i;
        }
    }
    let mut extra = record
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !FIELDS.contains(k));
    let first = extra.next();
    let unexpected = extra.count() as u64 + u64::from(first.is_some());
    let first_unexpected = first.map(name_start).unwrap_or_default();
    // `parse_tolerant` gives only a number with no canonical encoding as the issue.
    let unserialisable = number_issue.and_then(|e| number_problem(e.kind()));
    let hash = record.get("hash").map(hex);
    let computed = match (&hash, number_issue) {
        (Some(Ok(_)), None) => {
            let mut hasher = Sha256::new();
            write_object_except(record, Some("hash"), &mut hasher)
                .ok()
                .map(|()| Hash(hasher.finalize().into()))
        }
        _ => None,
    };
    Facts {
        absent,
        kind: match record.get("kind") {
            Some(Value::String(s)) if !s.is_empty() => None,
            Some(other) => Some(found(other)),
            None => None, // already named as absent
        },
        unexpected,
        first_unexpected,
        unserialisable,
        hash,
        computed,
        seq: record.get("seq").map(|v| match v {
            Value::Number(n) if n.is_finite() => Ok(*n),
            other => Err(found(other)),
        }),
        prev: record.get("prev").map(hex),
    }
}

/// A `hash` or `prev` value: 64 lowercase hex digits, or what it was.
fn hex(value: &Value) -> Result<Hash, Found> {
    value
        .as_str()
        .and_then(|s| Hash::from_hex(s.as_bytes()))
        .ok_or_else(|| found(value))
}

/// Where `line` first differs from the canonical encoding of what it parsed to. A
/// carriage return there (a CRLF line ending, most often) is named, as the streaming
/// lexer names it: only white space can be a raw `\r` in a line that parsed.
fn not_canonical_detail(value: &Value, line: &[u8]) -> Check {
    let mut canonical = Vec::new();
    let _ = write_value(value, &mut canonical);
    let at = canonical
        .iter()
        .zip(line)
        .position(|(a, b)| a != b)
        .unwrap_or(canonical.len().min(line.len()));
    let column = at as u64 + 1;
    if line.get(at) == Some(&b'\r') {
        return Check::NotCanonical {
            column,
            departure: Departure::CarriageReturn,
        };
    }
    Check::CanonicalDiffers {
        column,
        len: line.len() as u64,
        canonical: canonical.len() as u64,
    }
}

/// A value's type, as the streaming checker names it.
fn json_type(value: &Value) -> JsonType {
    match value {
        Value::Null => JsonType::Null,
        Value::Bool(_) => JsonType::Boolean,
        Value::Number(_) => JsonType::Number,
        Value::String(_) => JsonType::String,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
    }
}

/// A found value as a detail names it: what the streaming verifier sees of the same
/// value on a canonical line (a string's length is its canonical encoding's).
fn found(value: &Value) -> Found {
    match value {
        Value::String(s) => Found::of_str(s),
        Value::Number(n) => Found::Number(*n),
        other => Found::Type(json_type(other)),
    }
}
