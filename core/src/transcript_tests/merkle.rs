//! The Merkle module whole, proof generation included (agentloop-tlog's `merkle_prove.rs`): moved
//! from the transcript crate, which has no allocator to generate proofs with.

use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use crate::hash::Hash;
use crate::merkle::*;

/// RFC 9162's recursive definition of `MTH`, written independently of the compact range.
fn reference_root(d: &[Hash]) -> Hash {
    match d.len() {
        0 => empty_root(),
        1 => d[0],
        n => {
            let mut k = 1;
            while k * 2 < n {
                k *= 2;
            }
            node_hash(&reference_root(&d[..k]), &reference_root(&d[k..]))
        }
    }
}

fn leaves(n: usize) -> Vec<Hash> {
    (0..n as u32).map(|i| leaf_hash(&i.to_be_bytes())).collect()
}

#[test]
fn hashes_are_domain_separated_as_rfc6962_says() {
    // SHA-256 of the empty string, and of the single byte 0x00 (the empty leaf).
    assert_eq!(
        empty_root().to_string(),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        leaf_hash(b"").to_string(),
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    );
    let (a, b) = (leaf_hash(b"a"), leaf_hash(b"b"));
    assert_ne!(node_hash(&a, &b), node_hash(&b, &a));
    assert_eq!(record_leaf(&Hash([7; 32])), leaf_hash(&[7; 32]));
}

#[test]
fn compact_range_matches_the_recursive_definition_for_every_prefix() {
    let d = leaves(70);
    let mut range = CompactRange::new();
    assert_eq!(range.root(), empty_root());
    for n in 1..=d.len() {
        range.push(d[n - 1]).unwrap();
        assert_eq!(range.size(), n as u64);
        assert_eq!(range.root(), reference_root(&d[..n]), "size {n}");
        assert_eq!(root_of(&d[..n]), range.root());
    }
}

#[test]
fn every_inclusion_and_consistency_proof_round_trips_and_a_tampered_one_fails() {
    let d = leaves(33);
    for n in 1..=d.len() {
        let root = reference_root(&d[..n]);
        for i in 0..n {
            let proof = inclusion_proof(&d, i as u64, n as u64).unwrap();
            verify_inclusion(i as u64, n as u64, &d[i].0, &proof, &root.0)
                .unwrap_or_else(|e| panic!("inclusion {i} in {n}: {e}"));
            for j in 0..proof.len() {
                let mut bad = proof.clone();
                bad[j].0[j % 32] ^= 1;
                assert_eq!(
                    verify_inclusion(i as u64, n as u64, &d[i].0, &bad, &root.0),
                    Err(ProofError::RootMismatch)
                );
            }
            let mut longer = proof.clone();
            longer.push(root);
            assert!(verify_inclusion(i as u64, n as u64, &d[i].0, &longer, &root.0).is_err());
            if !proof.is_empty() {
                assert!(
                    verify_inclusion(i as u64, n as u64, &d[i].0, &proof[1..], &root.0).is_err()
                );
            }
            // Another leaf at the same place does not verify.
            let other = d[(i + 1) % n];
            if n > 1 {
                assert!(verify_inclusion(i as u64, n as u64, &other.0, &proof, &root.0).is_err());
            }
        }
        for m in 1..=n {
            let old = reference_root(&d[..m]);
            let proof = consistency_proof(&d, m as u64, n as u64).unwrap();
            verify_consistency(m as u64, n as u64, &proof, &old.0, &root.0)
                .unwrap_or_else(|e| panic!("consistency {m} to {n}: {e}"));
            for j in 0..proof.len() {
                let mut bad = proof.clone();
                bad[j].0[0] ^= 0x80;
                assert!(verify_consistency(m as u64, n as u64, &bad, &old.0, &root.0).is_err());
            }
            if m < n {
                // A different old tree is not consistent with this new one.
                let mut other = d[..m].to_vec();
                other[m - 1] = leaf_hash(b"rewritten");
                let other_root = reference_root(&other);
                assert!(
                    verify_consistency(m as u64, n as u64, &proof, &other_root.0, &root.0).is_err()
                );
            }
        }
    }
}

#[test]
fn bad_arguments_are_named_errors() {
    let d = leaves(4);
    assert_eq!(
        inclusion_proof(&d, 4, 4),
        Err(ProofError::IndexBeyondSize { index: 4, size: 4 })
    );
    assert!(inclusion_proof(&d, 0, 5).is_err());
    assert_eq!(
        consistency_proof(&d, 3, 2),
        Err(ProofError::SizesReversed { size1: 3, size2: 2 })
    );
    assert_eq!(consistency_proof(&d, 0, 2), Err(ProofError::EmptyOldTree));
    assert_eq!(
        consistency_proof(&d, 1, 5),
        Err(ProofError::IndexBeyondSize { index: 4, size: 4 })
    );
    assert_eq!(consistency_proof(&d, 3, 3), Ok(Vec::new()));
    let root = root_of(&d);
    let empty: [[u8; 32]; 0] = [];
    assert_eq!(
        verify_inclusion(0, 4, &[1, 2, 3], &empty, &root.0),
        Err(ProofError::WrongHashLength {
            what: "leaf hash",
            len: 3
        })
    );
    let short: [&[u8]; 1] = [&[0; 31]];
    assert_eq!(
        verify_inclusion(0, 2, &d[0].0, &short, &root.0),
        Err(ProofError::WrongHashLength {
            what: "proof entry",
            len: 31
        })
    );
}

#[test]
fn each_proof_error_says_what_is_wrong() {
    let cases = [
        (
            ProofError::IndexBeyondSize { index: 7, size: 4 },
            "leaf index 7 is not below the tree size 4",
        ),
        (
            ProofError::SizesReversed { size1: 5, size2: 2 },
            "old tree size 5 is larger than new tree size 2",
        ),
        (
            ProofError::EmptyOldTree,
            "a consistency proof from the empty tree is meaningless",
        ),
        (
            ProofError::WrongHashLength {
                what: "old root",
                len: 31,
            },
            "the old root is 31 bytes long, not 32",
        ),
        (
            ProofError::WrongProofLength { got: 3 },
            "the proof has 3 entries, not the number the tree sizes call for",
        ),
        (ProofError::RootMismatch, "the proof leads to another root"),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn a_compact_range_prints_its_size_and_live_nodes_only() {
    let d = leaves(3);
    let mut range = CompactRange::default();
    assert_eq!(range, CompactRange::new());
    for leaf in &d {
        range.push(*leaf).unwrap();
    }
    // Size 3: two perfect subtrees, of 2 leaves and of 1; the 62 dead slots are not shown.
    let two = node_hash(&d[0], &d[1]);
    assert_eq!(
        alloc::format!("{range:?}"),
        alloc::format!("CompactRange {{ size: 3, nodes: [{two:?}, {:?}] }}", d[2])
    );
}

proptest! {
    #[test]
    fn random_sizes_prove_and_verify(n in 1usize..300, i in any::<prop::sample::Index>(), m in any::<prop::sample::Index>()) {
        let d = leaves(n);
        let i = i.index(n);
        let m = m.index(n) + 1;
        let root = root_of(&d);
        prop_assert_eq!(root, reference_root(&d));
        let proof = inclusion_proof(&d, i as u64, n as u64).unwrap();
        prop_assert!(verify_inclusion(i as u64, n as u64, &d[i].0, &proof, &root.0).is_ok());
        let old = root_of(&d[..m]);
        let proof = consistency_proof(&d, m as u64, n as u64).unwrap();
        prop_assert!(verify_consistency(m as u64, n as u64, &proof, &old.0, &root.0).is_ok());
    }
}
