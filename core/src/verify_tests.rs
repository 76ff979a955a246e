//! Tests of agentloop-tlog's verifier (`verify`) that need this crate's chain to write
//! transcripts, and its readers, files and threads to compare against.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::hash::Hash;
use crate::json::Value;
use crate::verify::*;
// The readers (`host/verify_io.rs`).
use crate::chain::Chain;
use crate::json::parse;
use crate::verify::{verify_file, verify_reader};

fn chain_bytes(n: usize) -> (Vec<u8>, Chain) {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for i in 0..n {
        let payload = alloc::format!("{{\"i\":{i}}}");
        out.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
    }
    (out, chain)
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    out
}

fn kinds(report: &Report) -> Vec<(Option<u64>, &'static str)> {
    report
        .faults
        .iter()
        .map(|f| (f.index, f.kind.as_str()))
        .collect()
}

#[test]
fn valid_chain_verifies_with_count_and_head() {
    let (bytes, chain) = chain_bytes(4);
    let report = verify_bytes(&bytes, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.count, 4);
    assert_eq!(report.head, Some(chain.head()));
    let empty = verify_bytes(b"", &Options::default());
    assert!(empty.ok());
    assert_eq!((empty.count, empty.head), (0, Some(Hash::ZERO)));
}

#[test]
fn faults_of_one_record_come_in_spec_table_order() {
    // Wrong hash, wrong seq, wrong prev, an extra member and non-canonical spacing.
    let line = alloc::format!(
        "{{\"extra\":1, \"hash\":\"{}\",\"kind\":\"k\",\"payload\":null,\"prev\":\"{}\",\"seq\":7}}\n",
        Hash([1; 32]),
        Hash([2; 32])
    );
    let report = verify_bytes(line.as_bytes(), &Options::default());
    assert_eq!(
        kinds(&report),
        [
            (Some(0), "unexpected_fields"),
            (Some(0), "hash_mismatch"),
            (Some(0), "seq_gap"),
            (Some(0), "prev_mismatch"),
            (Some(0), "not_canonical"),
        ]
    );
    assert!(report.faults.iter().all(|f| f.line == Some(1)));
    assert!(report.faults[2]
        .detail
        .to_string()
        .contains("expected seq 0, found 7"));
    assert!(report.faults[0].detail.to_string().contains("'extra'"));
    // Lenient mode accepts the formatting and reports the rest.
    let lenient = Options {
        lenient: true,
        ..Options::default()
    };
    assert_eq!(verify_bytes(line.as_bytes(), &lenient).faults.len(), 4);
}

#[test]
fn details_name_expected_and_found() {
    let (bytes, chain) = chain_bytes(2);
    let mut l = lines(&bytes);
    l[1] = l[1].replace("\"i\":1", "\"i\":2");
    let report = verify_bytes(&join(&l), &Options::default());
    assert_eq!(kinds(&report), [(Some(1), "hash_mismatch")]);
    let detail = report.faults[0].detail.to_string();
    assert!(
        detail.contains(&alloc::format!("stored hash {}", chain.head())),
        "{detail}"
    );
    let bad = verify_bytes(b"{\"a\":1,\"a\":2}\n", &Options::default());
    assert_eq!(kinds(&bad), [(Some(0), "bad_json")]);
    assert_eq!(
        bad.faults[0].detail.to_string(),
        "duplicate object key at column 8"
    );
}

#[test]
fn not_an_object_and_missing_fields() {
    let report = verify_bytes(b"[1, 2]\n{}\n{\"kind\":\"\"}\n", &Options::default());
    assert_eq!(
        kinds(&report),
        [
            (Some(0), "not_an_object"),
            (Some(0), "not_canonical"),
            (Some(1), "missing_fields"),
            (Some(2), "missing_fields"),
        ]
    );
    assert_eq!(
        report.faults[0].detail.to_string(),
        "expected a JSON object, found an array"
    );
    assert_eq!(
        report.faults[2].detail.to_string(),
        "missing 'hash', 'kind', 'payload', 'prev', 'seq'"
    );
    assert!(report.faults[3]
        .detail
        .to_string()
        .contains("kind must be a non-empty string, found \"\""));
    assert_eq!(report.head, None);
}

#[test]
fn parsed_records_verify_without_lines() {
    let (bytes, chain) = chain_bytes(3);
    let records: Vec<Value> = lines(&bytes)
        .iter()
        .map(|l| parse(l.as_bytes()).unwrap())
        .collect();
    let report = verify_records(&records, &Options::default());
    assert!(report.ok());
    assert_eq!((report.count, report.head), (3, Some(chain.head())));
    let mut swapped = records.clone();
    swapped.swap(1, 2);
    let report = verify_records(&swapped, &Options::default());
    assert_eq!(
        kinds(&report),
        [
            (Some(1), "seq_gap"),
            (Some(1), "prev_mismatch"),
            (Some(2), "seq_gap"),
            (Some(2), "prev_mismatch")
        ]
    );
    assert!(report.faults.iter().all(|f| f.line.is_none()));
}

#[test]
fn checkpoint_faults_are_placed_by_index() {
    let (bytes, chain) = chain_bytes(3);
    let with = |cp| Options {
        checkpoint: Some(cp),
        ..Options::default()
    };
    let ok = verify_bytes(
        &bytes,
        &with(Checkpoint {
            count: 2,
            head: None,
            ..Default::default()
        }),
    );
    assert!(ok.ok());
    assert_eq!(ok.beyond_checkpoint, Some(1));
    let wrong_head = Checkpoint {
        count: 2,
        head: Some(chain.head()),
        ..Default::default()
    };
    let mut l = lines(&bytes);
    l[2].insert(0, ' ');
    let report = verify_bytes(&join(&l), &with(wrong_head));
    assert_eq!(
        kinds(&report),
        [(Some(1), "head_mismatch"), (Some(2), "not_canonical")]
    );
    assert_eq!(report.faults[0].line, Some(2));
    let report = verify_bytes(
        &bytes,
        &with(Checkpoint {
            count: 5,
            head: None,
            ..Default::default()
        }),
    );
    assert_eq!(kinds(&report), [(Some(3), "truncated")]);
    assert_eq!(report.beyond_checkpoint, None);
    let zero = Checkpoint {
        count: 0,
        head: Some(Hash::ZERO),
        ..Default::default()
    };
    assert!(verify_bytes(&bytes, &with(zero)).ok());
}

#[test]
fn torn_tail_is_not_counted() {
    let (bytes, _) = chain_bytes(2);
    let torn = &bytes[..bytes.len() - 1];
    let report = verify_bytes(torn, &Options::default());
    assert_eq!(kinds(&report), [(Some(1), "torn_tail")]);
    assert_eq!((report.count, report.faults[0].line), (1, Some(2)));
}

#[test]
fn fault_cap_counts_the_rest() {
    let bytes = b"x\n".repeat(30);
    let report = verify_bytes(
        &bytes,
        &Options {
            max_faults: 5,
            ..Options::default()
        },
    );
    assert_eq!((report.faults.len(), report.faults_omitted), (5, 25));
    assert!(!report.ok());
}

#[cfg(feature = "std")]
#[test]
fn reader_and_bytes_agree_in_any_chunking() {
    let (bytes, _) = chain_bytes(3);
    let mut l = lines(&bytes);
    l[1] = l[1].replace("\"seq\":1", "\"seq\":4");
    let mut tampered = join(&l);
    tampered.extend_from_slice(b"{\"torn");
    let options = Options {
        max_line_bytes: 200,
        ..Options::default()
    };
    let expected = verify_bytes(&tampered, &options);
    for capacity in [1, 2, 7, 64, 4096] {
        let reader = std::io::BufReader::with_capacity(capacity, &tampered[..]);
        assert_eq!(
            verify_reader(reader, &options),
            expected,
            "capacity {capacity}"
        );
    }
    let long = [&b"x".repeat(300)[..], b"\n"].concat();
    let expected = verify_bytes(&long, &options);
    assert_eq!(kinds(&expected), [(Some(0), "bad_json")]);
    assert!(expected.faults[0].detail.to_string().contains("300 bytes"));
    for capacity in [1, 16, 4096] {
        let reader = std::io::BufReader::with_capacity(capacity, &long[..]);
        assert_eq!(
            verify_reader(reader, &options),
            expected,
            "capacity {capacity}"
        );
    }
}

#[cfg(feature = "std")]
#[test]
fn unreadable_file_has_no_head() {
    let report = verify_file(
        std::path::Path::new("/nonexistent/agentloop/x.jsonl"),
        &Options::default(),
        &crate::verify::Parallel::default(),
    );
    assert_eq!(kinds(&report), [(None, "unreadable")]);
    assert!(report.faults[0]
        .detail
        .to_string()
        .starts_with("cannot open /nonexistent/agentloop/x.jsonl: "));
    assert_eq!((report.count, report.head), (0, None));
}

#[cfg(feature = "std")]
#[test]
fn unreadable_is_kept_past_the_fault_cap() {
    struct FailAfter<'a>(&'a [u8]);
    impl std::io::Read for FailAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let bytes = b"x\n".repeat(3);
    let options = Options {
        max_faults: 2,
        ..Options::default()
    };
    let report = verify_reader(std::io::BufReader::new(FailAfter(&bytes)), &options);
    assert_eq!(
        kinds(&report),
        [
            (Some(0), "bad_json"),
            (Some(1), "bad_json"),
            (None, "unreadable")
        ]
    );
    assert_eq!((report.faults_omitted, report.head), (1, None));
    assert!(report.faults[2]
        .detail
        .to_string()
        .contains("after 3 complete lines: disk on fire"));
}

#[test]
fn details_of_rarer_faults() {
    // A kind that is not a string beside an absent member: one fault, both named.
    let line = alloc::format!(
        "{{\"hash\":\"{}\",\"kind\":5,\"payload\":null,\"prev\":\"{}\"}}\n",
        Hash([1; 32]),
        Hash::ZERO
    );
    let report = verify_bytes(line.as_bytes(), &Options::default());
    let missing = report
        .faults
        .iter()
        .find(|f| f.kind == FaultKind::MissingFields)
        .unwrap();
    assert_eq!(
        missing.detail.to_string(),
        "missing 'seq'; kind must be a non-empty string, found the number 5"
    );

    // A long malformed hash is shown cut short.
    let long = "x".repeat(100);
    let line = alloc::format!(
        "{{\"hash\":\"{long}\",\"kind\":\"k\",\"payload\":null,\"prev\":\"{}\",\"seq\":0}}\n",
        Hash::ZERO
    );
    let report = verify_bytes(line.as_bytes(), &Options::default());
    assert_eq!(
        report.faults[0].detail.to_string(),
        alloc::format!(
            "hash must be 64 lowercase hex digits, found \"{}…\" (100 bytes)",
            "x".repeat(crate::fixed::finding::EXCERPT_BYTES)
        )
    );
    let short = line.replace(&long, "xy");
    let report = verify_bytes(short.as_bytes(), &Options::default());
    assert_eq!(
        report.faults[0].detail.to_string(),
        "hash must be 64 lowercase hex digits, found \"xy\""
    );

    // Where a line stops being canonical.
    let (bytes, _) = chain_bytes(1);
    let mut l = lines(&bytes);
    l[0] = l[0].replacen("\"kind\"", " \"kind\"", 1);
    let report = verify_bytes(&join(&l), &Options::default());
    assert_eq!(kinds(&report), [(Some(0), "not_canonical")]);
    let len = l[0].len();
    assert_eq!(
        report.faults[0].detail.to_string(),
        alloc::format!(
            "the line is not in canonical (RFC 8785) form: first difference at column 76 ({len} bytes, canonical is {})",
            len - 1
        )
    );
}

#[test]
fn a_seq_out_of_the_double_range_is_not_a_number() {
    let (bytes, _) = chain_bytes(2);
    let mut l = lines(&bytes);
    l[0] = l[0].replace("\"seq\":0", "\"seq\":1e400");
    let report = verify_bytes(&join(&l), &Options::default());
    // Counting goes on from the expectation, so record 1 (seq 1) is in order.
    assert_eq!(
        kinds(&report),
        [(Some(0), "unserialisable_payload"), (Some(0), "seq_gap")]
    );
    assert_eq!(
        report.faults[1].detail.to_string(),
        "expected seq 0, found a number outside the double range"
    );
}

#[test]
fn checkpoint_details_name_counts_and_hashes() {
    let (bytes, chain) = chain_bytes(3);
    let with = |cp| Options {
        checkpoint: Some(cp),
        ..Options::default()
    };
    let report = verify_bytes(
        &bytes,
        &with(Checkpoint {
            count: 5,
            head: None,
            ..Default::default()
        }),
    );
    assert_eq!(
        report.faults[0].detail.to_string(),
        "the checkpoint covers 5 records but the transcript has 3: 2 missing from the end"
    );
    let wrong = Hash([9; 32]);
    let report = verify_bytes(
        &bytes,
        &with(Checkpoint {
            count: 3,
            head: Some(wrong),
            ..Default::default()
        }),
    );
    assert_eq!(
        report.faults[0].detail.to_string(),
        alloc::format!(
            "the checkpoint's head is {wrong}, but record 2 carries {}",
            chain.head()
        )
    );
    let mut l = lines(&bytes);
    l[2] = l[2].replacen("\"hash\":\"", "\"hash\":\"X", 1);
    let report = verify_bytes(
        &join(&l),
        &with(Checkpoint {
            count: 3,
            head: Some(wrong),
            ..Default::default()
        }),
    );
    let head = report
        .faults
        .iter()
        .find(|f| f.kind == FaultKind::HeadMismatch)
        .unwrap();
    assert_eq!(
        head.detail.to_string(),
        alloc::format!(
            "the checkpoint's head is {wrong}, but record 2 carries no well-formed hash"
        )
    );
}

#[test]
fn faults_display_with_their_place() {
    let fault = |index, line| Fault {
        index,
        line,
        kind: FaultKind::SeqGap,
        detail: Detail::from("expected seq 1, found 5"),
    };
    assert_eq!(
        alloc::format!("{}", fault(Some(1), Some(2))),
        "line 2: seq_gap: expected seq 1, found 5"
    );
    assert_eq!(
        alloc::format!("{}", fault(Some(1), None)),
        "record 1: seq_gap: expected seq 1, found 5"
    );
    assert_eq!(
        alloc::format!("{}", fault(None, None)),
        "seq_gap: expected seq 1, found 5"
    );
}

#[cfg(feature = "std")]
#[test]
fn an_interrupted_read_is_retried() {
    struct InterruptOnce<'a>(&'a [u8], bool);
    impl std::io::Read for InterruptOnce<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if !self.1 {
                self.1 = true;
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let (bytes, chain) = chain_bytes(2);
    let report = verify_reader(
        std::io::BufReader::new(InterruptOnce(&bytes, false)),
        &Options::default(),
    );
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!((report.count, report.head), (2, Some(chain.head())));
}

#[test]
fn the_report_carries_the_merkle_root_and_a_rewritten_prefix_is_head_mismatch() {
    use crate::merkle::{empty_root, record_leaf, root_of};
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    let mut leaves = Vec::new();
    for i in 0..4 {
        let payload = alloc::format!("{{\"i\":{i}}}");
        bytes.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
        leaves.push(record_leaf(&chain.head()));
    }
    let report = verify_bytes(&bytes, &Options::default());
    assert_eq!(report.root, Some(root_of(&leaves)));
    // The writer has the same root for free.
    assert_eq!(chain.root(), root_of(&leaves));
    assert_eq!(Chain::new().root(), empty_root());
    assert_eq!(
        verify_bytes(b"", &Options::default()).root,
        Some(empty_root())
    );
    // An unreadable record leaves no root.
    let mut l = lines(&bytes);
    l[1] = String::from("{");
    assert_eq!(verify_bytes(&join(&l), &Options::default()).root, None);
    // A checkpoint whose root is not the records': head_mismatch at count - 1.
    let cp = Checkpoint {
        count: 3,
        head: None,
        root: Some(root_of(&leaves[..2])),
        first: None,
    };
    let with = Options {
        checkpoint: Some(cp),
        ..Options::default()
    };
    let report = verify_bytes(&bytes, &with);
    assert_eq!(kinds(&report), [(Some(2), "head_mismatch")]);
    assert!(
        report.faults[0].detail.to_string().contains("Merkle root"),
        "{}",
        report.faults[0].detail
    );
    let right = Options {
        checkpoint: Some(Checkpoint {
            root: Some(root_of(&leaves[..3])),
            ..cp
        }),
        ..Options::default()
    };
    assert!(verify_bytes(&bytes, &right).ok());
}

/// The report of `bytes` from every front end: in memory, a reader in small and large
/// chunks, the parallel reader, and (its faults) the streaming verifier; all agree.
#[cfg(feature = "std")]
fn every_front_end(bytes: &[u8], options: &Options) -> Report {
    use crate::stream::{StreamOptions, StreamVerifier};
    use crate::verify::{verify_reader_parallel, Parallel};
    let expected = verify_bytes(bytes, options);
    for capacity in [1, 7, 4096] {
        let reader = std::io::BufReader::with_capacity(capacity, bytes);
        assert_eq!(
            verify_reader(reader, options),
            expected,
            "capacity {capacity}"
        );
    }
    for chunk_bytes in [1, 64, 1 << 20] {
        let parallel = Parallel {
            threads: 2,
            chunk_bytes,
            from_bytes: 0,
        };
        let report = verify_reader_parallel(bytes, options, &parallel);
        assert_eq!(report, expected, "chunk {chunk_bytes}");
    }
    let mut stream = StreamVerifier::new(StreamOptions {
        anchor: options.anchor,
        checkpoint: options.checkpoint,
        max_line_bytes: options.max_line_bytes as u64,
    });
    for chunk in bytes.chunks(5) {
        stream.push(chunk);
    }
    let streamed: Vec<String> = stream
        .finish()
        .faults
        .iter()
        .map(|f| f.to_string())
        .collect();
    let allocated: Vec<String> = expected.faults.iter().map(|f| f.to_string()).collect();
    assert_eq!(streamed, allocated);
    expected
}

/// A last line that is a whole record continuing the chain, lacking only its newline,
/// is still a `torn_tail` (SPEC section 3), whose detail says so; any other last line
/// without a newline — cut short, a record that does not chain or hash, one over the
/// line limit — is the plain torn tail.
#[cfg(feature = "std")]
#[test]
fn a_torn_tail_that_is_a_whole_record_says_so() {
    let (bytes, _) = chain_bytes(3);
    let whole = &bytes[..bytes.len() - 1];
    let report = every_front_end(whole, &Options::default());
    assert_eq!(kinds(&report), [(Some(2), "torn_tail")]);
    assert_eq!(report.count, 2);
    let len = lines(&bytes)[2].len();
    assert_eq!(
        report.faults[0].detail.to_string(),
        alloc::format!(
            "the last line ({len} bytes) is a complete, valid record that continues the chain, \
             missing only its terminating newline"
        )
    );
    let plain = alloc::format!(
        "the last line ({}) has no terminating newline: the last append did not finish",
        "{len} bytes"
    );
    let mut l = lines(&bytes);
    let (last, unchained) = (l.pop().unwrap(), l.remove(1));
    let cut = &bytes[..bytes.len() - 2];
    let mut other_prev = join(&l);
    other_prev.extend_from_slice(last.as_bytes());
    let mut rehashed = join(&l[..1]);
    rehashed.extend_from_slice(unchained.replace("\"i\":1", "\"i\":7").as_bytes());
    for (tail, len) in [
        (cut, len - 1),
        (&other_prev[..], len),
        (&rehashed[..], unchained.len()),
    ] {
        let report = every_front_end(tail, &Options::default());
        assert_eq!(report.faults.last().unwrap().kind, FaultKind::TornTail);
        let detail = report.faults.last().unwrap().detail.to_string();
        assert_eq!(detail, plain.replace("{len}", &len.to_string()));
    }
    let short = Options {
        max_line_bytes: len - 1,
        ..Options::default()
    };
    let report = every_front_end(whole, &short);
    let detail = report.faults.last().unwrap().detail.to_string();
    assert_eq!(detail, plain.replace("{len}", &len.to_string()));
}

/// A CRLF line ending is named: both verifiers say "carriage return" at its column
/// (the kind stays `not_canonical`).
#[cfg(feature = "std")]
#[test]
fn a_crlf_line_ending_is_named_a_carriage_return() {
    let (bytes, _) = chain_bytes(2);
    let crlf: Vec<u8> = String::from_utf8(bytes.clone())
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    let report = every_front_end(&crlf, &Options::default());
    assert_eq!(
        kinds(&report),
        [(Some(0), "not_canonical"), (Some(1), "not_canonical")]
    );
    let len = lines(&bytes)[0].len();
    assert_eq!(
        report.faults[0].detail.to_string(),
        alloc::format!(
            "the line is not in canonical (RFC 8785) form: a carriage return (white space; \
             CRLF line endings leave one before each newline) at column {}",
            len + 1
        )
    );
    let lenient = Options {
        lenient: true,
        ..Options::default()
    };
    assert!(verify_bytes(&crlf, &lenient).ok());
}
