//! The RFC 6962 hashes: leaves and interior nodes are domain-separated by a prefix byte.

use sha2::{Digest, Sha256};

use crate::hash::Hash;

/// `SHA-256(0x00 || data)`: the hash of a leaf whose data is `data`.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(data);
    Hash(h.finalize().into())
}

/// The leaf of a transcript record: [`leaf_hash`] of the 32 raw bytes of its `hash`.
pub fn record_leaf(record_hash: &Hash) -> Hash {
    leaf_hash(&record_hash.0)
}

/// `SHA-256(0x01 || left || right)`: the hash of an interior node.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left.0);
    h.update(right.0);
    Hash(h.finalize().into())
}

/// The root of the empty tree: `SHA-256("")`.
pub fn empty_root() -> Hash {
    Hash(Sha256::digest([]).into())
}
