//! The streaming verifier against the allocating one (`verify`, `chain`, `json`): moved
//! from the transcript crate's `stream/tests.rs`, which has no allocating layer.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::anchor::Anchor;
use crate::chain::Chain;
use crate::hash::Hash;
use crate::json;
use crate::stream::*;
use crate::verify::{self, Options};

const SPEC_CHAIN: &str = concat!(
    r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#,
    "\n",
    r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#,
    "\n",
    r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#,
    "\n",
);

fn stream(bytes: &[u8], options: StreamOptions, chunk: usize) -> StreamReport {
    let mut v = StreamVerifier::new(options);
    for c in bytes.chunks(chunk.max(1)) {
        v.push(c);
    }
    v.finish()
}

type Row = (Option<u64>, Option<u64>, verify::FaultKind);

fn rows(report: &StreamReport) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

fn alloc_rows(report: &verify::Report) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

/// Streams `bytes` in 1-, 3- and all-byte chunks and checks the three reports agree
/// with each other and with the allocating verifier; returns the stream report.
fn same_as_alloc(bytes: &[u8], options: StreamOptions) -> StreamReport {
    let mut alloc_options = Options {
        anchor: options.anchor,
        max_line_bytes: options.max_line_bytes as usize,
        ..Options::default()
    };
    if let Some(cp) = options.checkpoint {
        alloc_options.checkpoint = Some(cp);
    }
    let expected = verify::verify_bytes(bytes, &alloc_options);
    let whole = stream(bytes, options, bytes.len());
    for chunk in [1, 3] {
        assert_eq!(stream(bytes, options, chunk), whole, "chunk {chunk}");
    }
    assert_eq!(
        rows(&whole),
        alloc_rows(&expected),
        "{}\nstream: {:#?}",
        String::from_utf8_lossy(bytes),
        whole.faults
    );
    assert_eq!(whole.count, expected.count);
    // After a non-canonical line the stream verifier does not know its hash (the
    // allocating one may); a head is not meaningful with faults anyway.
    if !whole
        .faults
        .iter()
        .any(|f| f.kind == FaultKind::NotCanonical)
    {
        assert_eq!(whole.head, expected.head);
        assert_eq!(whole.root, expected.root);
        assert_eq!(whole.first, expected.first);
    }
    assert_eq!(whole.beyond_checkpoint, expected.beyond_checkpoint);
    for f in &whole.faults {
        assert!(!format!("{f}").is_empty());
    }
    whole
}

fn kinds(report: &StreamReport) -> Vec<(u64, &'static str)> {
    report
        .faults
        .iter()
        .map(|f| (f.index.unwrap_or(u64::MAX), f.kind.as_str()))
        .collect()
}

#[test]
fn spec_chain_verifies_in_any_chunking() {
    for chunk in [1, 2, 7, 64, 4096] {
        let report = stream(SPEC_CHAIN.as_bytes(), StreamOptions::default(), chunk);
        assert!(report.ok(), "{:?}", report.faults);
        assert_eq!(report.count, 3);
        assert_eq!(
            format!("{}", report.head.unwrap()),
            "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"
        );
    }
    same_as_alloc(SPEC_CHAIN.as_bytes(), StreamOptions::default());
    let empty = stream(b"", StreamOptions::default(), 1);
    assert_eq!((empty.count, empty.head), (0, Some(Hash::ZERO)));
}

#[test]
fn write_record_matches_chain_append() {
    let mut chain = Chain::new();
    let mut state = ChainState::new();
    let mut buf = [0u8; 512];
    let mut out = Vec::new();
    for (kind, payload) in [
        ("task", r#"{"task":"add 2 and 40"}"#),
        (
            "assistant",
            r#"{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]}"#,
        ),
        ("tool", r#"{"name":"add","ok":true,"value":{"sum":42}}"#),
        ("k\u{1}\"é😀", r#"[1e+21,"\u0000",null,-5e-324]"#),
    ] {
        let len = state.append(&mut buf, kind, payload.as_bytes()).unwrap();
        let expected = chain.append_json(kind, payload.as_bytes()).unwrap();
        assert_eq!(&buf[..len], expected);
        out.extend_from_slice(&buf[..len]);
        assert_eq!(state.head(), chain.head());
    }
    assert!(out.starts_with(SPEC_CHAIN.as_bytes()));
    assert_eq!((state.count(), state.next_seq()), (4, 4));
    assert_eq!(state.anchor(), Anchor::GENESIS);
    assert!(same_as_alloc(&out, StreamOptions::default()).ok());
}

#[test]
fn write_record_refuses_a_line_past_the_limit_before_the_buffer_size() {
    let prev = Hash::ZERO;
    let overhead = write_record(&mut [0u8; 400], "k", b"\"\"", &prev, 0)
        .unwrap()
        .0
        - 1;
    let limit = MAX_LINE_BYTES as usize;
    let fits = limit - overhead;
    let payload = |n: usize| {
        let mut p = vec![b'a'; n + 2];
        p[0] = b'"';
        p[n + 1] = b'"';
        p
    };
    let mut buf = vec![0u8; limit + 1];
    let (len, _) = write_record(&mut buf, "k", &payload(fits), &prev, 0).unwrap();
    assert_eq!(len, limit + 1);
    assert!(same_as_alloc(&buf, StreamOptions::default()).ok());
    // Too long is said whatever the buffer: no buffer would do.
    for cap in [0, 400, limit + 2] {
        let mut buf = vec![0u8; cap];
        assert_eq!(
            write_record(&mut buf, "k", &payload(fits + 1), &prev, 0),
            Err(AppendError::LineTooLong {
                len: limit + 1,
                max: limit
            })
        );
    }
    let mut state = ChainState::new();
    assert_eq!(
        state.append(&mut buf, "k", &payload(fits + 1)),
        Err(AppendError::LineTooLong {
            len: limit + 1,
            max: limit
        })
    );
    assert_eq!(state, ChainState::new());
    assert_eq!(
        format!(
            "{}",
            AppendError::LineTooLong {
                len: limit + 1,
                max: limit
            }
        ),
        "the record's line would be 16777217 bytes, past the line limit of 16777216 \
         bytes: a verifier would refuse it"
    );
}

#[test]
fn write_record_refusals() {
    let mut buf = [0u8; 400];
    let prev = Hash::ZERO;
    assert_eq!(
        write_record(&mut buf, "", b"{}", &prev, 0),
        Err(AppendError::EmptyKind)
    );
    assert_eq!(
        write_record(&mut buf, "k", b"{}", &prev, crate::anchor::MAX_SEQ + 1),
        Err(AppendError::SeqExhausted)
    );
    for payload in [&b"{ }"[..], b"1.0", b"{\"b\":1,\"a\":2}", b"\"\\/\""] {
        match write_record(&mut buf, "k", payload, &prev, 0) {
            Err(AppendError::NotCanonical(CheckError {
                reason: CheckReason::Stop(Stop::NotCanonical(_)),
                ..
            })) => {}
            other => panic!("{}: {other:?}", String::from_utf8_lossy(payload)),
        }
    }
    let e = write_record(&mut buf, "k", b"9007199254740993", &prev, 0).unwrap_err();
    assert_eq!(
        e,
        AppendError::NotCanonical(CheckError {
            offset: 16,
            reason: CheckReason::Unserialisable(NumberProblem::InexactInteger)
        })
    );
    assert!(format!("{e}").contains("integer literal"));
    let needed = write_record(&mut buf, "k", b"{}", &prev, 7).unwrap().0;
    for small in [0, 1, needed - 1] {
        assert_eq!(
            write_record(&mut buf[..small], "k", b"{}", &prev, 7),
            Err(AppendError::BufferFull { needed })
        );
    }
    assert_eq!(
        write_record(&mut buf[..needed], "k", b"{}", &prev, 7)
            .unwrap()
            .0,
        needed
    );
    let mut state = ChainState::from_anchor(Anchor {
        seq0: crate::anchor::MAX_SEQ,
        prev0: Hash([3; 32]),
    });
    state.append(&mut buf, "k", b"null").unwrap();
    let before = state;
    assert_eq!(
        state.append(&mut buf, "k", b"null"),
        Err(AppendError::SeqExhausted)
    );
    assert_eq!(state, before);
    for e in [
        AppendError::EmptyKind,
        AppendError::SeqExhausted,
        AppendError::BufferFull { needed: 3 },
        AppendError::LineTooLong { len: 3, max: 2 },
    ] {
        assert!(!format!("{e}").is_empty());
    }
}

#[test]
fn check_canonical_accepts_exactly_canonical_bytes() {
    let ok: &[&str] = &[
        r#"{"\r":2,"a":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],"€":1,"😀":3,"ﬁ":4}"#,
        r#""\u0000\u001f\b\t\n\f\r\"\\/é""#,
        "[]",
        "{}",
        "[[],{},true,false,null,-1.5]",
        "\"\u{7f}\u{10ffff}\"",
        "0",
        "-0.0000033333333333333333",
    ];
    for s in ok {
        assert!(check_canonical(s.as_bytes(), MAX_DEPTH).is_ok(), "{s}");
        // The allocating encoder agrees.
        assert_eq!(
            crate::jcs::canonicalize(s.as_bytes()).unwrap(),
            s.as_bytes(),
            "{s}"
        );
    }
    let departures: &[&str] = &[
        " 1",
        "1 ",
        "[1, 2]",
        "{\"a\" :1}",
        r#""\/""#,
        r#""\u00e9""#,
        r#""\u001F""#,
        r#""\u000a""#,
        r#""\u0008""#,
        r#""\u0009""#,
        r#""\u000c""#,
        r#""\u000d""#,
        r#""\u0022""#,
        r#""\u005c""#,
        r#""\u002f""#,
        r#""\u0041""#,
        r#""\ud800""#,
        r#"{"b":1,"a":2}"#,
        r#"{"ﬁ":1,"😀":2}"#,
        "1.0",
        "-0",
        "1E21",
        "1e21",
        "0.10",
        "100000000000000000000000000000000000",
        "1.00000000000000000000000000000000000",
    ];
    for s in departures {
        let e = check_canonical(s.as_bytes(), MAX_DEPTH).unwrap_err();
        assert!(
            matches!(e.reason, CheckReason::Stop(Stop::NotCanonical(_))),
            "{s}: {e:?}"
        );
    }
    let bad: &[(&str, Syntax)] = &[
        ("", Syntax::UnexpectedEnd),
        ("{", Syntax::UnexpectedEnd),
        ("[1,]", Syntax::UnexpectedByte(b']')),
        ("[1}", Syntax::UnexpectedByte(b'}')),
        ("{\"a\"}", Syntax::UnexpectedByte(b'}')),
        ("{1:2}", Syntax::UnexpectedByte(b'1')),
        ("01", Syntax::InvalidNumber),
        ("1.", Syntax::InvalidNumber),
        ("1.e5", Syntax::InvalidNumber),
        ("-", Syntax::InvalidNumber),
        ("1e", Syntax::InvalidNumber),
        ("1e+", Syntax::InvalidNumber),
        ("NaN", Syntax::NonFiniteLiteral),
        ("-Infinity", Syntax::NonFiniteLiteral),
        ("tru", Syntax::UnexpectedEnd),
        ("trux", Syntax::UnexpectedByte(b'x')),
        ("\u{feff}1", Syntax::UnexpectedByte(0xef)),
        ("\"a\tb\"", Syntax::ControlCharacter),
        (r#""\x""#, Syntax::InvalidEscape),
        (r#""\u12g4""#, Syntax::InvalidEscape),
        (r#"{"a":1,"a":2}"#, Syntax::DuplicateKey),
        ("{}x", Syntax::TrailingCharacters),
        ("\"abc", Syntax::UnexpectedEnd),
    ];
    for (s, syntax) in bad {
        let e = check_canonical(s.as_bytes(), MAX_DEPTH).unwrap_err();
        assert_eq!(e.reason, CheckReason::Stop(Stop::Bad(*syntax)), "{s}");
        assert!(json::parse(s.as_bytes()).is_err(), "{s}");
    }
    for bytes in [
        &b"\"\xff\""[..],
        b"\"\xc0\x80\"",
        b"\"\xed\xa0\x80\"",
        b"\"\xf4\x90\x80\x80\"",
        b"\"\xe2\x82\"",
        b"\"\xe2\x82",
    ] {
        let e = check_canonical(bytes, MAX_DEPTH).unwrap_err();
        assert!(
            matches!(
                e.reason,
                CheckReason::Stop(Stop::Bad(Syntax::InvalidUtf8 | Syntax::UnexpectedEnd))
            ),
            "{bytes:?}: {e:?}"
        );
    }
    for (s, p) in [
        ("1e400", NumberProblem::OutOfRange),
        ("[-1e400]", NumberProblem::OutOfRange),
        ("1e-400", NumberProblem::Underflow),
        ("9007199254740993", NumberProblem::InexactInteger),
        ("1152921504606846976", NumberProblem::InexactInteger),
    ] {
        let e = check_canonical(s.as_bytes(), MAX_DEPTH).unwrap_err();
        assert_eq!(e.reason, CheckReason::Unserialisable(p), "{s}");
        assert!(json::parse(s.as_bytes())
            .unwrap_err()
            .kind
            .is_unserialisable());
    }
    for s in ["9007199254740992", "1152921504606847000", "0"] {
        assert!(check_canonical(s.as_bytes(), MAX_DEPTH).is_ok(), "{s}");
    }
}

#[test]
fn depth_and_key_limits() {
    let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert!(check_canonical(nested(MAX_DEPTH).as_bytes(), MAX_DEPTH).is_ok());
    let e = check_canonical(nested(MAX_DEPTH + 1).as_bytes(), MAX_DEPTH).unwrap_err();
    assert_eq!(e.reason, CheckReason::Stop(Stop::Bad(Syntax::TooDeep)));
    assert_eq!(e.offset, MAX_DEPTH);
    // The stream verifier allows 129 on a record line, as the allocating one does.
    let mut state = ChainState::new();
    let mut buf = alloc::vec![0u8; 1024];
    // A payload of the deepest nesting: its record line nests one deeper.
    let len = state
        .append(&mut buf, "k", nested(MAX_DEPTH).as_bytes())
        .unwrap();
    assert!(same_as_alloc(&buf[..len], StreamOptions::default()).ok());
    let deep = format!(
        "{{\"hash\":\"{}\",\"payload\":{}}}\n",
        "0".repeat(64),
        nested(MAX_DEPTH + 1)
    );
    let report = same_as_alloc(deep.as_bytes(), StreamOptions::default());
    assert_eq!(kinds(&report), [(0, "bad_json")]);

    let long_key = "k".repeat(MAX_KEY_BYTES);
    let ok = format!("{{\"{long_key}\":1}}");
    assert!(check_canonical(ok.as_bytes(), MAX_DEPTH).is_ok());
    let too_long = format!("{{\"{long_key}k\":1}}");
    let e = check_canonical(too_long.as_bytes(), MAX_DEPTH).unwrap_err();
    assert_eq!(e.reason, CheckReason::Stop(Stop::Limit(Limit::KeyTooLong)));
    assert_eq!(e.offset, 2 + MAX_KEY_BYTES);
    // Five open objects with a 250-byte last key each need 1250 bytes of key path.
    let key = "p".repeat(250);
    let path = format!("{{\"{key}\":").repeat(5) + "1" + &"}".repeat(5);
    let e = check_canonical(path.as_bytes(), MAX_DEPTH).unwrap_err();
    assert_eq!(
        e.reason,
        CheckReason::Stop(Stop::Limit(Limit::KeyPathTooLong))
    );
    assert!(json::parse(path.as_bytes()).is_ok());
    // Siblings do not add up: only the open path counts.
    let siblings: String = (0..20)
        .map(|i| format!("\"{i:02}{key}\":{{\"{key}\":1}}"))
        .collect::<Vec<_>>()
        .join(",");
    assert!(check_canonical(format!("{{{siblings}}}").as_bytes(), MAX_DEPTH).is_ok());
    // On a line, past a limit is bad_json naming the limit.
    let line = format!("{too_long}\n");
    let report = stream(line.as_bytes(), StreamOptions::default(), 1);
    assert_eq!(kinds(&report), [(0, "bad_json")]);
    let detail = format!("{}", report.faults[0].detail);
    assert!(detail.contains("limit of 256 bytes"), "{detail}");
}

fn forge(kind: &str, payload: &str, prev: &Hash, seq: &str, extra: &[(&str, &str)]) -> String {
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

#[test]
fn the_line_checker_seals_exactly_the_well_formed_canonical_records() {
    let lines: Vec<&[u8]> = SPEC_CHAIN
        .as_bytes()
        .split_inclusive(|b| *b == b'\n')
        .collect();
    let mut checker = LineChecker::default();
    let mut prev = Hash::ZERO;
    for (i, line) in lines.iter().enumerate() {
        let body = &line[..line.len() - 1];
        let value = json::parse(body).unwrap();
        let stored = value
            .as_object()
            .unwrap()
            .get("hash")
            .unwrap()
            .as_str()
            .unwrap();
        let stored = Hash::from_hex(stored.as_bytes()).unwrap();
        let want = Sealed {
            stored,
            computed: stored,
            prev,
            seq: i as f64,
        };
        assert_eq!(checker.check(body), Some(want), "line {i}");
        // The first line of the rest of the transcript: its length and the same seal.
        let rest = lines[i..].concat();
        assert_eq!(checker.check_first(&rest), Some((body.len(), Some(want))));
        prev = stored;
    }
    // A record whose stored hash is not its own: sealed, with the hash it should have.
    let forged = forge("note", "{}", &Hash::ZERO, "0", &[]);
    let tampered = forged.replacen("\"kind\":\"note\"", "\"kind\":\"nope\"", 1);
    let sealed = checker.check(tampered.as_bytes()).unwrap();
    assert_ne!(sealed.stored, sealed.computed);
    // Lines the fast path leaves to the caller: not canonical, not a record, not JSON,
    // an extra member, a scalar.
    let spaced = forged.replacen(',', ", ", 1);
    let extra = forge("note", "{}", &Hash::ZERO, "0", &[("x", "1")]);
    for other in [spaced.as_str(), "{}", "{", extra.as_str(), "1", "\"a\""] {
        assert_eq!(checker.check(other.as_bytes()), None, "{other}");
        let text = [other, "\n", &forged, "\n"].concat();
        assert_eq!(
            checker.check_first(text.as_bytes()),
            Some((other.len(), None)),
            "{other}"
        );
    }
    // A line the checker stops on early is searched for its end; no newline, no line.
    assert_eq!(
        checker.check_first(b"{\"a\":1, \"b\":2}\n"),
        Some((14, None))
    );
    // Also a line whose value is complete before a stray byte.
    assert_eq!(checker.check_first(b"{}x\n{}\n"), Some((3, None)));
    assert_eq!(checker.check_first(forged.as_bytes()), None);
    assert_eq!(checker.check_first(b"{ \"a\": 1"), None);
    // After a refused line the checker is as new.
    assert!(checker.check(forged.as_bytes()).is_some());
}

#[test]
fn details_of_edge_values_read_as_sentences() {
    // A number past the double range is named as such, alone and as a seq.
    assert_eq!(
        format!("{}", Found::Number(f64::INFINITY)),
        "a number outside the double range"
    );
    assert_eq!(format!("{}", Found::Number(-2.5)), "the number -2.5");
    let gap = |found| StreamDetail::SeqGap { expected: 4, found };
    assert_eq!(
        format!("{}", gap(Found::Number(f64::NEG_INFINITY))),
        "expected seq 4, found a number outside the double range"
    );
    assert_eq!(
        format!("{}", gap(Found::Number(7.0))),
        "expected seq 4, found 7"
    );
    assert_eq!(
        format!("{}", gap(Found::Number(9007199254740992.0))),
        "expected seq 4, found 9007199254740992, past the largest seq 2^53-1 (9007199254740991)"
    );
    // One unexpected member: no "and 0 more".
    let mut first = heapless::String::new();
    first.push_str("zz").unwrap();
    assert_eq!(
        format!("{}", StreamDetail::Unexpected { count: 1, first }),
        "unexpected member 'zz'; a record has only hash, kind, payload, prev and seq"
    );
}

/// A found string is named by its canonical encoding: whole when it fits in
/// `EXCERPT_BYTES`, else cut at a character with its length; control characters JSON
/// does not escape are escaped in the sentence.
#[test]
fn found_strings_read_as_excerpts() {
    let shown = |text: &str| format!("{}", Found::of_str(text));
    assert_eq!(shown(""), "\"\"");
    assert_eq!(shown("xy"), "\"xy\"");
    assert_eq!(shown("a\"b\n"), "\"a\\\"b\\n\"");
    assert_eq!(shown("\u{7f}\u{85}"), "\"\\u{7f}\\u{85}\"");
    let long = "x".repeat(EXCERPT_BYTES + 1);
    assert_eq!(
        shown(&long),
        format!(
            "\"{}…\" ({} bytes)",
            &long[..EXCERPT_BYTES],
            EXCERPT_BYTES + 1
        )
    );
    // Cut at a character: 39 bytes of 'x' and a two-byte 'é' does not fit in 40.
    let accented = format!("{}é", "x".repeat(EXCERPT_BYTES - 1));
    assert_eq!(
        shown(&accented),
        format!(
            "\"{}…\" ({} bytes)",
            "x".repeat(EXCERPT_BYTES - 1),
            EXCERPT_BYTES + 1
        )
    );
    // The streaming verifier names a found seq string the same way as of_str.
    let line = format!(
        "{{\"hash\":\"{}\",\"kind\":\"k\",\"payload\":null,\"prev\":\"{}\",\"seq\":\"{long}\"}}\n",
        Hash::ZERO,
        Hash::ZERO
    );
    let report = stream(line.as_bytes(), StreamOptions::default(), 3);
    let gap = report
        .faults
        .iter()
        .find(|f| f.kind == FaultKind::SeqGap)
        .unwrap();
    assert_eq!(
        gap.detail,
        StreamDetail::SeqGap {
            expected: 0,
            found: Found::of_str(&long)
        }
    );
}

#[test]
fn a_report_is_ok_only_without_any_fault() {
    let good = stream(SPEC_CHAIN.as_bytes(), StreamOptions::default(), 7);
    assert!(good.ok());
    // One fault kept, none omitted.
    let torn = stream(&SPEC_CHAIN.as_bytes()[..40], StreamOptions::default(), 7);
    assert_eq!((torn.faults.len(), torn.faults_omitted), (1, 0));
    assert!(!torn.ok());
    // Only omitted faults (not a state the verifier leaves, but what `ok` says of it).
    let omitted = StreamReport {
        faults: heapless::Vec::new(),
        faults_omitted: 1,
        ..good.clone()
    };
    assert!(!omitted.ok());
}

#[test]
fn a_chain_from_an_anchor_counts_from_its_seq0() {
    let anchor = Anchor {
        seq0: 10,
        prev0: Hash([3; 32]),
    };
    let mut state = ChainState::from_anchor(anchor);
    assert_eq!(
        (state.count(), state.next_seq(), state.head()),
        (0, 10, anchor.prev0)
    );
    let mut buf = [0u8; 512];
    let mut out = Vec::new();
    for i in 0..2 {
        let len = state
            .append(&mut buf, "note", format!("{{\"i\":{i}}}").as_bytes())
            .unwrap();
        out.extend_from_slice(&buf[..len]);
    }
    assert_eq!(
        (state.count(), state.next_seq(), state.anchor()),
        (2, 12, anchor)
    );
    let options = StreamOptions {
        anchor,
        ..StreamOptions::default()
    };
    let report = same_as_alloc(&out, options);
    assert!(report.ok());
    assert_eq!(report.head, Some(state.head()));
}

#[test]
fn a_seq_past_the_double_range_is_not_a_number_and_counting_goes_on() {
    let first = forge("k", "1", &Hash::ZERO, "1e400", &[]);
    // (json::parse refuses 1e400, so the hash is read from the text.)
    let at = first.find("\"hash\":\"").unwrap() + 8;
    let stored = Hash::from_hex(&first.as_bytes()[at..at + 64]).unwrap();
    let second = forge("k", "1", &stored, "1", &[]);
    let text = format!("{first}\n{second}\n");
    let report = same_as_alloc(text.as_bytes(), StreamOptions::default());
    // Line 1's seq is "not a number" (not the number infinity), so line 2 is expected
    // at seq 1, as the line after any unreadable seq, and has no fault.
    assert!(
        report.faults.iter().all(|f| f.index == Some(0)),
        "{report:?}"
    );
    let gap = report
        .faults
        .iter()
        .find(|f| f.kind == FaultKind::SeqGap)
        .unwrap();
    assert_eq!(
        format!("{}", gap.detail),
        "expected seq 0, found a number outside the double range"
    );
}

#[test]
fn the_count_so_far_is_of_complete_lines() {
    let bytes = SPEC_CHAIN.as_bytes();
    let first_end = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    let mut v = StreamVerifier::new(StreamOptions::default());
    assert_eq!(v.count(), 0);
    v.push(&bytes[..first_end + 10]);
    assert_eq!(v.count(), 1);
    v.push(&bytes[first_end + 10..]);
    assert_eq!(v.count(), 3);
    assert_eq!(v.finish().count, 3);
}

#[test]
fn a_line_of_exactly_the_limit_is_read_and_a_missing_seq_counts_on() {
    let first = SPEC_CHAIN.as_bytes().split(|b| *b == b'\n').next().unwrap();
    let limit = |n: usize| StreamOptions {
        max_line_bytes: n as u64,
        ..StreamOptions::default()
    };
    let line = [first, b"\n"].concat();
    assert!(same_as_alloc(&line, limit(first.len())).ok());
    assert_eq!(
        kinds(&same_as_alloc(&line, limit(first.len() - 1))),
        [(0, "bad_json")]
    );
    // A record without seq: the next one is expected at seq 1.
    let no_seq = r#"{"hash":"0000000000000000000000000000000000000000000000000000000000000000","kind":"k","payload":1,"prev":"0000000000000000000000000000000000000000000000000000000000000000"}"#;
    let second = forge("k", "1", &Hash::ZERO, "1", &[]);
    let text = format!("{no_seq}\n{second}\n");
    let report = same_as_alloc(text.as_bytes(), StreamOptions::default());
    assert!(
        report.faults.iter().all(|f| f.index == Some(0)),
        "{report:?}"
    );
}

/// Found by the CI fuzz smoke run (2026-12-03): a line that is one number literal with
/// no canonical form. The stream verifier cannot tell it from a misspelt number
/// (`not_canonical`); the allocating verifier reads the line and finds no object.
#[test]
fn a_line_that_is_one_unserialisable_number_is_not_canonical_here_and_not_an_object_there() {
    let line = format!("{}\n", "3".repeat(60));
    let report = stream(line.as_bytes(), StreamOptions::default(), 7);
    assert_eq!(kinds(&report), [(0, "not_canonical")]);
    assert!(matches!(
        report.faults[0].detail,
        StreamDetail::NotCanonical {
            departure: Departure::NumberSpelling,
            ..
        }
    ));
    let alloc = verify::verify_bytes(line.as_bytes(), &verify::Options::default());
    let found: Vec<FaultKind> = alloc.faults.iter().map(|f| f.kind).collect();
    assert_eq!(found, [FaultKind::NotAnObject]);
    assert_eq!(report.count, alloc.count);
}

#[test]
fn the_streaming_limits_are_the_allocating_verifiers() {
    assert_eq!(MAX_LINE_BYTES, verify::MAX_LINE_BYTES as u64);
    assert_eq!(MAX_DEPTH, json::MAX_DEPTH);
}
