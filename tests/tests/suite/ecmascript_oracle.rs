//! Differential test of the canonical encoding against ECMAScript itself: node's
//! `JSON.parse`, a key sort by UTF-16 code units (JavaScript's default sort) and
//! `JSON.stringify` for strings and numbers — which is what RFC 8785 defines.

use agentloop_core::jcs::canonicalize;
use agentloop_core::json::ParseErrorKind;
use agentloop_tests::{
    ecmascript_canonical, have_program, random_document, skip_or_fail, write_noisy, XorShift,
};

const DOCUMENTS: usize = 3000;
const SEED: u64 = 0x00a9_e471_0095_2026;

#[test]
fn canonical_form_matches_ecmascript_json_stringify() {
    if !have_program("node") {
        skip_or_fail("skipped: node not found");
        return;
    }
    let mut rng = XorShift::new(SEED);
    let mut inputs: Vec<String> = vec![
        // SPEC section 5.
        r#"{"€":1,"\r":2,"😀":3,"ﬁ":4,"a":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}"#.to_string(),
    ];
    while inputs.len() < DOCUMENTS {
        let value = random_document(&mut rng);
        let mut line = String::new();
        write_noisy(&value, &mut rng, &mut line);
        inputs.push(line);
    }
    let expected_owned = ecmascript_canonical(&inputs);
    let expected: Vec<&[u8]> = expected_owned.iter().map(Vec::as_slice).collect();
    assert_eq!(expected.len(), inputs.len(), "one output line per document");
    assert_eq!(
        expected[0],
        r#"{"\r":2,"a":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],"€":1,"😀":3,"ﬁ":4}"#
            .as_bytes(),
        "the oracle itself meets SPEC section 5"
    );
    let mut mismatches = Vec::new();
    let mut noncanonical_inputs = 0;
    for (n, (input, want)) in inputs.iter().zip(&expected).enumerate() {
        if input.as_bytes() != *want {
            noncanonical_inputs += 1;
        }
        match canonicalize(input.as_bytes()) {
            Ok(got) if got == *want => {}
            Ok(got) => mismatches.push(format!(
                "line {}:\n  input   {input}\n  node    {}\n  ours    {}",
                n + 1,
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(&got)
            )),
            Err(e) => mismatches.push(format!(
                "line {}: refused ({e}):\n  input   {input}\n  node    {}",
                n + 1,
                String::from_utf8_lossy(want)
            )),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} documents differ from ECMAScript:\n{}",
        mismatches.len(),
        inputs.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    // The corpus must exercise canonicalisation, not just copy canonical input.
    assert!(
        noncanonical_inputs > DOCUMENTS * 8 / 10,
        "{noncanonical_inputs}"
    );
}

#[test]
fn inputs_without_a_canonical_form_are_refused() {
    let deep_closed = "[".repeat(200) + &"]".repeat(200);
    let deep_open = "[".repeat(200);
    let cases: Vec<(&str, Vec<u8>, ParseErrorKind)> = vec![
        (
            "inexact integer",
            b"9007199254740993".to_vec(),
            ParseErrorKind::InexactInteger,
        ),
        (
            "inexact integer in an array",
            b"[1,-9007199254740993]".to_vec(),
            ParseErrorKind::InexactInteger,
        ),
        (
            "inexact 2^60",
            b"1152921504606846976".to_vec(),
            ParseErrorKind::InexactInteger,
        ),
        (
            "out of range",
            b"1e400".to_vec(),
            ParseErrorKind::NumberOutOfRange,
        ),
        (
            "out of range, negative",
            b"{\"a\":-1.5e308000}".to_vec(),
            ParseErrorKind::NumberOutOfRange,
        ),
        (
            "underflow",
            b"1e-400".to_vec(),
            ParseErrorKind::NumberUnderflow,
        ),
        (
            "lone surrogate",
            br#""\ud800""#.to_vec(),
            ParseErrorKind::LoneSurrogate,
        ),
        (
            "duplicate key, escaped",
            br#"{"a":1,"\u0061":2}"#.to_vec(),
            ParseErrorKind::DuplicateKey,
        ),
        ("NaN", b"NaN".to_vec(), ParseErrorKind::NonFiniteLiteral),
        (
            "Infinity",
            b"[Infinity]".to_vec(),
            ParseErrorKind::NonFiniteLiteral,
        ),
        (
            "byte-order mark",
            b"\xef\xbb\xbf{}".to_vec(),
            ParseErrorKind::ByteOrderMark,
        ),
        (
            "invalid UTF-8",
            b"\"\xc3\"".to_vec(),
            ParseErrorKind::InvalidUtf8,
        ),
        (
            "200 deep",
            deep_closed.into_bytes(),
            ParseErrorKind::TooDeep,
        ),
        (
            "200 deep, unclosed",
            deep_open.into_bytes(),
            ParseErrorKind::TooDeep,
        ),
    ];
    for (what, input, kind) in cases {
        match canonicalize(&input) {
            Ok(out) => panic!("{what}: accepted as {}", String::from_utf8_lossy(&out)),
            Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
        }
    }
    // The literals that do survive are accepted, spelled the ECMAScript way.
    for (input, want) in [
        ("9007199254740992", "9007199254740992"),
        ("100000000000000000000", "100000000000000000000"),
        ("1152921504606847000", "1152921504606847000"),
        ("1000000000000000000000", "1e+21"),
        ("9007199254740993.0", "9007199254740992"),
        ("0e-400", "0"),
        ("-0", "0"),
    ] {
        assert_eq!(
            canonicalize(input.as_bytes()).map(String::from_utf8),
            Ok(Ok(want.to_string())),
            "{input}"
        );
    }
}
