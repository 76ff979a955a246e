//! The verifier's alloc layer: the [`Verifier`] state machine, its reports and the
//! in-memory entry points. Public as [`crate::verify`], with the readers of `host/`.

mod checkpoint;
mod fault;
pub(crate) mod lines;

pub use crate::checkpoint::Checkpoint;
pub use crate::fault_kind::FaultKind;
pub use checkpoint::CheckpointError;
pub use fault::{Fault, Report};
#[cfg(feature = "std")]
pub use lines::for_each_line;
pub use lines::{for_each_line_in, LineEvent};

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::anchor::{seq_of, Anchor, MAX_SEQ, PAST_MAX_SEQ};
use crate::checkpoint::{HeadMismatch, Tree, Verdict};
use crate::hash::Hash;
use crate::jcs::{write_object_except, write_value};
use crate::json::{parse_tolerant, Object, ParseError, Value, RECORD_MAX_DEPTH};
use crate::number::format_f64;
use crate::record::FIELDS;
use crate::sink::CompareSink;
use crate::stream::{LineChecker, Sealed};

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
            self.fault(
                index,
                at,
                FaultKind::BadJson,
                String::from("the line is empty"),
            );
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
                self.fault(index, at, FaultKind::BadJson, describe_parse_error(&e));
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
        let detail = format!(
            "the line is {len} bytes long, more than the limit of {} bytes",
            self.options.max_line_bytes
        );
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
        let detail = format!(
            "the last line ({len} bytes) has no terminating newline: the last append did not finish"
        );
        self.fault(index, Some(index + 1), FaultKind::TornTail, detail);
    }

    /// Reports that the input could not be read. Like checkpoint faults, it is kept
    /// even when the fault list is full: it says the report is incomplete.
    pub fn push_unreadable(&mut self, detail: String) {
        self.faults.push(Fault {
            index: None,
            line: None,
            kind: FaultKind::Unreadable,
            detail,
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
            match cp.verdict(
                self.count,
                self.at_checkpoint,
                self.options.anchor.prev0,
                &self.tree,
            ) {
                Verdict::OriginMismatch { expected, found } => {
                    let fault = Fault {
                        index: Some(0),
                        line: Some(1),
                        kind: FaultKind::CheckpointOriginMismatch,
                        detail: format!(
                            "the checkpoint's origin names a transcript whose record 0 carries {expected}, but record 0 carries {}: the checkpoint is for another transcript",
                            describe_hash(found)
                        ),
                    };
                    self.faults.insert(0, fault);
                }
                Verdict::Truncated => {
                    let missing = cp.count - self.count;
                    let fault = Fault {
                        index: Some(self.count),
                        line: None,
                        kind: FaultKind::Truncated,
                        detail: format!(
                            "the checkpoint covers {} records but the transcript has {}: {missing} missing from the end",
                            cp.count, self.count
                        ),
                    };
                    self.faults.push(fault);
                }
                Verdict::Reached { beyond, mismatch } => {
                    beyond_checkpoint = Some(beyond);
                    if let Some(HeadMismatch {
                        index,
                        head,
                        found,
                        root,
                    }) = mismatch
                    {
                        // A checkpoint of 0 records stands for the anchor: no record
                        // carries its head, the anchor's prev0 is it.
                        let detail = match (head, root, cp.count.checked_sub(1)) {
                            (_, Some((root, got)), None) => format!(
                                "the checkpoint's Merkle root is {root}, but 0 records give the empty tree's root {}",
                                describe_hash(got)
                            ),
                            (_, Some((root, got)), Some(last)) => format!(
                                "the checkpoint's Merkle root is {root}, but records 0 to {last} give {}",
                                got.map_or_else(
                                    || String::from("none (a record has no well-formed hash)"),
                                    |h| format!("{h}")
                                )
                            ),
                            (head, None, None) => format!(
                                "the checkpoint's head is {}, but the head of 0 records is the anchor's prev0, {}",
                                describe_hash(head),
                                describe_hash(found)
                            ),
                            (head, None, Some(last)) => format!(
                                "the checkpoint's head is {}, but record {last} carries {}",
                                describe_hash(head),
                                describe_hash(found)
                            ),
                        };
                        let fault = Fault {
                            index,
                            line: index.map(|i| i + 1),
                            kind: FaultKind::HeadMismatch,
                            detail,
                        };
                        let at = self.faults.partition_point(|f| f.index <= index);
                        self.faults.insert(at, fault);
                    }
                }
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

    fn fault(&mut self, index: u64, line: Option<u64>, kind: FaultKind, detail: String) {
        self.keep(Fault {
            index: Some(index),
            line,
            kind,
            detail,
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
            let detail = format!(
                "expected a JSON object, found {}",
                article(value.type_name())
            );
            self.fault(index, line_no, FaultKind::NotAnObject, detail);
            if check_canonical && !canonical {
                let detail = not_canonical_detail(value, line.unwrap_or_default());
                self.fault(index, line_no, FaultKind::NotCanonical, detail);
            }
            return self.skip_unread();
        };

        let absent: Vec<&str> = FIELDS
            .iter()
            .copied()
            .filter(|f| !record.contains_key(f))
            .collect();
        let kind_ok = match record.get("kind") {
            None => true, // already named as absent
            Some(Value::String(s)) => !s.is_empty(),
            Some(_) => false,
        };
        if !absent.is_empty() || !kind_ok {
            let mut detail = String::new();
            if !absent.is_empty() {
                detail = format!("missing {}", quoted_list(&absent));
            }
            if !kind_ok {
                if !detail.is_empty() {
                    detail.push_str("; ");
                }
                detail.push_str(&format!(
                    "kind must be a non-empty string, found {}",
                    describe_value(record.get("kind").unwrap_or(&Value::Null))
                ));
            }
            self.fault(index, line_no, FaultKind::MissingFields, detail);
        }

        let extra: Vec<&str> = record
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !FIELDS.contains(k))
            .collect();
        if !extra.is_empty() {
            let detail = format!(
                "unexpected member {}; a record has only hash, kind, payload, prev and seq",
                quoted_list(&extra)
            );
            self.fault(index, line_no, FaultKind::UnexpectedFields, detail);
        }

        if let Some(issue) = number_issue {
            let detail = format!(
                "{}, so the record has no canonical encoding to hash",
                issue.kind
            );
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
            let detail = format!(
                "hash must be 64 lowercase hex digits, found {}",
                describe_value(value)
            );
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
            let detail = format!("stored hash {stored}, but the record hashes to {computed}");
            self.fault(index, at, FaultKind::HashMismatch, detail);
        }
    }

    fn check_seq(&mut self, index: u64, at: Option<u64>, record: &Object) {
        let expected = self.expected_seq;
        match record.get("seq") {
            None => self.expected_seq = expected.saturating_add(1),
            Some(Value::Number(n)) if n.is_finite() => self.seq_number(index, at, *n),
            Some(other) => {
                let detail = format!("expected seq {expected}, found {}", describe_value(other));
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
            let past = if n > MAX_SEQ as f64 { PAST_MAX_SEQ } else { "" };
            let detail = format!("expected seq {expected}, found {}{past}", spell(n));
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
                let detail = format!(
                    "prev must be 64 lowercase hex digits, found {}",
                    describe_value(value)
                );
                self.fault(index, at, FaultKind::PrevMismatch, detail);
            }
            Some(prev) => self.prev_hash(index, at, prev),
        }
    }

    /// A well-formed `prev`: compared with the hash of the record before, if known.
    fn prev_hash(&mut self, index: u64, at: Option<u64>, prev: Hash) {
        if let Some(expected) = self.prev {
            if prev != expected {
                let whose = match index {
                    0 => String::from("the anchor's prev0"),
                    i => format!("the hash of record {}", i - 1),
                };
                let detail = format!("expected prev {expected} ({whose}), found {prev}");
                self.fault(index, at, FaultKind::PrevMismatch, detail);
            }
        }
    }
}

fn describe_parse_error(e: &ParseError) -> String {
    format!("{} at column {}", e.kind, e.offset + 1)
}

fn not_canonical_detail(value: &Value, line: &[u8]) -> String {
    let mut canonical = Vec::new();
    let _ = write_value(value, &mut canonical);
    let at = canonical
        .iter()
        .zip(line)
        .position(|(a, b)| a != b)
        .unwrap_or(canonical.len().min(line.len()));
    format!(
        "the line is not in canonical (RFC 8785) form: first difference at column {} ({} bytes, canonical is {})",
        at + 1,
        line.len(),
        canonical.len()
    )
}

fn spell(n: f64) -> String {
    let mut buf = [0u8; 32];
    match format_f64(n, &mut buf) {
        Some(len) => String::from_utf8_lossy(&buf[..len]).into_owned(),
        None => String::from("a non-finite number"),
    }
}

fn article(type_name: &str) -> String {
    match type_name {
        "array" | "object" => format!("an {type_name}"),
        "null" => String::from("null"),
        other => format!("a {other}"),
    }
}

/// A short description of a found value for a detail sentence.
fn describe_value(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let mut shown: String = s.chars().take(70).collect();
            if shown.len() < s.len() {
                shown.push('…');
            }
            format!("\"{}\"", shown.escape_debug())
        }
        Value::Number(n) if n.is_finite() => format!("the number {}", spell(*n)),
        Value::Number(_) => String::from("a number outside the double range"),
        other => article(other.type_name()),
    }
}

fn describe_hash(hash: Option<Hash>) -> String {
    match hash {
        Some(h) => format!("{h}"),
        None => String::from("no well-formed hash"),
    }
}

fn quoted_list(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let shown: String = name.chars().take(40).collect();
        out.push_str(&format!("'{}'", shown.escape_debug()));
    }
    out
}

#[cfg(test)]
mod tests;
