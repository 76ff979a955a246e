//! Making inclusion and consistency proofs from the leaf hashes (RFC 9162 sections
//! 2.1.3.1 and 2.1.4.1). Each costs O(n) hashes for a tree of n leaves. Public as part
//! of [`crate::merkle`] (and of `agentloop_core::merkle`).

use alloc::vec::Vec;

use crate::hash::Hash;
use crate::merkle::CompactRange;
use crate::merkle::ProofError;

/// The Merkle tree hash (`MTH`) of `leaves` (already leaf-hashed).
pub fn root_of(leaves: &[Hash]) -> Hash {
    let mut range = CompactRange::new();
    for leaf in leaves {
        // A slice never holds u64::MAX entries of 32 bytes.
        let _ = range.push(*leaf);
    }
    range.root()
}

/// The largest power of two below `n` (`n >= 2`).
fn split(n: usize) -> usize {
    1 << (usize::BITS - 1 - (n - 1).leading_zeros())
}

fn size_of(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn index_of(i: u64) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// The audit path of leaf `index` in the tree of the first `size` of `leaves`.
pub fn inclusion_proof(leaves: &[Hash], index: u64, size: u64) -> Result<Vec<Hash>, ProofError> {
    if index >= size || size > size_of(leaves.len()) {
        return Err(ProofError::IndexBeyondSize {
            index,
            size: size.min(size_of(leaves.len())),
        });
    }
    let mut out = Vec::new();
    path(index_of(index), &leaves[..index_of(size)], &mut out);
    Ok(out)
}

fn path(m: usize, d: &[Hash], out: &mut Vec<Hash>) {
    if d.len() <= 1 {
        return;
    }
    let k = split(d.len());
    if m < k {
        path(m, &d[..k], out);
        out.push(root_of(&d[k..]));
    } else {
        path(m - k, &d[k..], out);
        out.push(root_of(&d[..k]));
    }
}

/// The consistency proof from the tree of the first `size1` of `leaves` to the tree of
/// the first `size2` (empty for equal sizes); `0 < size1 <= size2 <= leaves.len()`.
pub fn consistency_proof(leaves: &[Hash], size1: u64, size2: u64) -> Result<Vec<Hash>, ProofError> {
    if size1 > size2 {
        return Err(ProofError::SizesReversed { size1, size2 });
    }
    if size1 == 0 {
        return Err(ProofError::EmptyOldTree);
    }
    if size2 > size_of(leaves.len()) {
        return Err(ProofError::IndexBeyondSize {
            index: size2 - 1,
            size: size_of(leaves.len()),
        });
    }
    let mut out = Vec::new();
    // Equal sizes give the empty proof: `subproof` of the whole tree adds nothing.
    subproof(index_of(size1), &leaves[..index_of(size2)], true, &mut out);
    Ok(out)
}

fn subproof(m: usize, d: &[Hash], whole: bool, out: &mut Vec<Hash>) {
    let n = d.len();
    if m == n {
        if !whole {
            out.push(root_of(d));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, &d[..k], whole, out);
        out.push(root_of(&d[k..]));
    } else {
        subproof(m - k, &d[k..], false, out);
        out.push(root_of(&d[..k]));
    }
}
