//! The streaming (no-allocation) verifier agrees with the allocating one: on random
//! canonical transcripts, on transcripts with one record tampered with, and under random
//! chunkings (always including one byte at a time) — for every line that is canonical
//! and within the stream verifier's limits (`core/src/fixed/stream/mod.rs` documents the rest).

use agentloop_core::anchor::Anchor;
use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};
use agentloop_core::stream::{self, StreamOptions, StreamReport, StreamVerifier};
use agentloop_core::stream::{check_canonical, Departure, MAX_DEPTH};
use agentloop_core::verify::{self, FaultKind, Options, Report};
use agentloop_tests::{
    canonical, encode_record, forge_chain, json_value, parse_record, record_kind, seal, transcript,
    verify_everywhere, write_noisy, XorShift,
};
use proptest::prelude::*;
use proptest::sample::Index;

type Row = (Option<u64>, Option<u64>, FaultKind);

fn alloc_rows(report: &Report) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

fn stream_rows(report: &StreamReport) -> Vec<Row> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect()
}

/// Streams `bytes` cutting chunks of the given sizes in turn.
fn stream_in(bytes: &[u8], options: StreamOptions, sizes: &[usize]) -> StreamReport {
    let mut verifier = StreamVerifier::new(options);
    let mut rest = bytes;
    let mut turn = 0;
    while !rest.is_empty() {
        let size = sizes.get(turn % sizes.len().max(1)).copied().unwrap_or(1);
        let (chunk, tail) = rest.split_at(size.clamp(1, rest.len()));
        verifier.push(chunk);
        rest = tail;
        turn += 1;
    }
    verifier.finish()
}

/// The stream report, after checking that 1-byte, whole-input and `sizes` chunkings
/// give the same one.
fn stream_all_chunkings(bytes: &[u8], options: StreamOptions, sizes: &[usize]) -> StreamReport {
    let one = stream_in(bytes, options, &[1]);
    let whole = stream_in(bytes, options, &[bytes.len()]);
    let random = stream_in(bytes, options, sizes);
    assert_eq!(one, whole, "1-byte vs whole");
    assert_eq!(random, whole, "chunks {sizes:?} vs whole");
    whole
}

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

fn records(max: usize) -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec((record_kind(), json_value()), 1..=max)
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![3 => 1usize..8, 1 => 8usize..300], 1..6)
}

/// Reports must be equal: faults (index, line, kind), count, head, checkpoint growth.
/// The stream report equals the allocating one, faults whole (index, line, kind and
/// detail), count, head, root, omitted and beyond — except where the stream verifier's
/// documented differences apply (`core/src/stream/mod.rs`), which are checked as such:
/// - a line it stops on as not canonical (`StreamDetail::departure`, the first departing
///   byte) has that one fault; the allocating verifier reports `not_canonical` for it
///   too (where the line differs from its canonical encoding, `CanonicalDiffers`, or
///   the same `NotCanonical` when that is a carriage return, which both name), along
///   with whatever else it finds in the line's content;
/// - the record after such a line: its `prev` is not checked by the stream verifier
///   (the hash is unknown), so a `prev_mismatch` there is the allocating verifier's only;
/// - with such a line, the head (if it is the last line) and the root are unknown to
///   the stream verifier (`None`).
///
/// Every other fault is compared whole, in order. The lists here stay within the stream
/// verifier's `MAX_FAULTS`, so nothing is omitted in either.
fn assert_same(stream: &StreamReport, alloc: &Report, what: &str) {
    let departed: Vec<u64> = stream
        .faults
        .iter()
        .filter(|f| f.detail.departure().is_some())
        .filter_map(|f| f.index)
        .collect();
    for &i in &departed {
        let here: Vec<_> = stream
            .faults
            .iter()
            .filter(|f| f.index == Some(i))
            .collect();
        assert_eq!(
            here.len(),
            1,
            "{what}: one fault for a line stopped on: {here:?}"
        );
        let carriage_return = |f: &&verify::Fault| {
            f.detail.check().and_then(|d| d.departure()) == Some(Departure::CarriageReturn)
        };
        // The allocating verifier's own detail: the first difference from the canonical
        // encoding of what it parsed.
        let differs = |f: &&verify::Fault| {
            f.detail.check().is_some_and(|d| {
                d.departure().is_none() && d.to_string().contains("first difference at column")
            })
        };
        assert!(
            alloc.faults.iter().any(|f| f.index == Some(i)
                && f.kind == FaultKind::NotCanonical
                && (differs(&f) || carriage_return(&f))),
            "{what}: the allocating verifier calls line {i} not canonical: {:?}",
            alloc.faults
        );
        if let Some(f) = alloc
            .faults
            .iter()
            .filter(|f| f.index == Some(i))
            .find(carriage_return)
        {
            assert_eq!(
                f.detail.check(),
                Some(&here[0].detail),
                "{what}: both name it"
            );
        }
    }
    let compared = |f: &verify::Fault| match f.index {
        Some(i) if departed.contains(&i) => false,
        Some(i) if i > 0 && departed.contains(&(i - 1)) => f.kind != FaultKind::PrevMismatch,
        _ => true,
    };
    let from_stream: Vec<verify::Fault> = stream
        .faults
        .iter()
        .cloned()
        .map(verify::Fault::from)
        .filter(compared)
        .collect();
    let from_alloc: Vec<verify::Fault> = alloc
        .faults
        .iter()
        .filter(|f| compared(f))
        .cloned()
        .collect();
    assert_eq!(from_stream, from_alloc, "{what}: faults, details included");
    assert_eq!(stream.count, alloc.count, "{what}");
    assert_eq!(stream.beyond_checkpoint, alloc.beyond_checkpoint, "{what}");
    assert_eq!(stream.faults_omitted, 0, "{what}: within MAX_FAULTS");
    assert_eq!(stream.faults_omitted, alloc.faults_omitted, "{what}");
    if departed.is_empty() {
        assert_eq!(stream.root, alloc.root, "{what}: root");
    } else {
        assert_eq!(
            stream.root, None,
            "{what}: a line stopped on has no known hash"
        );
    }
    if !departed.contains(&stream.count.wrapping_sub(1)) {
        assert_eq!(stream.head, alloc.head, "{what}: head");
    }
}

fn set(line: &[u8], member: &str, value: Value) -> Vec<u8> {
    let mut o: Object = parse_record(line);
    o.insert(member, value);
    encode_record(&o)
}

/// Edits of a canonical line that keep its content but not its canonical form.
fn non_canonical(line: &[u8], choice: usize) -> Vec<u8> {
    let text = String::from_utf8(line.to_vec()).expect("utf-8");
    let seq_at = text.rfind(",\"seq\":").expect("seq member");
    let edited = match choice % 6 {
        0 => format!("{{ {}", &text[1..]),
        1 => format!("{text} "),
        2 => format!("{text}\r"),
        3 => text.replacen(",\"kind\":", ", \"kind\":", 1),
        // `seq` first: keys out of order.
        4 => {
            let seq = &text[seq_at + 1..text.len() - 1];
            format!("{{{seq},{}}}", &text[1..seq_at])
        }
        // The seq spelled with a fraction.
        _ => format!("{}.0}}", &text[..text.len() - 1]),
    };
    edited.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random canonical transcripts (from an anchor or not) verify the same in any
    /// chunking; so do checkpoints against them.
    #[test]
    fn canonical_transcripts_agree(
        records in records(6),
        sizes in chunk_sizes(),
        anchored in any::<bool>(),
        seq0 in 0u64..1000,
        cut in any::<Index>(),
        head_flip in any::<bool>(),
    ) {
        let anchor = if anchored { Anchor { seq0, prev0: Hash([5; 32]) } } else { Anchor::GENESIS };
        let (lines, chain) = build(&records, anchor);
        let bytes = transcript(&lines);
        let options = StreamOptions { anchor, ..StreamOptions::default() };
        let report = stream_all_chunkings(&bytes, options, &sizes);
        prop_assert!(report.ok(), "{:?}", report.faults);
        prop_assert_eq!(report.count, lines.len() as u64);
        prop_assert_eq!(report.head, Some(chain.head()));
        let alloc = verify::verify_bytes(&bytes, &Options { anchor, ..Options::default() });
        assert_same(&report, &alloc, "canonical");

        // A checkpoint: at a random count (up to two past the end), its head right or not.
        let count = cut.index(lines.len() + 3) as u64;
        let head = if head_flip { Some(Hash([0xee; 32])) } else { Some(chain.head()) };
        let cp = verify::Checkpoint { count, head, ..Default::default() };
        let options = StreamOptions { anchor, checkpoint: Some(cp), ..StreamOptions::default() };
        let report = stream_all_chunkings(&bytes, options, &sizes);
        let alloc = verify::verify_bytes(&bytes, &Options { anchor, checkpoint: Some(cp), ..Options::default() });
        assert_same(&report, &alloc, "checkpoint");
    }

    /// One record tampered with (content, hash, prev, seq, order, deletion, torn tail,
    /// or a content-preserving non-canonical edit): the same faults in both.
    #[test]
    fn tampered_transcripts_agree(
        records in records(6),
        sizes in chunk_sizes(),
        which in any::<Index>(),
        other in any::<Index>(),
        how in 0usize..15,
        new_text in prop::collection::vec(any::<char>(), 0..60),
        choice in 0usize..6,
        new_payload in json_value(),
        new_hash in any::<[u8; 32]>(),
        new_seq in prop_oneof![Just(-1.0f64), 0.0f64..20.0, Just(1e300)],
    ) {
        let (mut lines, _) = build(&records, Anchor::GENESIS);
        let i = which.index(lines.len());
        let j = other.index(lines.len());
        let mut torn = None;
        match how {
            0 => lines[i] = set(&lines[i], "payload", new_payload),
            1 => {
                let mut o = parse_record(&lines[i]);
                o.remove("hash");
                o.insert("payload", new_payload);
                lines[i] = seal(o).0;
            }
            2 => lines[i] = set(&lines[i], "hash", Value::String(Hash(new_hash).to_string())),
            3 => lines[i] = set(&lines[i], "prev", Value::String(Hash(new_hash).to_string())),
            4 => lines[i] = set(&lines[i], "seq", Value::Number(new_seq)),
            5 => lines.swap(i, j),
            6 => { lines.remove(i); }
            7 => torn = Some(j),
            8 => lines[i] = non_canonical(&lines[i], choice),
            // A canonical line with a record-level fault: the details must agree,
            // found strings (escapes, non-ASCII, control characters, cut at 40 bytes)
            // and found values of every type included.
            9 => lines[i] = set(&lines[i], "seq", Value::String(new_text.iter().collect())),
            10 => lines[i] = set(&lines[i], "hash", Value::String(new_text.iter().collect())),
            11 => lines[i] = set(&lines[i], "prev", new_payload),
            12 => {
                let mut o = parse_record(&lines[i]);
                o.remove(["hash", "kind", "payload", "prev", "seq"][choice % 5]);
                lines[i] = encode_record(&o);
            }
            13 => {
                let name: String = new_text.iter().collect();
                lines[i] = set(&lines[i], if name.is_empty() { "x" } else { &name }, new_payload);
            }
            _ => lines[i] = set(&lines[i], "kind", new_payload),
        }
        let mut bytes = transcript(&lines);
        if let Some(j) = torn {
            // Cut inside the last line.
            let last = lines.last().map_or(0, Vec::len);
            bytes.truncate(bytes.len() - 1 - (j % last.max(1)));
        }
        let report = stream_all_chunkings(&bytes, StreamOptions::default(), &sizes);
        let alloc = verify::verify_bytes(&bytes, &Options::default());
        assert_same(&report, &alloc, &format!("how {how} at {i}"));
        if how == 8 {
            prop_assert_eq!(
                report.faults.iter().map(|f| (f.index, f.kind)).collect::<Vec<_>>(),
                vec![(Some(i as u64), stream::FaultKind::NotCanonical)]
            );
        }
    }

    /// Any single byte changed: lines before it agree; the changed line is either
    /// canonical (then everything agrees) or refused by both (`not_canonical` or
    /// `bad_json` in the stream, where the allocating verifier says `not_canonical`,
    /// `bad_json` or `unserialisable_payload`); from two lines after it on, all agree.
    #[test]
    fn byte_edits_agree_on_canonical_lines(
        records in records(5),
        sizes in chunk_sizes(),
        at in any::<Index>(),
        byte in prop_oneof![
            Just(b' '), Just(b'"'), Just(b'\\'), Just(b'{'), Just(b'}'), Just(b','),
            Just(b'0'), Just(b'e'), Just(b'\n'), Just(0xffu8), Just(0xc3u8), any::<u8>()
        ],
        insert in any::<bool>(),
    ) {
        let (lines, _) = build(&records, Anchor::GENESIS);
        let mut bytes = transcript(&lines);
        let k = at.index(bytes.len());
        if insert { bytes.insert(k, byte) } else { bytes[k] = byte }
        let report = stream_all_chunkings(&bytes, StreamOptions::default(), &sizes);
        let alloc = verify::verify_bytes(&bytes, &Options::default());
        prop_assert_eq!(report.count, alloc.count);
        // The line holding byte k.
        let line = bytes[..k].iter().filter(|&&b| b == b'\n').count() as u64;
        let at_line = |rows: &[Row], i: u64| -> Vec<FaultKind> {
            rows.iter().filter(|r| r.0 == Some(i)).map(|r| r.2).collect()
        };
        // Where the kinds must agree, the whole faults must: details included.
        let whole = |i: u64| -> (Vec<verify::Fault>, Vec<verify::Fault>) {
            let s = report.faults.iter().filter(|f| f.index == Some(i)).cloned().map(verify::Fault::from);
            let a = alloc.faults.iter().filter(|f| f.index == Some(i)).cloned();
            (s.collect(), a.collect())
        };
        let (s, a) = (stream_rows(&report), alloc_rows(&alloc));
        let refused = |kinds: &[FaultKind]| {
            kinds.contains(&FaultKind::NotCanonical) || kinds.contains(&FaultKind::BadJson)
        };
        for i in 0..=report.count {
            let (sk, ak) = (at_line(&s, i), at_line(&a, i));
            if i < line || i > line + 1 {
                let (sf, af) = whole(i);
                prop_assert_eq!(&sf, &af, "line {} (edit on line {})", i, line);
            } else if i == line {
                if refused(&sk) {
                    prop_assert_eq!(sk.len(), 1);
                    prop_assert!(
                        refused(&ak) || ak.contains(&FaultKind::UnserialisablePayload),
                        "stream {:?} alloc {:?}", sk, ak
                    );
                    if sk == [FaultKind::BadJson] {
                        prop_assert_eq!(&ak, &vec![FaultKind::BadJson]);
                    }
                } else {
                    let (sf, af) = whole(i);
                    prop_assert_eq!(&sf, &af, "canonical edited line {}", i);
                }
            } else if !refused(&at_line(&s, line)) {
                // The edited line was canonical: the next one agrees too.
                let (sf, af) = whole(i);
                prop_assert_eq!(&sf, &af, "line after the edit {}", i);
            }
        }
    }

    /// The no-alloc checker accepts exactly the canonical encodings: a random value's
    /// canonical bytes; a noisy spelling only if it happens to be canonical; a canonical
    /// encoding with one byte changed or inserted only if the allocating canonicaliser
    /// gives back the same bytes. Arbitrary bytes never make it (or the stream
    /// verifier) panic.
    #[test]
    fn checker_accepts_exactly_canonical_bytes(
        value in json_value(),
        seed in any::<u64>(),
        at in any::<Index>(),
        byte in any::<u8>(),
        insert in any::<bool>(),
        noise in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let bytes = canonical(&value);
        prop_assert!(check_canonical(&bytes, MAX_DEPTH).is_ok());
        let mut noisy = String::new();
        write_noisy(&value, &mut XorShift::new(seed), &mut noisy);
        let accepted = check_canonical(noisy.as_bytes(), MAX_DEPTH).is_ok();
        prop_assert_eq!(accepted, noisy.as_bytes() == &bytes[..], "{}", noisy);
        let mut edited = bytes.clone();
        let k = at.index(edited.len() + 1);
        if insert || k == edited.len() { edited.insert(k, byte) } else { edited[k] = byte }
        let accepted = check_canonical(&edited, MAX_DEPTH).is_ok();
        let canonical_again = jcs::canonicalize(&edited).is_ok_and(|c| c == edited);
        prop_assert_eq!(accepted, canonical_again, "{:?}", String::from_utf8_lossy(&edited));
        let _ = check_canonical(&noise, MAX_DEPTH);
        let mut verifier = StreamVerifier::new(StreamOptions::default());
        verifier.push(&noise);
        let _ = verifier.finish();
    }
}

/// A `seq` is an integer from 0 to 2^53 − 1 (`anchor::MAX_SEQ`, the largest a chain
/// writes). Past it a record is always a `seq_gap` naming the limit — also when it is
/// one more than the seq before, and when it repeats (a double cannot tell 2^53 from
/// 2^53 + 1, so a verifier counting in doubles took 2^53, 2^53, 2^53 for a chain).
/// A number that is not such an integer (a fraction, a negative, past the limit) gives
/// nothing to count on from: the next expectation is the previous one + 1. Both
/// verifiers, and the allocating one on threads, report exactly the same.
#[test]
fn seq_past_the_limit_and_non_integer_seqs_agree() {
    use agentloop_core::anchor::MAX_SEQ;
    let limit = MAX_SEQ as f64;
    let at_limit = Anchor {
        seq0: MAX_SEQ,
        prev0: Hash::ZERO,
    };
    // (anchor, seqs, indices of the expected seq_gap faults)
    let cases: [(Anchor, &[f64], &[u64]); 8] = [
        (
            at_limit,
            &[limit + 1.0, limit + 1.0, limit + 1.0],
            &[0, 1, 2],
        ),
        (at_limit, &[limit, limit + 1.0, limit + 1.0], &[1, 2]),
        (at_limit, &[limit, limit + 3.0, limit + 1.0], &[1, 2]),
        (at_limit, &[limit, 1e300], &[1]),
        (Anchor::GENESIS, &[0.0, 1.5, 2.0, 3.0], &[1]),
        (Anchor::GENESIS, &[0.0, -1.0, 2.0], &[1]),
        (Anchor::GENESIS, &[0.0, limit + 1.0, 2.0], &[1]),
        (Anchor::GENESIS, &[0.0, 7.0, 8.0], &[1]),
    ];
    for (anchor, seqs, gaps) in cases {
        let (lines, _) = forge_chain(seqs.len(), |i, o| {
            o.insert("seq", Value::Number(seqs[i]));
        });
        let bytes = transcript(&lines);
        let what = format!("seqs {seqs:?} from seq0 {}", anchor.seq0);
        let alloc = verify_everywhere(
            &bytes,
            &Options {
                anchor,
                ..Options::default()
            },
        );
        let stream = stream_all_chunkings(
            &bytes,
            StreamOptions {
                anchor,
                ..StreamOptions::default()
            },
            &[3, 50],
        );
        assert_same(&stream, &alloc, &what);
        let expected: Vec<Row> = gaps
            .iter()
            .map(|&i| (Some(i), Some(i + 1), FaultKind::SeqGap))
            .collect();
        assert_eq!(alloc_rows(&alloc), expected, "{what}");
        for a in &alloc.faults {
            let found = seqs[a.index.unwrap() as usize];
            if found > limit {
                assert!(
                    a.detail
                        .to_string()
                        .contains("past the largest seq 2^53-1 (9007199254740991)"),
                    "{what}: {}",
                    a.detail
                );
            }
        }
    }
}

/// A checkpoint of 0 records stands for the anchor: its head is the anchor's prev0 and
/// its root the empty tree's. A mismatch names them (there is no record -1), in the same
/// words in both verifiers, with and without an anchor of its own.
#[test]
fn a_count_0_checkpoint_mismatch_names_the_anchor_not_record_minus_1() {
    use agentloop_core::merkle::empty_root;
    let (lines, _) = forge_chain(2, |_, _| {});
    let bytes = transcript(&lines);
    let theirs = Hash([0xaa; 32]);
    for anchor in [
        Anchor::GENESIS,
        Anchor {
            seq0: 0,
            prev0: Hash([0x11; 32]),
        },
    ] {
        let cases = [
            (
                verify::Checkpoint {
                    count: 0,
                    head: Some(theirs),
                    ..Default::default()
                },
                format!(
                    "the checkpoint's head is {theirs}, but the head of 0 records is the anchor's prev0, {}",
                    anchor.prev0
                ),
            ),
            (
                verify::Checkpoint {
                    count: 0,
                    root: Some(theirs),
                    ..Default::default()
                },
                format!(
                    "the checkpoint's Merkle root is {theirs}, but 0 records give the empty tree's root {}",
                    empty_root()
                ),
            ),
        ];
        for (cp, detail) in cases {
            let alloc = verify::verify_bytes(
                &bytes,
                &Options {
                    anchor,
                    checkpoint: Some(cp),
                    ..Options::default()
                },
            );
            let stream = stream_all_chunkings(
                &bytes,
                StreamOptions {
                    anchor,
                    checkpoint: Some(cp),
                    ..StreamOptions::default()
                },
                &[5],
            );
            // A fault of no record comes first (the records' own prev_mismatch under
            // the second anchor follows it).
            let first = &alloc.faults[0];
            assert_eq!(
                (first.index, first.line, first.kind),
                (None, None, FaultKind::HeadMismatch)
            );
            assert_eq!(first.detail.to_string(), detail);
            assert_same(&stream, &alloc, "count-0 checkpoint");
        }
    }
}
