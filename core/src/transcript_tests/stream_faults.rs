//! The streaming verifier's faults, anchors, checkpoints and Merkle roots against the
//! allocating verifier's (split from `stream.rs`, which keeps the helpers).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::stream::{kinds, same_as_alloc, stream};
use crate::anchor::Anchor;
use crate::chain::Chain;
use crate::hash::Hash;
use crate::json;
use crate::stream::*;

pub(super) fn forge(
    kind: &str,
    payload: &str,
    prev: &Hash,
    seq: &str,
    extra: &[(&str, &str)],
) -> String {
    // Members in canonical order, the hash over the record without it.
    let mut members: Vec<(String, String)> = Vec::new();
    members.push((
        "kind".into(),
        String::from_utf8(crate::jcs::to_vec(&json::Value::from(kind)).unwrap()).unwrap(),
    ));
    members.push(("payload".into(), payload.into()));
    members.push(("prev".into(), format!("\"{prev}\"")));
    members.push(("seq".into(), seq.into()));
    for (k, v) in extra {
        members.push(((*k).into(), (*v).into()));
    }
    members.sort_by(|a, b| json::cmp_keys(&a.0, &b.0));
    let body = |ms: &[(String, String)]| {
        let inner: Vec<String> = ms.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        format!("{{{}}}", inner.join(","))
    };
    let hash = Hash(Sha256::digest(body(&members).as_bytes()).into());
    members.push(("hash".into(), format!("\"{hash}\"")));
    members.sort_by(|a, b| json::cmp_keys(&a.0, &b.0));
    body(&members)
}

use sha2::{Digest, Sha256};

#[test]
fn record_faults_match_the_allocating_verifier() {
    let z = Hash::ZERO;
    let good = forge("task", "{}", &z, "0", &[]);
    let cases: Vec<(String, Vec<(u64, &str)>)> = alloc::vec![
        (format!("{good}\n"), alloc::vec![]),
        // A member sorting before `hash` is still covered by the hash.
        (
            format!("{}\n", forge("k", "1", &z, "0", &[("a", "true")])),
            alloc::vec![(0, "unexpected_fields")],
        ),
        (
            format!(
                "{}\n",
                forge("k", "1", &z, "0", &[("zz", "[]"), ("q", "{}")])
            ),
            alloc::vec![(0, "unexpected_fields")],
        ),
        // Keys hashed as their canonical encoding: with escapes (re-encoded) and
        // without (the key between quotes), ASCII or not.
        (
            format!(
                "{}\n",
                forge(
                    "k",
                    "1",
                    &z,
                    "0",
                    &[
                        ("w\\u0001", "1"),
                        ("x\\\"q", "2"),
                        ("y\\\\", "3"),
                        ("zé", "4")
                    ]
                )
            ),
            alloc::vec![(0, "unexpected_fields")],
        ),
        (
            format!("{}\n", forge("", "1", &z, "0", &[])),
            alloc::vec![(0, "missing_fields")],
        ),
        (
            format!("{}\n", forge("k", "1", &z, "\"0\"", &[])),
            alloc::vec![(0, "seq_gap")],
        ),
        (
            format!("{}\n", forge("k", "1", &z, "5", &[])),
            alloc::vec![(0, "seq_gap")],
        ),
        (
            format!("{}\n", forge("k", "1", &Hash([1; 32]), "0", &[])),
            alloc::vec![(0, "prev_mismatch")],
        ),
        (
            format!("{}\n", forge("k", "[1e400]", &z, "0", &[])),
            alloc::vec![(0, "unserialisable_payload")],
        ),
        (
            format!("{}\n", forge("k", "1", &z, "9007199254740993", &[])),
            alloc::vec![(0, "unserialisable_payload"), (0, "seq_gap")],
        ),
        (
            format!("{}\n", forge("k", "1", &z, "1e400", &[])),
            alloc::vec![(0, "unserialisable_payload"), (0, "seq_gap")],
        ),
        (
            format!("{}\n", good.replace("\"task\"", "\"tusk\"")),
            alloc::vec![(0, "hash_mismatch")],
        ),
        (
            format!(
                "{}\n",
                good.replace(&good[9..73], &good[9..73].to_uppercase())
            ),
            alloc::vec![(0, "hash_mismatch")],
        ),
        (
            String::from("{\"hash\":1,\"kind\":2,\"prev\":null,\"seq\":true}\n"),
            alloc::vec![
                (0, "missing_fields"),
                (0, "hash_mismatch"),
                (0, "seq_gap"),
                (0, "prev_mismatch")
            ],
        ),
        (
            String::from("{\"hash\":\"\",\"prev\":\"abc\",\"seq\":0}\n"),
            alloc::vec![
                (0, "missing_fields"),
                (0, "hash_mismatch"),
                (0, "prev_mismatch")
            ],
        ),
        (String::from("{}\n"), alloc::vec![(0, "missing_fields")]),
        (String::from("[]\n"), alloc::vec![(0, "not_an_object")]),
        (
            String::from("\"x\"\n1\nnull\n"),
            alloc::vec![
                (0, "not_an_object"),
                (1, "not_an_object"),
                (2, "not_an_object")
            ]
        ),
        (String::from("1e400\n"), alloc::vec![(0, "not_an_object")]),
        (String::from("\n"), alloc::vec![(0, "bad_json")]),
        (
            String::from("{\"a\":1,\"a\":2}\n"),
            alloc::vec![(0, "bad_json")]
        ),
        (String::from("{\"a\":tru}\n"), alloc::vec![(0, "bad_json")]),
        (String::from("\u{feff}{}\n"), alloc::vec![(0, "bad_json")]),
        (
            String::from("{\"a\":\"\t\"}\n"),
            alloc::vec![(0, "bad_json")]
        ),
        (String::from("{\"a\":1}}\n"), alloc::vec![(0, "bad_json")]),
        (String::from("{\"a\":1\n"), alloc::vec![(0, "bad_json")]),
        (format!("{good}\n{good}"), alloc::vec![(1, "torn_tail")]),
        (
            format!("{good}\n{good}\n"),
            alloc::vec![(1, "seq_gap"), (1, "prev_mismatch")],
        ),
        // After an unreadable line, prev is not checked and seq counts on.
        (
            format!("[]\n{}\n", forge("k", "1", &Hash([9; 32]), "1", &[])),
            alloc::vec![(0, "not_an_object")],
        ),
        // Non-canonical lines whose content is fine: not_canonical alone in both.
        (format!("{} \n", good), alloc::vec![(0, "not_canonical")]),
        (format!("{}\r\n", good), alloc::vec![(0, "not_canonical")],),
        (
            format!("{}\n", good.replace("\"payload\":{}", "\"payload\":{ }")),
            alloc::vec![(0, "not_canonical")],
        ),
        (
            format!("{}\n", good.replace("\"task\"", "\"t\\u0061sk\"")),
            alloc::vec![(0, "not_canonical")],
        ),
        (
            format!("{}\n", good.replace("\"seq\":0", "\"seq\":0.0")),
            alloc::vec![(0, "not_canonical")],
        ),
    ];
    for (text, expected) in cases {
        let report = same_as_alloc(text.as_bytes(), StreamOptions::default());
        assert_eq!(kinds(&report), expected, "{text}");
    }
}

#[test]
fn anchors_checkpoints_and_fault_cap() {
    let mut state = ChainState::from_anchor(Anchor {
        seq0: 5,
        prev0: Hash([7; 32]),
    });
    let mut bytes = Vec::new();
    let mut buf = [0u8; 256];
    for i in 0..3 {
        let len = state
            .append(&mut buf, "note", format!("{{\"i\":{i}}}").as_bytes())
            .unwrap();
        bytes.extend_from_slice(&buf[..len]);
    }
    let anchored = StreamOptions {
        anchor: state.anchor(),
        ..StreamOptions::default()
    };
    assert!(same_as_alloc(&bytes, anchored).ok());
    assert_eq!(
        kinds(&same_as_alloc(&bytes, StreamOptions::default())),
        [(0, "seq_gap"), (0, "prev_mismatch")]
    );
    let head = state.head();
    for (count, head, expected) in [
        (3, Some(head), alloc::vec![]),
        (2, Some(head), alloc::vec![(1, "head_mismatch")]),
        (5, Some(head), alloc::vec![(3, "truncated")]),
        (0, Some(Hash([7; 32])), alloc::vec![]),
        (0, Some(head), alloc::vec![(u64::MAX, "head_mismatch")]),
        (3, None, alloc::vec![]),
    ] {
        let options = StreamOptions {
            checkpoint: Some(Checkpoint {
                count,
                head,
                ..Default::default()
            }),
            ..anchored
        };
        let report = same_as_alloc(&bytes, options);
        assert_eq!(kinds(&report), expected, "{count}");
    }
    // A head mismatch is placed in line order among line faults.
    let mut tampered = bytes.clone();
    tampered.extend_from_slice(b"[]\n");
    let options = StreamOptions {
        checkpoint: Some(Checkpoint {
            count: 2,
            head: Some(head),
            ..Default::default()
        }),
        ..anchored
    };
    let report = same_as_alloc(&tampered, options);
    assert_eq!(kinds(&report), [(1, "head_mismatch"), (3, "not_an_object")]);
    // More faults than MAX_FAULTS: counted, not kept; the checkpoint fault is kept.
    let many = "[]\n".repeat(MAX_FAULTS + 3);
    let options = StreamOptions {
        checkpoint: Some(Checkpoint {
            count: 100,
            head: None,
            ..Default::default()
        }),
        ..StreamOptions::default()
    };
    let report = stream(many.as_bytes(), options, 5);
    assert_eq!(report.faults.len(), MAX_FAULTS + 1);
    assert_eq!(report.faults_omitted, 3);
    assert_eq!(report.faults[MAX_FAULTS].kind, FaultKind::Truncated);
    assert!(!report.ok());
}

#[test]
fn long_lines_are_bad_json_as_in_the_allocating_verifier() {
    let good = forge("task", "{}", &Hash::ZERO, "0", &[]);
    let options = StreamOptions {
        max_line_bytes: 40,
        ..StreamOptions::default()
    };
    let text = format!("{good}\n{}\n", " ".repeat(41));
    let report = same_as_alloc(text.as_bytes(), options);
    assert_eq!(kinds(&report), [(0, "bad_json"), (1, "bad_json")]);
    assert!(format!("{}", report.faults[0].detail).contains("more than the limit of 40"));
}

#[test]
fn details_read_as_sentences() {
    let z = Hash::ZERO;
    let text = format!(
        "{}\n{{\"hash\":1,\"kind\":\"\",\"seq\":\"x\",\"zz\":1,\"zzz\":2}}\n{{ }}\n",
        forge("k", "1", &Hash([1; 32]), "3", &[])
    );
    let report = stream(text.as_bytes(), StreamOptions::default(), 1);
    let shown: Vec<String> = report.faults.iter().map(|f| format!("{f}")).collect();
    assert_eq!(
        shown,
        [
            "line 1: seq_gap: expected seq 0, found 3",
            "line 1: prev_mismatch: expected prev 0000000000000000000000000000000000000000000000000000000000000000 (the anchor's prev0), found 0101010101010101010101010101010101010101010101010101010101010101",
            "line 2: missing_fields: missing 'payload', 'prev'; kind must be a non-empty string, found \"\"",
            "line 2: unexpected_fields: unexpected member 'zz' and 1 more; a record has only hash, kind, payload, prev and seq",
            "line 2: hash_mismatch: hash must be 64 lowercase hex digits, found the number 1",
            "line 2: seq_gap: expected seq 4, found \"x\"",
            "line 3: not_canonical: the line is not in canonical (RFC 8785) form: white space between tokens at column 2",
        ]
    );
    let _ = z;
}

#[test]
fn the_merkle_root_and_checkpoint_roots_agree_with_the_allocating_verifier() {
    use crate::merkle::{record_leaf, root_of};
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    let mut hashes = Vec::new();
    for i in 0..5 {
        let payload = format!("{{\"i\":{i}}}");
        bytes.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
        hashes.push(chain.head());
    }
    let leaves: Vec<Hash> = hashes.iter().map(record_leaf).collect();
    let whole = same_as_alloc(&bytes, StreamOptions::default());
    assert_eq!(whole.root, Some(root_of(&leaves)));
    let good = Checkpoint {
        count: 3,
        head: Some(hashes[2]),
        root: Some(root_of(&leaves[..3])),
        first: Some(hashes[0]),
    };
    let with = |cp| StreamOptions {
        checkpoint: Some(cp),
        ..StreamOptions::default()
    };
    assert!(same_as_alloc(&bytes, with(good)).ok());
    // A root that the records do not give, with the right head: head_mismatch at 2.
    let bad_root = Checkpoint {
        root: Some(root_of(&leaves[..2])),
        ..good
    };
    let report = same_as_alloc(&bytes, with(bad_root));
    assert_eq!(kinds(&report), [(2, "head_mismatch")]);
    assert!(format!("{}", report.faults[0]).contains("Merkle root"));
    // Another transcript's checkpoint: origin mismatch and nothing else.
    let other = Checkpoint {
        first: Some(hashes[1]),
        count: 9,
        ..good
    };
    let report = same_as_alloc(&bytes, with(other));
    assert_eq!(kinds(&report), [(0, "checkpoint_origin_mismatch")]);
    assert!(format!("{}", report.faults[0]).contains("another transcript"));
    // No records at all: nothing to name another transcript, so the cut is what the
    // checkpoint shows (its origin is judged only against a record 0 that was read).
    let report = same_as_alloc(b"", with(good));
    let found: Vec<&str> = kinds(&report).into_iter().map(|(_, kind)| kind).collect();
    assert_eq!(found, ["truncated"]);
}
