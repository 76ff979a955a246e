//! The no-allocation layer: a streaming verifier of canonical transcripts and an append
//! that writes a record into a caller's buffer. Needs no allocator and keeps a fixed
//! amount of state (no line buffer).
//!
//! [`StreamVerifier`] takes a transcript's bytes in any chunking ([`StreamVerifier::push`],
//! one byte at a time works) and checks each line as its bytes arrive: canonical form
//! byte by byte (`stream/lexer/`), the record's members, and SHA-256 of the record without
//! `hash`, hashed incrementally. [`StreamVerifier::finish`] returns a [`StreamReport`].
//!
//! # One engine
//!
//! The record and chain checks — the members, `hash`, `seq` (counting past
//! `anchor::MAX_SEQ`), `prev` against the last stored hash, the Merkle tree, a torn tail,
//! the checkpoint's verdict, the fault cap — are one no-alloc state machine
//! (`stream/engine.rs`), which the allocating verifier (`verify::Verifier`) runs too: it
//! only turns a line into the same facts, through the lexer of this module (its fast
//! path) or, for a line the lexer does not accept, through the parser. The faults and
//! their [`StreamDetail`]s are then the same by construction.
//!
//! # Same faults as the allocating verifier — for canonical lines
//!
//! For every line that is the canonical encoding of its content and within the limits
//! below, the faults (index, line, kind) are those `verify::verify_bytes` reports in its
//! default strict mode, in the same order, with the same record count and head; so are
//! `torn_tail`, `truncated` and `head_mismatch` — and so are the details: both verifiers
//! report the same fixed-size [`StreamDetail`] (the allocating one inside
//! `verify::Detail`), whose `Display` is the one sentence for that fault. The two
//! verifiers share [`StreamFault`], [`StreamDetail`], [`FaultKind`] and [`Checkpoint`] (`verify`
//! re-exports the last two).
//!
//! A line is checked until its first byte that cannot belong to a canonical record.
//! Then the rest of the line is skipped and the line gets exactly one fault:
//! - `not_canonical` when the bytes could still be JSON, only not canonical (white
//!   space, an escape canonical form does not use, a key out of UTF-16 order, a number
//!   spelled otherwise than ECMAScript does). The allocating verifier reports
//!   `not_canonical` for such a line too, with whatever else it finds in it; if the rest
//!   of the line is not JSON at all it reports `bad_json` instead, and if a number in
//!   it has no canonical form, `unserialisable_payload` (it does not call such a line
//!   `not_canonical`).
//! - `bad_json` when no JSON document starts with those bytes (syntax, invalid UTF-8, a
//!   raw control character in a string, a duplicate key, nesting past
//!   [`RECORD_MAX_DEPTH`]); the allocating verifier says `bad_json` too.
//! - `bad_json` naming the limit when the line goes past [`MAX_KEY_BYTES`] or
//!   [`KEY_PATH_BYTES`] (the allocating verifier has no such limits).
//!
//! After such a line the chain goes on as after any unreadable line: the record's
//! hash is unknown, so the next record's `prev` is not checked, and the expected `seq`
//! is the previous expectation + 1 (the allocating verifier may still compare them
//! using the content of a merely non-canonical line).
//!
//! A number with no canonical encoding (`1e400`, `9007199254740993`) does not stop
//! the line: as in the allocating verifier it is `unserialisable_payload`, the hash is
//! not computed, `seq` and `prev` are still checked.
//!
//! There is no lenient mode: a lenient check needs the line in memory.
//!
//! # Limits and state size
//!
//! | limit | value | past it |
//! | --- | --- | --- |
//! | nesting of a record line | [`RECORD_MAX_DEPTH`] = 129 (a payload: 128) | `bad_json` (as the allocating verifier) |
//! | one object key, unescaped | [`MAX_KEY_BYTES`] = 256 bytes | `bad_json`, naming the limit |
//! | keys along the open path (last key of each open object + the key being read) | [`KEY_PATH_BYTES`] = 1024 bytes | `bad_json`, naming the limit |
//! | a number literal | [`MAX_NUMBER_BYTES`] = 32 bytes (no canonical number is longer than 25) | `not_canonical` (the allocating verifier: `not_canonical`, or `unserialisable_payload` for a literal with no canonical form — `not_an_object` when that literal is the whole line) |
//! | a line | [`StreamOptions::max_line_bytes`], 16 MiB by default as in the allocating verifier | `bad_json` (as the allocating verifier) |
//! | faults kept | [`MAX_FAULTS`] = 8 line faults, plus a checkpoint fault | counted in `faults_omitted` |
//! | `seq` | an integer from 0 to 2^53 − 1 ([`crate::anchor::MAX_SEQ`]), as in the allocating verifier | `seq_gap` |
//!
//! `size_of::<StreamVerifier>()` is about 5.8 KB on x86_64: the canonical-form checker
//! 1,590 (nesting stack 129 × 4, key buffer 1,024, number literal 32), the record state
//! 592 (SHA-256 context and a 128-byte staging buffer for it, a 66-byte capture of
//! `hash`/`prev`/`seq`, what `hash`/`prev`/`seq`/`kind` were when malformed, each with
//! a 40-byte excerpt of a found string), the fault list 1,088 (120 bytes a
//! fault), the Merkle tree about 2,200 (a
//! [`crate::merkle::CompactRange`] of 64 levels, so the root of every prefix is free);
//! the unit test `state_size_is_fixed` prints the exact figures and bounds it at 6 KiB.
//! [`StreamVerifier::push`] and [`write_record`] never allocate.

pub(crate) mod lexer;
mod line;
mod record;
pub(crate) mod report;

pub use lexer::{
    check_canonical, CheckError, KEY_PATH_BYTES, MAX_DEPTH, MAX_KEY_BYTES, MAX_NUMBER_BYTES,
    RECORD_MAX_DEPTH,
};
// How a line departs from canonical form (a fault's detail tells it in its sentence):
// what the allocating verifier, the fuzz oracle and the equivalence tests compare, not
// API.
#[doc(hidden)]
pub use lexer::Departure;
// The parts of the opaque `StreamDetail` and `CheckError`: `__private::finding`.
pub(crate) use lexer::{JsonType, NumberProblem, Stop, Syntax};
// The fast path of the allocating verifiers (agentloop-tlog's `Verifier`, core's
// parallel verifier): engine plumbing those crates build on, not API.
#[doc(hidden)]
pub use line::{LineChecker, Sealed};

#[doc(hidden)]
pub use report::name_start;
pub(crate) use report::Finding;
pub use report::{StreamDetail, StreamFault, StreamReport, MAX_FAULTS};

pub use crate::checkpoint::Checkpoint;
pub use crate::fault_kind::FaultKind;

mod append;
// What agentloop-core's chain and allocating verifier build on: public for that crate,
// hidden from the docs, outside any semver promise.
#[doc(hidden)]
pub mod internals {
    //! Line assembly (`stream/append.rs`) for agentloop-core's chain.
    pub use super::append::{assemble, write_fields, LineBuf};
}
#[doc(hidden)]
mod buf;
#[doc(hidden)]
pub mod engine;
pub use append::{write_record, AppendError, CanonicalPayload, ChainState};

use crate::anchor::Anchor;
use crate::checkpoint::Verdict;
use crate::scan::find_newline;
use engine::Engine;
use lexer::Lexer;
use record::RecordState;

/// The allocating verifier's default line limit (`verify::MAX_LINE_BYTES`): 16 MiB.
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// How to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// Where the chain starts; `(0, zeros)` by default.
    pub anchor: Anchor,
    /// An external `(count, head)` to check for truncation and rewrites.
    pub checkpoint: Option<Checkpoint>,
    /// Longest line accepted, in bytes, without its `\n` ([`MAX_LINE_BYTES`]).
    pub max_line_bytes: u64,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            anchor: Anchor::GENESIS,
            checkpoint: None,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// Verifies a transcript from bytes in any chunking, with fixed state and no allocator.
///
/// ```
/// use agentloop_transcript::stream::{StreamOptions, StreamVerifier};
///
/// let transcript: &[u8] = b"{\"hash\":\"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949\",\"kind\":\"task\",\"payload\":{\"task\":\"add 2 and 40\"},\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"seq\":0}\n";
/// let mut verifier = StreamVerifier::new(StreamOptions::default());
/// for chunk in transcript.chunks(7) {
///     verifier.push(chunk);
/// }
/// let report = verifier.finish();
/// assert!(report.ok());
/// assert_eq!(report.count, 1);
/// ```
#[derive(Debug, Clone)]
pub struct StreamVerifier {
    options: StreamOptions,
    lexer: Lexer,
    record: RecordState,
    /// Bytes of the current line so far, without `\n`.
    line_len: u64,
    /// Why (and at which 0-based column) checking of the current line stopped.
    stopped: Option<(u64, Stop)>,
    /// The record and chain checks (shared with the allocating verifier).
    engine: Engine,
    faults: heapless::Vec<StreamFault, { MAX_FAULTS + 1 }, u8>,
}

impl StreamVerifier {
    /// A verifier before the first byte.
    // Not inlined: built in its caller's place, not in a temporary copied there (5.8 KB
    // of stack on a microcontroller built for size).
    #[inline(never)]
    pub fn new(options: StreamOptions) -> Self {
        StreamVerifier {
            options,
            lexer: Lexer::new(RECORD_MAX_DEPTH),
            record: RecordState::new(),
            line_len: 0,
            stopped: None,
            engine: Engine::new(options.anchor, options.checkpoint, MAX_FAULTS),
            faults: heapless::Vec::new(),
        }
    }

    /// Complete lines read so far.
    pub fn count(&self) -> u64 {
        self.engine.count()
    }

    /// Takes the next bytes of the transcript, in any chunking.
    pub fn push(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let newline = find_newline(rest);
            let segment = newline.unwrap_or(rest.len());
            let judged = self.stopped.is_some() || self.line_len > self.options.max_line_bytes;
            if !judged {
                // Check the bytes within the line limit; past it the line is skipped.
                let room = self.options.max_line_bytes - self.line_len;
                let take = usize::try_from(room).map_or(segment, |room| room.min(segment));
                let input = rest.get(..take).unwrap_or_default();
                if let Err((at, stop)) = self.lexer.push(input, &mut self.record) {
                    self.stopped = Some((self.line_len + at as u64, stop));
                }
            }
            self.line_len = self.line_len.saturating_add(segment as u64);
            match newline {
                Some(nl) => {
                    self.end_line();
                    rest = rest.get(nl + 1..).unwrap_or_default();
                }
                None => return,
            }
        }
    }

    /// Ends the input: a last line without `\n` is a `torn_tail` (whose detail says
    /// when the line, given its `\n`, would be a record with no fault); then the
    /// checkpoint, if any, is applied and the report returned.
    // Not inlined, like `new`: inlined, its work was done on another copy of the
    // verifier in its caller's frame (5.8 KB of stack on a microcontroller built for
    // size).
    #[inline(never)]
    pub fn finish(mut self) -> StreamReport {
        if self.line_len > 0 {
            let len = self.line_len;
            let complete = self.ends_clean();
            self.engine.torn_tail(&mut self.faults, len, complete);
        }
        // The list keeps one slot beyond MAX_FAULTS for a checkpoint's fault.
        let end = self.engine.finish(&mut self.faults);
        StreamReport {
            count: end.count,
            head: end.head,
            root: end.root,
            first: end.first,
            faults: self.faults,
            faults_omitted: end.faults_omitted,
            beyond_checkpoint: end.beyond_checkpoint,
        }
    }

    /// Whether the line being read, ended by a `\n` now, finds no fault: the torn
    /// tail's judgement. The line is judged as if ended, then taken back: the faults it
    /// added are dropped and the chain's state (the engine) restored; the lexer and the
    /// record state are left at the start of a line, which `finish` does not read.
    /// (Not on a copy of the whole verifier: its clone was some 2 KB of a
    /// microcontroller's flash, and its state again on the stack.)
    fn ends_clean(&mut self) -> bool {
        let (kept, engine) = (self.faults.len(), self.engine.clone());
        let found = |v: &StreamVerifier| v.faults.len() as u64 + v.engine.faults_omitted();
        let before = found(self);
        self.push(b"\n");
        let clean = found(self) == before;
        self.faults.truncate(kept);
        self.engine = engine;
        clean
    }

    /// A `\n`: judges the line just read and gets ready for the next.
    fn end_line(&mut self) {
        let at = self.engine.next(true);
        let len = self.line_len;
        let stopped = self.stopped.take();
        let mut record = core::mem::replace(&mut self.record, RecordState::new());
        let outcome = if len == 0 {
            Err(Finding::EmptyLine)
        } else if len > self.options.max_line_bytes {
            Err(Finding::LineTooLong {
                len,
                limit: self.options.max_line_bytes,
            })
        } else {
            let stop = match stopped {
                Some(stop) => Err(stop),
                None => self.lexer.end(&mut record).map_err(|stop| (len, stop)),
            };
            stop.map_err(|(column, stop)| {
                let column = column + 1;
                match stop {
                    Stop::Bad(error) => Finding::Syntax { column, error },
                    Stop::Limit(limit) => Finding::Limit { column, limit },
                    Stop::NotCanonical(departure) => Finding::NotCanonical { column, departure },
                }
            })
        };
        self.lexer.reset();
        self.line_len = 0;
        let (kind, detail) = match outcome {
            Ok(JsonType::Object) => {
                return match record.sealed() {
                    Some(sealed) => self.engine.sealed(&mut self.faults, at, &sealed),
                    None => self.engine.record(&mut self.faults, at, record.facts()),
                };
            }
            Ok(found) => (FaultKind::NotAnObject, Finding::NotAnObject { found }),
            Err(detail @ Finding::NotCanonical { .. }) => (FaultKind::NotCanonical, detail),
            Err(detail) => (FaultKind::BadJson, detail),
        };
        self.engine.fault(&mut self.faults, at, kind, detail);
        self.engine.unread();
    }
}

/// Where a checkpoint's fault goes among a report's faults, which are in record order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Place {
    /// First: `checkpoint_origin_mismatch` (record 0, before its own faults).
    First,
    /// Last: `truncated` (the missing records come after every line).
    Last,
    /// After the faults of records up to its own index (`head_mismatch`).
    InOrder,
}

impl Place {
    /// The position in `faults` (in record order) where the fault goes.
    pub fn index<D>(self, faults: &[StreamFault<D>], fault: &StreamFault) -> usize {
        match self {
            Place::First => 0,
            Place::Last => faults.len(),
            Place::InOrder => faults.partition_point(|f| f.index <= fault.index),
        }
    }
}

/// The checkpoint's fault, if it does not hold, with its place, and how many records
/// lie beyond it, if the transcript reaches it: one judgement for both verifiers.
pub(crate) fn checkpoint_outcome(
    cp: Checkpoint,
    count: u64,
    verdict: Verdict,
) -> (Option<(Place, StreamFault)>, Option<u64>) {
    match verdict {
        Verdict::OriginMismatch { expected, found } => {
            let fault = StreamFault {
                index: Some(0),
                line: Some(1),
                kind: FaultKind::CheckpointOriginMismatch,
                detail: Finding::OriginMismatch { expected, found }.into(),
            };
            (Some((Place::First, fault)), None)
        }
        Verdict::Truncated => {
            let fault = StreamFault {
                index: Some(count),
                line: None,
                kind: FaultKind::Truncated,
                detail: Finding::Truncated {
                    checkpoint: cp.count,
                    count,
                }
                .into(),
            };
            (Some((Place::Last, fault)), None)
        }
        Verdict::Reached { beyond, mismatch } => {
            let fault = mismatch.map(|m| {
                let detail = match (m.head, m.root) {
                    (Some(head), _) => Finding::HeadMismatch {
                        head,
                        checkpoint: cp.count,
                        found: m.found,
                    },
                    (None, root) => {
                        let (root, found) = root.unwrap_or_default();
                        Finding::RootMismatch {
                            root,
                            checkpoint: cp.count,
                            found,
                        }
                    }
                };
                let fault = StreamFault {
                    index: m.index,
                    line: m.index.map(|i| i + 1),
                    kind: FaultKind::HeadMismatch,
                    detail: detail.into(),
                };
                (Place::InOrder, fault)
            });
            (fault, Some(beyond))
        }
    }
}

#[cfg(test)]
mod tests;
