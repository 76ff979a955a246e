//! The allocating verifier's fast path (a canonical, well-formed record line is checked
//! and hashed by the streaming checker, `stream::LineChecker`) changes nothing in a
//! report: `verify::Verifier::new` and `verify::Verifier::without_fast_path` (every
//! line parsed and canonicalised, the verifier as it was before the fast path) give
//! equal reports — count, head, every fault with its detail, in order — on canonical
//! transcripts, tampered ones, non-canonical and noisy lines, forged records with
//! missing, extra or malformed members, arbitrary byte edits, in strict and lenient
//! mode, with anchors, checkpoints, a small fault cap and a small line limit.
//!
//! A fast path that accepted a line it should not (not canonical, a member missing or
//! malformed, a number with no canonical form) or hashed the wrong bytes would report
//! less, or another hash, than the reference, and fail here.

use agentloop_core::anchor::Anchor;
use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::json::{Object, Value};
use agentloop_core::stream::LineChecker;
use agentloop_core::verify::{self, Checkpoint, Options, Report, Verifier};
use agentloop_tests::{
    encode_record, json_value, parse_record, record_kind, seal, transcript, write_noisy, XorShift,
};
use proptest::prelude::*;
use proptest::sample::Index;

/// Verifies `bytes` line by line with `verifier` (the same splitting as `verify_bytes`).
fn run(mut verifier: Verifier, bytes: &[u8]) -> Report {
    let mut rest = bytes;
    while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
        verifier.push_line(&rest[..nl]);
        rest = &rest[nl + 1..];
    }
    if !rest.is_empty() {
        verifier.push_torn_tail(rest);
    }
    verifier.finish()
}

/// The fast and the reference verifier agree, and `verify_bytes` is the fast one.
fn assert_agree(bytes: &[u8], options: &Options) -> Report {
    let fast = run(Verifier::new(*options), bytes);
    let reference = run(Verifier::without_fast_path(*options), bytes);
    assert_eq!(
        fast,
        reference,
        "fast path vs reference on {:?}",
        String::from_utf8_lossy(bytes)
    );
    assert_eq!(verify::verify_bytes(bytes, options), fast, "verify_bytes");
    fast
}

fn build(records: &[(String, Value)], anchor: Anchor) -> Vec<Vec<u8>> {
    let mut chain = Chain::from_anchor(anchor);
    records
        .iter()
        .map(|(kind, payload)| {
            let line = chain
                .append(kind, payload)
                .expect("a random record appends");
            line[..line.len() - 1].to_vec()
        })
        .collect()
}

fn records(max: usize) -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec((record_kind(), json_value()), 1..=max)
}

/// A value of another type for a member, or a near miss of a well-formed one.
fn odd_value(choice: usize, rng: &mut XorShift) -> Value {
    match choice % 9 {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => Value::Number(rng.below(1000) as f64 - 3.5),
        3 => Value::String(String::new()),
        4 => Value::String("ab".repeat(32).to_uppercase()),
        5 => Value::String("0".repeat(63)),
        6 => Value::Array(vec![Value::Null]),
        7 => Value::Object(Object::new()),
        _ => Value::String("x".repeat(rng.below(120) as usize)),
    }
}

/// Options as the CLI and the library may set them.
fn options(lenient: bool, anchor: Anchor, checkpoint: Option<Checkpoint>, small: u8) -> Options {
    Options {
        anchor,
        lenient,
        checkpoint,
        max_faults: if small & 1 == 1 {
            2
        } else {
            verify::MAX_FAULTS
        },
        max_line_bytes: if small & 2 == 2 {
            300
        } else {
            verify::MAX_LINE_BYTES
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Canonical transcripts, then one line changed in one of many ways.
    #[test]
    fn fast_path_reports_as_the_reference(
        records in records(6),
        which in any::<Index>(),
        how in 0usize..12,
        choice in 0usize..64,
        seed in any::<u64>(),
        lenient in any::<bool>(),
        anchored in any::<bool>(),
        cut in any::<Index>(),
        small in 0u8..4,
        new_payload in json_value(),
    ) {
        let anchor = if anchored { Anchor { seq0: 7, prev0: Hash([5; 32]) } } else { Anchor::GENESIS };
        let mut lines = build(&records, anchor);
        let i = which.index(lines.len());
        let mut rng = XorShift::new(seed);
        let members = ["hash", "kind", "payload", "prev", "seq"];
        match how {
            0 => {}
            // Content changed, hash kept (hash_mismatch, and prev_mismatch after).
            1 => {
                let mut o = parse_record(&lines[i]);
                o.insert("payload", new_payload);
                lines[i] = encode_record(&o);
            }
            // A member of another type or malformed, resealed.
            2 => {
                let mut o = parse_record(&lines[i]);
                let member = members[choice % 5];
                o.insert(member, odd_value(choice / 5, &mut rng));
                if member != "hash" { o.remove("hash"); lines[i] = seal(o).0 } else { lines[i] = encode_record(&o) }
            }
            // A member missing, resealed.
            3 => {
                let mut o = parse_record(&lines[i]);
                o.remove(members[choice % 5]);
                if choice % 5 != 0 { o.remove("hash"); lines[i] = seal(o).0 } else { lines[i] = encode_record(&o) }
            }
            // An extra member, resealed.
            4 => {
                let mut o = parse_record(&lines[i]);
                o.remove("hash");
                o.insert(["extra", "Hash", "a", "zz", "pr"][choice % 5], odd_value(choice, &mut rng));
                lines[i] = seal(o).0;
            }
            // The same record written noisily (usually not canonical).
            5 => {
                let mut noisy = String::new();
                write_noisy(&Value::Object(parse_record(&lines[i])), &mut rng, &mut noisy);
                lines[i] = noisy.into_bytes();
            }
            // One byte changed or inserted anywhere in the line.
            6 | 7 => {
                let line = &mut lines[i];
                let k = rng.below(line.len() as u64 + 1) as usize;
                let byte = [b' ', b'"', b'\\', b'{', b'}', b',', b'0', b'e', b'.', 0xc3, 0xff, rng.below(256) as u8][choice % 12];
                if how == 6 || k == line.len() { line.insert(k, byte) } else { line[k] = byte }
            }
            // Numbers with no canonical form, or spelled otherwise.
            8 => {
                let text = String::from_utf8(lines[i].clone()).expect("utf-8");
                let seq_at = text.rfind(",\"seq\":").expect("seq member") + 7;
                let spelled = ["1e400", "9007199254740993", "1.0", "1E2", "-0", "0.10", "1e-400", "01"][choice % 8];
                lines[i] = format!("{}{}}}", &text[..seq_at], spelled).into_bytes();
            }
            // Two lines swapped, or one removed, or an empty line.
            9 => { let j = choice % lines.len(); lines.swap(i, j) }
            10 => { lines.remove(i); }
            _ => lines.insert(i, Vec::new()),
        }
        let mut bytes = transcript(&lines);
        if choice % 7 == 0 && !bytes.is_empty() {
            bytes.truncate(bytes.len() - 1 - rng.below(bytes.len() as u64 / 2 + 1) as usize);
        }
        let count = cut.index(lines.len() + 2) as u64;
        let checkpoint = match choice % 3 {
            0 => None,
            1 => Some(Checkpoint { count, head: None, ..Default::default() }),
            _ => Some(Checkpoint { count, head: Some(Hash([0xee; 32])), ..Default::default() }),
        };
        assert_agree(&bytes, &options(lenient, anchor, checkpoint, small));
    }

    /// Random bytes and random noisy documents: never accepted by the fast path unless
    /// the reference finds the line canonical and well-formed too.
    #[test]
    fn line_checker_accepts_only_clean_records(
        value in json_value(),
        seed in any::<u64>(),
        noise in prop::collection::vec(any::<u8>(), 0..80),
    ) {
        let mut rng = XorShift::new(seed);
        let mut o = Object::new();
        o.insert("kind", Value::from("note"));
        o.insert("payload", value);
        o.insert("prev", Value::String(Hash::ZERO.to_string()));
        o.insert("seq", Value::Number(0.0));
        let (line, _) = seal(o.clone());
        let mut checker = LineChecker::new();
        prop_assert!(checker.check(&line).is_some());
        let mut noisy = String::new();
        write_noisy(&Value::Object(parse_record(&line)), &mut rng, &mut noisy);
        let accepted = checker.check(noisy.as_bytes()).is_some();
        prop_assert_eq!(accepted, noisy.as_bytes() == &line[..], "{}", noisy);
        prop_assert!(checker.check(&noise).is_none());
        for bytes in [line.clone(), noisy.into_bytes(), noise] {
            let t = transcript(&[bytes]);
            assert_agree(&t, &Options::default());
            assert_agree(&t, &Options { lenient: true, ..Options::default() });
        }
    }
}

/// The sealed facts are those of the record: stored hash, computed hash, prev, seq.
#[test]
fn sealed_facts_are_the_records() {
    let (line, hash) = seal({
        let mut o = Object::new();
        o.insert("kind", Value::from("task"));
        o.insert("payload", Value::from("add 2 and 40"));
        o.insert("prev", Value::String(Hash([3; 32]).to_string()));
        o.insert("seq", Value::Number(41.0));
        o
    });
    let sealed = LineChecker::new().check(&line).expect("a clean record");
    assert_eq!(sealed.stored, hash);
    assert_eq!(sealed.computed, hash);
    assert_eq!(sealed.prev, Hash([3; 32]));
    assert_eq!(sealed.seq, 41.0);
}

/// Every number spelling the fast path takes a short cut for, or must refuse, as `seq`
/// and inside the payload, strict and lenient.
#[test]
fn number_spellings_agree() {
    let spellings = [
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "-01",
        "1.0",
        "1E2",
        "1e2",
        "0.5",
        "0.10",
        "100",
        "999999999999999",
        "-999999999999999",
        "9007199254740991",
        "9007199254740993",
        "1e400",
        "-1e400",
        "1e-400",
        "5e-324",
        "1e21",
        "100000000000000000000",
        "1e-7",
        "0.000001",
        "123456789012345678",
        "-0.0",
        "1.5e300",
    ];
    let lines = build(&[("note".to_string(), Value::from("x"))], Anchor::GENESIS);
    let text = String::from_utf8(lines[0].clone()).expect("utf-8");
    let seq_at = text.rfind(",\"seq\":").expect("seq member") + 7;
    for spelled in spellings {
        let as_seq = format!("{}{spelled}}}", &text[..seq_at]);
        let in_payload = text.replace("\"payload\":\"x\"", &format!("\"payload\":[{spelled}]"));
        let mut o = parse_record(&lines[0]);
        o.remove("hash");
        o.insert("payload", Value::from("y"));
        let resealed = String::from_utf8(seal(o).0).expect("utf-8");
        let resealed = resealed.replace(
            "\"payload\":\"y\"",
            &format!("\"payload\":{{\"n\":{spelled}}}"),
        );
        for line in [as_seq, in_payload, resealed] {
            for lenient in [false, true] {
                let bytes = transcript(&[line.as_bytes()]);
                assert_agree(
                    &bytes,
                    &Options {
                        lenient,
                        ..Options::default()
                    },
                );
            }
        }
    }
}
