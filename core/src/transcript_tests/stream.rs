//! The streaming verifier against the allocating one (`verify`, `chain`, `json`): moved
//! from the transcript crate's `stream/tests.rs`, which has no allocating layer.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::stream_faults::forge;
use crate::anchor::Anchor;
use crate::fixed::finding::*;
use crate::hash::Hash;
use crate::json;
use crate::stream::*;
use crate::verify::{self, Options};

pub(super) const SPEC_CHAIN: &str = concat!(
    r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#,
    "\n",
    r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#,
    "\n",
    r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#,
    "\n",
);

pub(super) fn stream(bytes: &[u8], options: StreamOptions, chunk: usize) -> StreamReport {
    let mut v = StreamVerifier::new(options);
    for c in bytes.chunks(chunk.max(1)) {
        v.push(c);
    }
    v.finish()
}

type Row = (Option<u64>, Option<u64>, verify::FaultKind);

pub(super) fn rows(report: &StreamReport) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

pub(super) fn alloc_rows(report: &verify::Report) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

/// Streams `bytes` in 1-, 3- and all-byte chunks and checks the three reports agree
/// with each other and with the allocating verifier; returns the stream report.
pub(super) fn same_as_alloc(bytes: &[u8], options: StreamOptions) -> StreamReport {
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

pub(super) fn kinds(report: &StreamReport) -> Vec<(u64, &'static str)> {
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
            matches!(e.reason(), CheckReason::Stop(Stop::NotCanonical(_))),
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
        assert_eq!(e.reason(), CheckReason::Stop(Stop::Bad(*syntax)), "{s}");
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
                e.reason(),
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
        assert_eq!(e.reason(), CheckReason::Unserialisable(p), "{s}");
        assert!(json::parse(s.as_bytes()).unwrap_err().is_unserialisable());
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
    assert_eq!(e.reason(), CheckReason::Stop(Stop::Bad(Syntax::TooDeep)));
    assert_eq!(e.offset(), MAX_DEPTH);
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
    assert_eq!(
        e.reason(),
        CheckReason::Stop(Stop::Limit(Limit::KeyTooLong))
    );
    assert_eq!(e.offset(), 2 + MAX_KEY_BYTES);
    // Five open objects with a 250-byte last key each need 1250 bytes of key path.
    let key = "p".repeat(250);
    let path = format!("{{\"{key}\":").repeat(5) + "1" + &"}".repeat(5);
    let e = check_canonical(path.as_bytes(), MAX_DEPTH).unwrap_err();
    assert_eq!(
        e.reason(),
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
    let gap = |found| Finding::SeqGap { expected: 4, found };
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
        format!("{}", Finding::Unexpected { count: 1, first }),
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
        Finding::SeqGap {
            expected: 0,
            found: Found::of_str(&long)
        }
        .into()
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
    assert_eq!(
        report.faults[0].detail.departure(),
        Some(Departure::NumberSpelling)
    );
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
