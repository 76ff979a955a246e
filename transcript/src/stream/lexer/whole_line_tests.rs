//! The whole-line pass against the streaming checker: wherever the whole-line pass says
//! yes, the streaming checker says the same yes with the same facts; the lines writers
//! write (generated here from any payload) are all taken; what is not canonical, not
//! JSON or past a limit is never taken.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;
use sha2::{Digest, Sha256};

use super::numeric::Shape;
use super::string::cmp_utf16;
use super::whole_line::{self, QUICK_DEPTH};
use super::{KEY_PATH_BYTES, MAX_KEY_BYTES};
use crate::stream::{LineChecker, Sealed};

const PREV: &str = "00000000000000000000000000000000000000000000000000000000000000ff";

/// The record line of `payload` (canonical text), with a `hash` that matches.
fn record(kind: &str, payload: &str, seq: &str) -> Vec<u8> {
    let body = format!(r#""kind":{kind},"payload":{payload},"prev":"{PREV}","seq":{seq}}}"#);
    let hash = Sha256::digest(format!("{{{body}").as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!(r#"{{"hash":"{hex}",{body}"#).into_bytes()
}

fn line(payload: &str) -> Vec<u8> {
    record(r#""tool""#, payload, "7")
}

/// The whole-line pass and the streaming checker on `line`, alone and as the first
/// line of a text: the whole-line pass's yes must be the streaming checker's.
fn compare(line: &[u8]) -> Option<Sealed> {
    let mut checker = LineChecker::new();
    let streaming = checker.check_streaming(line);
    let quick = whole_line::line(line);
    if quick.is_some() {
        assert_eq!(quick, streaming, "{}", String::from_utf8_lossy(line));
    }
    let mut text = line.to_vec();
    text.extend_from_slice(b"\n{\"next\":1}\n");
    let first = whole_line::first_line(&text);
    if let Some((len, sealed)) = first {
        assert_eq!(
            checker.check_first_streaming(&text),
            Some((len, Some(sealed))),
            "{}",
            String::from_utf8_lossy(line)
        );
    }
    if !line.contains(&b'\n') {
        assert_eq!(first.map(|(_, sealed)| sealed), quick);
    }
    // What verifiers call: the same answer as the streaming checker, always.
    assert_eq!(checker.check(line), streaming);
    quick
}

fn taken(payload: &str) -> Sealed {
    let line = line(payload);
    match compare(&line) {
        Some(sealed) => {
            assert_eq!(sealed.stored, sealed.computed);
            sealed
        }
        None => panic!("not taken: {payload}"),
    }
}

fn left(line: &[u8]) {
    assert_eq!(
        whole_line::line(line),
        None,
        "{}",
        String::from_utf8_lossy(line)
    );
    compare(line);
}

/// Payloads as writers write them, with every kind of value, escape and number.
const PAYLOADS: [&str; 14] = [
    "{}",
    "[]",
    "null",
    "\"\"",
    "-0.5",
    r#"{"a":[true,false,null,0,-1,1.5,1e-7,1e+21,0.30000000000000004,5e-324,1.7976931348623157e+308]}"#,
    r#"{"a b":"q\"b\\s\b\f\n\r\t\u0000\u001fé😀","b":{"c":[[],{},[{}]]}}"#,
    r#"{"":3,"é":1,"😀":2}"#,
    r#"{"":1,"a":2}"#,
    "{\"😀\":2,\"\u{e000}\":4}",
    r#"{"text":"0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\"0123456789abcdef"}"#,
    r#"[9007199254740992,-9007199254740992,9007199254740994,123456789012345680,1e+300]"#,
    r#"{"x":"\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u000b\u000e\u001b"}"#,
    r#"{"body":{"id":710146,"owner":{"active":true,"manager":null,"name":"李","score":0.3798828125}}}"#,
];

#[test]
fn lines_as_writers_write_them_are_taken_with_the_streaming_checkers_facts() {
    for payload in PAYLOADS {
        taken(payload);
    }
    let sealed = taken("1");
    assert_eq!(sealed.seq, 7.0);
    for seq in ["0", "9007199254740992", "-3", "1.5", "1e+21", "1e-7"] {
        let line = record(r#""tool""#, "1", seq);
        let sealed = compare(&line).unwrap_or_else(|| panic!("seq {seq}"));
        assert_eq!(Some(sealed.seq), seq.parse().ok());
    }
    // The deepest nesting it follows: the record and QUICK_DEPTH - 1 arrays.
    let deep = QUICK_DEPTH - 1;
    taken(&format!("{}{}", "[".repeat(deep), "]".repeat(deep)));
    // A stored hash that does not match is still sealed: the chain check says so.
    let mut wrong = line("1");
    wrong[9] = if wrong[9] == b'0' { b'1' } else { b'0' };
    let sealed = compare(&wrong).expect("sealed");
    assert_ne!(sealed.stored, sealed.computed);
}

#[test]
fn number_literals_at_the_edges_of_the_shortcuts_are_taken_exactly_when_canonical() {
    // Around each edge of `Shape::canonical_at_a_glance`: 15 digits, five zeros after
    // `0.`, a trailing zero, `-0`, an exponent; and past them, literals only the exact
    // check can judge (16 significant digits that do or do not come back from their
    // double). Alone and as the value of a member and an element.
    let literals = [
        "0",
        "-0",
        "7",
        "-7",
        "100",
        "999999999999999",
        "-999999999999999",
        "1000000000000000",
        "9007199254740993",
        "0.5",
        "-0.5",
        "0.0",
        "-0.0",
        "1.0",
        "1.50",
        "0.10",
        "0.000001",
        "0.0000010",
        "0.0000001",
        "0.00000123",
        "-0.000001",
        "0.000001234567890123",
        "0.00000123456789012345",
        "0.123456789012345",
        "0.1234567890123456",
        "0.30000000000000004",
        "12345678901234.5",
        "123456789012345.6",
        "99999999999999.9",
        "999999999999999.9",
        "9.000000000000001",
        "9.000000000000002",
        "9007199254740.993",
        "0.1000000000000001",
        "1e-7",
        "1e+21",
        "1E+21",
        "1e21",
        "5e-324",
        "100000000000000000000.5",
        "0.1e1",
    ];
    for literal in literals {
        for payload in [
            String::from(literal),
            format!(r#"{{"n":{literal}}}"#),
            format!("[{literal},1]"),
        ] {
            let line = line(&payload);
            let streaming = LineChecker::new().check_streaming(&line);
            assert_eq!(compare(&line), streaming, "{payload}");
        }
    }
}

#[test]
fn the_shape_takes_short_integers_and_short_decimals_and_nothing_else() {
    // What `canonical_at_a_glance` promises, literal by literal: at most 15 digits
    // (significant ones for a decimal), no exponent, no trailing zero, at most five
    // zeros after `0.`, not `-0`. A shortcut that says no only costs time (the exact
    // check gives the same verdict), so only this test sees one that says no too often.
    let cases = [
        ("0", true),
        ("-0", false),
        ("7", true),
        ("123456789012345", true),
        ("-123456789012345", true),
        ("1234567890123456", false),
        ("0.5", true),
        ("-0.5", true),
        ("1.5", true),
        ("1.50", false),
        ("0.000001", true),
        ("0.0000001", false),
        ("0.00000123456789", true),
        ("0.000001234567890123", true),
        ("0.0000012345678901234", true),
        ("0.0000012345678901234567", false),
        ("0.123456789012345", true),
        ("0.1234567890123456", false),
        ("12345678901234.5", true),
        ("123456789012345.6", false),
        ("1e5", false),
        ("1.5e-7", false),
    ];
    for (literal, expected) in cases {
        let shape = Shape::of(literal.as_bytes()).expect(literal);
        assert_eq!(shape.canonical_at_a_glance(literal), expected, "{literal}");
    }
}

#[test]
fn what_it_does_not_take_at_a_glance_is_left_to_the_streaming_checker() {
    // Canonical, but outside the pass: the streaming checker seals them.
    let deep = QUICK_DEPTH;
    for payload in [
        format!("{}{}", "[".repeat(deep), "]".repeat(deep)),
        String::from(r#"{"a\"b":1}"#),
        String::from(r#"{"\u0001":1}"#),
    ] {
        let line = line(&payload);
        left(&line);
        assert!(LineChecker::new().check(&line).is_some(), "{payload}");
    }
    // Keys near the streaming checker's limits: whatever the pass says, it agrees.
    for len in [MAX_KEY_BYTES - 1, MAX_KEY_BYTES, MAX_KEY_BYTES + 1] {
        compare(&line(&format!(r#"{{"{}":1}}"#, "k".repeat(len))));
    }
    for n in [
        KEY_PATH_BYTES / 4 - 4,
        KEY_PATH_BYTES / 4 - 3,
        KEY_PATH_BYTES / 4 - 2,
    ] {
        let key = "k".repeat(n);
        let payload = format!(r#"{{"{key}":{{"{key}":{{"{key}":{{"a":1,"{key}":2}}}}}}}}"#);
        compare(&line(&payload));
    }
    let key = "k".repeat(KEY_PATH_BYTES / 4);
    left(&line(&format!(
        r#"{{"{key}":{{"{key}":{{"{key}":{{"a":1,"{key}":2}}}}}}}}"#
    )));
    // Past the limit by the last key and the next one of the innermost object.
    let (a, b) = ("a".repeat(250), "b".repeat(250));
    let past = line(&format!(
        r#"{{"{a}":{{"{a}":{{"{a}":{{"{a}":1,"{b}":2}}}}}}}}"#
    ));
    assert_eq!(LineChecker::new().check_streaming(&past), None);
    left(&past);
}

/// Lines that are not canonical records, or not JSON: never taken, whatever the
/// streaming checker says of them.
#[test]
fn departures_breaks_and_other_shapes_are_never_taken() {
    let base = line(PAYLOADS[6]);
    let base = String::from_utf8(base).unwrap_or_default();
    let edits: [(&str, &str); 18] = [
        ("\\b", "\\u0008"),
        ("\\u001f", "\\u001F"),
        ("é", "\\u00e9"),
        ("\\\\s", "\\/s"),
        ("\"a b\"", "\"b a\""),
        ("\"b\":", "\"a b\":"),
        ("[[],", "[[ ],"),
        ("{}", "{ }"),
        ("\"seq\":7", "\"seq\":07"),
        ("\"seq\":7", "\"seq\":7.0"),
        ("\"seq\":7", "\"seq\":\"7\""),
        ("\"seq\":7", "\"seq\":1e400"),
        ("\"kind\":\"tool\"", "\"kind\":\"\""),
        ("\"kind\":\"tool\"", "\"kind\":1"),
        ("\"prev\":\"0", "\"prev\":\"O"),
        ("ff\",\"seq\"", "FF\",\"seq\""),
        ("}}", "}} "),
        (",\"prev\"", ",\"x\":1,\"prev\""),
    ];
    for (from, to) in edits {
        assert!(base.contains(from), "{from}");
        left(base.replacen(from, to, 1).as_bytes());
    }
    for payload in [
        "-0", "1.0", "1E-7", "0.10", "1e21", "2.5e3", "01", "1.", ".5", "+1", "tru",
    ] {
        left(&line(payload));
    }
    left(b"");
    left(b"{}");
    left(&base.as_bytes()[..base.len() - 1]);
    for tail in [&b" "[..], b"}", b"{}", b"\r"] {
        left(&[base.as_bytes(), tail].concat());
    }
    // A stored hash in upper case, a line with a raw tab, bad UTF-8.
    let upper = base.replacen(&base[9..73], &base[9..73].to_uppercase(), 1);
    left(upper.as_bytes());
    left(base.replacen("q", "\t", 1).as_bytes());
    let mut bad = base.clone().into_bytes();
    let at = base.find('é').unwrap_or(0);
    bad[at + 1] = 0x20;
    left(&bad);
}

/// Canonical JSON text of any shape: keys without escapes (the pass's scope) in UTF-16
/// order, strings with every escape, numbers as ECMAScript writes them.
fn canonical() -> impl Strategy<Value = String> {
    let string = proptest::collection::vec(
        prop_oneof![
            4 => proptest::char::range(' ', '~'),
            1 => proptest::sample::select(alloc::vec!['"', '\\', '\n', '\u{1}', '\u{7f}', 'é', '€', '\u{e000}', '😀']),
        ],
        0..24,
    )
    .prop_map(|chars| {
        let mut out = String::from("\"");
        for c in chars {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\u{1}' => out.push_str("\\u0001"),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    });
    let number = any::<f64>().prop_filter_map("finite", |x| {
        let mut buf = [0u8; 32];
        let len = crate::number::format_f64(x, &mut buf)?;
        core::str::from_utf8(buf.get(..len)?).ok().map(String::from)
    });
    let key = proptest::collection::vec(
        proptest::sample::select(alloc::vec!['a', 'b', 'z', ' ', 'é', '\u{e000}', '😀']),
        0..4,
    )
    .prop_map(|chars| chars.into_iter().collect::<String>());
    let leaf = prop_oneof![
        Just(String::from("null")),
        Just(String::from("true")),
        Just(String::from("false")),
        (-1000i64..1000).prop_map(|n| format!("{n}")),
        number,
        string,
    ];
    leaf.prop_recursive(6, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|mut members| {
                members.sort_by(|a, b| cmp_utf16(a.0.as_bytes(), b.0.as_bytes()));
                members.dedup_by(|a, b| a.0 == b.0);
                let body: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

proptest! {
    #[test]
    fn any_canonical_payload_is_taken_with_the_streaming_checkers_facts(payload in canonical()) {
        let line = line(&payload);
        prop_assert!(compare(&line).is_some(), "not taken: {}", payload);
    }

    #[test]
    fn a_line_with_one_byte_changed_inserted_or_removed_is_taken_only_as_the_streaming_checker_takes_it(
        payload in canonical(),
        at in any::<usize>(),
        edit in 0u8..3,
        byte in prop_oneof![
            proptest::sample::select(b"\"\\{}[],:0123456789-+.eE \t\n\x00\x1f\x7f\x80\xc3\xed\xf0\xfftfn".to_vec()),
            any::<u8>(),
        ],
    ) {
        let mut line = line(&payload);
        let at = at % (line.len() + 1);
        match edit {
            0 if at < line.len() => line[at] = byte,
            1 => line.insert(at, byte),
            _ if at < line.len() => {
                line.remove(at);
            }
            _ => line.push(byte),
        }
        compare(&line);
    }
}
