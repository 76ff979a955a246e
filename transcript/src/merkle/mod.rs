//! A Merkle tree over a transcript, as Certificate Transparency defines it (RFC 6962,
//! RFC 9162 section 2.1): leaf `i` is record `seq = i`, its leaf data the 32 raw bytes
//! of that record's `hash`.
//!
//! - [`leaf_hash`] / [`node_hash`]: `SHA-256(0x00 || data)`, `SHA-256(0x01 || l || r)`;
//! - [`CompactRange`]: the root of every prefix in O(log n) state, no allocator, a
//!   fixed bound of 64 levels (one per bit of a `u64` size);
//! - [`verify_inclusion`] / [`verify_consistency`]: proof checking (RFC 9162
//!   sections 2.1.3.2 and 2.1.4.2), no allocator;
//! - `inclusion_proof` / `consistency_proof` (feature `alloc`): proof generation from
//!   the leaf hashes.

mod hasher;
mod range;
mod verify;

pub use hasher::{empty_root, leaf_hash, node_hash};
// `leaf_hash` of a record's 32 hash bytes: the verifiers' and the chain's shorthand,
// not API (`leaf_hash(&hash.0)` is the one way).
#[doc(hidden)]
pub use hasher::record_leaf;
pub use range::{CompactRange, RangeFull};
pub use verify::{verify_consistency, verify_inclusion, ProofError};
