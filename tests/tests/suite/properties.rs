//! Laws of the canonical encoding and of the chain, over random values and transcripts.

use agentloop_core::anchor::Anchor;
use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json::{self, Value};
use agentloop_core::verify::{self, Checkpoint, FaultKind, Options, Report};
use agentloop_tests::{
    canonical, encode_record, json_value, parse_record, record_kind, transcript, write_noisy,
    XorShift,
};
use proptest::prelude::*;
use proptest::sample::Index;

/// Appends random records to a chain (from `anchor`); returns the lines without
/// newlines and the chain.
fn build(records: &[(String, Value)], anchor: Anchor) -> (Vec<Vec<u8>>, Chain) {
    let mut chain = Chain::from_anchor(anchor);
    let lines = records
        .iter()
        .map(|(kind, payload)| {
            let line = chain
                .append(kind, payload)
                .expect("a random record appends");
            line[..line.len() - 1].to_vec()
        })
        .collect();
    (lines, chain)
}

fn verify(lines: &[Vec<u8>], options: &Options) -> Report {
    let bytes = transcript(lines);
    let report = verify::verify_bytes(&bytes, options);
    // The streaming reader agrees, whatever its buffer size.
    let reader = std::io::BufReader::with_capacity(7, &bytes[..]);
    assert_eq!(verify::verify_reader(reader, options), report);
    report
}

fn records(max: usize) -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec((record_kind(), json_value()), 1..=max)
}

/// Flips one hex digit of a 64-hex string at `at` (to another lowercase hex digit).
fn flip_hex(hex: &str, at: usize) -> String {
    let mut bytes = hex.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    String::from_utf8(bytes).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) A chain of random records verifies, with its count and head.
    #[test]
    fn any_chain_verifies(records in records(12), seq0 in 0u64..1000, prev0 in any::<[u8; 32]>(), anchored in any::<bool>()) {
        let anchor = if anchored { Anchor { seq0, prev0: Hash(prev0) } } else { Anchor::GENESIS };
        let (lines, chain) = build(&records, anchor);
        let options = Options { anchor, ..Options::default() };
        let report = verify(&lines, &options);
        prop_assert!(report.ok(), "{:?}", report.faults);
        prop_assert_eq!(report.count, records.len() as u64);
        prop_assert_eq!(report.head, Some(chain.head()));
        // Every line is the canonical encoding of its own content.
        for line in &lines {
            prop_assert_eq!(&jcs::canonicalize(line).unwrap(), line);
        }
    }

    /// (b) Canonical encoding is a fixed point, and parsing it gives the value back.
    #[test]
    fn canonical_round_trip(x in json_value(), seed in any::<u64>()) {
        let c = canonical(&x);
        prop_assert!(std::str::from_utf8(&c).is_ok());
        let parsed = json::parse(&c).unwrap();
        // Value equality compares numbers as doubles (-0.0 == 0.0, the only two
        // doubles that share a canonical form); the bytes must match exactly.
        prop_assert_eq!(&parsed, &x);
        prop_assert_eq!(canonical(&parsed), c.clone());
        prop_assert_eq!(jcs::canonicalize(&c).unwrap(), c.clone());
        // Any equivalent spelling canonicalises to the same bytes.
        let mut noisy = String::new();
        write_noisy(&x, &mut XorShift::new(seed), &mut noisy);
        prop_assert_eq!(jcs::canonicalize(noisy.as_bytes()).unwrap(), c);
    }

    /// (c) Any single change to one record is reported at that record (or, for its
    /// hash, also at the next), and the transcript does not verify.
    #[test]
    fn any_single_change_is_caught_at_that_record(
        records in records(8),
        which in any::<Index>(),
        change in 0usize..5,
        new_payload in json_value(),
        new_kind in record_kind(),
        delta in 1u64..1000,
        digit in 0usize..64,
    ) {
        let (mut lines, _) = build(&records, Anchor::GENESIS);
        let i = which.index(lines.len());
        let mut record = parse_record(&lines[i]);
        match change {
            0 => {
                let old = record.get("payload").unwrap().clone();
                let new = if canonical(&new_payload) == canonical(&old) {
                    Value::Array(vec![old])
                } else {
                    new_payload
                };
                record.insert("payload", new);
            }
            1 => {
                let old = record.get("kind").unwrap().as_str().unwrap().to_string();
                let new = if new_kind == old { format!("{old}x") } else { new_kind };
                record.insert("kind", Value::from(new));
            }
            2 => {
                let seq = record.get("seq").unwrap().as_f64().unwrap();
                record.insert("seq", Value::Number(seq + delta as f64));
            }
            3 => {
                let prev = record.get("prev").unwrap().as_str().unwrap().to_string();
                record.insert("prev", Value::String(flip_hex(&prev, digit)));
            }
            _ => {
                let hash = record.get("hash").unwrap().as_str().unwrap().to_string();
                record.insert("hash", Value::String(flip_hex(&hash, digit)));
            }
        }
        let changed = encode_record(&record);
        prop_assert_ne!(&changed, &lines[i]);
        lines[i] = changed;
        let report = verify(&lines, &Options::default());
        prop_assert!(!report.ok());
        let first = report.faults[0].index;
        prop_assert_eq!(first, Some(i as u64), "{:?}", report.faults);
        for f in &report.faults {
            prop_assert!(f.index == Some(i as u64) || f.index == Some(i as u64 + 1), "{}", f);
            prop_assert!(f.kind != FaultKind::NotCanonical && f.kind != FaultKind::BadJson, "{}", f);
        }
    }

    /// (d) Swapping two distinct records is caught, at the first of them.
    #[test]
    fn any_swap_is_caught(records in records(10), a in any::<Index>(), b in any::<Index>()) {
        let (mut lines, _) = build(&records, Anchor::GENESIS);
        prop_assume!(lines.len() >= 2);
        let (i, j) = (a.index(lines.len()), b.index(lines.len()));
        prop_assume!(i != j && lines[i] != lines[j]);
        lines.swap(i, j);
        let report = verify(&lines, &Options::default());
        prop_assert!(!report.ok());
        prop_assert_eq!(report.faults[0].index, Some(i.min(j) as u64));
    }

    /// (e) Deleting a record is caught, except at the end, where only a checkpoint
    /// catches it.
    #[test]
    fn any_deletion_is_caught_or_needs_a_checkpoint(records in records(10), which in any::<Index>()) {
        let (lines, chain) = build(&records, Anchor::GENESIS);
        let n = lines.len();
        let k = which.index(n);
        let mut cut = lines.clone();
        cut.remove(k);
        let report = verify(&cut, &Options::default());
        if k + 1 < n {
            prop_assert!(!report.ok());
            prop_assert_eq!(report.faults[0].index, Some(k as u64));
        } else {
            prop_assert!(report.ok(), "{:?}", report.faults);
            prop_assert_eq!(report.count, n as u64 - 1);
        }
        let checkpoint = Options {
            checkpoint: Some(Checkpoint { count: n as u64, head: Some(chain.head()), ..Default::default() }),
            ..Options::default()
        };
        let report = verify(&cut, &checkpoint);
        prop_assert!(!report.ok());
        if k + 1 == n {
            let kinds: Vec<(Option<u64>, FaultKind)> =
                report.faults.iter().map(|f| (f.index, f.kind)).collect();
            prop_assert_eq!(kinds, vec![(Some(n as u64 - 1), FaultKind::Truncated)]);
        }
    }
}
