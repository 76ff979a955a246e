//! Differential test of the canonical encoding against ECMAScript itself: node's
//! `JSON.parse`, a key sort by UTF-16 code units (JavaScript's default sort) and
//! `JSON.stringify` for strings and numbers — which is what RFC 8785 defines.

use std::process::Command;

use agentloop_core::jcs::canonicalize;
use agentloop_core::json::{Object, ParseErrorKind, Value};
use agentloop_tests::{have_program, skip_or_fail, write_noisy, TempDir, XorShift};

const DOCUMENTS: usize = 3000;
const SEED: u64 = 0x00a9_e471_0095_2026;

/// Reads JSONL from the file named by `$JCS_INPUT` and prints the RFC 8785 form of each
/// line, one per line.
const NODE_JCS: &str = r#"
const fs = require('fs');
function canon(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}
const out = [];
for (const line of fs.readFileSync(process.env.JCS_INPUT, 'utf8').split('\n')) {
  if (line.length > 0) out.push(canon(JSON.parse(line)));
}
process.stdout.write(out.join('\n') + '\n');
"#;

fn random_char(rng: &mut XorShift) -> char {
    let code = match rng.below(10) {
        0..=2 => 0x20 + rng.below(0x5f) as u32,
        3 => rng.below(0x20) as u32,
        4 => [0x22, 0x5c, 0x2f, 0x7f, 0x2028, 0x2029, 0xe9, 0xfeff][rng.below(8) as usize],
        5 => 0x80 + rng.below(0x780) as u32,
        6 => 0x800 + rng.below(0xd800 - 0x800) as u32,
        7 => 0xe000 + rng.below(0x2000) as u32,
        _ => 0x10000 + rng.below(0x100000) as u32,
    };
    char::from_u32(code).unwrap_or('?')
}

fn random_string(rng: &mut XorShift) -> String {
    let len = rng.below(10);
    (0..len).map(|_| random_char(rng)).collect()
}

fn random_number(rng: &mut XorShift) -> f64 {
    const TWO_53: u64 = 1 << 53;
    let sign = if rng.one_in(2) { -1.0 } else { 1.0 };
    let n = match rng.below(8) {
        0 | 1 => loop {
            let f = f64::from_bits(rng.next_u64());
            if f.is_finite() {
                break f;
            }
        },
        2 => [0.0, -0.0][rng.below(2) as usize],
        3 => f64::from_bits(rng.below(1 << 52)), // subnormal (or zero)
        4 => sign * rng.below(TWO_53 + 1) as f64,
        5 => sign * rng.below(100_000) as f64,
        _ => {
            // Around the ECMAScript switches to exponent form: 1e21 and 1e-7.
            let exp = [21, 20, 22, -7, -6, -8, 0, 1][rng.below(8) as usize];
            let base = (1 + rng.below(9)) as f64 * 10f64.powi(exp);
            let bits = base.to_bits();
            let nudged = match rng.below(3) {
                0 => bits,
                1 => bits + 1,
                _ => bits - 1,
            };
            sign * f64::from_bits(nudged)
        }
    };
    if n.is_finite() {
        n
    } else {
        0.5
    }
}

fn random_value(rng: &mut XorShift, depth: usize) -> Value {
    let container = depth == 0 || (depth < 4 && rng.below(10) < 4);
    if !container {
        return match rng.below(8) {
            0 => Value::Null,
            1 => Value::Bool(rng.one_in(2)),
            2..=4 => Value::Number(random_number(rng)),
            _ => Value::String(random_string(rng)),
        };
    }
    let len = rng.below(6) as usize;
    if rng.one_in(2) {
        Value::Array((0..len).map(|_| random_value(rng, depth + 1)).collect())
    } else {
        let mut object = Object::new();
        for _ in 0..len {
            let key = random_string(rng);
            let value = random_value(rng, depth + 1);
            object.insert(key, value);
        }
        Value::Object(object)
    }
}

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
        let value = random_value(&mut rng, 0);
        let mut line = String::new();
        write_noisy(&value, &mut rng, &mut line);
        inputs.push(line);
    }
    let dir = TempDir::new("ecmascript");
    let mut jsonl = inputs.join("\n");
    jsonl.push('\n');
    let path = dir.write("documents.jsonl", jsonl.as_bytes());
    let output = Command::new("node")
        .arg("-e")
        .arg(NODE_JCS)
        .env("JCS_INPUT", &path)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected: Vec<&[u8]> = output
        .stdout
        .strip_suffix(b"\n")
        .expect("node output ends with a newline")
        .split(|&b| b == b'\n')
        .collect();
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
            Err(e) => assert_eq!(e.kind, kind, "{what}: {e}"),
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
