//! Appending without an allocator: a record line written into the caller's buffer from
//! payload bytes that are already canonical (checked, not trusted).

use core::fmt;

use sha2::{Digest, Sha256};

use super::lexer::{check_canonical, CheckError, MAX_DEPTH};
use super::MAX_LINE_BYTES;
use crate::anchor::{Anchor, MAX_SEQ};
use crate::hash::Hash;
use crate::jcs::{write_str, write_u64};
use crate::record::LINE_PREFIX;
use crate::sink::{ByteSink, CountingSink, SliceSink};

/// Why a record was not written. Nothing is appended after any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendError {
    /// `kind` must be a non-empty string.
    EmptyKind,
    /// The `seq` would pass 2^53 − 1.
    SeqExhausted,
    /// The payload bytes are not the canonical encoding of a JSON value (or are not
    /// JSON, have a number with no canonical form, or go past a checker limit).
    NotCanonical(CheckError),
    /// The buffer is too small: the line needs `needed` bytes, `\n` included.
    BufferFull {
        /// The line's length.
        needed: usize,
    },
    /// The line would be longer than [`MAX_LINE_BYTES`] (16 MiB, without its newline):
    /// a verifier would refuse it as `bad_json`, so no buffer would do.
    LineTooLong {
        /// The line's length in bytes, without its newline.
        len: usize,
    },
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendError::EmptyKind => f.write_str("a record's kind must be a non-empty string"),
            AppendError::SeqExhausted => f.write_str("the chain has reached seq 2^53-1"),
            AppendError::NotCanonical(e) => write!(f, "the payload is {e}"),
            AppendError::BufferFull { needed } => {
                write!(
                    f,
                    "the output buffer is too small: the record needs {needed} bytes"
                )
            }
            AppendError::LineTooLong { len } => write!(
                f,
                "the record's line would be {len} bytes, past the line limit of \
                 {MAX_LINE_BYTES} bytes: a verifier would refuse it"
            ),
        }
    }
}

impl core::error::Error for AppendError {}

/// Fixed parts of a line around the kind, the payload and the seq.
const FIXED: usize = LINE_PREFIX.len() + 64 + 2 // {"hash":"…",
    + b"\"kind\":".len()
    + b",\"payload\":".len()
    + b",\"prev\":\"".len() + 64
    + b"\",\"seq\":".len()
    + 2; // }\n

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
    if kind.is_empty() {
        return Err(AppendError::EmptyKind);
    }
    if seq > MAX_SEQ {
        return Err(AppendError::SeqExhausted);
    }
    check_canonical(payload, MAX_DEPTH).map_err(AppendError::NotCanonical)?;
    let mut kind_len = CountingSink::default();
    let _ = write_str(kind, &mut kind_len);
    let mut seq_len = CountingSink::default();
    let _ = write_u64(seq, &mut seq_len);
    let needed = FIXED
        .saturating_add(kind_len.count)
        .saturating_add(payload.len())
        .saturating_add(seq_len.count);
    let len = needed.saturating_sub(1);
    if len as u64 > MAX_LINE_BYTES {
        return Err(AppendError::LineTooLong { len });
    }
    if buf.len() < needed {
        return Err(AppendError::BufferFull { needed });
    }
    let full = AppendError::BufferFull { needed };
    let body_at = LINE_PREFIX.len() + 64 + 2;
    let mut out = SliceSink::new(buf);
    let mut body = || -> Result<(), crate::sink::BufferFull> {
        out.write(LINE_PREFIX)?;
        out.write(&[b'0'; 64])?;
        out.write(b"\",\"kind\":")?;
        write_str(kind, &mut out)?;
        out.write(b",\"payload\":")?;
        out.write(payload)?;
        out.write(b",\"prev\":\"")?;
        out.write(&prev.to_hex())?;
        out.write(b"\",\"seq\":")?;
        write_u64(seq, &mut out)?;
        out.write(b"}")
    };
    body().map_err(|_| full)?;
    let end = out.len();
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    hasher.update(buf.get(body_at..end).ok_or(full)?);
    let hash = Hash(hasher.finalize().into());
    buf.get_mut(LINE_PREFIX.len()..LINE_PREFIX.len() + 64)
        .ok_or(full)?
        .copy_from_slice(&hash.to_hex());
    *buf.get_mut(end).ok_or(full)? = b'\n';
    Ok((end + 1, hash))
}

/// The writer's side of a chain without an allocator: the head and the next `seq`.
///
/// ```
/// use agentloop_core::stream::ChainState;
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
        let (len, hash) = write_record(buf, kind, payload, &self.head, self.next_seq)?;
        self.head = hash;
        self.next_seq += 1;
        Ok(len)
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
}
