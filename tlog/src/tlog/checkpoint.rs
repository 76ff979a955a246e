//! The C2SP `tlog-checkpoint` body, the v1 JSON form, and reading either.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::anchor::MAX_SEQ;
use crate::checkpoint::Checkpoint;
use crate::hash::Hash;
use crate::note::{Note, NoteError, SignerKey};
use crate::opaque::opaque_error;
use crate::verify::{CheckpointError, ParseCheckpoint};

/// The default origin is this prefix and the 64 hex digits of record 0's `hash`
/// (`empty` for a transcript of no records).
pub const ORIGIN_PREFIX: &str = "agentloop/transcript/";

/// The default origin of a transcript whose record 0 carries `first`: the same
/// transcript always gets the same origin, and another transcript another one.
pub fn default_origin(first: Option<&Hash>) -> String {
    match first {
        Some(h) => format!("{ORIGIN_PREFIX}{h}"),
        None => format!("{ORIGIN_PREFIX}empty"),
    }
}

/// The record-0 hash a default origin names; `None` for any other origin.
pub fn origin_first(origin: &str) -> Option<Hash> {
    origin
        .strip_prefix(ORIGIN_PREFIX)
        .and_then(|hex| Hash::from_hex(hex.as_bytes()))
}

/// A checkpoint in the C2SP `tlog-checkpoint` form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlogCheckpoint {
    /// The origin line: which transcript (log) this is.
    pub origin: String,
    /// The tree size: how many records.
    pub count: u64,
    /// The RFC 6962 Merkle root of records `0..count`.
    pub root: Hash,
    /// The `head <hex>` extension line: the `hash` of record `count − 1` (the anchor's
    /// `prev0` for count 0).
    pub head: Option<Hash>,
    /// Other extension lines, kept in order (opaque to agentloop).
    pub extensions: Vec<String>,
}

opaque_error! {
    /// Which part of a checkpoint text is wrong (`checkpoint_malformed`).
    #[derive(Clone, PartialEq, Eq)]
    pub struct Malformed(MalformedKind);
}

impl Malformed {
    /// Whether the text is not UTF-8 (the C ABI's `INVALID_UTF8`); otherwise a part of it is wrong.
    pub fn not_utf8(&self) -> bool {
        matches!(self.0, MalformedKind::NotUtf8)
    }
}

/// What [`Malformed`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MalformedKind {
    /// The text is not UTF-8.
    NotUtf8,
    /// A v1 (`{"count":N,"head":…}`) checkpoint that is wrong.
    V1(CheckpointError),
    /// The signed-note envelope is wrong.
    Note(NoteError),
    /// Fewer than the three lines origin, size, root, or no final newline.
    MissingLines,
    /// The origin line is empty.
    Origin,
    /// The size line is not a decimal integer from 0 to 2^53 without leading zeros.
    Size,
    /// The root line is not base64 of 32 bytes.
    Root,
    /// Extension line `n` (1-based among the extension lines) is empty, or is a
    /// second or malformed `head` line.
    Extension(usize),
}

impl fmt::Display for MalformedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedKind::NotUtf8 => f.write_str("the checkpoint is not UTF-8 text"),
            MalformedKind::V1(e) => write!(f, "{e}"),
            MalformedKind::Note(e) => write!(f, "the signed note is malformed: {e}"),
            MalformedKind::MissingLines => f.write_str(
                "a checkpoint is an origin line, a size line and a root line, each ending in a newline",
            ),
            MalformedKind::Origin => f.write_str("the origin line (line 1) is empty"),
            MalformedKind::Size => f.write_str(
                "the size line (line 2) is not a decimal integer from 0 to 2^53 without leading zeros",
            ),
            MalformedKind::Root => {
                f.write_str("the root line (line 3) is not the base64 of a 32-byte hash")
            }
            MalformedKind::Extension(n) => write!(
                f,
                "extension line {n} (line {}) is empty, or a second or malformed \"head <64 lowercase hex>\"",
                n + 3
            ),
        }
    }
}

impl TlogCheckpoint {
    /// The note text: origin, size, root, `head` line, other extensions.
    pub fn body(&self) -> String {
        let mut out = format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.count,
            STANDARD.encode(self.root.0)
        );
        if let Some(head) = self.head {
            out.push_str(&format!("head {head}\n"));
        }
        for e in &self.extensions {
            out.push_str(e);
            out.push('\n');
        }
        out
    }

    /// The body signed by `key`, as a signed note.
    pub fn sign(&self, key: &SignerKey) -> Result<String, NoteError> {
        Note::sign(&self.body(), key).map(|n| n.to_message())
    }

    /// Reads a body (note text).
    pub fn parse_body(text: &str) -> Result<TlogCheckpoint, Malformed> {
        let body = text.strip_suffix('\n').ok_or(MalformedKind::MissingLines)?;
        let mut lines = body.split('\n');
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next())
        else {
            return Err(MalformedKind::MissingLines.into());
        };
        if origin.is_empty() {
            return Err(MalformedKind::Origin.into());
        }
        let count = parse_size(size).ok_or(MalformedKind::Size)?;
        let root = STANDARD
            .decode(root)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
            .map(Hash)
            .ok_or(MalformedKind::Root)?;
        let mut head = None;
        let mut extensions = Vec::new();
        for (i, line) in lines.enumerate() {
            let bad = MalformedKind::Extension(i + 1);
            if line.is_empty() {
                return Err(bad.into());
            }
            if let Some(hex) = line.strip_prefix("head ") {
                if head.is_some() {
                    return Err(bad.into());
                }
                head = Some(Hash::from_hex(hex.as_bytes()).ok_or(bad)?);
            } else {
                extensions.push(line.to_string());
            }
        }
        Ok(TlogCheckpoint {
            origin: origin.to_string(),
            count,
            root,
            head,
            extensions,
        })
    }

    /// What the verifiers check: count, head, root, and record 0 when the origin is a
    /// default one.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            count: self.count,
            head: self.head,
            root: Some(self.root),
            first: origin_first(&self.origin),
        }
    }
}

fn parse_size(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if text.len() > 1 && text.starts_with('0') {
        return None;
    }
    text.parse::<u64>().ok().filter(|n| *n <= MAX_SEQ + 1)
}

/// A checkpoint file in either form agentloop reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointText {
    /// Format v1: `{"count":N,"head":"<hex>"}`.
    V1(Checkpoint),
    /// A C2SP checkpoint, with its signed-note envelope if it has one.
    Tlog {
        /// The checkpoint.
        checkpoint: TlogCheckpoint,
        /// The signed note (`None`: a bare, unsigned body).
        note: Option<Note>,
    },
}

impl CheckpointText {
    /// What the verifiers check.
    pub fn checkpoint(&self) -> Checkpoint {
        match self {
            CheckpointText::V1(cp) => *cp,
            CheckpointText::Tlog { checkpoint, .. } => checkpoint.checkpoint(),
        }
    }
}

/// Reads a checkpoint file: v1 JSON if it starts with `{` (after white space), else a
/// C2SP checkpoint — a signed note if it holds a blank line, else a bare body.
pub fn read_checkpoint(bytes: &[u8]) -> Result<CheckpointText, Malformed> {
    let text = core::str::from_utf8(bytes).map_err(|_| MalformedKind::NotUtf8)?;
    if text.trim_start().starts_with('{') {
        return Ok(Checkpoint::parse(bytes)
            .map(CheckpointText::V1)
            .map_err(MalformedKind::V1)?);
    }
    if text.contains("\n\n") {
        let note = Note::parse(text).map_err(MalformedKind::Note)?;
        let checkpoint = TlogCheckpoint::parse_body(&note.text)?;
        return Ok(CheckpointText::Tlog {
            checkpoint,
            note: Some(note),
        });
    }
    Ok(CheckpointText::Tlog {
        checkpoint: TlogCheckpoint::parse_body(text)?,
        note: None,
    })
}
