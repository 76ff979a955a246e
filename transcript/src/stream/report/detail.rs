//! The detail of a fault in a fixed size ([`StreamDetail`], opaque; what it holds,
//! [`Finding`]), and its sentence.

use core::fmt;

use heapless::String;

use super::*;
use crate::anchor::{MAX_SEQ, PAST_MAX_SEQ};
use crate::hash::Hash;
use crate::record::FIELDS;
use crate::stream::lexer::{Departure, JsonType, Limit, NumberProblem, Syntax};

/// What a fault found, in a fixed size: its `Display` is the detail sentence, naming
/// what was expected and what was found (SPEC section 3).
///
/// Both verifiers report these — the streaming one ([`crate::stream::StreamVerifier`]) and the
/// allocating one (`verify::Verifier`, whose `verify::Detail` holds one) — so a
/// fault has the same sentence whichever verifier found it. Nothing in it allocates; the
/// only text kept is the start of an unexpected member's name. What a caller branches on
/// is the fault's kind ([`crate::stream::FaultKind`]); the detail says it in words, and
/// tells apart the two verifiers' documented differences: [`StreamDetail::departure`]
/// (the streaming verifier stops at the first byte that departs from canonical form)
/// and [`StreamDetail::past_limit`] (its fixed limits).
#[derive(Clone, PartialEq, Eq)]
pub struct StreamDetail(Finding);

impl StreamDetail {
    /// How the line departs from canonical form, when the verifier stopped at its first
    /// departing byte (`not_canonical`; the allocating verifier names a carriage return
    /// so too, [`Departure::CarriageReturn`], and reports other lines that are not
    /// canonical by their first difference from the canonical encoding: `None`). What
    /// the allocating verifier and the fuzz oracle compare; not API.
    #[doc(hidden)]
    pub fn departure(&self) -> Option<Departure> {
        match self.0 {
            Finding::NotCanonical { departure, .. } => Some(departure),
            _ => None,
        }
    }

    /// Whether the line went past a fixed limit of the streaming verifier (a key or the
    /// keys of the open objects too long: `bad_json` naming the limit).
    pub fn past_limit(&self) -> bool {
        matches!(self.0, Finding::Limit { .. })
    }

    /// What the detail holds (agentloop-core's verifier and writer read it).
    #[doc(hidden)]
    pub fn finding(&self) -> &Finding {
        &self.0
    }
}

#[doc(hidden)]
impl From<Finding> for StreamDetail {
    fn from(finding: Finding) -> Self {
        StreamDetail(finding)
    }
}

impl fmt::Display for StreamDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// As its finding (`NotCanonical { column: 3, .. }`).
impl fmt::Debug for StreamDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a [`StreamDetail`] holds: the fault's facts, one variant a sentence (not an API:
/// agentloop-core's verifier builds them).
///
/// Both verifiers report these — the streaming one ([`crate::stream::StreamVerifier`]) and the
/// allocating one (`verify::Verifier`, whose `verify::Detail` holds one) — so a
/// fault has the same sentence whichever verifier found it. No variant allocates; the
/// only text kept is the start of an unexpected member's name, at most [`NAME_BYTES`]
/// bytes. A few variants come from one verifier only: [`Finding::NotCanonical`],
/// [`Finding::Limit`] from the streaming one (it stops at the first byte that departs
/// from canonical form and has fixed limits), [`Finding::CanonicalDiffers`] from the
/// allocating one (it compares the line with the canonical encoding of what it parsed)
/// — except that where that first difference is a carriage return, the allocating one
/// names it as the streaming one does ([`Finding::NotCanonical`] with
/// [`Departure::CarriageReturn`]), so a CRLF line has one sentence in both.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finding {
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
    /// `torn_tail` whose bytes, given a `\n`, are a record with no fault of its own
    /// that continues the chain: only the newline is missing (a repair adds it rather
    /// than moving the line aside).
    UnterminatedRecord {
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

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::EmptyLine => f.write_str("the line is empty"),
            Finding::LineTooLong { len, limit } => write!(
                f,
                "the line is {len} bytes long, more than the limit of {limit} bytes"
            ),
            Finding::Syntax { column, error } => write!(f, "{error} at column {column}"),
            Finding::Limit { column, limit } => write!(f, "{limit} at column {column}"),
            Finding::NotCanonical { column, departure } => write!(
                f,
                "the line is not in canonical (RFC 8785) form: {departure} at column {column}"
            ),
            Finding::CanonicalDiffers {
                column,
                len,
                canonical,
            } => write!(
                f,
                "the line is not in canonical (RFC 8785) form: first difference at column {column} ({len} bytes, canonical is {canonical})"
            ),
            Finding::NotAnObject { found } => {
                write!(f, "expected a JSON object, found {}", found.with_article())
            }
            Finding::Missing { absent, kind } => missing(f, *absent, kind.as_ref()),
            Finding::Unexpected { count, first } => {
                write!(f, "unexpected member '{}'", first.escape_debug())?;
                if *count > 1 {
                    write!(f, " and {} more", count - 1)?;
                }
                f.write_str("; a record has only hash, kind, payload, prev and seq")
            }
            Finding::Unserialisable { problem } => write!(
                f,
                "{problem}, so the record has no canonical encoding to hash"
            ),
            Finding::HashMalformed { found } => {
                write!(f, "hash must be 64 lowercase hex digits, found {found}")
            }
            Finding::HashDiffers { stored, computed } => {
                write!(f, "stored hash {stored}, but the record hashes to {computed}")
            }
            Finding::SeqGap { expected, found } => seq_gap(f, *expected, found),
            Finding::PrevMalformed { found } => {
                write!(f, "prev must be 64 lowercase hex digits, found {found}")
            }
            Finding::PrevDiffers {
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
            Finding::TornTail { len } => write!(
                f,
                "the last line ({len} bytes) has no terminating newline: the last append did not finish"
            ),
            Finding::UnterminatedRecord { len } => write!(
                f,
                "the last line ({len} bytes) is a complete, valid record that continues the chain, missing only its terminating newline"
            ),
            Finding::Truncated { .. }
            | Finding::HeadMismatch { .. }
            | Finding::RootMismatch { .. }
            | Finding::OriginMismatch { .. } => self.fmt_checkpoint(f),
        }
    }
}

impl Finding {
    /// The sentences of a checkpoint's faults (any other detail: its own `Display`).
    pub(super) fn fmt_checkpoint(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Truncated { checkpoint, count } => write!(
                f,
                "the checkpoint covers {checkpoint} records but the transcript has {count}: {} missing from the end",
                checkpoint.saturating_sub(*count)
            ),
            // A checkpoint of 0 records stands for the anchor: no record carries its
            // head, the anchor's prev0 is it; its root is the empty tree's.
            Finding::HeadMismatch {
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
            Finding::RootMismatch {
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
            Finding::OriginMismatch { expected, found } => {
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
pub(super) fn missing(f: &mut fmt::Formatter<'_>, absent: u8, kind: Option<&Found>) -> fmt::Result {
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
pub(super) fn seq_gap(f: &mut fmt::Formatter<'_>, expected: u64, found: &Found) -> fmt::Result {
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
