//! The use-case functions the CLI and the C ABI call: [`make_checkpoint`], [`prove`],
//! [`covers`] — each result, and each bad input named.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::prove::covers;
use super::tests::transcript;
use super::*;
use crate::merkle::{root_of, ProofError};
use crate::note::SignerKey;
use crate::verify::{verify_bytes, Options, Report};

fn report(bytes: &[u8]) -> Report {
    verify_bytes(bytes, &Options::default())
}

fn key() -> SignerKey {
    SignerKey::from_seed("example.com/log", &[7; 32]).unwrap()
}

const FRESH: Against<'static> = Against::Fresh {
    origin: None,
    signer: None,
};

#[test]
fn a_made_checkpoint_is_the_body_or_the_signed_note() {
    let bytes = transcript(4);
    let report = report(&bytes);
    let checkpoint = report_checkpoint(&report, None).unwrap();
    assert_eq!(
        make_checkpoint(&report, None, None).unwrap(),
        checkpoint.body()
    );
    assert_eq!(
        make_checkpoint(&report, None, Some(&key())).unwrap(),
        checkpoint.sign(&key()).unwrap()
    );
    let named = make_checkpoint(&report, Some(String::from("example.com/t")), None).unwrap();
    assert!(named.starts_with("example.com/t\n4\n"), "{named}");
}

#[test]
fn no_checkpoint_is_made_of_a_transcript_that_does_not_verify_or_with_a_bad_origin() {
    let mut bytes = transcript(3);
    let report_ok = report(&bytes);
    let bad = make_checkpoint(&report_ok, Some(String::from("{x")), None).unwrap_err();
    assert!(matches!(bad, MakeCheckpointError::Origin(_)), "{bad:?}");
    assert!(bad.to_string().contains('{'), "{bad}");
    bytes[20] ^= 1;
    let broken = make_checkpoint(&report(&bytes), None, Some(&key())).unwrap_err();
    assert_eq!(broken, MakeCheckpointError::NotVerified);
    assert_eq!(
        broken.to_string(),
        "the transcript does not verify, so no checkpoint is made of it"
    );
}

#[test]
fn a_proof_against_a_fresh_checkpoint_is_the_one_the_parts_make() {
    let bytes = transcript(5);
    let report = report(&bytes);
    let (leaves, _) = leaves_of(&bytes).unwrap();
    let body = make_checkpoint(&report, None, Some(&key())).unwrap();
    let fresh = Against::Fresh {
        origin: None,
        signer: Some(&key()),
    };
    let inclusion = prove(&bytes, &report, ProofRequest::Inclusion(2), fresh).unwrap();
    assert_eq!(
        inclusion,
        inclusion_text(&bytes, &leaves, 2, 5, body.clone()).unwrap()
    );
    let consistency = prove(&bytes, &report, ProofRequest::Consistency(3), fresh).unwrap();
    assert_eq!(consistency, consistency_text(&leaves, 3, 5, body).unwrap());
}

#[test]
fn a_proof_against_a_given_checkpoint_carries_it_verbatim() {
    let bytes = transcript(5);
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').take(3).collect();
    let prefix = lines.concat();
    let kept = make_checkpoint(&report(&prefix), None, Some(&key())).unwrap();
    let proof = prove(
        &bytes,
        &report(&bytes),
        ProofRequest::Inclusion(1),
        Against::Given(kept.as_bytes()),
    )
    .unwrap();
    assert!(proof.ends_with(&kept), "{proof}");
    let beyond = prove(
        &bytes,
        &report(&bytes),
        ProofRequest::Inclusion(3),
        Against::Given(kept.as_bytes()),
    )
    .unwrap_err();
    assert_eq!(
        beyond,
        ProveError::Proof(ProofError::IndexBeyondSize { index: 3, size: 3 })
    );
}

#[test]
fn each_bad_input_to_prove_is_named() {
    let bytes = transcript(4);
    let good = report(&bytes);
    let inclusion = ProofRequest::Inclusion(0);
    let mut broken = bytes.clone();
    broken[20] ^= 1;
    let err = prove(&broken, &report(&broken), inclusion, FRESH).unwrap_err();
    assert_eq!(err, ProveError::NotVerified);
    assert!(err.to_string().contains("does not verify"), "{err}");

    let err = prove(&bytes, &good, inclusion, Against::Given(b"\xff\n")).unwrap_err();
    assert_eq!(err, ProveError::Malformed(MalformedKind::NotUtf8.into()));
    assert!(err.to_string().contains("not UTF-8"), "{err}");

    let v1 = alloc::format!("{{\"count\":4,\"head\":\"{}\"}}\n", good.head.unwrap());
    let err = prove(&bytes, &good, inclusion, Against::Given(v1.as_bytes())).unwrap_err();
    assert_eq!(err, ProveError::V1Checkpoint);
    assert!(err.to_string().contains("v1 checkpoint"), "{err}");

    // Another transcript's checkpoint, and one of more records than there are.
    let other = make_checkpoint(&report(&transcript(6)), None, None).unwrap();
    let err = prove(&bytes, &good, inclusion, Against::Given(other.as_bytes())).unwrap_err();
    assert_eq!(err, ProveError::NotAPrefix(NotAPrefix { count: 6 }));
    assert!(
        err.to_string()
            .contains("(6 records) is not of this transcript"),
        "{err}"
    );

    let origin = Against::Fresh {
        origin: Some("\tx"),
        signer: None,
    };
    let err = prove(&bytes, &good, inclusion, origin).unwrap_err();
    assert!(
        matches!(err, ProveError::Checkpoint(MakeCheckpointError::Origin(_))),
        "{err:?}"
    );

    let err = prove(&bytes, &good, ProofRequest::Consistency(5), FRESH).unwrap_err();
    assert_eq!(
        err,
        ProveError::Proof(ProofError::SizesReversed { size1: 5, size2: 4 })
    );
    assert!(
        err.to_string().starts_with("cannot make that proof"),
        "{err}"
    );

    // A report that is not the bytes': a line without a hash.
    let err = prove(b"{}\n", &good, inclusion, FRESH).unwrap_err();
    assert_eq!(err, ProveError::Leaves(LeafError { line: 1 }));
}

#[test]
fn a_checkpoint_covers_exactly_the_prefixes_whose_root_it_carries() {
    let bytes = transcript(5);
    let (leaves, _) = leaves_of(&bytes).unwrap();
    let mut checkpoint = report_checkpoint(&report(&bytes), None).unwrap();
    assert_eq!(covers(&checkpoint, &leaves), Ok(()));
    checkpoint.count = 3;
    checkpoint.root = root_of(&leaves[..3]);
    assert_eq!(covers(&checkpoint, &leaves), Ok(()));
    assert_eq!(
        covers(&checkpoint, &leaves[..2]),
        Err(NotAPrefix { count: 3 })
    );
    checkpoint.root = root_of(&leaves[..2]);
    assert_eq!(covers(&checkpoint, &leaves), Err(NotAPrefix { count: 3 }));
    checkpoint.count = u64::MAX;
    let err = covers(&checkpoint, &leaves).unwrap_err();
    assert_eq!(
        err.to_string(),
        alloc::format!(
            "the checkpoint ({0} records) is not of this transcript: its Merkle root is not that of the transcript's first {0} records",
            u64::MAX
        )
    );
}
