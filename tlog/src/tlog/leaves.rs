//! The Merkle leaves of a transcript held in memory, for making proofs.

use alloc::vec::Vec;
use core::fmt;

use crate::hash::Hash;
use crate::json;
use crate::merkle::record_leaf;

/// A line whose `hash` cannot be read (run the verifier first: proofs are made only
/// over transcripts that verify).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafError {
    /// The 1-based line.
    pub line: u64,
}

impl fmt::Display for LeafError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: no well-formed \"hash\" member", self.line)
    }
}

impl core::error::Error for LeafError {}

/// Leaf `i` for each record `i` of `bytes` (JSONL): `SHA-256(0x00 || hash_i)`; also
/// returns the record hashes.
pub fn leaves_of(bytes: &[u8]) -> Result<(Vec<Hash>, Vec<Hash>), LeafError> {
    let mut leaves = Vec::new();
    let mut hashes = Vec::new();
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if body.is_empty() {
        return Ok((leaves, hashes));
    }
    for (i, line) in body.split(|b| *b == b'\n').enumerate() {
        let error = LeafError { line: i as u64 + 1 };
        let value = json::parse_record_line(line).map_err(|_| error)?;
        let hash = value
            .as_object()
            .and_then(|o| o.get("hash"))
            .and_then(|h| h.as_str())
            .and_then(|h| Hash::from_hex(h.as_bytes()))
            .ok_or(error)?;
        hashes.push(hash);
        leaves.push(record_leaf(&hash));
    }
    Ok((leaves, hashes))
}
