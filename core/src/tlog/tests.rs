use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::proof::{CONSISTENCY_HEADER, INCLUSION_HEADER};
use super::*;
use crate::chain::Chain;
use crate::fault_kind::FaultKind;
use crate::hash::Hash;
use crate::merkle::root_of;
use crate::note::{SignerKey, VerifierKey};

fn transcript(n: usize) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for i in 0..n {
        let payload = alloc::format!("{{\"i\":{i}}}");
        out.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
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
    assert_eq!(with(0, "", &mut lines), Err(Malformed::Origin));
    for size in ["", "03", "-1", "1.0", "9007199254740993", " 3"] {
        assert_eq!(with(1, size, &mut lines), Err(Malformed::Size), "{size:?}");
    }
    assert_eq!(with(2, "AAAA", &mut lines), Err(Malformed::Root));
    assert_eq!(with(3, "", &mut lines), Err(Malformed::Extension(1)));
    assert_eq!(with(3, "head 00", &mut lines), Err(Malformed::Extension(1)));
    assert_eq!(
        TlogCheckpoint::parse_body(&[body.as_str(), "head ", &"0".repeat(64), "\n"].concat()),
        Err(Malformed::Extension(2))
    );
    assert_eq!(
        TlogCheckpoint::parse_body("a\n1\n"),
        Err(Malformed::MissingLines)
    );
    assert_eq!(
        TlogCheckpoint::parse_body(body.trim_end()),
        Err(Malformed::MissingLines)
    );
    assert_eq!(read_checkpoint(b"\xff\n"), Err(Malformed::NotUtf8));
    assert!(matches!(
        read_checkpoint(b"{\"count\":-1}"),
        Err(Malformed::V1(_))
    ));
    assert!(matches!(
        read_checkpoint([body.as_str(), "\nnot a signature\n"].concat().as_bytes()),
        Err(Malformed::Note(_))
    ));
    for m in [
        Malformed::Origin,
        Malformed::Size,
        Malformed::Root,
        Malformed::Extension(1),
        Malformed::MissingLines,
        Malformed::NotUtf8,
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
        Err(ProofTextError::Header)
    );
    assert_eq!(
        InclusionProof::parse(ctext.as_bytes()),
        Err(ProofTextError::Header)
    );
    assert_eq!(
        InclusionProof::parse(text.replace("index 2", "index 02").as_bytes()),
        Err(ProofTextError::Position)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        InclusionProof::parse(text.replace(lines[3], "AAAA").as_bytes()),
        Err(ProofTextError::Hash(1))
    );
    assert_eq!(
        InclusionProof::parse(text.replace("extra ", "extra !").as_bytes()),
        Err(ProofTextError::Extra)
    );
    assert_eq!(
        InclusionProof::parse(text.split("\n\n").next().unwrap().as_bytes()),
        Err(ProofTextError::NoCheckpoint)
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
}

/// A v1 checkpoint is recognised by a leading `{`, so an origin starting with one (or
/// with white space) would make a checkpoint agentloop cannot read back: it is refused
/// where origins enter, with the reason.
#[test]
fn an_origin_that_would_not_read_back_is_refused() {
    let (leaves, _) = leaves_of(&transcript(3)).unwrap();
    let report = crate::verify::verify_bytes(&transcript(3), &Default::default());
    // The reason: such a body reads as a (malformed) v1 checkpoint.
    let mut bad = sample();
    bad.origin = "{example.com/log".to_string();
    assert!(matches!(
        read_checkpoint(bad.body().as_bytes()),
        Err(Malformed::V1(_))
    ));
    let cases = [
        ("", OriginError::Empty),
        ("{example.com/log", OriginError::LeadingBrace),
        ("{", OriginError::LeadingBrace),
        (" {example.com/log", OriginError::LeadingWhiteSpace),
        ("\u{a0}example.com", OriginError::LeadingWhiteSpace),
        (" example.com", OriginError::LeadingWhiteSpace),
        (
            "two\nlines",
            OriginError::ControlCharacter { found: '\n', at: 3 },
        ),
        (
            "a\u{85}b",
            OriginError::ControlCharacter {
                found: '\u{85}',
                at: 1,
            },
        ),
        ("\t{", OriginError::ControlCharacter { found: '\t', at: 0 }),
    ];
    for (origin, want) in cases {
        assert_eq!(check_origin(origin), Err(want), "{origin:?}");
        assert_eq!(
            transcript_checkpoint(&report, &leaves, Some(origin.to_string())),
            Err(want),
            "{origin:?}"
        );
    }
    assert_eq!(OriginError::Empty.to_string(), "the origin is empty");
    assert!(OriginError::LeadingBrace
        .to_string()
        .contains("starts with '{'"));
    assert!(OriginError::LeadingWhiteSpace
        .to_string()
        .contains("starts with white space"));
    assert!(OriginError::ControlCharacter { found: '\n', at: 3 }
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
        let cp = transcript_checkpoint(&report, &leaves, Some(origin.to_string())).unwrap();
        assert_eq!(cp.origin, origin);
    }
    // No origin given: the default one, always accepted.
    let cp = transcript_checkpoint(&report, &leaves, None).unwrap();
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
        let (leaves, _) = leaves_of(&bytes).unwrap();
        let Ok(cp) = transcript_checkpoint(&report, &leaves, Some(origin.clone())) else {
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
