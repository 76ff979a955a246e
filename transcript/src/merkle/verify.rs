//! Checking inclusion and consistency proofs (RFC 9162 sections 2.1.3.2 and 2.1.4.2)
//! without an allocator. Hashes come in as byte slices so that a proof read from
//! outside with a wrong-length entry is an error, not a panic.

use core::fmt;

use super::hasher::node_hash;
use crate::hash::Hash;

/// Why a proof does not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofError {
    /// The leaf index is not below the tree size.
    IndexBeyondSize {
        /// The leaf index.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// The older tree is larger than the newer one.
    SizesReversed {
        /// The older size.
        size1: u64,
        /// The newer size.
        size2: u64,
    },
    /// A consistency proof from the empty tree is meaningless (RFC 9162 defines none).
    EmptyOldTree,
    /// A hash that takes part in the computation is not 32 bytes long.
    WrongHashLength {
        /// Which input: `"leaf hash"`, `"proof entry"`, `"old root"`.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// The proof has more or fewer entries than the sizes call for.
    WrongProofLength {
        /// Entries in the proof.
        got: usize,
    },
    /// The proof is well-shaped but leads to another root than the expected one.
    RootMismatch,
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofError::IndexBeyondSize { index, size } => {
                write!(f, "leaf index {index} is not below the tree size {size}")
            }
            ProofError::SizesReversed { size1, size2 } => {
                write!(
                    f,
                    "old tree size {size1} is larger than new tree size {size2}"
                )
            }
            ProofError::EmptyOldTree => {
                f.write_str("a consistency proof from the empty tree is meaningless")
            }
            ProofError::WrongHashLength { what, len } => {
                write!(f, "the {what} is {len} bytes long, not 32")
            }
            ProofError::WrongProofLength { got } => {
                write!(
                    f,
                    "the proof has {got} entries, not the number the tree sizes call for"
                )
            }
            ProofError::RootMismatch => f.write_str("the proof leads to another root"),
        }
    }
}

impl core::error::Error for ProofError {}

fn to_hash(bytes: &[u8], what: &'static str) -> Result<Hash, ProofError> {
    <[u8; 32]>::try_from(bytes)
        .map(Hash)
        .map_err(|_| ProofError::WrongHashLength {
            what,
            len: bytes.len(),
        })
}

/// Checks that the leaf whose hash is `leaf` sits at `index` in the tree of `size`
/// leaves whose root is `root`, given the audit path `proof` (leaf to root).
pub fn verify_inclusion<P: AsRef<[u8]>>(
    index: u64,
    size: u64,
    leaf: &[u8],
    proof: &[P],
    root: &[u8],
) -> Result<(), ProofError> {
    if index >= size {
        return Err(ProofError::IndexBeyondSize { index, size });
    }
    let mut r = to_hash(leaf, "leaf hash")?;
    let (mut f_n, mut s_n) = (index, size - 1);
    for p in proof {
        if s_n == 0 {
            return Err(ProofError::WrongProofLength { got: proof.len() });
        }
        let p = to_hash(p.as_ref(), "proof entry")?;
        if f_n & 1 == 1 || f_n == s_n {
            r = node_hash(&p, &r);
            while f_n & 1 == 0 && f_n != 0 {
                f_n >>= 1;
                s_n >>= 1;
            }
        } else {
            r = node_hash(&r, &p);
        }
        f_n >>= 1;
        s_n >>= 1;
    }
    if s_n != 0 {
        return Err(ProofError::WrongProofLength { got: proof.len() });
    }
    if r.0.as_slice() != root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}

/// Checks that the tree of `size1` leaves with root `root1` is a prefix of the tree of
/// `size2` leaves with root `root2`, given the consistency proof `proof`.
///
/// Equal sizes need an empty proof and equal roots; `size1 == 0` is an error (RFC 9162
/// defines no proof from the empty tree; every tree extends it).
pub fn verify_consistency<P: AsRef<[u8]>>(
    size1: u64,
    size2: u64,
    proof: &[P],
    root1: &[u8],
    root2: &[u8],
) -> Result<(), ProofError> {
    if size1 > size2 {
        return Err(ProofError::SizesReversed { size1, size2 });
    }
    if size1 == 0 {
        return Err(ProofError::EmptyOldTree);
    }
    if size1 == size2 {
        if !proof.is_empty() {
            return Err(ProofError::WrongProofLength { got: proof.len() });
        }
        return if root1 == root2 {
            Ok(())
        } else {
            Err(ProofError::RootMismatch)
        };
    }
    let Some((first, rest)) = proof.split_first() else {
        return Err(ProofError::WrongProofLength { got: 0 });
    };
    // When size1 is a power of two the old root is the first node of the path; the
    // proof leaves it out.
    let (seed, path) = if size1.is_power_of_two() {
        (to_hash(root1, "old root")?, proof)
    } else {
        (to_hash(first.as_ref(), "proof entry")?, rest)
    };
    let (mut f_n, mut s_n) = (size1 - 1, size2 - 1);
    while f_n & 1 == 1 {
        f_n >>= 1;
        s_n >>= 1;
    }
    let (mut fr, mut sr) = (seed, seed);
    for c in path {
        if s_n == 0 {
            return Err(ProofError::WrongProofLength { got: proof.len() });
        }
        let c = to_hash(c.as_ref(), "proof entry")?;
        if f_n & 1 == 1 || f_n == s_n {
            fr = node_hash(&c, &fr);
            sr = node_hash(&c, &sr);
            while f_n & 1 == 0 && f_n != 0 {
                f_n >>= 1;
                s_n >>= 1;
            }
        } else {
            sr = node_hash(&sr, &c);
        }
        f_n >>= 1;
        s_n >>= 1;
    }
    if s_n != 0 {
        return Err(ProofError::WrongProofLength { got: proof.len() });
    }
    if fr.0.as_slice() != root1 || sr.0.as_slice() != root2 {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}
