//! The one record writer's rule, without an allocator: a record line assembled from
//! a kind, a payload that writes its canonical bytes ([`CanonicalPayload`]: checked
//! bytes here, a `json::Value` with `alloc`), the head and the next `seq`; and the
//! chain's state ([`ChainState`]) that `chain::Chain` keeps too.

use core::fmt;

use sha2::{Digest, Sha256};

use super::lexer::{check_canonical, CheckError, MAX_DEPTH};
use super::MAX_LINE_BYTES;
use crate::anchor::{Anchor, MAX_SEQ};
use crate::hash::Hash;
use crate::jcs::{write_str, write_u64, EncodeError};
use crate::parse_error::ParseError;
use crate::record::LINE_PREFIX;
use crate::sink::{ByteSink, CountingSink, SliceSink};

/// Why a record was not appended. Nothing is appended after any of them, and the
/// chain is unchanged. One type for every writer (`stream`, `chain`, `durable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppendError {
    /// `kind` must be a non-empty string.
    EmptyKind,
    /// The `seq` would pass 2^53 − 1.
    SeqExhausted,
    /// The payload bytes are not the canonical encoding of a JSON value (or are not
    /// JSON, have a number with no canonical form, or go past a checker limit).
    NotCanonical(CheckError),
    /// The payload holds a NaN or infinite number, which has no canonical encoding.
    Payload(EncodeError),
    /// The payload given as JSON text is not I-JSON or has no canonical encoding.
    PayloadJson(ParseError),
    /// The payload nests arrays and objects more than `max` levels deep (128, as the
    /// strict parser reads them): a verifier would refuse the line as `bad_json`. Only
    /// a value built by hand can.
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// The buffer is too small: the line needs `needed` bytes, `\n` included.
    BufferFull {
        /// The line's length.
        needed: usize,
    },
    /// The record's line would be longer than the line limit (`max` bytes without its
    /// newline: [`MAX_LINE_BYTES`], 16 MiB, unless a writer keeps to a lower one): a
    /// verifier would refuse it as `bad_json`, so no buffer would do.
    LineTooLong {
        /// The line's length in bytes, without its newline.
        len: usize,
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendError::EmptyKind => f.write_str("a record's kind must be a non-empty string"),
            AppendError::SeqExhausted => f.write_str("the chain has reached seq 2^53-1"),
            AppendError::NotCanonical(e) => write!(f, "the payload is {e}"),
            AppendError::Payload(e) => write!(f, "the payload cannot be encoded: {e}"),
            AppendError::PayloadJson(e) => write!(f, "the payload is not acceptable JSON: {e}"),
            AppendError::TooDeep { max } => write!(
                f,
                "the payload nests arrays and objects more than {max} levels deep: a verifier \
                 would refuse it"
            ),
            AppendError::BufferFull { needed } => {
                write!(
                    f,
                    "the output buffer is too small: the record needs {needed} bytes"
                )
            }
            AppendError::LineTooLong { len, max } => write!(
                f,
                "the record's line would be {len} bytes, past the line limit of {max} bytes: \
                 a verifier would refuse it"
            ),
        }
    }
}

impl core::error::Error for AppendError {}

/// A record's payload: writes its canonical bytes (RFC 8785) to a [`ByteSink`].
///
/// Implemented for bytes (checked to be canonical before anything is written) and, with
/// `alloc`, for `json::Value` (encoded as it is written).
pub trait CanonicalPayload {
    /// Refuses a payload no verifier would read back; else its canonical length in
    /// bytes, when known without encoding it.
    fn check(&self) -> Result<Option<usize>, AppendError>;

    /// Writes the canonical bytes (after [`CanonicalPayload::check`] took them).
    fn write_canonical<S: ByteSink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError>;
}

/// Bytes that must already be the canonical encoding of a JSON value nested at most
/// [`MAX_DEPTH`] deep: checked, not trusted.
impl CanonicalPayload for [u8] {
    fn check(&self) -> Result<Option<usize>, AppendError> {
        check_canonical(self, MAX_DEPTH).map_err(AppendError::NotCanonical)?;
        Ok(Some(self.len()))
    }

    fn write_canonical<S: ByteSink + ?Sized>(&self, out: &mut S) -> Result<(), EncodeError> {
        out.write(self).map_err(|_| EncodeError::BufferFull)
    }
}

/// Where a line is assembled: a caller's buffer ([`SliceSink`]) or, with `alloc`, a
/// growing `Vec`.
pub trait LineBuf: ByteSink {
    /// Empties the buffer for a line of `needed` bytes (when known); `false` if it
    /// cannot hold them.
    fn start(&mut self, needed: Option<usize>) -> bool;

    /// The bytes written since [`LineBuf::start`].
    fn line_mut(&mut self) -> &mut [u8];
}

impl LineBuf for SliceSink<'_> {
    fn start(&mut self, needed: Option<usize>) -> bool {
        self.clear();
        needed.is_none_or(|needed| needed <= self.capacity())
    }

    fn line_mut(&mut self) -> &mut [u8] {
        self.written_mut()
    }
}

/// Fixed parts of a line around the kind, the payload and the seq.
const FIXED: usize = LINE_PREFIX.len() + 64 + 2 // {"hash":"…",
    + b"\"kind\":".len()
    + b",\"payload\":".len()
    + b",\"prev\":\"".len() + 64
    + b"\",\"seq\":".len()
    + 2; // }\n

/// The length of a record's line, `\n` included, around a payload of `payload` bytes.
fn line_len(kind: &str, payload: usize, seq: u64) -> usize {
    let mut kind_len = CountingSink::default();
    let _ = write_str(kind, &mut kind_len);
    let mut seq_len = CountingSink::default();
    let _ = write_u64(seq, &mut seq_len);
    FIXED
        .saturating_add(kind_len.count)
        .saturating_add(payload)
        .saturating_add(seq_len.count)
}

/// The one line assembly: writes the record `{hash, kind, payload, prev, seq}` as a
/// canonical line ending in `\n` into `out`, hashing its body once; returns its hash.
/// A line longer than `max` bytes without its newline is refused, before anything is
/// written when the payload's length is known.
pub fn assemble<P, B>(
    out: &mut B,
    kind: &str,
    payload: &P,
    prev: &Hash,
    seq: u64,
    max: usize,
) -> Result<Hash, AppendError>
where
    P: CanonicalPayload + ?Sized,
    B: LineBuf + ?Sized,
{
    if kind.is_empty() {
        return Err(AppendError::EmptyKind);
    }
    if seq > MAX_SEQ {
        return Err(AppendError::SeqExhausted);
    }
    let needed = payload.check()?.map(|len| line_len(kind, len, seq));
    if let Some(len) = needed.map(|needed| needed - 1).filter(|&len| len > max) {
        return Err(AppendError::LineTooLong { len, max });
    }
    let full = |needed: Option<usize>| {
        let needed = needed.unwrap_or_else(|| {
            let mut count = CountingSink::default();
            let _ = payload.write_canonical(&mut count);
            line_len(kind, count.count, seq)
        });
        AppendError::BufferFull { needed }
    };
    if !out.start(needed) {
        return Err(full(needed));
    }
    // The hash goes where the 64 zeros are, once the rest is written and hashed.
    for part in [LINE_PREFIX, &[b'0'; 64], b"\","] {
        out.write(part).map_err(|_| full(needed))?;
    }
    write_fields(out, kind, payload, prev, seq).map_err(|e| match e {
        EncodeError::BufferFull => full(needed),
        other => AppendError::Payload(other),
    })?;
    let line = out.line_mut();
    let len = line.len();
    if len > max {
        return Err(AppendError::LineTooLong { len, max });
    }
    let body_at = LINE_PREFIX.len() + 64 + 2;
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    hasher.update(line.get(body_at..).unwrap_or_default());
    let hash = Hash(hasher.finalize().into());
    if let Some(hex) = line.get_mut(LINE_PREFIX.len()..LINE_PREFIX.len() + 64) {
        hex.copy_from_slice(&hash.to_hex());
    }
    out.write(b"\n").map_err(|_| full(needed))?;
    Ok(hash)
}

/// The hashed form of a record, `{"kind":…,"payload":…,"prev":"…","seq":…}`, minus its
/// opening `{` (so it can follow either `{` or `{"hash":"…",`).
pub fn write_fields<P, S>(
    out: &mut S,
    kind: &str,
    payload: &P,
    prev: &Hash,
    seq: u64,
) -> Result<(), EncodeError>
where
    P: CanonicalPayload + ?Sized,
    S: ByteSink + ?Sized,
{
    out.write(b"\"kind\":")?;
    write_str(kind, out)?;
    out.write(b",\"payload\":")?;
    payload.write_canonical(out)?;
    out.write(b",\"prev\":\"")?;
    out.write(&prev.to_hex())?;
    out.write(b"\",\"seq\":")?;
    write_u64(seq, out)?;
    out.write(b"}")?;
    Ok(())
}

/// Writes the record `{hash, kind, payload, prev, seq}` as a canonical line ending in
/// `\n` at the start of `buf`; returns its length and its hash.
///
/// `payload` must be the canonical encoding of a JSON value nested at most
/// [`MAX_DEPTH`] deep (check it, or produce it, with [`check_canonical`]). The bytes
/// are those `chain::Chain::append` writes for the same record. On error `buf` may
/// hold a partial line (never past `needed`); nothing counts as appended. A line
/// longer than [`MAX_LINE_BYTES`] is refused ([`AppendError::LineTooLong`]) before
/// anything is written, whatever the buffer's size.
pub fn write_record(
    buf: &mut [u8],
    kind: &str,
    payload: &[u8],
    prev: &Hash,
    seq: u64,
) -> Result<(usize, Hash), AppendError> {
    let mut out = SliceSink::new(buf);
    let hash = assemble(&mut out, kind, payload, prev, seq, MAX_LINE_BYTES as usize)?;
    Ok((out.len(), hash))
}

/// The writer's side of a chain: the anchor, the next `seq` and the head. The one
/// append rule: `chain::Chain` is this state with a Merkle range and a line buffer.
///
/// ```
/// use agentloop_transcript::stream::ChainState;
///
/// let mut chain = ChainState::new();
/// let mut line = [0u8; 256];
/// let len = chain.append(&mut line, "task", br#"{"task":"add 2 and 40"}"#).unwrap();
/// assert!(line[..len].starts_with(b"{\"hash\":\"dc8128e3"));
/// assert_eq!(chain.count(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainState {
    anchor: Anchor,
    next_seq: u64,
    head: Hash,
}

impl Default for ChainState {
    fn default() -> Self {
        ChainState::new()
    }
}

impl ChainState {
    /// A chain starting at `(0, 64 zeros)`.
    pub fn new() -> Self {
        ChainState::from_anchor(Anchor::GENESIS)
    }

    /// A chain whose first record will have `seq = seq0` and `prev = prev0` (also: a
    /// file already holding records, from its next seq and head).
    pub fn from_anchor(anchor: Anchor) -> Self {
        ChainState {
            anchor,
            next_seq: anchor.seq0,
            head: anchor.prev0,
        }
    }

    /// Writes the next record into `buf` (see [`write_record`]) and advances the chain;
    /// returns the line's length, `\n` included. On error the chain is unchanged.
    pub fn append(
        &mut self,
        buf: &mut [u8],
        kind: &str,
        payload: &[u8],
    ) -> Result<usize, AppendError> {
        let mut out = SliceSink::new(buf);
        self.append_to(&mut out, kind, payload, MAX_LINE_BYTES as usize)?;
        Ok(out.len())
    }

    /// Assembles the next record into `out` and advances the chain; returns its hash.
    /// On error the chain is unchanged. (agentloop-core's chain; not an API.)
    #[doc(hidden)]
    pub fn append_to<P, B>(
        &mut self,
        out: &mut B,
        kind: &str,
        payload: &P,
        max: usize,
    ) -> Result<Hash, AppendError>
    where
        P: CanonicalPayload + ?Sized,
        B: LineBuf + ?Sized,
    {
        let hash = assemble(out, kind, payload, &self.head, self.next_seq, max)?;
        self.head = hash;
        self.next_seq += 1;
        Ok(hash)
    }

    /// The `hash` of the last record, or `prev0` before the first.
    pub fn head(&self) -> Hash {
        self.head
    }

    /// The `seq` the next record will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// How many records this chain has appended since its anchor.
    pub fn count(&self) -> u64 {
        self.next_seq - self.anchor.seq0
    }

    /// Where this chain started.
    pub fn anchor(&self) -> Anchor {
        self.anchor
    }

    /// Where the next record continues: its `seq` and its `prev` (the head).
    pub fn next(&self) -> Anchor {
        Anchor {
            seq0: self.next_seq,
            prev0: self.head,
        }
    }
}
