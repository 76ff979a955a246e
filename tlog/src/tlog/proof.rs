//! Proof files. An inclusion proof is a C2SP `tlog-proof@v1`: its `extra` line carries
//! the record's own line (base64), so a third party sees the record, recomputes its
//! hash and so its leaf, without the rest of the transcript. A consistency proof has
//! the same shape with its own header and an `old SIZE` line instead of `index`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::hash::Hash;
use crate::opaque::opaque_error;

/// The first line of an inclusion proof.
pub const INCLUSION_HEADER: &str = "c2sp.org/tlog-proof@v1";
/// The first line of a consistency proof.
pub const CONSISTENCY_HEADER: &str = "agentloop/tlog-consistency@v1";

opaque_error! {
    /// Why a proof file was refused.
    #[derive(Clone, PartialEq, Eq)]
    pub struct ProofTextError(ProofTextErrorKind);
}

impl ProofTextError {
    /// Whether the proof text is not UTF-8 (the C ABI's `INVALID_UTF8`); otherwise a part of it is wrong.
    pub fn not_utf8(&self) -> bool {
        matches!(self.0, ProofTextErrorKind::NotUtf8)
    }
}

/// What [`ProofTextError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProofTextErrorKind {
    /// Not UTF-8.
    NotUtf8,
    /// The first line is not one of the two headers.
    Header,
    /// The `extra` line is not base64.
    Extra,
    /// The `index N` / `old N` line is missing or not a decimal integer.
    Position,
    /// Proof line `n` (1-based) is not the base64 of 32 bytes.
    Hash(usize),
    /// No blank line and checkpoint after the proof lines.
    NoCheckpoint,
}

impl fmt::Display for ProofTextErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofTextErrorKind::NotUtf8 => f.write_str("the proof is not UTF-8 text"),
            ProofTextErrorKind::Header => write!(
                f,
                "the first line is neither {INCLUSION_HEADER:?} nor {CONSISTENCY_HEADER:?}"
            ),
            ProofTextErrorKind::Extra => f.write_str("the extra line is not \"extra <base64>\""),
            ProofTextErrorKind::Position => f.write_str(
                "the \"index N\" (inclusion) or \"old N\" (consistency) line is missing or not a decimal integer",
            ),
            ProofTextErrorKind::Hash(n) => write!(f, "proof hash {n} is not the base64 of 32 bytes"),
            ProofTextErrorKind::NoCheckpoint => {
                f.write_str("no blank line and checkpoint follow the proof hashes")
            }
        }
    }
}

/// An inclusion proof of record `index` in the checkpoint's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InclusionProof {
    /// The record's line, without its newline (the `extra` data).
    pub record: Option<Vec<u8>>,
    /// The record's index (its position in the transcript).
    pub index: u64,
    /// The audit path, leaf to root.
    pub proof: Vec<Hash>,
    /// The checkpoint, verbatim (a C2SP checkpoint, signed or not).
    pub checkpoint: String,
}

/// A consistency proof from the tree of `old` records to the checkpoint's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsistencyProof {
    /// The older tree size.
    pub old: u64,
    /// The RFC 9162 consistency path.
    pub proof: Vec<Hash>,
    /// The newer checkpoint, verbatim.
    pub checkpoint: String,
}

fn write_hashes(out: &mut String, proof: &[Hash]) {
    for h in proof {
        out.push_str(&STANDARD.encode(h.0));
        out.push('\n');
    }
}

/// Splits a proof file into its header, its lines and the checkpoint.
fn split(text: &[u8]) -> Result<(&str, Vec<&str>, &str), ProofTextError> {
    let text = core::str::from_utf8(text).map_err(|_| ProofTextErrorKind::NotUtf8)?;
    let at = text.find("\n\n").ok_or(ProofTextErrorKind::NoCheckpoint)?;
    let (head, checkpoint) = (&text[..at], &text[at + 2..]);
    if checkpoint.is_empty() {
        return Err(ProofTextErrorKind::NoCheckpoint.into());
    }
    let mut lines = head.split('\n');
    let header = lines.next().ok_or(ProofTextErrorKind::Header)?;
    Ok((header, lines.collect(), checkpoint))
}

fn position(line: Option<&&str>, key: &str) -> Result<u64, ProofTextError> {
    let n = line
        .and_then(|l| l.strip_prefix(key))
        .and_then(|l| l.strip_prefix(' '))
        .ok_or(ProofTextErrorKind::Position)?;
    if n.is_empty() || (n.len() > 1 && n.starts_with('0')) || !n.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(ProofTextErrorKind::Position.into());
    }
    Ok(n.parse().map_err(|_| ProofTextErrorKind::Position)?)
}

fn hashes(lines: &[&str]) -> Result<Vec<Hash>, ProofTextError> {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            STANDARD
                .decode(l)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
                .map(Hash)
                .ok_or(ProofTextErrorKind::Hash(i + 1).into())
        })
        .collect()
}

impl InclusionProof {
    /// The `tlog-proof@v1` text.
    pub fn to_text(&self) -> String {
        let mut out = format!("{INCLUSION_HEADER}\n");
        if let Some(record) = &self.record {
            out.push_str(&format!("extra {}\n", STANDARD.encode(record)));
        }
        out.push_str(&format!("index {}\n", self.index));
        write_hashes(&mut out, &self.proof);
        out.push('\n');
        out.push_str(&self.checkpoint);
        out
    }

    /// Reads the `tlog-proof@v1` text.
    pub fn parse(text: &[u8]) -> Result<InclusionProof, ProofTextError> {
        let (header, lines, checkpoint) = split(text)?;
        if header != INCLUSION_HEADER {
            return Err(ProofTextErrorKind::Header.into());
        }
        let mut at = 0;
        let record = match lines.first().and_then(|l| l.strip_prefix("extra ")) {
            Some(b64) => {
                at = 1;
                Some(
                    STANDARD
                        .decode(b64)
                        .map_err(|_| ProofTextErrorKind::Extra)?,
                )
            }
            None => None,
        };
        let index = position(lines.get(at), "index")?;
        Ok(InclusionProof {
            record,
            index,
            proof: hashes(&lines[at + 1..])?,
            checkpoint: checkpoint.to_string(),
        })
    }
}

impl ConsistencyProof {
    /// The text: header, `old N`, the hashes, a blank line, the checkpoint.
    pub fn to_text(&self) -> String {
        let mut out = format!("{CONSISTENCY_HEADER}\nold {}\n", self.old);
        write_hashes(&mut out, &self.proof);
        out.push('\n');
        out.push_str(&self.checkpoint);
        out
    }

    /// Reads the text.
    pub fn parse(text: &[u8]) -> Result<ConsistencyProof, ProofTextError> {
        let (header, lines, checkpoint) = split(text)?;
        if header != CONSISTENCY_HEADER {
            return Err(ProofTextErrorKind::Header.into());
        }
        Ok(ConsistencyProof {
            old: position(lines.first(), "old")?,
            proof: hashes(lines.get(1..).unwrap_or_default())?,
            checkpoint: checkpoint.to_string(),
        })
    }
}

/// A proof file of either kind, told apart by its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProofText {
    /// A `tlog-proof@v1` inclusion proof.
    Inclusion(InclusionProof),
    /// A consistency proof.
    Consistency(ConsistencyProof),
}

impl ProofText {
    /// Reads a proof: a consistency proof if the first line is
    /// `agentloop/tlog-consistency@v1`, else an inclusion proof.
    pub fn parse(text: &[u8]) -> Result<ProofText, ProofTextError> {
        let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
        if first == CONSISTENCY_HEADER.as_bytes() {
            ConsistencyProof::parse(text).map(ProofText::Consistency)
        } else {
            InclusionProof::parse(text).map(ProofText::Inclusion)
        }
    }
}
