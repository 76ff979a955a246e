//! Verification (SPEC section 3): reads records and reports every fault, where it is,
//! and what was expected.
//!
//! [`Verifier`] is a push-style state machine over lines, so memory does not grow with
//! the number of records; [`verify_bytes`], [`verify_records`] and (with `std`)
//! [`verify_reader`] and [`verify_file`] drive it.
//!
//! # The fast path
//!
//! A line is first given to the streaming checker of [`crate::stream`]
//! ([`LineChecker`]): a line that is the canonical encoding of a record with its five
//! members well-formed (every line a writer produces) is checked and hashed in that one
//! pass over its bytes, without a value tree or an encoding. Only a line it does not
//! accept — not canonical (lenient mode), or with a missing, extra or malformed member,
//! or past a limit of the streaming checker — is parsed into a value tree and
//! canonicalised, which gives the detailed faults. The report is the same either way:
//! [`Verifier::without_fast_path`] parses every line, and the tests hold the two equal.
//!
//! # Faults
//!
//! A [`Fault`] is the streaming verifier's fault type with a [`Detail`]: for every fault
//! the record and chain checks find, the fixed-size [`crate::stream::Detail`] the
//! streaming verifier reports for the same fault ([`Detail::Check`]), so the sentence is
//! the same in both; [`Detail::Text`] holds the sentences of what is found outside those
//! checks (an input that could not be read, a checkpoint's signatures and its judging
//! against others, the loop audit).

mod checkpoint;
mod fault;
#[cfg(feature = "std")]
mod io;
pub(crate) mod lines;
#[cfg(feature = "std")]
mod parallel;

pub use crate::checkpoint::Checkpoint;
pub use crate::fault_kind::FaultKind;
pub use checkpoint::CheckpointError;
pub use fault::{Detail, Fault, Report};
#[cfg(feature = "std")]
pub use io::{verify_file, verify_file_with, verify_reader};
#[cfg(feature = "std")]
pub use lines::for_each_line;
pub use lines::{for_each_line_in, LineEvent};
#[cfg(feature = "std")]
pub use parallel::{verify_reader_parallel, Parallel};

use alloc::string::String;
use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::anchor::{seq_of, Anchor};
use crate::checkpoint::Tree;
use crate::hash::Hash;
use crate::jcs::{write_object_except, write_value};
use crate::json::{parse_tolerant, Object, ParseError, ParseErrorKind, Value, RECORD_MAX_DEPTH};
use crate::record::FIELDS;
use crate::sink::CompareSink;
use crate::stream::Detail as Check;
use crate::stream::{
    checkpoint_outcome, name_start, Found, JsonType, LineChecker, NumberProblem, Sealed, Syntax,
};

/// Default cap on the faults kept in a report (the SPEC asks for at least 10,000).
pub const MAX_FAULTS: usize = 10_000;

/// Default longest line accepted: 16 MiB. A longer line is `bad_json`; a reader never
/// buffers more than this (plus one read block).
pub const MAX_LINE_BYTES: usize = 16 << 20;

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
    count: u64,
    /// The `seq` the next record must carry (past [`MAX_SEQ`] once the chain has
    /// reached it: then no record is right).
    expected_seq: u64,
    /// The stored hash of the record before, if it had a well-formed one.
    prev: Option<Hash>,
    at_checkpoint: Option<Hash>,
    /// The Merkle tree of the records read (RFC 6962), in O(log n) state.
    tree: Tree,
    faults: Vec<Fault>,
    faults_omitted: u64,
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
            count: 0,
            expected_seq: options.anchor.seq0,
            prev: Some(options.anchor.prev0),
            at_checkpoint: None,
            tree: Tree::new(),
            faults: Vec::new(),
            faults_omitted: 0,
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
    /// other threads passes their findings in, in line order.
    pub fn push_checked(&mut self, line: &[u8], sealed: Option<Sealed>) {
        let index = self.count;
        self.count += 1;
        let at = Some(index + 1);
        if line.is_empty() {
            self.fault(index, at, FaultKind::BadJson, Check::EmptyLine);
            return self.skip_unread();
        }
        if line.len() > self.options.max_line_bytes {
            return self.push_oversized(index, line.len());
        }
        if let Some(sealed) = sealed {
            return self.check_sealed(index, at, &sealed);
        }
        match parse_tolerant(line, RECORD_MAX_DEPTH) {
            Err(e) => {
                self.fault(index, at, FaultKind::BadJson, parse_detail(&e));
                self.skip_unread();
            }
            Ok((value, number_issue)) => self.check(index, at, &value, number_issue, Some(line)),
        }
    }

    /// Reports a complete line of `len` bytes that is longer than the limit, without
    /// its bytes (a reader stops buffering a line at the limit): `bad_json`.
    pub fn push_long_line(&mut self, len: usize) {
        let index = self.count;
        self.count += 1;
        self.push_oversized(index, len);
    }

    fn push_oversized(&mut self, index: u64, len: usize) {
        let detail = Check::LineTooLong {
            len: len as u64,
            limit: self.options.max_line_bytes as u64,
        };
        self.fault(index, Some(index + 1), FaultKind::BadJson, detail);
        self.skip_unread();
    }

    /// Takes what the line splitting ([`for_each_line_in`], [`for_each_line`]) found.
    pub fn push_event(&mut self, event: LineEvent<'_>) {
        match event {
            LineEvent::Line(line) => self.push_line(line),
            LineEvent::TooLong(len) => self.push_long_line(len),
            LineEvent::TornTail(len) => self.push_torn_tail(len),
        }
    }

    /// Checks one record that is already parsed.
    pub fn push_record(&mut self, record: &Value) {
        let index = self.count;
        self.count += 1;
        self.check(index, None, record, None, None);
    }

    /// Reports that the input ended with `len` bytes and no `\n`: a torn last append.
    pub fn push_torn_tail(&mut self, len: usize) {
        let index = self.count;
        let detail = Check::TornTail { len: len as u64 };
        self.fault(index, Some(index + 1), FaultKind::TornTail, detail);
    }

    /// Reports that the input could not be read. Like checkpoint faults, it is kept
    /// even when the fault list is full: it says the report is incomplete.
    pub fn push_unreadable(&mut self, detail: String) {
        self.faults.push(Fault {
            index: None,
            line: None,
            kind: FaultKind::Unreadable,
            detail: fault::Detail::Text(detail),
        });
    }

    /// Records read so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Applies the checkpoint, if any, and returns the report.
    pub fn finish(mut self) -> Report {
        let mut beyond_checkpoint = None;
        if let Some(cp) = self.options.checkpoint {
            let verdict = cp.verdict(
                self.count,
                self.at_checkpoint,
                self.options.anchor.prev0,
                &self.tree,
            );
            let (fault, beyond) = checkpoint_outcome(cp, self.count, verdict);
            beyond_checkpoint = beyond;
            if let Some((place, fault)) = fault {
                // Checkpoint faults are kept even when the list is full.
                let at = place.index(&self.faults, &fault);
                self.faults.insert(at, fault.into());
            }
        }
        let unreadable = self.faults.iter().any(|f| f.kind == FaultKind::Unreadable);
        // Before any record `prev` holds the anchor's prev0, after one the stored hash.
        let head = if unreadable { None } else { self.prev };
        Report {
            count: self.count,
            head,
            root: if unreadable { None } else { self.tree.root() },
            first: self.tree.first(),
            faults: self.faults,
            faults_omitted: self.faults_omitted,
            beyond_checkpoint,
        }
    }

    fn fault(&mut self, index: u64, line: Option<u64>, kind: FaultKind, detail: Check) {
        self.keep(Fault {
            index: Some(index),
            line,
            kind,
            detail: detail.into(),
        });
    }

    fn keep(&mut self, fault: Fault) {
        if self.faults.len() < self.options.max_faults {
            self.faults.push(fault);
        } else {
            self.faults_omitted += 1;
        }
    }

    /// After a record that could not be read: its hash is unknown, seq counting goes on.
    fn skip_unread(&mut self) {
        self.expected_seq = self.expected_seq.saturating_add(1);
        self.record_done(None);
    }

    /// The last step for every record, in order: its stored hash (if well-formed)
    /// becomes the `prev` the next record must carry, and a leaf of the Merkle tree.
    fn record_done(&mut self, stored: Option<Hash>) {
        self.prev = stored;
        self.tree.push(self.count, stored, self.options.checkpoint);
        if let Some(cp) = self.options.checkpoint {
            if cp.count == self.count {
                self.at_checkpoint = stored;
            }
        }
    }

    /// The checks left for a line the fast path accepted: its members are all there and
    /// well-formed and it is canonical, so only the hash, `seq` and `prev` can be wrong
    /// (in the order [`Verifier::check`] reports them).
    fn check_sealed(&mut self, index: u64, at: Option<u64>, sealed: &Sealed) {
        self.compare_hash(index, at, sealed.stored, sealed.computed);
        self.seq_number(index, at, sealed.seq);
        self.prev_hash(index, at, sealed.prev);
        self.record_done(Some(sealed.stored));
    }

    fn check(
        &mut self,
        index: u64,
        line_no: Option<u64>,
        value: &Value,
        number_issue: Option<ParseError>,
        line: Option<&[u8]>,
    ) {
        let canonical_line = |v: &Value| {
            let mut cmp = CompareSink::new(line.unwrap_or_default());
            write_value(v, &mut cmp).is_ok() && cmp.matches()
        };
        let check_canonical = line.is_some() && !self.options.lenient && number_issue.is_none();
        let canonical = check_canonical && canonical_line(value);
        let Some(record) = value.as_object() else {
            let detail = Check::NotAnObject {
                found: json_type(value),
            };
            self.fault(index, line_no, FaultKind::NotAnObject, detail);
            if check_canonical && !canonical {
                let detail = not_canonical_detail(value, line.unwrap_or_default());
                self.fault(index, line_no, FaultKind::NotCanonical, detail);
            }
            return self.skip_unread();
        };

        let mut absent = 0u8;
        for (i, field) in FIELDS.iter().enumerate() {
            if !record.contains_key(field) {
                absent |= 1 << i;
            }
        }
        let kind = match record.get("kind") {
            None => None, // already named as absent
            Some(Value::String(s)) if !s.is_empty() => None,
            Some(other) => Some(found(other)),
        };
        if absent != 0 || kind.is_some() {
            let detail = Check::Missing { absent, kind };
            self.fault(index, line_no, FaultKind::MissingFields, detail);
        }

        let mut extra = record
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !FIELDS.contains(k));
        if let Some(first) = extra.next() {
            let detail = Check::Unexpected {
                count: 1 + extra.count() as u64,
                first: name_start(first),
            };
            self.fault(index, line_no, FaultKind::UnexpectedFields, detail);
        }

        if let Some(issue) = number_issue {
            let detail = parse_detail(&issue);
            self.fault(index, line_no, FaultKind::UnserialisablePayload, detail);
        }

        let stored = self.check_hash(index, line_no, record, number_issue.is_some());
        self.check_seq(index, line_no, record);
        self.check_prev(index, line_no, record);

        if check_canonical && !canonical {
            let detail = not_canonical_detail(value, line.unwrap_or_default());
            self.fault(index, line_no, FaultKind::NotCanonical, detail);
        }
        self.record_done(stored);
    }

    /// Checks `hash` and returns the stored hash if it is well-formed.
    fn check_hash(
        &mut self,
        index: u64,
        at: Option<u64>,
        record: &Object,
        unhashable: bool,
    ) -> Option<Hash> {
        let value = record.get("hash")?;
        let Some(stored) = value.as_str().and_then(|s| Hash::from_hex(s.as_bytes())) else {
            let detail = Check::HashMalformed {
                found: found(value),
            };
            self.fault(index, at, FaultKind::HashMismatch, detail);
            return None;
        };
        if !unhashable {
            let mut hasher = Sha256::new();
            if write_object_except(record, Some("hash"), &mut hasher).is_ok() {
                self.compare_hash(index, at, stored, Hash(hasher.finalize().into()));
            }
        }
        Some(stored)
    }

    fn compare_hash(&mut self, index: u64, at: Option<u64>, stored: Hash, computed: Hash) {
        if computed != stored {
            let detail = Check::HashDiffers { stored, computed };
            self.fault(index, at, FaultKind::HashMismatch, detail);
        }
    }

    fn check_seq(&mut self, index: u64, at: Option<u64>, record: &Object) {
        let expected = self.expected_seq;
        match record.get("seq") {
            None => self.expected_seq = expected.saturating_add(1),
            Some(Value::Number(n)) if n.is_finite() => self.seq_number(index, at, *n),
            Some(other) => {
                let detail = Check::SeqGap {
                    expected,
                    found: found(other),
                };
                self.fault(index, at, FaultKind::SeqGap, detail);
                self.expected_seq = expected.saturating_add(1);
            }
        }
    }

    /// A finite `seq`: compared with the one expected. Counting goes on from a `seq`
    /// that is an integer from 0 to [`MAX_SEQ`]; any other number (a fraction, a
    /// negative, past the limit) is always a `seq_gap` and gives nothing to count on
    /// from, so the expectation moves on by one.
    fn seq_number(&mut self, index: u64, at: Option<u64>, n: f64) {
        let expected = self.expected_seq;
        let seq = seq_of(n);
        if seq != Some(expected) {
            let detail = Check::SeqGap {
                expected,
                found: Found::Number(n),
            };
            self.fault(index, at, FaultKind::SeqGap, detail);
        }
        self.expected_seq = match seq {
            Some(seq) => seq + 1,
            None => expected.saturating_add(1),
        };
    }

    fn check_prev(&mut self, index: u64, at: Option<u64>, record: &Object) {
        let Some(value) = record.get("prev") else {
            return;
        };
        match value.as_str().and_then(|s| Hash::from_hex(s.as_bytes())) {
            None => {
                let detail = Check::PrevMalformed {
                    found: found(value),
                };
                self.fault(index, at, FaultKind::PrevMismatch, detail);
            }
            Some(prev) => self.prev_hash(index, at, prev),
        }
    }

    /// A well-formed `prev`: compared with the hash of the record before, if known.
    fn prev_hash(&mut self, index: u64, at: Option<u64>, prev: Hash) {
        if let Some(expected) = self.prev {
            if prev != expected {
                let detail = Check::PrevDiffers {
                    expected,
                    found: prev,
                    index,
                };
                self.fault(index, at, FaultKind::PrevMismatch, detail);
            }
        }
    }
}

/// A parse error as a detail: what was wrong at which column (`bad_json`), or, for a
/// number with no canonical encoding, that problem (`unserialisable_payload`).
fn parse_detail(e: &ParseError) -> Check {
    let column = e.offset as u64 + 1;
    let problem = |problem| Check::Unserialisable { problem };
    let error = match e.kind {
        ParseErrorKind::InexactInteger => return problem(NumberProblem::InexactInteger),
        ParseErrorKind::NumberOutOfRange => return problem(NumberProblem::OutOfRange),
        ParseErrorKind::NumberUnderflow => return problem(NumberProblem::Underflow),
        ParseErrorKind::UnexpectedEnd => Syntax::UnexpectedEnd,
        ParseErrorKind::UnexpectedByte(b) => Syntax::UnexpectedByte(b),
        ParseErrorKind::InvalidUtf8 => Syntax::InvalidUtf8,
        ParseErrorKind::ByteOrderMark => Syntax::ByteOrderMark,
        ParseErrorKind::NonFiniteLiteral => Syntax::NonFiniteLiteral,
        ParseErrorKind::ControlCharacter => Syntax::ControlCharacter,
        ParseErrorKind::InvalidEscape => Syntax::InvalidEscape,
        ParseErrorKind::LoneSurrogate => Syntax::LoneSurrogate,
        ParseErrorKind::DuplicateKey => Syntax::DuplicateKey,
        ParseErrorKind::TooDeep => Syntax::TooDeep,
        ParseErrorKind::InvalidNumber => Syntax::InvalidNumber,
        ParseErrorKind::TrailingCharacters => Syntax::TrailingCharacters,
    };
    Check::Syntax { column, error }
}

/// Where `line` first differs from the canonical encoding of what it parsed to.
fn not_canonical_detail(value: &Value, line: &[u8]) -> Check {
    let mut canonical = Vec::new();
    let _ = write_value(value, &mut canonical);
    let at = canonical
        .iter()
        .zip(line)
        .position(|(a, b)| a != b)
        .unwrap_or(canonical.len().min(line.len()));
    Check::CanonicalDiffers {
        column: at as u64 + 1,
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

#[cfg(test)]
mod tests;
