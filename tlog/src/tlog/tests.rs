use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::admit::{admit, Admission, Trust};
use super::checkpoint::{default_origin, origin_first, ORIGIN_PREFIX};
use super::proof::{CONSISTENCY_HEADER, INCLUSION_HEADER};
use super::*;
use crate::fault_kind::FaultKind;
use crate::hash::Hash;
use crate::merkle::root_of;
use crate::note::{SignerKey, VerifierKey};
use crate::stream::ChainState;

/// A transcript of `n` records, `{"i":i}` each.
pub(super) fn transcript(n: usize) -> Vec<u8> {
    let mut chain = ChainState::new();
    let mut line = [0u8; 256];
    let mut out = Vec::new();
    for i in 0..n {
        let payload = alloc::format!("{{\"i\":{i}}}");
        let len = chain.append(&mut line, "note", payload.as_bytes()).unwrap();
        out.extend_from_slice(&line[..len]);
    }
    out
}

fn sample() -> TlogCheckpoint {
    let (leaves, hashes) = leaves_of(&transcript(3)).unwrap();
    TlogCheckpoint {
        origin: default_origin(hashes.first()),
        count: 3,
        root: root_of(&leaves),
        head: hashes.last().copied(),
        extensions: Vec::new(),
    }
}

fn key(name: &str, byte: u8) -> SignerKey {
    SignerKey::from_seed(name, &[byte; 32]).unwrap()
}

#[test]
fn body_round_trips_and_names_the_transcript() {
    let cp = sample();
    let body = cp.body();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with(ORIGIN_PREFIX));
    assert_eq!(lines[1], "3");
    assert_eq!(lines[3], alloc::format!("head {}", cp.head.unwrap()));
    assert_eq!(TlogCheckpoint::parse_body(&body), Ok(cp.clone()));
    let (_, hashes) = leaves_of(&transcript(3)).unwrap();
    assert_eq!(origin_first(&cp.origin), Some(hashes[0]));
    // The same transcript always gives the same origin; a longer one of it too.
    let (_, longer) = leaves_of(&transcript(5)).unwrap();
    assert_eq!(default_origin(longer.first()), cp.origin);
    assert_eq!(default_origin(None), "agentloop/transcript/empty");
    assert_eq!(origin_first("example.com/log"), None);
    let checkpoint = cp.checkpoint();
    assert_eq!(checkpoint.first, Some(hashes[0]));
    assert_eq!(checkpoint.root, Some(cp.root));
    let mut other = cp.clone();
    other.extensions.push("note from the operator".to_string());
    assert_eq!(TlogCheckpoint::parse_body(&other.body()), Ok(other));
}

#[test]
fn each_malformed_part_is_named() {
    let body = sample().body();
    let mut lines: Vec<String> = body.lines().map(String::from).collect();
    let with = |i: usize, text: &str, lines: &mut Vec<String>| {
        let mut l = lines.clone();
        l[i] = text.to_string();
        let mut out = l.join("\n");
        out.push('\n');
        TlogCheckpoint::parse_body(&out)
    };
    assert_eq!(with(0, "", &mut lines), Err(MalformedKind::Origin.into()));
    for size in ["", "03", "-1", "+3", "1.0", "9007199254740993", " 3"] {
        assert_eq!(
            with(1, size, &mut lines),
            Err(MalformedKind::Size.into()),
            "{size:?}"
        );
    }
    // The largest size is 2^53 (records seq 0 to 2^53 - 1).
    let largest = with(1, "9007199254740992", &mut lines).unwrap();
    assert_eq!(largest.count, crate::anchor::MAX_SEQ + 1);
    assert_eq!(with(2, "AAAA", &mut lines), Err(MalformedKind::Root.into()));
    assert_eq!(
        with(3, "", &mut lines),
        Err(MalformedKind::Extension(1).into())
    );
    assert_eq!(
        with(3, "head 00", &mut lines),
        Err(MalformedKind::Extension(1).into())
    );
    assert_eq!(
        TlogCheckpoint::parse_body(&[body.as_str(), "head ", &"0".repeat(64), "\n"].concat()),
        Err(MalformedKind::Extension(2).into())
    );
    assert_eq!(
        TlogCheckpoint::parse_body("a\n1\n"),
        Err(MalformedKind::MissingLines.into())
    );
    assert_eq!(
        TlogCheckpoint::parse_body(body.trim_end()),
        Err(MalformedKind::MissingLines.into())
    );
    assert_eq!(
        read_checkpoint(b"\xff\n"),
        Err(MalformedKind::NotUtf8.into())
    );
    assert!(matches!(
        read_checkpoint(b"{\"count\":-1}"),
        Err(Malformed(MalformedKind::V1(_)))
    ));
    assert!(matches!(
        read_checkpoint([body.as_str(), "\nnot a signature\n"].concat().as_bytes()),
        Err(Malformed(MalformedKind::Note(_)))
    ));
    for m in [
        MalformedKind::Origin,
        MalformedKind::Size,
        MalformedKind::Root,
        MalformedKind::Extension(1),
        MalformedKind::MissingLines,
        MalformedKind::NotUtf8,
    ] {
        assert!(!alloc::format!("{m}").is_empty());
    }
}

#[test]
fn both_formats_are_read_and_signatures_are_judged() {
    let cp = sample();
    let v1 = read_checkpoint(b"{\"count\":2}\n").unwrap();
    assert_eq!(v1.checkpoint().count, 2);
    let bare = read_checkpoint(cp.body().as_bytes()).unwrap();
    assert_eq!(bare.checkpoint(), cp.checkpoint());
    let alice = key("alice", 1);
    let bob = key("bob", 2);
    let signed = cp.sign(&alice).unwrap();
    let text = read_checkpoint(signed.as_bytes()).unwrap();
    assert_eq!(text.checkpoint(), cp.checkpoint());

    let kinds = |a: &Admission| a.faults.iter().map(|f| f.kind).collect::<Vec<_>>();
    let trusted = [alice.verifier()];
    let ok = admit(&text, &trusted, None);
    assert_eq!(ok.faults, []);
    assert_eq!(ok.checkpoint, Some(cp.checkpoint()));
    assert_eq!(
        ok.trust,
        Trust::SignedBy(alloc::vec![alloc::format!("alice+{:08x}", alice.id())])
    );
    // No keys: not checked, still used.
    let unchecked = admit(&text, &[], None);
    assert_eq!(
        (unchecked.trust, unchecked.checkpoint.is_some()),
        (Trust::NotChecked, true)
    );
    // Signed by someone else.
    let untrusted = admit(&text, &[bob.verifier()], None);
    assert_eq!(kinds(&untrusted), [FaultKind::CheckpointUntrusted]);
    assert_eq!(untrusted.checkpoint, None);
    // Unsigned or v1 with keys: untrusted.
    assert_eq!(
        kinds(&admit(&bare, &trusted, None)),
        [FaultKind::CheckpointUntrusted]
    );
    assert_eq!(
        kinds(&admit(&v1, &trusted, None)),
        [FaultKind::CheckpointUntrusted]
    );
    // A changed count under alice's signature: bad signature.
    let forged = signed.replacen("\n3\n", "\n2\n", 1);
    let forged = read_checkpoint(forged.as_bytes()).unwrap();
    let bad = admit(&forged, &trusted, None);
    assert_eq!(kinds(&bad), [FaultKind::CheckpointBadSignature]);
    assert!(bad.faults[0].index.is_none() && bad.faults[0].line.is_none());
    // Another signer's line (a witness) is ignored, alice's still counts.
    let cosigned = [
        signed.as_str(),
        &crate::note::Note::sign(&cp.body(), &bob)
            .unwrap()
            .signatures[0]
            .to_line(),
    ]
    .concat();
    assert_eq!(
        admit(
            &read_checkpoint(cosigned.as_bytes()).unwrap(),
            &trusted,
            None
        )
        .faults,
        []
    );
    // Origin.
    assert_eq!(admit(&text, &[], Some(&cp.origin)).faults, []);
    assert_eq!(
        kinds(&admit(&text, &[], Some("example.com/other"))),
        [FaultKind::CheckpointOriginMismatch]
    );
    assert_eq!(
        kinds(&admit(&v1, &[], Some("example.com/other"))),
        [FaultKind::CheckpointOriginMismatch]
    );
    let _: VerifierKey = alice.verifier().to_string().parse().unwrap();
}

#[test]
fn proof_texts_round_trip_and_refuse_damage() {
    let cp = sample().body();
    let inclusion = InclusionProof {
        record: Some(b"{\"a\":1}".to_vec()),
        index: 2,
        proof: alloc::vec![Hash([1; 32]), Hash([2; 32])],
        checkpoint: cp.clone(),
    };
    let text = inclusion.to_text();
    assert!(text.starts_with(INCLUSION_HEADER));
    assert_eq!(
        InclusionProof::parse(text.as_bytes()),
        Ok(inclusion.clone())
    );
    let bare = InclusionProof {
        record: None,
        proof: Vec::new(),
        ..inclusion.clone()
    };
    assert_eq!(InclusionProof::parse(bare.to_text().as_bytes()), Ok(bare));
    let consistency = ConsistencyProof {
        old: 1,
        proof: alloc::vec![Hash([3; 32])],
        checkpoint: cp.clone(),
    };
    let ctext = consistency.to_text();
    assert!(ctext.starts_with(CONSISTENCY_HEADER));
    assert_eq!(
        ConsistencyProof::parse(ctext.as_bytes()),
        Ok(consistency.clone())
    );
    // ProofText tells the two kinds apart by their first line.
    assert_eq!(
        ProofText::parse(ctext.as_bytes()),
        Ok(ProofText::Consistency(consistency))
    );
    assert_eq!(
        ProofText::parse(text.as_bytes()),
        Ok(ProofText::Inclusion(inclusion.clone()))
    );
    assert_eq!(
        ProofText::parse(
            ctext
                .replacen(CONSISTENCY_HEADER, "agentloop/other@v1", 1)
                .as_bytes()
        ),
        Err(ProofTextErrorKind::Header.into())
    );
    assert_eq!(
        InclusionProof::parse(ctext.as_bytes()),
        Err(ProofTextErrorKind::Header.into())
    );
    assert_eq!(
        InclusionProof::parse(text.replace("index 2", "index 02").as_bytes()),
        Err(ProofTextErrorKind::Position.into())
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        InclusionProof::parse(text.replace(lines[3], "AAAA").as_bytes()),
        Err(ProofTextErrorKind::Hash(1).into())
    );
    assert_eq!(
        InclusionProof::parse(text.replace("extra ", "extra !").as_bytes()),
        Err(ProofTextErrorKind::Extra.into())
    );
    assert_eq!(
        InclusionProof::parse(text.split("\n\n").next().unwrap().as_bytes()),
        Err(ProofTextErrorKind::NoCheckpoint.into())
    );
}

#[test]
fn leaves_are_the_records_hashes() {
    let bytes = transcript(4);
    let (leaves, hashes) = leaves_of(&bytes).unwrap();
    assert_eq!(leaves.len(), 4);
    let report = crate::verify::verify_bytes(&bytes, &crate::verify::Options::default());
    assert_eq!(report.root, Some(root_of(&leaves)));
    assert_eq!(report.head, hashes.last().copied());
    assert_eq!(leaves_of(b"").unwrap().0, []);
    assert_eq!(leaves_of(b"{\"a\":1}\n"), Err(LeafError { line: 1 }));
    let mut broken = bytes.clone();
    broken.extend_from_slice(b"{\"hash\":\"00\"}\n");
    let error = leaves_of(&broken).unwrap_err();
    assert_eq!(error.to_string(), "line 5: no well-formed \"hash\" member");
}

/// The checkpoint of the first `n` records of `bytes` (unsigned, default origin).
fn checkpoint_of(bytes: &[u8], n: usize) -> TlogCheckpoint {
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').take(n).collect();
    let prefix = lines.concat();
    let report = crate::verify::verify_bytes(&prefix, &crate::verify::Options::default());
    report_checkpoint(&report, None).unwrap()
}

fn kinds(problems: &[Problem]) -> Vec<&'static str> {
    problems.iter().map(|p| p.kind).collect()
}

#[test]
fn made_checkpoints_and_inclusion_proofs_check_and_each_problem_is_named() {
    let bytes = transcript(5);
    let report = crate::verify::verify_bytes(&bytes, &crate::verify::Options::default());
    let (leaves, hashes) = leaves_of(&bytes).unwrap();
    let cp = report_checkpoint(&report, None).unwrap();
    assert_eq!(
        cp,
        TlogCheckpoint {
            origin: default_origin(hashes.first()),
            count: 5,
            root: root_of(&leaves),
            head: Some(hashes[4]),
            extensions: Vec::new(),
        }
    );
    let named = report_checkpoint(&report, Some("example.com/log".to_string())).unwrap();
    assert_eq!(named.origin, "example.com/log");
    // Only a report that verified, with its root, gives a checkpoint.
    let mut cut = bytes.clone();
    cut[10] ^= 1;
    let damaged = crate::verify::verify_bytes(&cut, &crate::verify::Options::default());
    assert_eq!(
        report_checkpoint(&damaged, None),
        Err(MakeCheckpointError::NotVerified)
    );
    let mut rootless = report.clone();
    rootless.root = None;
    assert_eq!(
        report_checkpoint(&rootless, None),
        Err(MakeCheckpointError::NotVerified)
    );
    assert_eq!(
        MakeCheckpointError::NotVerified.to_string(),
        "the transcript does not verify, so no checkpoint is made of it"
    );
    let alice = key("alice", 1);
    let signed = cp.sign(&alice).unwrap();
    let text = read_checkpoint(signed.as_bytes()).unwrap();
    let trusted = [alice.verifier()];
    let by_alice = alloc::format!("signed by alice+{:08x}", alice.id());
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    for i in 0..5u64 {
        let made = inclusion_text(&bytes, &leaves, i, 5, signed.clone()).unwrap();
        let proof = InclusionProof::parse(made.as_bytes()).unwrap();
        assert_eq!(
            proof,
            InclusionProof {
                record: Some(lines[i as usize].to_vec()),
                index: i,
                proof: crate::merkle::inclusion_proof(&leaves, i, 5).unwrap(),
                checkpoint: signed.clone(),
            }
        );
        assert_eq!(
            check_inclusion(&proof, &text, &trusted, Some(&cp.origin)),
            Ok(alloc::format!(
                "record {i} (seq {i}, hash {}) is in the checkpoint of 5 records, origin {}; {by_alice}",
                hashes[i as usize],
                cp.origin
            ))
        );
    }
    assert_eq!(
        inclusion_text(&bytes, &leaves, 5, 5, signed.clone()),
        Err(crate::merkle::ProofError::IndexBeyondSize { index: 5, size: 5 })
    );
    let made = inclusion_text(&bytes, &leaves, 2, 5, signed.clone()).unwrap();
    let proof = InclusionProof::parse(made.as_bytes()).unwrap();
    let ok = check_inclusion(&proof, &text, &[], None).unwrap();
    assert!(
        ok.ends_with("; no key was trusted, so no signature was checked"),
        "{ok}"
    );
    // Admission problems come through with the fault's kind and sentence.
    let bob = key("bob", 2);
    let untrusted = check_inclusion(&proof, &text, &[bob.verifier()], None).unwrap_err();
    let admission = admit(&text, &[bob.verifier()], None);
    assert_eq!(
        untrusted,
        [Problem {
            kind: "checkpoint_untrusted",
            detail: admission.faults[0].detail.to_string(),
        }]
    );
    // A v1 checkpoint has no root to check a path against.
    let v1 = read_checkpoint(b"{\"count\":5}\n").unwrap();
    assert_eq!(
        check_inclusion(&proof, &v1, &[], None).unwrap_err(),
        [Problem {
            kind: "checkpoint_malformed",
            detail: "no Merkle root".to_string(),
        }]
    );
    let problem = |p: &InclusionProof, t: &CheckpointText| {
        let e = check_inclusion(p, t, &[], None).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        (e[0].kind, e[0].detail.to_string())
    };
    // No record, another record, a record at another index, a changed record, two records.
    let bare = InclusionProof {
        record: None,
        ..proof.clone()
    };
    assert_eq!(problem(&bare, &text).0, PROOF_INVALID);
    let moved = InclusionProof {
        index: 3,
        ..proof.clone()
    };
    let (kind, detail) = problem(&moved, &text);
    assert_eq!(kind, PROOF_INVALID);
    assert!(
        detail.starts_with("the record in the proof: seq_gap: expected seq 3, found 2"),
        "{detail}"
    );
    let mut changed = proof.clone();
    let record = String::from_utf8(changed.record.take().unwrap()).unwrap();
    changed.record = Some(record.replace("\"i\":2", "\"i\":7").into_bytes());
    let (kind, detail) = problem(&changed, &text);
    assert_eq!(kind, PROOF_INVALID);
    assert!(
        detail.starts_with("the record in the proof: hash_mismatch: "),
        "{detail}"
    );
    // The record and a newline: JSON, but a second (empty) line.
    let two = InclusionProof {
        record: Some([lines[0], b"\n"].concat()),
        index: 0,
        ..proof.clone()
    };
    assert_eq!(
        problem(&two, &text),
        (
            PROOF_INVALID,
            "the record in the proof: bad_json: the line is empty".to_string()
        )
    );
    let not_json = InclusionProof {
        record: Some(b"{".to_vec()),
        ..proof.clone()
    };
    let (kind, detail) = problem(&not_json, &text);
    assert_eq!(kind, PROOF_INVALID);
    assert!(
        detail.starts_with("the record in the proof is not I-JSON: "),
        "{detail}"
    );
    let no_prev = InclusionProof {
        record: Some(b"{\"seq\":2}".to_vec()),
        ..proof.clone()
    };
    assert_eq!(
        problem(&no_prev, &text),
        (
            PROOF_INVALID,
            "the record in the proof has no well-formed prev".to_string()
        )
    );
    // A path that does not lead to the root.
    let mut bent = proof.clone();
    bent.proof[0].0[0] ^= 1;
    assert_eq!(
        problem(&bent, &text),
        (
            PROOF_INVALID,
            "the inclusion proof does not verify: the proof leads to another root".to_string()
        )
    );
    // A checkpoint whose origin names another record 0 (same tree otherwise): the
    // path verifies, the record is not the one the origin names.
    let zero = InclusionProof::parse(
        inclusion_text(&bytes, &leaves, 0, 5, signed.clone())
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    let foreign = TlogCheckpoint {
        origin: default_origin(Some(&Hash([9; 32]))),
        ..cp.clone()
    };
    let foreign_text = read_checkpoint(foreign.body().as_bytes()).unwrap();
    assert_eq!(
        problem(&zero, &foreign_text),
        (
            "checkpoint_origin_mismatch",
            alloc::format!(
                "record 0 carries {}, but the checkpoint's origin names {}",
                hashes[0],
                Hash([9; 32])
            )
        )
    );
    // A custom origin names no record 0.
    let custom = TlogCheckpoint {
        origin: "example.com/log".to_string(),
        ..cp.clone()
    };
    let custom_text = read_checkpoint(custom.body().as_bytes()).unwrap();
    assert!(check_inclusion(&zero, &custom_text, &[], None).is_ok());
}

#[test]
fn made_consistency_proofs_check_and_each_problem_is_named() {
    let bytes = transcript(5);
    let (leaves, _) = leaves_of(&bytes).unwrap();
    let cp = checkpoint_of(&bytes, 5);
    let alice = key("alice", 1);
    let signed = cp.sign(&alice).unwrap();
    let new = read_checkpoint(signed.as_bytes()).unwrap();
    let trusted = [alice.verifier()];
    let by_alice = alloc::format!("signed by alice+{:08x}", alice.id());
    for m in 1..=5u64 {
        let made = consistency_text(&leaves, m, 5, signed.clone()).unwrap();
        let proof = ConsistencyProof::parse(made.as_bytes()).unwrap();
        assert_eq!(
            proof,
            ConsistencyProof {
                old: m,
                proof: crate::merkle::consistency_proof(&leaves, m, 5).unwrap(),
                checkpoint: signed.clone(),
            }
        );
        let old = read_checkpoint(checkpoint_of(&bytes, m as usize).body().as_bytes()).unwrap();
        assert_eq!(
            check_consistency(&proof, "old.cp", &old, &new, &trusted, None),
            Ok(alloc::format!(
                "old.cp ({m} records) is a prefix of the checkpoint of 5 records, origin {}; {by_alice}",
                cp.origin
            ))
        );
    }
    assert_eq!(
        consistency_text(&leaves, 0, 5, signed.clone()),
        Err(crate::merkle::ProofError::EmptyOldTree)
    );
    // Every tree extends the empty one: no path to check.
    let empty = TlogCheckpoint {
        count: 0,
        root: crate::merkle::empty_root(),
        head: None,
        ..cp.clone()
    };
    let empty = read_checkpoint(empty.body().as_bytes()).unwrap();
    let from_empty = ConsistencyProof {
        old: 0,
        proof: Vec::new(),
        checkpoint: signed.clone(),
    };
    assert!(check_consistency(&from_empty, "e", &empty, &new, &[], None).is_ok());

    let made = consistency_text(&leaves, 3, 5, signed.clone()).unwrap();
    let proof = ConsistencyProof::parse(made.as_bytes()).unwrap();
    let old = read_checkpoint(checkpoint_of(&bytes, 3).body().as_bytes()).unwrap();
    let problem = |old: &CheckpointText, new: &CheckpointText, proof: &ConsistencyProof| {
        let e = check_consistency(proof, "old.cp", old, new, &[], None).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        (e[0].kind, e[0].detail.to_string())
    };
    let inconsistent = "checkpoint_inconsistent";
    // Admission of the newer checkpoint first.
    assert_eq!(
        kinds(
            &check_consistency(
                &proof,
                "old.cp",
                &old,
                &new,
                &[key("bob", 2).verifier()],
                None
            )
            .unwrap_err()
        ),
        ["checkpoint_untrusted"]
    );
    let v1 = read_checkpoint(b"{\"count\":5}\n").unwrap();
    assert_eq!(
        problem(&old, &v1, &proof),
        ("checkpoint_malformed", "no Merkle root".to_string())
    );
    assert_eq!(
        problem(&v1, &new, &proof),
        (
            inconsistent,
            "old.cp is a v1 checkpoint, with no Merkle root to check a proof against".to_string()
        )
    );
    let mut elsewhere = checkpoint_of(&bytes, 3);
    elsewhere.origin = "example.com/log".to_string();
    let elsewhere = read_checkpoint(elsewhere.body().as_bytes()).unwrap();
    assert_eq!(
        problem(&elsewhere, &new, &proof),
        (
            inconsistent,
            alloc::format!(
                "old.cp has origin \"example.com/log\", the proof's checkpoint {:?}: they are of different transcripts",
                cp.origin
            )
        )
    );
    let four = read_checkpoint(checkpoint_of(&bytes, 4).body().as_bytes()).unwrap();
    assert_eq!(
        problem(&four, &new, &proof),
        (
            inconsistent,
            "old.cp covers 4 records, but the proof starts from 3".to_string()
        )
    );
    // Another transcript's first three records: same origin and size, another root.
    let mut rewritten = checkpoint_of(&transcript(3), 3);
    rewritten.root = crate::merkle::leaf_hash(b"rewritten");
    rewritten.origin = cp.origin.clone();
    let rewritten = read_checkpoint(rewritten.body().as_bytes()).unwrap();
    assert_eq!(
        problem(&rewritten, &new, &proof),
        (
            inconsistent,
            "old.cp (3 records) is not a prefix of the proof's checkpoint (5 records): the proof leads to another root".to_string()
        )
    );
}

#[test]
fn an_untrusted_checkpoint_names_who_signed_it() {
    let cp = sample();
    let (alice, bob) = (key("alice", 1), key("bob", 2));
    let text = read_checkpoint(cp.sign(&alice).unwrap().as_bytes()).unwrap();
    let admission = admit(&text, &[bob.verifier()], None);
    assert_eq!(
        admission.faults[0].detail.to_string(),
        alloc::format!(
            "none of the 1 trusted keys signed the checkpoint (signed by: alice+{:08x})",
            alice.id()
        )
    );
    let CheckpointText::Tlog { checkpoint, note } = text else {
        panic!("a signed checkpoint is a tlog one");
    };
    let mut note = note.unwrap();
    note.signatures.push(note.signatures[0].clone());
    note.signatures[1].name = "carol".to_string();
    let two = CheckpointText::Tlog {
        checkpoint: checkpoint.clone(),
        note: Some(note.clone()),
    };
    let detail = admit(&two, &[bob.verifier()], None).faults[0]
        .detail
        .to_string();
    assert!(
        detail.ends_with(&alloc::format!(
            "(signed by: alice+{0:08x}, carol+{0:08x})",
            alice.id()
        )),
        "{detail}"
    );
    note.signatures.clear();
    let none = CheckpointText::Tlog {
        checkpoint,
        note: Some(note),
    };
    assert!(admit(&none, &[bob.verifier()], None).faults[0]
        .detail
        .to_string()
        .ends_with("(signed by: nobody)"));
}

#[test]
fn proof_text_errors_say_what_is_wrong() {
    for (error, text) in [
        (ProofTextErrorKind::NotUtf8, "the proof is not UTF-8 text"),
        (
            ProofTextErrorKind::Header,
            "the first line is neither \"c2sp.org/tlog-proof@v1\" nor \"agentloop/tlog-consistency@v1\"",
        ),
        (
            ProofTextErrorKind::Extra,
            "the extra line is not \"extra <base64>\"",
        ),
        (
            ProofTextErrorKind::Position,
            "the \"index N\" (inclusion) or \"old N\" (consistency) line is missing or not a decimal integer",
        ),
        (
            ProofTextErrorKind::Hash(2),
            "proof hash 2 is not the base64 of 32 bytes",
        ),
        (
            ProofTextErrorKind::NoCheckpoint,
            "no blank line and checkpoint follow the proof hashes",
        ),
    ] {
        assert_eq!(error.to_string(), text);
    }
}

/// A v1 checkpoint is recognised by a leading `{`, so an origin starting with one (or
/// with white space) would make a checkpoint agentloop cannot read back: it is refused
/// where origins enter, with the reason.
#[test]
fn an_origin_that_would_not_read_back_is_refused() {
    let report = crate::verify::verify_bytes(&transcript(3), &Default::default());
    // The reason: such a body reads as a (malformed) v1 checkpoint.
    let mut bad = sample();
    bad.origin = "{example.com/log".to_string();
    assert!(matches!(
        read_checkpoint(bad.body().as_bytes()),
        Err(Malformed(MalformedKind::V1(_)))
    ));
    let cases = [
        ("", OriginErrorKind::Empty),
        ("{example.com/log", OriginErrorKind::LeadingBrace),
        ("{", OriginErrorKind::LeadingBrace),
        (" {example.com/log", OriginErrorKind::LeadingWhiteSpace),
        ("\u{a0}example.com", OriginErrorKind::LeadingWhiteSpace),
        (" example.com", OriginErrorKind::LeadingWhiteSpace),
        (
            "two\nlines",
            OriginErrorKind::ControlCharacter { found: '\n', at: 3 },
        ),
        (
            "a\u{85}b",
            OriginErrorKind::ControlCharacter {
                found: '\u{85}',
                at: 1,
            },
        ),
        (
            "\t{",
            OriginErrorKind::ControlCharacter { found: '\t', at: 0 },
        ),
    ];
    for (origin, want) in cases {
        assert_eq!(check_origin(origin), Err(want.into()), "{origin:?}");
        assert_eq!(
            report_checkpoint(&report, Some(origin.to_string())),
            Err(MakeCheckpointError::Origin(want.into())),
            "{origin:?}"
        );
    }
    assert_eq!(OriginErrorKind::Empty.to_string(), "the origin is empty");
    assert!(OriginErrorKind::LeadingBrace
        .to_string()
        .contains("starts with '{'"));
    assert!(OriginErrorKind::LeadingWhiteSpace
        .to_string()
        .contains("starts with white space"));
    assert!(OriginErrorKind::ControlCharacter { found: '\n', at: 3 }
        .to_string()
        .contains("'\\n' at byte 3"));
    // A brace or white space after the first character is fine.
    for origin in [
        "example.com/{log}",
        "a {",
        "a b+c",
        "agentloop/transcript/empty",
    ] {
        assert_eq!(check_origin(origin), Ok(()), "{origin:?}");
        let cp = report_checkpoint(&report, Some(origin.to_string())).unwrap();
        assert_eq!(cp.origin, origin);
    }
    // No origin given: the default one, always accepted.
    let cp = report_checkpoint(&report, None).unwrap();
    assert_eq!(check_origin(&cp.origin), Ok(()));
}

proptest::proptest! {
    /// Any origin `check_origin` accepts comes back from `read_checkpoint`, from the
    /// bare body and from the signed note, as the same checkpoint.
    #[test]
    fn every_accepted_origin_reads_back(
        origin in proptest::prop_oneof![
            "[{} \t\n\r\u{a0}\u{85}\u{2028}\u{feff}a/+.\\-—]{0,8}",
            proptest::arbitrary::any::<String>(),
        ],
        n in 0usize..4,
    ) {
        let bytes = transcript(n);
        let report = crate::verify::verify_bytes(&bytes, &Default::default());
        let Ok(cp) = report_checkpoint(&report, Some(origin.clone())) else {
            proptest::prop_assert!(check_origin(&origin).is_err());
            return Ok(());
        };
        proptest::prop_assert_eq!(&cp.origin, &origin);
        let body = cp.body();
        let signed = cp.sign(&key("alice", 1)).unwrap();
        proptest::prop_assert_eq!(
            read_checkpoint(body.as_bytes()),
            Ok(CheckpointText::Tlog { checkpoint: cp.clone(), note: None })
        );
        match read_checkpoint(signed.as_bytes()) {
            Ok(CheckpointText::Tlog { checkpoint, note: Some(_) }) => {
                proptest::prop_assert_eq!(checkpoint, cp);
            }
            other => proptest::prop_assert!(false, "{:?}", other),
        }
    }
}
