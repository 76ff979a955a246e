//! ORIGIN.md's evidence table, re-measured against SPEC.md section 3: every claim about
//! the chain, and every fault kind, from a file on disk.
//!
//! Each transcript is written to a scratch file and verified with `verify_file`,
//! `verify_bytes`, `verify_reader` and a one-byte-at-a-time reader
//! ([`verify_everywhere`]), which must give identical reports; each test then asserts
//! the exact list of `(index, kind)` faults, and that every fault's line is index + 1.

use std::fs;

use agentloop_core::anchor::Anchor;
use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::json::{Value, MAX_DEPTH};
use agentloop_core::verify::FaultKind::{self, *};
use agentloop_core::verify::{self, Checkpoint, Options, Parallel, Report};
use agentloop_tests::{
    encode_record, fault_list, forge_chain, parse_record, replace_once, sample_chain, sample_kind,
    sample_payload, seal, sha256, transcript, verify_all_agree, verify_everywhere, TempDir,
};

const N: usize = 5;

// SPEC section 1: a documented nesting limit of at least 128.
const _: () = assert!(MAX_DEPTH >= 128);

/// Asserts the report's faults are exactly `expected`, each with line = index + 1
/// (`truncated` has no line: its record is not in the file).
#[track_caller]
fn expect(report: &Report, expected: &[(u64, FaultKind)]) {
    let got: Vec<(Option<u64>, Option<u64>, FaultKind)> = report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect();
    let want: Vec<(Option<u64>, Option<u64>, FaultKind)> = expected
        .iter()
        .map(|&(i, k)| (Some(i), (k != Truncated).then_some(i + 1), k))
        .collect();
    let shown: Vec<String> = report.faults.iter().map(|f| f.to_string()).collect();
    assert_eq!(got, want, "faults:\n  {}", shown.join("\n  "));
    assert_eq!(report.faults_omitted, 0);
    assert_eq!(report.ok(), expected.is_empty());
}

fn strict() -> Options {
    Options::default()
}

fn lenient() -> Options {
    Options {
        lenient: true,
        ..Options::default()
    }
}

fn with_checkpoint(count: u64, head: Option<Hash>) -> Options {
    Options {
        checkpoint: Some(Checkpoint {
            count,
            head,
            ..Default::default()
        }),
        ..Options::default()
    }
}

/// The stored hashes of a valid sample chain of `n` records.
fn sample_hashes(n: usize) -> Vec<Hash> {
    forge_chain(n, |_, _| {}).1
}

/// A sample chain of N records with line `at` replaced by `line`.
fn with_line(at: usize, line: &[u8]) -> Vec<u8> {
    let (mut lines, _) = sample_chain(N);
    lines[at] = line.to_vec();
    transcript(&lines)
}

// ---------------------------------------------------------------------------------------
// ORIGIN.md evidence table
// ---------------------------------------------------------------------------------------

#[test]
fn valid_chain_verifies_with_count_and_head() {
    let (lines, chain) = sample_chain(N);
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(&report, &[]);
    assert_eq!(report.count, N as u64);
    assert_eq!(report.head, Some(chain.head()));
    assert_eq!(report.beyond_checkpoint, None);
    let empty = verify_everywhere(b"", &strict());
    expect(&empty, &[]);
    assert_eq!((empty.count, empty.head), (0, Some(Hash::ZERO)));
}

#[test]
fn payload_rewrite_is_a_hash_mismatch_at_that_record() {
    for k in 0..N {
        let (mut lines, _) = sample_chain(N);
        lines[k] = replace_once(&lines[k], &format!("\"i\":{k},"), "\"i\":77,");
        let report = verify_everywhere(&transcript(&lines), &strict());
        // The next record's prev still matches the (unchanged) stored hash: one fault.
        expect(&report, &[(k as u64, HashMismatch)]);
        assert_eq!(report.count, N as u64);
    }
}

#[test]
fn rewrite_with_recomputed_hash_is_a_prev_mismatch_at_the_next_record() {
    for k in 0..N - 1 {
        let (mut lines, _) = sample_chain(N);
        let mut record = parse_record(&lines[k]);
        record.insert("payload", Value::from("forged"));
        lines[k] = seal(record).0;
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(k as u64 + 1, PrevMismatch)]);
    }
    // The last record has no successor: only a checkpoint catches its rewrite.
    let (mut lines, chain) = sample_chain(N);
    let mut record = parse_record(&lines[N - 1]);
    record.insert("payload", Value::from("forged"));
    lines[N - 1] = seal(record).0;
    expect(&verify_everywhere(&transcript(&lines), &strict()), &[]);
    let report = verify_everywhere(
        &transcript(&lines),
        &with_checkpoint(N as u64, Some(chain.head())),
    );
    expect(&report, &[(N as u64 - 1, HeadMismatch)]);
}

#[test]
fn reorder_is_caught_even_after_renumbering_and_rehashing() {
    // Plain swap of records 1 and 2.
    let (mut lines, _) = sample_chain(N);
    lines.swap(1, 2);
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(
        &report,
        &[
            (1, SeqGap),
            (1, PrevMismatch),
            (2, SeqGap),
            (2, PrevMismatch),
            (3, SeqGap),
            (3, PrevMismatch),
        ],
    );
    // Swapped, renumbered to their new positions, hashes recomputed: seq is clean, the
    // prev links are not.
    let (mut lines, _) = sample_chain(N);
    lines.swap(1, 2);
    for (pos, line) in lines.iter_mut().enumerate().skip(1).take(2) {
        let mut record = parse_record(line);
        record.insert("seq", Value::Number(pos as f64));
        *line = seal(record).0;
    }
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(
        &report,
        &[(1, PrevMismatch), (2, PrevMismatch), (3, PrevMismatch)],
    );
}

#[test]
fn deleted_middle_record_is_one_seq_gap_and_a_prev_mismatch() {
    for k in 0..N - 1 {
        let (mut lines, _) = sample_chain(N);
        lines.remove(k);
        let report = verify_everywhere(&transcript(&lines), &strict());
        // Counting goes on from the seq found: exactly one seq_gap.
        expect(&report, &[(k as u64, SeqGap), (k as u64, PrevMismatch)]);
        assert_eq!(report.count, N as u64 - 1);
    }
}

#[test]
fn truncation_verifies_on_its_own() {
    let (mut lines, _) = sample_chain(N);
    lines.pop();
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(&report, &[]);
    assert_eq!(report.count, N as u64 - 1);
    assert_eq!(report.head, Some(sample_hashes(N)[N - 2]));
}

#[test]
fn truncation_is_detected_against_a_checkpoint() {
    let (lines, chain) = sample_chain(N);
    for cut in 1..=N {
        let kept = &lines[..N - cut];
        for head in [Some(chain.head()), None] {
            let report = verify_everywhere(&transcript(kept), &with_checkpoint(N as u64, head));
            // index = the first missing record = the count found.
            expect(&report, &[((N - cut) as u64, Truncated)]);
            assert_eq!(report.count, (N - cut) as u64);
            assert_eq!(report.beyond_checkpoint, None);
        }
    }
    // The full transcript meets its own checkpoint.
    let report = verify_everywhere(
        &transcript(&lines),
        &with_checkpoint(N as u64, Some(chain.head())),
    );
    expect(&report, &[]);
    assert_eq!(report.beyond_checkpoint, Some(0));
}

#[test]
fn rewritten_history_is_a_head_mismatch_at_count_minus_one() {
    let original = sample_hashes(N);
    // A fork from record 1 on, every hash and prev recomputed: valid on its own.
    let (forked, _) = forge_chain(N, |i, r| {
        if i == 1 {
            r.insert("payload", Value::from("rewritten"));
        }
    });
    expect(&verify_everywhere(&transcript(&forked), &strict()), &[]);
    let report = verify_everywhere(
        &transcript(&forked),
        &with_checkpoint(N as u64, Some(original[N - 1])),
    );
    expect(&report, &[(N as u64 - 1, HeadMismatch)]);
    // A checkpoint inside the rewritten part, with records beyond it.
    let report = verify_everywhere(&transcript(&forked), &with_checkpoint(3, Some(original[2])));
    expect(&report, &[(2, HeadMismatch)]);
    assert_eq!(report.beyond_checkpoint, Some(2));
    // A checkpoint before the rewrite still holds.
    let report = verify_everywhere(&transcript(&forked), &with_checkpoint(1, Some(original[0])));
    expect(&report, &[]);
}

#[test]
fn growth_beyond_a_checkpoint_still_verifies() {
    let hashes = sample_hashes(N);
    let (lines, _) = sample_chain(N);
    for count in 1..=N {
        let report = verify_everywhere(
            &transcript(&lines),
            &with_checkpoint(count as u64, Some(hashes[count - 1])),
        );
        expect(&report, &[]);
        assert_eq!(report.beyond_checkpoint, Some((N - count) as u64));
    }
    let report = verify_everywhere(&transcript(&lines), &with_checkpoint(0, Some(Hash::ZERO)));
    expect(&report, &[]);
    assert_eq!(report.beyond_checkpoint, Some(N as u64));
    // A count-0 checkpoint whose head is not prev0 is a head mismatch (there is no
    // record count - 1 to name, so no index and no line).
    let report = verify_all_agree(&transcript(&lines), &with_checkpoint(0, Some(hashes[0])));
    assert_eq!(fault_list(&report), [(None, HeadMismatch)]);
}

#[test]
fn identical_appends_give_byte_identical_files() {
    let dir = TempDir::new("identical");
    let run = |payload_shift: usize| {
        let mut chain = Chain::new();
        let mut out = Vec::new();
        for i in 0..N {
            out.extend_from_slice(
                chain
                    .append(sample_kind(i), &sample_payload(i + payload_shift * i))
                    .unwrap(),
            );
        }
        (out, chain.head())
    };
    let (a, head_a) = run(0);
    let (b, head_b) = run(0);
    let path_a = dir.write("a.jsonl", &a);
    let path_b = dir.write("b.jsonl", &b);
    let on_disk_a = fs::read(&path_a).unwrap();
    assert_eq!(on_disk_a, fs::read(&path_b).unwrap());
    assert_eq!(head_a, head_b);
    let report = verify::verify_file(&path_a, &strict(), &Parallel::default());
    expect(&report, &[]);
    assert_eq!(report.head, Some(head_a));
    // Negative control: one different input gives different bytes and another head.
    let (c, head_c) = run(1);
    assert_ne!(on_disk_a, c);
    assert_ne!(head_a, head_c);
}

// ---------------------------------------------------------------------------------------
// Every fault kind of SPEC section 3, from a file on disk
// ---------------------------------------------------------------------------------------

#[test]
fn fault_not_an_object() {
    for line in ["[1,2]", "\"record\"", "42", "null", "true", "[]"] {
        let report = verify_everywhere(&with_line(2, line.as_bytes()), &strict());
        // The next record is not prev-checked and its seq is the one expected.
        expect(&report, &[(2, NotAnObject)]);
    }
    // Not canonical as well: both are reported (strict), only the first when lenient.
    let bytes = with_line(2, b"[1, 2]");
    expect(
        &verify_everywhere(&bytes, &strict()),
        &[(2, NotAnObject), (2, NotCanonical)],
    );
    expect(&verify_everywhere(&bytes, &lenient()), &[(2, NotAnObject)]);
}

#[test]
fn fault_missing_fields_absent_member_is_reported_only_as_missing_fields() {
    // Each member absent, the hash recomputed over what is there, the chain continued.
    for member in ["kind", "payload", "prev", "seq"] {
        let (lines, _) = forge_chain(N, |i, r| {
            if i == 2 {
                r.remove(member);
            }
        });
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(2, MissingFields)]);
        assert!(
            report.faults[0].detail.to_string().contains(member),
            "{}",
            report.faults[0]
        );
    }
    // An absent hash: not a hash_mismatch, and the next record's prev goes unchecked.
    let (mut lines, _) = sample_chain(N);
    let mut record = parse_record(&lines[2]);
    record.remove("hash");
    lines[2] = encode_record(&record);
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, MissingFields)],
    );
    // Everything absent.
    expect(
        &verify_everywhere(&with_line(2, b"{}"), &strict()),
        &[(2, MissingFields)],
    );
}

#[test]
fn fault_missing_fields_kind_not_a_non_empty_string() {
    for kind in [
        Value::from(""),
        Value::Number(5.0),
        Value::Null,
        Value::Array(vec![]),
    ] {
        let (lines, _) = forge_chain(N, |i, r| {
            if i == 2 {
                r.insert("kind", kind.clone());
            }
        });
        expect(
            &verify_everywhere(&transcript(&lines), &strict()),
            &[(2, MissingFields)],
        );
    }
}

#[test]
fn fault_unexpected_fields() {
    for extra in ["note", "aaa", "zzz", "Hash"] {
        let (lines, _) = forge_chain(N, |i, r| {
            if i == 2 {
                r.insert(extra, Value::from("covered by the hash"));
            }
        });
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(2, UnexpectedFields)]);
        assert!(report.faults[0].detail.to_string().contains(extra));
    }
    // The extra member is covered by the hash: changing it is a hash_mismatch too.
    let (mut lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("note", Value::from("a"));
        }
    });
    lines[2] = replace_once(&lines[2], "\"note\":\"a\"", "\"note\":\"b\"");
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, UnexpectedFields), (2, HashMismatch)],
    );
}

#[test]
fn fault_unserialisable_payload() {
    let literals = [
        "9007199254740993",
        "-9007199254740993",
        "1152921504606846976",
        "1e400",
        "-1e400",
        "1e-400",
        "[0,{\"deep\":1e400}]",
    ];
    for literal in literals {
        // A hand-made line: the stored hash is the original one, the next record's prev
        // equals it, so only the unserialisable number is wrong.
        let (mut lines, _) = sample_chain(N);
        lines[2] = replace_once(&lines[2], "\"i\":2,", &format!("\"i\":{literal},"));
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(2, UnserialisablePayload)]);
        // Still so when lenient.
        expect(
            &verify_everywhere(&transcript(&lines), &lenient()),
            &[(2, UnserialisablePayload)],
        );
        // The next record's prev is still checked against the stored hash.
        let (forged, _) = forge_chain(N, |i, r| {
            if i == 3 {
                r.insert("prev", Value::String(Hash([7; 32]).to_string()));
            }
        });
        lines[3] = forged[3].clone();
        lines[4] = forged[4].clone();
        expect(
            &verify_everywhere(&transcript(&lines), &strict()),
            &[(2, UnserialisablePayload), (3, PrevMismatch)],
        );
    }
    // Not canonical spelling elsewhere in the line is not reported either (no canonical
    // form exists to compare with), but the other member checks still run.
    let (mut lines, _) = sample_chain(N);
    lines[2] = replace_once(&lines[2], "\"i\":2,", "\"i\":1e400 ,");
    lines[2] = replace_once(&lines[2], "\"seq\":2}", "\"seq\":9}");
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, UnserialisablePayload), (2, SeqGap), (3, SeqGap)],
    );
}

#[test]
fn fault_hash_mismatch_wrong_hash() {
    let hashes = sample_hashes(N);
    let (mut lines, _) = sample_chain(N);
    lines[2] = replace_once(&lines[2], &hashes[2].to_string(), &hashes[1].to_string());
    // The stored (wrong) hash is what the next record's prev is compared with.
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, HashMismatch), (3, PrevMismatch)],
    );
    let (mut lines, _) = sample_chain(N);
    lines[N - 1] = replace_once(&lines[N - 1], &hashes[N - 1].to_string(), &"f".repeat(64));
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(&report, &[(N as u64 - 1, HashMismatch)]);
    assert_eq!(
        report.head,
        Some(Hash([0xff; 32])),
        "head is the stored hash"
    );
}

#[test]
fn fault_hash_mismatch_malformed_hash() {
    let hashes = sample_hashes(N);
    let upper = hashes[2].to_string().to_uppercase();
    let short = hashes[2].to_string()[..63].to_string();
    for bad in [
        "\"ABC\"".to_string(),
        format!("\"{upper}\""),
        format!("\"{short}\""),
        "\"\"".to_string(),
        "5".to_string(),
        "null".to_string(),
    ] {
        let (mut lines, _) = sample_chain(N);
        lines[2] = replace_once(&lines[2], &format!("\"{}\"", hashes[2]), &bad);
        // No 64-hex hash: the next record's prev is not checked.
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(2, HashMismatch)]);
    }
}

#[test]
fn fault_seq_gap_wrong_seq() {
    // One record with a wrong seq: counting goes on from the seq found, so the next
    // record is a gap too.
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("seq", Value::Number(7.0));
        }
    });
    let report = verify_everywhere(&transcript(&lines), &strict());
    expect(&report, &[(2, SeqGap), (3, SeqGap)]);
    assert!(report.faults[0]
        .detail
        .to_string()
        .contains("expected seq 2, found 7"));
    // Every seq from record 2 on shifted by one: one gap.
    let (lines, _) = forge_chain(N, |i, r| {
        if i >= 2 {
            r.insert("seq", Value::Number(i as f64 + 1.0));
        }
    });
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, SeqGap)],
    );
}

#[test]
fn fault_seq_gap_seq_not_a_number() {
    for seq in [
        Value::from("2"),
        Value::Null,
        Value::Bool(true),
        Value::Array(vec![Value::Number(2.0)]),
    ] {
        let (lines, _) = forge_chain(N, |i, r| {
            if i == 2 {
                r.insert("seq", seq.clone());
            }
        });
        // The expectation goes on from the previous expectation + 1.
        let report = verify_everywhere(&transcript(&lines), &strict());
        expect(&report, &[(2, SeqGap)]);
    }
}

#[test]
fn fault_prev_mismatch_wrong_prev() {
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("prev", Value::String(Hash([7; 32]).to_string()));
        }
    });
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, PrevMismatch)],
    );
    // The first record's prev is checked against prev0.
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 0 {
            r.insert("prev", Value::String(Hash([7; 32]).to_string()));
        }
    });
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(0, PrevMismatch)],
    );
}

#[test]
fn fault_prev_mismatch_malformed_prev() {
    let hashes = sample_hashes(N);
    for prev in [
        Value::from("xyz"),
        Value::String(hashes[1].to_string().to_uppercase()),
        Value::Number(1.0),
        Value::Null,
    ] {
        let (lines, _) = forge_chain(N, |i, r| {
            if i == 2 {
                r.insert("prev", prev.clone());
            }
        });
        expect(
            &verify_everywhere(&transcript(&lines), &strict()),
            &[(2, PrevMismatch)],
        );
    }
}

#[test]
fn fault_not_canonical_is_the_only_fault_and_lenient_accepts_it() {
    let hashes = sample_hashes(N);
    let (lines, _) = sample_chain(N);
    let line = lines[2].clone();
    let text = String::from_utf8(line.clone()).unwrap();
    let hash_member = format!("\"hash\":\"{}\",", hashes[2]);
    let reordered = format!(
        "{{{},\"hash\":\"{}\"}}",
        &text[hash_member.len() + 1..text.len() - 1],
        hashes[2]
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "space after a comma",
            replace_once(&line, ",\"kind\":", ", \"kind\":"),
        ),
        ("space before the line", [b" ", &line[..]].concat()),
        ("space at the end", [&line[..], b" "].concat()),
        ("keys reordered", reordered.into_bytes()),
        ("\\u00e9 instead of é", replace_once(&line, "é", "\\u00e9")),
        (
            "\\u escape of an astral char",
            replace_once(&line, "😀", "\\ud83d\\ude00"),
        ),
        (
            "\\u0009 instead of \\t",
            replace_once(&line, "\\t", "\\u0009"),
        ),
        (
            "1.0 instead of 1 (seq)",
            replace_once(&line, "\"seq\":2}", "\"seq\":2.0}"),
        ),
        (
            "1E21 instead of 1e+21",
            replace_once(&line, "1e+21", "1E21"),
        ),
        ("5.0e-324", replace_once(&line, "5e-324", "5.0e-324")),
        (
            "-5.00 instead of -5",
            replace_once(&line, ",-5,", ",-5.00,"),
        ),
        ("trailing \\r", [&line[..], b"\r"].concat()),
    ];
    for (what, bad) in cases {
        let (mut tampered, _) = sample_chain(N);
        tampered[2] = bad;
        let bytes = transcript(&tampered);
        let report = verify_everywhere(&bytes, &strict());
        assert_eq!(fault_list(&report), [(Some(2), NotCanonical)], "{what}");
        expect(&report, &[(2, NotCanonical)]);
        expect(&verify_everywhere(&bytes, &lenient()), &[]);
    }
    // -0 for 0 (record 0 has "i":0).
    let mut tampered = lines.clone();
    tampered[0] = replace_once(&lines[0], "\"i\":0,", "\"i\":-0,");
    expect(
        &verify_everywhere(&transcript(&tampered), &strict()),
        &[(0, NotCanonical)],
    );
    expect(&verify_everywhere(&transcript(&tampered), &lenient()), &[]);
}

#[test]
fn fault_bad_json() {
    let (lines, _) = sample_chain(N);
    let line = lines[2].clone();
    let invalid_utf8 = {
        let at = line.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        [&line[..at], &[0xff][..], &line[at + 2..]].concat()
    };
    let truncated_utf8 = {
        let at = line.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        [&line[..at + 1], &line[at + 2..]].concat()
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("syntax error", line[..line.len() / 2].to_vec()),
        (
            "trailing comma",
            replace_once(&line, "\"seq\":2}", "\"seq\":2,}"),
        ),
        ("garbage after", [&line[..], b"x"].concat()),
        ("invalid UTF-8", invalid_utf8),
        ("cut UTF-8 sequence", truncated_utf8),
        (
            "byte-order mark",
            [&b"\xef\xbb\xbf"[..], &line[..]].concat(),
        ),
        (
            "duplicate key",
            replace_once(&line, "\"i\":2,", "\"i\":2,\"i\":2,"),
        ),
        (
            "duplicate escaped key",
            replace_once(&line, "\"i\":2,", "\"i\":2,\"\\u0069\":3,"),
        ),
        (
            "duplicate record member",
            replace_once(&line, ",\"seq\":2}", ",\"seq\":2,\"seq\":2}"),
        ),
        ("lone surrogate", replace_once(&line, "😀", "\\ud83d")),
        ("lone low surrogate", replace_once(&line, "😀", "\\ude00")),
        ("NaN", replace_once(&line, "\"i\":2,", "\"i\":NaN,")),
        (
            "Infinity",
            replace_once(&line, "\"i\":2,", "\"i\":-Infinity,"),
        ),
        ("raw control character", replace_once(&line, "\\t", "\t")),
        ("leading zero", replace_once(&line, "\"i\":2,", "\"i\":02,")),
        ("empty line", Vec::new()),
    ];
    for (what, bad) in cases {
        let (mut tampered, _) = sample_chain(N);
        tampered[2] = bad;
        let report = verify_everywhere(&transcript(&tampered), &strict());
        assert_eq!(fault_list(&report), [(Some(2), BadJson)], "{what}");
        expect(&report, &[(2, BadJson)]);
        // A line that cannot be read is bad_json in lenient mode too.
        expect(
            &verify_everywhere(&transcript(&tampered), &lenient()),
            &[(2, BadJson)],
        );
    }
}

fn nested_arrays(depth: usize) -> Value {
    let mut v = Value::Null;
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn fault_bad_json_nesting_deeper_than_the_limit() {
    // A payload at the limit is fine; one level more is bad_json.
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("payload", nested_arrays(MAX_DEPTH));
        }
    });
    expect(&verify_everywhere(&transcript(&lines), &strict()), &[]);
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("payload", nested_arrays(MAX_DEPTH + 1));
        }
    });
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, BadJson)],
    );
    // And far deeper (no stack trouble).
    let deep = "[".repeat(100_000);
    expect(
        &verify_everywhere(&with_line(2, deep.as_bytes()), &strict()),
        &[(2, BadJson)],
    );
}

#[test]
fn fault_torn_tail() {
    let (lines, chain) = sample_chain(N);
    let mut bytes = transcript(&lines);
    bytes.pop();
    let report = verify_everywhere(&bytes, &strict());
    // index = the position it would have had; it is not counted.
    expect(&report, &[(N as u64 - 1, TornTail)]);
    assert_eq!(report.count, N as u64 - 1);
    // A torn partial record after complete ones.
    let mut bytes = transcript(&lines);
    bytes.extend_from_slice(b"{\"hash\":\"ab");
    let report = verify_everywhere(&bytes, &strict());
    expect(&report, &[(N as u64, TornTail)]);
    assert_eq!((report.count, report.head), (N as u64, Some(chain.head())));
    // A whole valid record without its newline is still torn.
    let (more, _) = sample_chain(N + 1);
    let mut bytes = transcript(&lines);
    bytes.extend_from_slice(&more[N]);
    expect(
        &verify_everywhere(&bytes, &strict()),
        &[(N as u64, TornTail)],
    );
}

#[test]
fn fault_unreadable() {
    let dir = TempDir::new("unreadable");
    let missing = dir.path().join("does-not-exist.jsonl");
    for path in [missing.as_path(), dir.path()] {
        let report = verify::verify_file(path, &strict(), &Parallel::default());
        assert_eq!(report.faults.len(), 1, "{:?}", report.faults);
        let fault = &report.faults[0];
        assert_eq!(
            (fault.index, fault.line, fault.kind),
            (None, None, Unreadable),
            "{fault}"
        );
        assert!(!report.ok());
        assert_eq!(report.count, 0);
    }
    assert!(
        verify::verify_file(&missing, &strict(), &Parallel::default()).faults[0]
            .detail
            .to_string()
            .contains("does-not-exist.jsonl")
    );
}

// ---------------------------------------------------------------------------------------
// SPEC section 3 rules
// ---------------------------------------------------------------------------------------

#[test]
fn prev_is_not_checked_after_a_record_that_did_not_parse() {
    // Record 3 carries a wrong prev (and the chain goes on from it).
    let (forged, _) = forge_chain(N, |i, r| {
        if i == 3 {
            r.insert("prev", Value::String(Hash([9; 32]).to_string()));
        }
    });
    // Negative control: with record 2 intact, the wrong prev is reported.
    expect(
        &verify_everywhere(&transcript(&forged), &strict()),
        &[(3, PrevMismatch)],
    );
    for (bad, kinds) in [
        (&b"{\"hash\":"[..], &[BadJson][..]),
        (b"", &[BadJson]),
        (b"[1,2]", &[NotAnObject]),
        (
            b"{\"hash\":\"ABC\",\"kind\":\"k\",\"payload\":null,\"prev\":\"0\",\"seq\":2}",
            &[HashMismatch, PrevMismatch],
        ),
    ] {
        let mut lines = forged.clone();
        lines[2] = bad.to_vec();
        let report = verify_everywhere(&transcript(&lines), &strict());
        let expected: Vec<(u64, FaultKind)> = kinds.iter().map(|&k| (2, k)).collect();
        expect(&report, &expected);
    }
}

#[test]
fn seq_expectation_goes_on_after_a_bad_line() {
    let (lines, _) = sample_chain(N);
    // One or two unreadable lines: the records after them carry the expected seq.
    let mut one = lines.clone();
    one[2] = b"not json".to_vec();
    expect(
        &verify_everywhere(&transcript(&one), &strict()),
        &[(2, BadJson)],
    );
    let mut two = lines.clone();
    two[1] = b"".to_vec();
    two[2] = b"{".to_vec();
    expect(
        &verify_everywhere(&transcript(&two), &strict()),
        &[(1, BadJson), (2, BadJson)],
    );
    // A record after a bad line that repeats the bad line's seq is a gap.
    let (forged, _) = forge_chain(N, |i, r| {
        if i == 3 {
            r.insert("seq", Value::Number(2.0));
        }
    });
    let mut lines = forged;
    lines[2] = b"{oops".to_vec();
    expect(
        &verify_everywhere(&transcript(&lines), &strict()),
        &[(2, BadJson), (3, SeqGap), (4, SeqGap)],
    );
}

#[test]
fn faults_come_in_line_order() {
    let hashes = sample_hashes(8);
    let (mut lines, _) = forge_chain(8, |i, r| {
        if i == 5 {
            r.insert("extra", Value::Null);
        }
    });
    lines[1] = replace_once(&lines[1], "\"i\":1,", "\"i\":11,");
    lines[3] = b"[]".to_vec();
    lines[6] = [&lines[6][..], b" "].concat();
    let mut bytes = transcript(&lines);
    bytes.extend_from_slice(b"{\"torn");
    // The checkpoint names a head record 4 does not carry.
    let report = verify_everywhere(&bytes, &with_checkpoint(5, Some(hashes[3])));
    expect(
        &report,
        &[
            (1, HashMismatch),
            (3, NotAnObject),
            (4, HeadMismatch),
            (5, UnexpectedFields),
            (6, NotCanonical),
            (8, TornTail),
        ],
    );
}

#[test]
fn line_longer_than_the_limit_is_bad_json_everywhere() {
    // Record 2 carries a long payload; record 3 a wrong prev, which goes unchecked.
    let (lines, _) = forge_chain(N, |i, r| {
        if i == 2 {
            r.insert("payload", Value::String("x".repeat(2000)));
        }
        if i == 3 {
            r.insert("prev", Value::String(Hash([3; 32]).to_string()));
        }
    });
    let long = lines[2].len();
    let others = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 2)
        .map(|(_, l)| l.len())
        .max()
        .unwrap();
    assert!(others < long);
    let limit = |max_line_bytes| Options {
        max_line_bytes,
        ..Options::default()
    };
    let report = verify_everywhere(&transcript(&lines), &limit(long - 1));
    expect(&report, &[(2, BadJson)]);
    assert!(
        report.faults[0]
            .detail
            .to_string()
            .contains(&long.to_string()),
        "{}",
        report.faults[0]
    );
    // At exactly the limit the line is read (and the wrong prev of record 3 is seen).
    expect(
        &verify_everywhere(&transcript(&lines), &limit(long)),
        &[(3, PrevMismatch)],
    );
    // A tiny limit: every line is bad_json, each reported once, all counted.
    let report = verify_everywhere(&transcript(&lines), &limit(64));
    let all: Vec<(u64, FaultKind)> = (0..N as u64).map(|i| (i, BadJson)).collect();
    expect(&report, &all);
    assert_eq!(report.count, N as u64);
    // A torn tail longer than the limit is still a torn tail.
    let mut bytes = transcript(&lines[..2]);
    bytes.extend_from_slice(&lines[2]);
    expect(
        &verify_everywhere(&bytes, &limit(64)),
        &[(0, BadJson), (1, BadJson), (2, TornTail)],
    );
}

#[test]
fn max_faults_caps_the_list_and_counts_the_rest() {
    let bytes = b"x\n".repeat(50);
    let options = Options {
        max_faults: 10,
        ..Options::default()
    };
    let report = verify_everywhere(&bytes, &options);
    assert_eq!(report.faults.len(), 10);
    assert_eq!(report.faults_omitted, 40);
    assert!(!report.ok());
    assert_eq!(report.count, 50);
    let kept: Vec<(Option<u64>, FaultKind)> = (0..10).map(|i| (Some(i), BadJson)).collect();
    assert_eq!(fault_list(&report), kept);
    // Without the cap all 50 are listed.
    assert_eq!(verify_everywhere(&bytes, &strict()).faults.len(), 50);
}

#[test]
fn anchored_chain_verifies_only_with_its_anchor() {
    let anchor = Anchor {
        seq0: 5,
        prev0: Hash(sha256(b"an earlier transcript")),
    };
    let mut chain = Chain::from_anchor(anchor);
    let mut bytes = Vec::new();
    for i in 0..3 {
        bytes.extend_from_slice(chain.append(sample_kind(i), &sample_payload(i)).unwrap());
    }
    let anchored = Options {
        anchor,
        ..Options::default()
    };
    let report = verify_everywhere(&bytes, &anchored);
    expect(&report, &[]);
    assert_eq!((report.count, report.head), (3, Some(chain.head())));
    expect(
        &verify_everywhere(&bytes, &strict()),
        &[(0, SeqGap), (0, PrevMismatch)],
    );
    let wrong_prev = Options {
        anchor: Anchor {
            seq0: 5,
            prev0: Hash::ZERO,
        },
        ..Options::default()
    };
    expect(
        &verify_everywhere(&bytes, &wrong_prev),
        &[(0, PrevMismatch)],
    );
    let wrong_seq = Options {
        anchor: Anchor {
            seq0: 4,
            prev0: anchor.prev0,
        },
        ..Options::default()
    };
    expect(&verify_everywhere(&bytes, &wrong_seq), &[(0, SeqGap)]);
    // An empty anchored transcript's head is prev0.
    assert_eq!(verify_everywhere(b"", &anchored).head, Some(anchor.prev0));
    // A transcript continued from another's (count, head) verifies as one file.
    let (first, first_chain) = sample_chain(N);
    let mut rest = Chain::from_anchor(Anchor {
        seq0: N as u64,
        prev0: first_chain.head(),
    });
    let mut whole = transcript(&first);
    whole.extend_from_slice(rest.append("resume", &Value::Null).unwrap());
    let report = verify_everywhere(&whole, &strict());
    expect(&report, &[]);
    assert_eq!(report.head, Some(rest.head()));
}

/// A reader that yields `data` and then fails.
struct FailsAfter<'a> {
    data: &'a [u8],
}

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.data.is_empty() {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn read_error_midway_is_unreadable_after_what_was_read() {
    let (mut lines, _) = sample_chain(N);
    lines[1] = b"[]".to_vec();
    let mut bytes = transcript(&lines);
    bytes.extend_from_slice(b"{\"partial");
    for capacity in [1, 64, 1 << 16] {
        let reader = std::io::BufReader::with_capacity(capacity, FailsAfter { data: &bytes });
        let report = verify::verify_reader(reader, &strict());
        assert_eq!(
            fault_list(&report),
            [(Some(1), NotAnObject), (None, Unreadable)],
            "capacity {capacity}"
        );
        let unreadable = &report.faults[1];
        assert_eq!(unreadable.line, None);
        assert!(
            unreadable.detail.to_string().contains("the disk went away"),
            "{unreadable}"
        );
        // What was read is counted; the partial line is not a torn tail (the read failed).
        assert_eq!(report.count, N as u64);
        assert!(!report.ok());
    }
}
