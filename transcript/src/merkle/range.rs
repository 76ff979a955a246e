//! A compact range: the roots of the perfect subtrees that make up a prefix of the
//! tree, one per set bit of its size, so the root of the prefix costs O(log n) hashes
//! and the state is fixed (64 levels cover every `u64` size).

use core::fmt;

use super::hasher::{empty_root, node_hash};
use crate::hash::Hash;

/// The state that yields the Merkle root of the leaves pushed so far.
///
/// ```
/// use agentloop_transcript::merkle::{leaf_hash, node_hash, CompactRange};
///
/// let mut range = CompactRange::new();
/// range.push(leaf_hash(b"a")).unwrap();
/// range.push(leaf_hash(b"b")).unwrap();
/// assert_eq!(range.root(), node_hash(&leaf_hash(b"a"), &leaf_hash(b"b")));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct CompactRange {
    pub(super) size: u64,
    /// Perfect-subtree roots, largest (leftmost) first; `len` of them are live.
    pub(super) stack: [Hash; 64],
    pub(super) len: usize,
}

/// A [`CompactRange`] already holds `u64::MAX` leaves and takes no more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeFull;

impl fmt::Display for RangeFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the Merkle tree already holds 2^64 - 1 leaves")
    }
}

impl core::error::Error for RangeFull {}

impl Default for CompactRange {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for CompactRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactRange")
            .field("size", &self.size)
            .field("nodes", &&self.stack[..self.len])
            .finish()
    }
}

impl CompactRange {
    /// The range of the empty tree.
    pub const fn new() -> Self {
        CompactRange {
            size: 0,
            stack: [Hash::ZERO; 64],
            len: 0,
        }
    }

    /// How many leaves were pushed.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends the leaf whose hash (already [`super::leaf_hash`]ed) is `leaf`.
    pub fn push(&mut self, leaf: Hash) -> Result<(), RangeFull> {
        if self.size == u64::MAX {
            return Err(RangeFull);
        }
        let mut node = leaf;
        let mut size = self.size;
        // Every trailing set bit of the old size is a perfect subtree of the same height
        // as `node`: merge them, smallest first.
        while size & 1 == 1 {
            self.len -= 1;
            node = node_hash(&self.stack[self.len], &node);
            size >>= 1;
        }
        self.stack[self.len] = node;
        self.len += 1;
        self.size += 1;
        Ok(())
    }

    /// The Merkle tree hash of the leaves pushed so far (RFC 9162 `MTH`); the
    /// [`empty_root`] for none.
    pub fn root(&self) -> Hash {
        let mut live = self.stack[..self.len].iter().rev();
        let Some(last) = live.next() else {
            return empty_root();
        };
        live.fold(*last, |right, left| node_hash(left, &right))
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;

    #[test]
    fn a_full_range_refuses_a_leaf_with_a_sentence() {
        let mut full = CompactRange {
            size: u64::MAX,
            ..CompactRange::new()
        };
        assert_eq!(full.push(Hash([7; 32])), Err(RangeFull));
        assert_eq!(
            RangeFull.to_string(),
            "the Merkle tree already holds 2^64 - 1 leaves"
        );
    }
}
