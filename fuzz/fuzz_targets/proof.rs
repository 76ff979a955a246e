//! Merkle proof verification (`agentloop_core::merkle`, RFC 9162 sections 2.1.3.2 and
//! 2.1.4.2). The first byte picks one of four modes (its low two bits):
//!
//! 0. `verify_inclusion` on arbitrary index, size, leaf, proof entries and root, and
//! 1. `verify_consistency` on arbitrary sizes, proof entries and roots: never a panic,
//!    and an accepted proof has the entry count the sizes call for.
//! 2. A tree of fuzzer-chosen leaves (one input byte of leaf data each, so repeated
//!    leaves are common): the inclusion proof of a chosen index in a chosen prefix
//!    verifies; any one byte of it changed, or of the leaf or the root, fails; another
//!    index verifies only if that leaf is the same and the proof is that index's own.
//! 3. The same tree: the consistency proof between two chosen prefixes verifies; any
//!    one byte of it or of either root changed fails; another older size verifies only
//!    if the proof and the old root are that size's own.
//!
//! Layout, little-endian, missing bytes read as 0: modes 0 and 1 — `u64` index (size1),
//! `u64` size (size2), then the leaf (root1) and the root (root2) as a length byte and
//! that many bytes, an entry count byte and that many such entries. Modes 2 and 3 —
//! `u16` leaf count (1 + n % 512), `u16` a, `u16` b (index or size1, size), `u16` the
//! proof byte to change, a byte to XOR it with (0 → 1), `u16` another index (size1),
//! then one byte of leaf data per leaf.
#![no_main]

use agentloop_core::merkle::{
    consistency_proof, inclusion_proof, leaf_hash, root_of, verify_consistency, verify_inclusion,
};
use agentloop_core::Hash;
use libfuzzer_sys::fuzz_target;

/// Reads the input front to back; past its end every byte is 0.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        first
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        b.iter_mut().for_each(|x| *x = self.byte());
        u64::from_le_bytes(b)
    }
    fn chunk(&mut self) -> &'a [u8] {
        let len = usize::from(self.byte()).min(self.0.len());
        let (chunk, rest) = self.0.split_at(len);
        self.0 = rest;
        chunk
    }
}

/// The number of entries an inclusion proof of `index` in a tree of `size` has.
fn inclusion_len(index: u64, size: u64) -> usize {
    let inner = (64 - (index ^ (size - 1)).leading_zeros()) as usize;
    let border = (index >> inner).count_ones() as usize;
    inner + border
}

fn flip(proof: &[Hash], at: usize, x: u8) -> Vec<Hash> {
    let mut out = proof.to_vec();
    out[at / 32 % proof.len()].0[at % 32] ^= x;
    out
}

fn damaged(h: &Hash, at: usize, x: u8) -> Hash {
    let mut out = *h;
    out.0[at % 32] ^= x;
    out
}

fn arbitrary(mode: u8, mut input: Input<'_>) {
    let (a, b) = (input.u64(), input.u64());
    let (h1, h2) = (input.chunk(), input.chunk());
    let count = input.byte();
    let proof: Vec<&[u8]> = (0..count).map(|_| input.chunk()).collect();
    if mode == 0 {
        let result = verify_inclusion(a, b, h1, &proof, h2);
        if result.is_ok() {
            assert_eq!(proof.len(), inclusion_len(a, b));
        }
        let _ = result.map_err(|e| e.to_string());
    } else {
        let result = verify_consistency(a, b, &proof, h1, h2);
        if result.is_ok() && a == b {
            assert!(proof.is_empty());
        }
        let _ = result.map_err(|e| e.to_string());
    }
}

fn tree(mode: u8, mut input: Input<'_>) {
    let n = 1 + u64::from(input.u16()) % 512;
    let (a, b) = (u64::from(input.u16()), u64::from(input.u16()));
    let at = usize::from(input.u16());
    let x = input.byte().max(1);
    let other = u64::from(input.u16());
    let leaves: Vec<Hash> = (0..n).map(|_| leaf_hash(&[input.byte()])).collect();
    let size = 1 + b % n;
    let root = root_of(&leaves[..size as usize]);
    if mode == 2 {
        let index = a % size;
        let leaf = leaves[index as usize];
        let proof = inclusion_proof(&leaves, index, size).unwrap();
        assert_eq!(proof.len(), inclusion_len(index, size));
        assert_eq!(
            verify_inclusion(index, size, &leaf.0, &proof, &root.0),
            Ok(())
        );
        if !proof.is_empty() {
            let bad = flip(&proof, at, x);
            assert!(verify_inclusion(index, size, &leaf.0, &bad, &root.0).is_err());
        }
        let bad_leaf = damaged(&leaf, at, x);
        assert!(verify_inclusion(index, size, &bad_leaf.0, &proof, &root.0).is_err());
        let bad_root = damaged(&root, at, x);
        assert!(verify_inclusion(index, size, &leaf.0, &proof, &bad_root.0).is_err());
        let moved = other % size;
        if moved != index && verify_inclusion(moved, size, &leaf.0, &proof, &root.0).is_ok() {
            assert_eq!(leaves[moved as usize], leaf);
            assert_eq!(inclusion_proof(&leaves, moved, size).unwrap(), proof);
        }
    } else {
        let size1 = 1 + a % size;
        let root1 = root_of(&leaves[..size1 as usize]);
        let proof = consistency_proof(&leaves, size1, size).unwrap();
        assert_eq!(
            verify_consistency(size1, size, &proof, &root1.0, &root.0),
            Ok(())
        );
        if !proof.is_empty() {
            let bad = flip(&proof, at, x);
            assert!(verify_consistency(size1, size, &bad, &root1.0, &root.0).is_err());
        }
        let (bad1, bad2) = (damaged(&root1, at, x), damaged(&root, at, x));
        assert!(verify_consistency(size1, size, &proof, &bad1.0, &root.0).is_err());
        assert!(verify_consistency(size1, size, &proof, &root1.0, &bad2.0).is_err());
        let moved = 1 + other % size;
        if moved != size1 && verify_consistency(moved, size, &proof, &root1.0, &root.0).is_ok() {
            assert_eq!(root_of(&leaves[..moved as usize]), root1);
            assert_eq!(consistency_proof(&leaves, moved, size).unwrap(), proof);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mode = input.byte() & 3;
    if mode < 2 {
        arbitrary(mode, input);
    } else {
        tree(mode, input);
    }
});
