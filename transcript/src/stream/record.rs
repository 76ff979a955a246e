//! Record-level state of one line as its bytes arrive: which of the five members were
//! seen, what `hash`, `kind`, `prev` and `seq` hold, and the SHA-256 of the record
//! without `hash`, computed as the bytes go by.
//!
//! The hashed bytes are `{`, then each member but `hash` (`,` between them, the key
//! re-encoded from its unescaped form — the same bytes, as the line is canonical — `:`
//! and the value's bytes as they arrive), then `}`: the canonical encoding of the
//! record without `hash`, wherever `hash` sits among the members.

use heapless::String;
use sha2::{Digest, Sha256};

use super::buf::ByteBuf;
use super::engine::Facts;
use super::lexer::{JsonType, NumberProblem, Observer, ValueEnd, Where};
use super::line::Sealed;
use super::report::{name_start, Found, EXCERPT_BYTES, NAME_BYTES};
use crate::hash::Hash;
use crate::jcs::write_str;
use crate::sink::{BufferFull, ByteSink};

/// Bytes of short pieces gathered before they are hashed in one call.
const STAGE_BYTES: usize = 128;

/// SHA-256 fed through a small staging buffer: a record's many short pieces (`{`, each
/// `,"key":`, short values) reach the hasher in one call instead of one call each, and
/// long runs (a payload's strings) go straight through.
#[derive(Debug, Clone)]
struct StagedHasher {
    hasher: Sha256,
    staged: ByteBuf<STAGE_BYTES>,
}

impl StagedHasher {
    fn new() -> Self {
        StagedHasher {
            hasher: Sha256::new(),
            staged: ByteBuf::new(),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        if self.staged.extend_from_slice(bytes).is_ok() {
            return;
        }
        self.hasher.update(self.staged.as_slice());
        self.staged.clear();
        if self.staged.extend_from_slice(bytes).is_err() {
            self.hasher.update(bytes);
        }
    }

    fn finish(&self) -> Hash {
        let mut hasher = self.hasher.clone();
        hasher.update(self.staged.as_slice());
        Hash(hasher.finalize().into())
    }
}

impl ByteSink for StagedHasher {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        self.update(bytes);
        Ok(())
    }
}

/// Raw bytes kept of a `hash`, `prev` or `seq` value: a quoted 64-digit hash, or the
/// opening quote and [`EXCERPT_BYTES`] of a found string.
const CAPTURE_BYTES: usize = 66;
const _: () = assert!(CAPTURE_BYTES > EXCERPT_BYTES);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    None,
    Hash,
    Kind,
    Payload,
    Prev,
    Seq,
    Other,
}

/// What one line's record holds, as far as the checks need it.
#[derive(Debug, Clone)]
pub(crate) struct RecordState {
    hasher: StagedHasher,
    member: Member,
    /// Bit `i` set: `record::FIELDS[i]` was seen.
    pub seen: u8,
    any_hashed: bool,
    pub unexpected: u64,
    pub first_unexpected: String<NAME_BYTES>,
    capture: ByteBuf<CAPTURE_BYTES>,
    /// Bytes of the current member's value (saturating).
    value_len: u64,
    pub hash: Option<Result<Hash, Found>>,
    pub prev: Option<Result<Hash, Found>>,
    pub seq: Option<Result<f64, Found>>,
    /// `Err` when `kind` is present but not a non-empty string.
    pub kind: Option<Result<(), Found>>,
    pub unserialisable: Option<NumberProblem>,
}

impl RecordState {
    pub fn new() -> Self {
        RecordState {
            hasher: StagedHasher::new(),
            member: Member::None,
            seen: 0,
            any_hashed: false,
            unexpected: 0,
            first_unexpected: String::new(),
            capture: ByteBuf::new(),
            value_len: 0,
            hash: None,
            prev: None,
            seq: None,
            kind: None,
            unserialisable: None,
        }
    }

    /// SHA-256 of the record without `hash` (complete once the line was accepted).
    pub fn computed(&self) -> Hash {
        self.hasher.finish()
    }

    /// The record's facts when it has exactly the five members, all well-formed, and
    /// every number has a canonical encoding (the line was accepted as canonical).
    pub fn sealed(&self) -> Option<Sealed> {
        let complete = self.seen == 0b1_1111 && self.unexpected == 0;
        if !complete || self.unserialisable.is_some() || self.kind != Some(Ok(())) {
            return None;
        }
        match (&self.hash, &self.prev, &self.seq) {
            (Some(Ok(stored)), Some(Ok(prev)), Some(Ok(seq))) => Some(Sealed {
                stored: *stored,
                computed: self.computed(),
                prev: *prev,
                seq: *seq,
            }),
            _ => None,
        }
    }

    /// What the record holds, for the checks (once the line was read to its end).
    pub fn facts(self) -> Facts {
        let computed = self.unserialisable.is_none().then(|| self.computed());
        Facts {
            absent: !self.seen & 0b1_1111,
            kind: match self.kind {
                Some(Err(found)) => Some(found),
                _ => None,
            },
            unexpected: self.unexpected,
            first_unexpected: self.first_unexpected,
            unserialisable: self.unserialisable,
            hash: self.hash,
            computed,
            seq: self.seq,
            prev: self.prev,
        }
    }

    fn found(&self, end: ValueEnd) -> Found {
        match end.ty {
            JsonType::String => Found::string(
                self.value_len.saturating_sub(2),
                self.capture.as_slice().get(1..).unwrap_or_default(),
            ),
            JsonType::Number => Found::Number(end.number),
            other => Found::Type(other),
        }
    }

    fn hex(&self, end: ValueEnd) -> Result<Hash, Found> {
        // A value whose first byte is a quote is a string.
        let digits = match self.capture.as_slice() {
            [b'"', digits @ .., b'"'] => digits,
            _ => return Err(self.found(end)),
        };
        if self.value_len != CAPTURE_BYTES as u64 {
            return Err(self.found(end));
        }
        Hash::from_hex(digits).ok_or_else(|| self.found(end))
    }
}

impl Observer for RecordState {
    fn bytes(&mut self, run: &[u8], at: Where) {
        match at {
            Where::Record => {
                // The record's own `{` and `}` are hashed; `:` and `,` come with the keys.
                for &b in run {
                    if b == b'{' || b == b'}' {
                        self.hasher.update(&[b]);
                    }
                }
            }
            Where::Value => {
                if self.member != Member::Hash {
                    self.hasher.update(run);
                }
                self.value_len = self.value_len.saturating_add(run.len() as u64);
                // The capture keeps a value's first CAPTURE_BYTES, whatever the
                // chunking: all of a quoted hash (`hex`), or a found string's start.
                if matches!(self.member, Member::Hash | Member::Prev | Member::Seq) {
                    let room = CAPTURE_BYTES - self.capture.len();
                    let _ = self
                        .capture
                        .extend_from_slice(run.get(..room).unwrap_or(run));
                }
            }
            _ => {}
        }
    }

    fn key(&mut self, key: &[u8]) {
        let (member, bit) = match key {
            b"hash" => (Member::Hash, 0),
            b"kind" => (Member::Kind, 1),
            b"payload" => (Member::Payload, 2),
            b"prev" => (Member::Prev, 3),
            b"seq" => (Member::Seq, 4),
            _ => (Member::Other, 8),
        };
        self.member = member;
        if bit < 8 {
            self.seen |= 1 << bit;
        } else {
            if self.unexpected == 0 {
                let name = core::str::from_utf8(key).unwrap_or_default();
                self.first_unexpected = name_start(name);
            }
            self.unexpected += 1;
        }
        self.capture.clear();
        self.value_len = 0;
        if member != Member::Hash {
            if self.any_hashed {
                self.hasher.update(b",");
            }
            // The key is checked UTF-8; its canonical encoding is the line's bytes: the
            // key itself between quotes when it has nothing to escape.
            if key.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\') {
                self.hasher.update(b"\"");
                self.hasher.update(key);
                self.hasher.update(b"\":");
            } else {
                let _ = write_str(
                    core::str::from_utf8(key).unwrap_or_default(),
                    &mut self.hasher,
                );
                self.hasher.update(b":");
            }
            self.any_hashed = true;
        }
    }

    fn value_end(&mut self, end: ValueEnd) {
        match self.member {
            Member::Hash => self.hash = Some(self.hex(end)),
            Member::Prev => self.prev = Some(self.hex(end)),
            Member::Kind => {
                self.kind = Some(match self.found(end) {
                    Found::String { .. } => Ok(()),
                    other => Err(other),
                })
            }
            Member::Seq => {
                self.seq = Some(match end.ty {
                    JsonType::Number if end.number.is_finite() => Ok(end.number),
                    _ => Err(self.found(end)),
                })
            }
            Member::None | Member::Payload | Member::Other => {}
        }
        self.member = Member::None;
    }

    fn unserialisable(&mut self, problem: NumberProblem, _offset: usize) {
        self.unserialisable.get_or_insert(problem);
    }
}
