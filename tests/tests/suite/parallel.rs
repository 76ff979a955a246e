//! Verifying on threads (`verify::verify_reader_parallel`) reports exactly what the
//! sequential verifier reports on the same bytes: for any chunk size (so faults, long
//! lines and torn tails cross buffer boundaries), any number of workers, lines longer
//! than a chunk or than the line limit, readers that return a few bytes at a time or
//! are interrupted, and readers that fail midway.

use std::io::{self, BufReader, Read};

use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::json::{self, Value};
use agentloop_core::verify::{self, Checkpoint, Options, Parallel, Report};
use agentloop_tests::{json_value, record_kind, transcript, XorShift};
use proptest::prelude::*;

/// A reader over bytes that returns at most `step` bytes a read, is interrupted every
/// third read, and fails for good after `fail_at` bytes if set.
struct Awkward<'a> {
    bytes: &'a [u8],
    at: usize,
    step: usize,
    reads: u64,
    fail_at: Option<usize>,
}

impl<'a> Awkward<'a> {
    fn new(bytes: &'a [u8], step: usize, fail_at: Option<usize>) -> Self {
        Awkward {
            bytes,
            at: 0,
            step: step.max(1),
            reads: 0,
            fail_at,
        }
    }
}

impl Read for Awkward<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.reads.is_multiple_of(3) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        let end = self.fail_at.unwrap_or(usize::MAX).min(self.bytes.len());
        if self.at >= end && self.fail_at.is_some() {
            return Err(io::Error::other("the disk went away"));
        }
        let n = out.len().min(self.step).min(end - self.at);
        out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn parallel(threads: usize, chunk_bytes: usize) -> Parallel {
    Parallel {
        threads,
        chunk_bytes,
        from_bytes: 0,
    }
}

/// The sequential report, after checking the threaded one equals it.
fn agree(
    bytes: &[u8],
    options: &Options,
    threads: usize,
    chunk: usize,
    step: usize,
    fail_at: Option<usize>,
) -> Report {
    let sequential = verify::verify_reader(
        BufReader::with_capacity(64, Awkward::new(bytes, step, fail_at)),
        options,
    );
    if fail_at.is_none() {
        assert_eq!(sequential, verify::verify_bytes(bytes, options));
    }
    let threaded = verify::verify_reader_parallel(
        Awkward::new(bytes, step, fail_at),
        options,
        &parallel(threads, chunk),
    );
    assert_eq!(
        threaded, sequential,
        "threads {threads}, chunk {chunk}, step {step}, fail at {fail_at:?}"
    );
    sequential
}

fn lines(records: &[(String, Value)]) -> Vec<Vec<u8>> {
    let mut chain = Chain::new();
    records
        .iter()
        .map(|(kind, payload)| {
            let line = chain.append(kind, payload).expect("appends");
            line[..line.len() - 1].to_vec()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn threads_report_as_the_sequential_verifier(
        records in prop::collection::vec((record_kind(), json_value()), 1..8),
        seed in any::<u64>(),
        edits in 0usize..4,
        threads in 1usize..4,
        chunk in prop_oneof![1usize..16, 16usize..400, Just(1 << 20)],
        step in prop_oneof![1usize..8, Just(1 << 16)],
        max_line in prop_oneof![Just(verify::MAX_LINE_BYTES), 1usize..400],
        lenient in any::<bool>(),
        max_faults in prop_oneof![Just(verify::MAX_FAULTS), 1usize..4],
        checkpoint in prop::option::of(0u64..10),
        torn in any::<bool>(),
        fail in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut rng = XorShift::new(seed);
        let mut lines = lines(&records);
        for _ in 0..edits {
            let i = rng.below(lines.len() as u64) as usize;
            match rng.below(6) {
                0 => { let j = rng.below(lines.len() as u64) as usize; lines.swap(i, j) }
                1 => { lines.remove(i); if lines.is_empty() { lines.push(b"{}".to_vec()) } }
                2 => lines.insert(i, Vec::new()),
                3 if !lines[i].is_empty() => { let k = rng.below(lines[i].len() as u64) as usize; lines[i][k] = b' ' }
                4 => lines.insert(i, vec![b'x'; rng.below(900) as usize + 1]),
                _ => {
                    if let Ok(Value::Object(mut o)) = json::parse(&lines[i]) {
                        o.insert("seq", Value::Number(rng.below(5) as f64));
                        lines[i] = agentloop_tests::encode_record(&o);
                    }
                }
            }
        }
        let mut bytes = transcript(&lines);
        if torn {
            bytes.truncate(bytes.len() - 1 - rng.below(bytes.len() as u64 / 3 + 1) as usize);
        }
        let options = Options {
            lenient,
            max_faults,
            max_line_bytes: max_line,
            checkpoint: checkpoint.map(|count| Checkpoint { count, head: Some(Hash([1; 32])), ..Default::default() }),
            ..Options::default()
        };
        let fail_at = fail.map(|at| at.index(bytes.len() + 1));
        agree(&bytes, &options, threads, chunk, step, fail_at);
    }
}

/// Lines longer than a chunk (the buffer grows) and longer than the limit (only their
/// length is kept), in the middle, first, and as a torn tail.
#[test]
fn long_lines_across_buffers() {
    let good = lines(&[
        ("task".to_string(), Value::from("a")),
        ("note".to_string(), Value::from("b".repeat(300))),
        ("note".to_string(), Value::from("c")),
    ]);
    let long = vec![b'y'; 5000];
    let layouts: Vec<Vec<Vec<u8>>> = vec![
        vec![
            good[0].clone(),
            long.clone(),
            good[1].clone(),
            good[2].clone(),
        ],
        vec![long.clone(), good[0].clone()],
        good.clone(),
    ];
    for layout in layouts {
        let mut bytes = transcript(&layout);
        for tail in [&b""[..], &long[..], &b"{\"hash\""[..]] {
            bytes.extend_from_slice(tail);
            for max_line in [100, 400, 4999, 5000, 5001, verify::MAX_LINE_BYTES] {
                let options = Options {
                    max_line_bytes: max_line,
                    ..Options::default()
                };
                for (threads, chunk, step) in [
                    (2, 16, 1 << 16),
                    (3, 64, 7),
                    (2, 1000, 333),
                    (1, 1 << 20, 1 << 16),
                ] {
                    agree(&bytes, &options, threads, chunk, step, None);
                }
            }
        }
    }
}

/// A read error: the lines read before it are reported, then `unreadable`, with the
/// same count and wording as the sequential verifier; no torn tail.
#[test]
fn read_error_midway() {
    let good = lines(&[
        ("task".to_string(), Value::from("a")),
        ("note".to_string(), Value::from("b")),
        ("note".to_string(), Value::from("c")),
    ]);
    let bytes = transcript(&good);
    for fail_at in 0..=bytes.len() {
        let report = agree(&bytes, &Options::default(), 2, 32, 5, Some(fail_at));
        assert!(report
            .faults
            .iter()
            .any(|f| f.kind == verify::FaultKind::Unreadable));
    }
}
