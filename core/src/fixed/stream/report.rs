//! What the streaming verifier reports: fixed-size details, faults, the report.

use core::fmt;

use heapless::{String, Vec};

use super::buf::ByteBuf;
use super::lexer::{Departure, JsonType, Limit, NumberProblem, Syntax};
use crate::anchor::{MAX_SEQ, PAST_MAX_SEQ};
use crate::fault_kind::FaultKind;
use crate::hash::Hash;
use crate::jcs::write_str;
use crate::number::format_f64;
use crate::record::FIELDS;
use crate::sink::{BufferFull, ByteSink};

/// Line faults a [`StreamReport`] keeps; the rest are counted in
/// [`StreamReport::faults_omitted`]. A checkpoint fault is always kept (one more slot).
pub const MAX_FAULTS: usize = 8;

/// The bytes of the first unexpected member's name kept for a detail sentence.
pub const NAME_BYTES: usize = 24;

/// The start of a member's name as a detail keeps it: whole characters, at most
/// [`NAME_BYTES`] bytes.
pub fn name_start(name: &str) -> String<NAME_BYTES> {
    let mut start = String::new();
    for c in name.chars() {
        if start.push(c).is_err() {
            break;
        }
    }
    start
}

/// The bytes of a found string kept for a detail sentence (its canonical encoding,
/// without the quotes, cut at a character).
pub const EXCERPT_BYTES: usize = 40;

/// The start of a found string: its canonical encoding without the quotes (escapes
/// as canonical form writes them), at most [`EXCERPT_BYTES`] bytes, cut at a character.
pub type Excerpt = String<EXCERPT_BYTES, u8>;

/// A value found where something else was expected, as far as a detail names it.
///
/// Both verifiers describe a value the same way: the streaming one from the bytes of a
/// canonical line, the allocating one from the parsed value through its canonical
/// encoding (which on a canonical line is the bytes as written).
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// The empty string.
    EmptyString,
    /// A non-empty string.
    String {
        /// Bytes between the quotes, escapes as canonical form writes them.
        len: u64,
        /// Its first bytes ([`EXCERPT_BYTES`] at most).
        start: Excerpt,
    },
    /// A number (its nearest double; infinite when out of range).
    Number(f64),
    /// A value of another type.
    Type(JsonType),
}

impl Found {
    /// A string found, from its canonical encoding's bytes without the quotes: `len`
    /// of them in all, `first` the first of them (at least [`EXCERPT_BYTES`] when
    /// there are that many; valid UTF-8 up to a cut character).
    pub(crate) fn string(len: u64, first: &[u8]) -> Found {
        if len == 0 {
            return Found::EmptyString;
        }
        let keep = usize::try_from(len).map_or(EXCERPT_BYTES, |len| len.min(EXCERPT_BYTES));
        let first = first.get(..keep).unwrap_or(first);
        let text = match core::str::from_utf8(first) {
            Ok(text) => text,
            Err(e) => core::str::from_utf8(first.get(..e.valid_up_to()).unwrap_or_default())
                .unwrap_or_default(),
        };
        let mut start = Excerpt::new();
        let _ = start.push_str(text);
        Found::String { len, start }
    }

    /// A string found, from its text: its canonical encoding's length without the quotes
    /// and its start, as the streaming verifier names the same string on a canonical line.
    pub fn of_str(text: &str) -> Found {
        let mut sink = ExcerptSink {
            bytes: ByteBuf::new(),
            count: 0,
        };
        let _ = write_str(text, &mut sink);
        // The sink holds the opening quote and up to EXCERPT_BYTES bytes after it.
        let first = sink.bytes.as_slice().get(1..).unwrap_or_default();
        Found::string(sink.count.saturating_sub(2), first)
    }
}

/// Counts the bytes written and keeps the first `EXCERPT_BYTES + 1` of them.
struct ExcerptSink {
    bytes: ByteBuf<{ EXCERPT_BYTES + 1 }>,
    count: u64,
}

impl ByteSink for ExcerptSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        let room = EXCERPT_BYTES + 1 - self.bytes.len();
        let _ = self
            .bytes
            .extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        self.count = self.count.saturating_add(bytes.len() as u64);
        Ok(())
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::EmptyString => f.write_str("\"\""),
            Found::String { len, start } => {
                f.write_str("\"")?;
                // Canonical form escapes C0 controls; DEL and C1 controls are not
                // written raw into a sentence either.
                for c in start.chars() {
                    if c.is_control() {
                        write!(f, "{}", c.escape_debug())?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                if start.len() as u64 == *len {
                    f.write_str("\"")
                } else {
                    write!(f, "…\" ({len} bytes)")
                }
            }
            Found::Number(n) if n.is_finite() => write!(f, "the number {}", Spelled(*n)),
            Found::Number(_) => f.write_str("a number outside the double range"),
            Found::Type(t) => f.write_str(t.with_article()),
        }
    }
}

// A `Found::Number` is never NaN: it is read from a JSON number literal (out of range
// is infinite), and JSON has no NaN. So equality is an equivalence.
impl Eq for Found {}

/// A double in its ECMAScript spelling.
struct Spelled(f64);

impl fmt::Display for Spelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 32];
        match format_f64(self.0, &mut buf) {
            Some(len) => {
                let text = buf.get(..len).unwrap_or_default();
                f.write_str(core::str::from_utf8(text).unwrap_or("?"))
            }
            None => f.write_str("a non-finite number"),
        }
    }
}

/// What a fault found, in a fixed size: its `Display` is the detail sentence, naming
/// what was expected and what was found (SPEC section 3).
///
/// Both verifiers report these — the streaming one ([`super::StreamVerifier`]) and the
/// allocating one (`verify::Verifier`, whose `verify::Detail::Check` holds one) — so a
/// fault has the same sentence whichever verifier found it. No variant allocates; the
/// only text kept is the start of an unexpected member's name, at most [`NAME_BYTES`]
/// bytes. A few variants come from one verifier only: [`Detail::NotCanonical`],
/// [`Detail::Limit`] from the streaming one (it stops at the first byte that departs
/// from canonical form and has fixed limits), [`Detail::CanonicalDiffers`] from the
/// allocating one (it compares the line with the canonical encoding of what it parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detail {
    /// `bad_json`: the line is empty.
    EmptyLine,
    /// `bad_json`: the line is longer than the line limit.
    LineTooLong {
        /// The line's length without its `\n`.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// `bad_json`: not JSON, found at a 1-based column.
    Syntax {
        /// 1-based byte column.
        column: u64,
        /// What was wrong.
        error: Syntax,
    },
    /// `bad_json`: past a limit of the streaming verifier, at a 1-based column.
    Limit {
        /// 1-based byte column.
        column: u64,
        /// Which limit.
        limit: Limit,
    },
    /// `not_canonical`: the first byte that departs from canonical form.
    NotCanonical {
        /// 1-based byte column of the first departing byte.
        column: u64,
        /// How it departs.
        departure: Departure,
    },
    /// `not_canonical`: the line is JSON but differs from the canonical encoding of
    /// its content (the allocating verifier, which parsed it).
    CanonicalDiffers {
        /// 1-based byte column of the first byte that differs.
        column: u64,
        /// The line's length in bytes.
        len: u64,
        /// The canonical encoding's length in bytes.
        canonical: u64,
    },
    /// `not_an_object`.
    NotAnObject {
        /// The line's type.
        found: JsonType,
    },
    /// `missing_fields`: absent members (bit `i` set = `record::FIELDS[i]` absent) and
    /// what `kind` was if it was not a non-empty string.
    Missing {
        /// Bit `i` set: member `FIELDS[i]` is absent.
        absent: u8,
        /// A present `kind` that is not a non-empty string.
        kind: Option<Found>,
    },
    /// `unexpected_fields`: how many, and the start of the first one's name.
    Unexpected {
        /// Number of members other than the five.
        count: u64,
        /// The first one's name (at most [`NAME_BYTES`] bytes, cut at a character).
        first: String<NAME_BYTES>,
    },
    /// `unserialisable_payload`: the first number with no canonical encoding.
    Unserialisable {
        /// Why it has none.
        problem: NumberProblem,
    },
    /// `hash_mismatch`: `hash` is not 64 lowercase hex digits.
    HashMalformed {
        /// What it was.
        found: Found,
    },
    /// `hash_mismatch`: the stored hash differs from the computed one.
    HashDiffers {
        /// The stored `hash`.
        stored: Hash,
        /// SHA-256 of the record without `hash`.
        computed: Hash,
    },
    /// `seq_gap`.
    SeqGap {
        /// The expected `seq`.
        expected: u64,
        /// What was found.
        found: Found,
    },
    /// `prev_mismatch`: `prev` is not 64 lowercase hex digits.
    PrevMalformed {
        /// What it was.
        found: Found,
    },
    /// `prev_mismatch`: `prev` differs from the stored hash of the record before.
    PrevDiffers {
        /// The stored hash of the record before (or the anchor's `prev0`).
        expected: Hash,
        /// The `prev` found.
        found: Hash,
        /// The record's index (0: `expected` is the anchor's `prev0`).
        index: u64,
    },
    /// `torn_tail`.
    TornTail {
        /// Bytes after the last `\n`.
        len: u64,
    },
    /// `truncated`.
    Truncated {
        /// Records the checkpoint covers.
        checkpoint: u64,
        /// Records read.
        count: u64,
    },
    /// `head_mismatch`.
    HeadMismatch {
        /// The checkpoint's head.
        head: Hash,
        /// The checkpoint's count.
        checkpoint: u64,
        /// The stored hash of record `count − 1`, if well-formed.
        found: Option<Hash>,
    },
    /// `head_mismatch` exposed by the Merkle root: the head agrees (or is not given),
    /// the root of the first `checkpoint` records does not.
    RootMismatch {
        /// The checkpoint's root.
        root: Hash,
        /// The checkpoint's count.
        checkpoint: u64,
        /// The root the records give (`None`: a record has no well-formed hash).
        found: Option<Hash>,
    },
    /// `checkpoint_origin_mismatch`: record 0 is not the one the origin names.
    OriginMismatch {
        /// The hash the checkpoint's origin names.
        expected: Hash,
        /// The stored hash of record 0, if well-formed.
        found: Option<Hash>,
    },
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::EmptyLine => f.write_str("the line is empty"),
            Detail::LineTooLong { len, limit } => write!(
                f,
                "the line is {len} bytes long, more than the limit of {limit} bytes"
            ),
            Detail::Syntax { column, error } => write!(f, "{error} at column {column}"),
            Detail::Limit { column, limit } => write!(f, "{limit} at column {column}"),
            Detail::NotCanonical { column, departure } => write!(
                f,
                "the line is not in canonical (RFC 8785) form: {departure} at column {column}"
            ),
            Detail::CanonicalDiffers {
                column,
                len,
                canonical,
            } => write!(
                f,
                "the line is not in canonical (RFC 8785) form: first difference at column {column} ({len} bytes, canonical is {canonical})"
            ),
            Detail::NotAnObject { found } => {
                write!(f, "expected a JSON object, found {}", found.with_article())
            }
            Detail::Missing { absent, kind } => missing(f, *absent, kind.as_ref()),
            Detail::Unexpected { count, first } => {
                write!(f, "unexpected member '{}'", first.escape_debug())?;
                if *count > 1 {
                    write!(f, " and {} more", count - 1)?;
                }
                f.write_str("; a record has only hash, kind, payload, prev and seq")
            }
            Detail::Unserialisable { problem } => write!(
                f,
                "{problem}, so the record has no canonical encoding to hash"
            ),
            Detail::HashMalformed { found } => {
                write!(f, "hash must be 64 lowercase hex digits, found {found}")
            }
            Detail::HashDiffers { stored, computed } => {
                write!(f, "stored hash {stored}, but the record hashes to {computed}")
            }
            Detail::SeqGap { expected, found } => seq_gap(f, *expected, found),
            Detail::PrevMalformed { found } => {
                write!(f, "prev must be 64 lowercase hex digits, found {found}")
            }
            Detail::PrevDiffers {
                expected,
                found,
                index,
            } => {
                write!(f, "expected prev {expected} (")?;
                match index {
                    0 => f.write_str("the anchor's prev0")?,
                    i => write!(f, "the hash of record {}", i - 1)?,
                }
                write!(f, "), found {found}")
            }
            Detail::TornTail { len } => write!(
                f,
                "the last line ({len} bytes) has no terminating newline: the last append did not finish"
            ),
            Detail::Truncated { .. }
            | Detail::HeadMismatch { .. }
            | Detail::RootMismatch { .. }
            | Detail::OriginMismatch { .. } => self.fmt_checkpoint(f),
        }
    }
}

impl Detail {
    /// The sentences of a checkpoint's faults (any other detail: its own `Display`).
    fn fmt_checkpoint(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::Truncated { checkpoint, count } => write!(
                f,
                "the checkpoint covers {checkpoint} records but the transcript has {count}: {} missing from the end",
                checkpoint.saturating_sub(*count)
            ),
            // A checkpoint of 0 records stands for the anchor: no record carries its
            // head, the anchor's prev0 is it; its root is the empty tree's.
            Detail::HeadMismatch {
                head,
                checkpoint,
                found,
            } => {
                write!(f, "the checkpoint's head is {head}, but ")?;
                match checkpoint.checked_sub(1) {
                    None => f.write_str("the head of 0 records is the anchor's prev0, ")?,
                    Some(last) => write!(f, "record {last} carries ")?,
                }
                match found {
                    Some(h) => write!(f, "{h}"),
                    None => f.write_str("no well-formed hash"),
                }
            }
            Detail::RootMismatch {
                root,
                checkpoint,
                found,
            } => {
                write!(f, "the checkpoint's Merkle root is {root}, but ")?;
                match checkpoint.checked_sub(1) {
                    None => f.write_str("0 records give the empty tree's root ")?,
                    Some(last) => write!(f, "records 0 to {last} give ")?,
                }
                match found {
                    Some(h) => write!(f, "{h}"),
                    None => f.write_str("none (a record has no well-formed hash)"),
                }
            }
            Detail::OriginMismatch { expected, found } => {
                write!(
                    f,
                    "the checkpoint's origin names a transcript whose record 0 carries {expected}, but record 0 carries "
                )?;
                match found {
                    Some(h) => write!(f, "{h}")?,
                    None => f.write_str("no well-formed hash")?,
                }
                f.write_str(": the checkpoint is for another transcript")
            }
            other => fmt::Display::fmt(other, f),
        }
    }
}

/// `missing_fields`: the absent members, and what `kind` was if it is not a non-empty
/// string.
fn missing(f: &mut fmt::Formatter<'_>, absent: u8, kind: Option<&Found>) -> fmt::Result {
    let mut first = true;
    for (i, name) in FIELDS.iter().enumerate() {
        if absent & (1 << i) != 0 {
            f.write_str(if first { "missing '" } else { ", '" })?;
            f.write_str(name)?;
            f.write_str("'")?;
            first = false;
        }
    }
    if let Some(found) = kind {
        if !first {
            f.write_str("; ")?;
        }
        write!(f, "kind must be a non-empty string, found {found}")?;
    }
    Ok(())
}

/// `seq_gap`: a number is spelt as ECMAScript does, and named as past the largest seq
/// when it is.
fn seq_gap(f: &mut fmt::Formatter<'_>, expected: u64, found: &Found) -> fmt::Result {
    write!(f, "expected seq {expected}, found ")?;
    match found {
        Found::Number(n) if n.is_finite() => {
            write!(f, "{}", Spelled(*n))?;
            if *n > MAX_SEQ as f64 {
                f.write_str(PAST_MAX_SEQ)?;
            }
            Ok(())
        }
        other => write!(f, "{other}"),
    }
}

/// One fault: where, what kind, and a detail whose `Display` is a sentence.
///
/// The one fault type of both verifiers: the streaming verifier's detail is a
/// fixed-size [`Detail`]; the allocating verifier's (`verify::Fault`, this type with
/// `verify::Detail`) is the same [`Detail`] for every fault the record and chain checks
/// find, or a sentence from a layer above (an unreadable input, a checkpoint's
/// signature, the loop audit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault<D = Detail> {
    /// 0-based position of the record (the line) in the transcript.
    pub index: Option<u64>,
    /// 1-based line number (`None` for `truncated`: that record is not in the input).
    pub line: Option<u64>,
    /// What is wrong.
    pub kind: FaultKind,
    /// What was expected and what was found.
    pub detail: D,
}

impl<D: fmt::Display> fmt::Display for Fault<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.index) {
            (Some(line), _) => write!(f, "line {line}: ")?,
            (None, Some(index)) => write!(f, "record {index}: ")?,
            (None, None) => {}
        }
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// The result of a streaming verification.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamReport {
    /// Records read (complete lines; a torn tail is not counted).
    pub count: u64,
    /// The stored `hash` of the last record (`prev0` for an empty transcript); `None`
    /// when the last record has no well-formed hash or was not read to the end.
    /// Not meaningful when there are faults.
    pub head: Option<Hash>,
    /// The RFC 6962 Merkle root of all records read (leaf `i`: record `i`'s stored
    /// `hash`); `None` when a record has no well-formed hash. Not meaningful when
    /// there are faults.
    pub root: Option<Hash>,
    /// The stored `hash` of record 0, if it is well-formed: what a default checkpoint
    /// origin names (`agentloop/transcript/<hex>`), as in `verify::Report`.
    pub first: Option<Hash>,
    /// Faults in line order: at most [`MAX_FAULTS`] line faults, then a checkpoint
    /// fault in its place (always kept).
    pub faults: Vec<Fault, { MAX_FAULTS + 1 }, u8>,
    /// Faults found but left out of `faults`.
    pub faults_omitted: u64,
    /// With a checkpoint: how many records lie beyond it (information, not a fault).
    pub beyond_checkpoint: Option<u64>,
}

impl StreamReport {
    /// Whether the transcript verified: no fault at all.
    pub fn ok(&self) -> bool {
        self.faults.is_empty() && self.faults_omitted == 0
    }
}
