//! The allocation budget, measured with the counting global allocator of this test
//! binary (`counting`): the no-alloc layer (`stream::StreamVerifier` push/finish,
//! `stream::ChainState` append, `stream::check_canonical`, `stream::LineChecker`) makes
//! **zero** heap allocations; the allocating `chain::Chain::append` makes zero per
//! record once its line buffer has grown (reused writer); `verify::Verifier::push_line`
//! allocations per record are reported.
//!
//! Run `cargo test -p agentloop-tests --test memory stream_no_alloc -- --nocapture` to see
//! the figures.

use std::fmt::Write as _;

use agentloop_core::chain::Chain;
use agentloop_core::json::{self, Value};
use agentloop_core::stream::{
    check_canonical, ChainState, Checkpoint, LineChecker, StreamOptions, StreamVerifier, MAX_DEPTH,
};
use agentloop_core::verify::{Options, Verifier};

use crate::counting::allocations_of as allocations;

/// A `fmt::Write` into a fixed buffer: formatting details without the heap.
struct Fixed {
    buf: [u8; 512],
    len: usize,
}

impl std::fmt::Write for Fixed {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn payloads(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"n":[1,2.5,{i}],"nested":{{"a":[],"b":{{}}}},"text":"record {i:04}: é 😀 \"q\" \n"}}"#
            )
            .into_bytes()
        })
        .collect()
}

const RECORDS: usize = 200;

#[test]
fn allocation_budget() {
    // --- Appending without the heap: lines into a stack buffer. ---
    let payloads = payloads(RECORDS);
    let mut transcript = Vec::with_capacity(RECORDS * 400);
    let mut line = [0u8; 1024];
    let mut chain = ChainState::new();
    let (appended, ()) = allocations(|| {
        for p in &payloads {
            let len = chain
                .append(&mut line, "note", p)
                .expect("canonical payload");
            // `transcript` has room reserved: extending it does not allocate.
            transcript.extend_from_slice(&line[..len]);
        }
        // Refusals allocate nothing either.
        assert!(chain.append(&mut line, "note", b"{ }").is_err());
        assert!(chain.append(&mut line[..10], "note", b"{}").is_err());
        assert!(check_canonical(b"[1e400]", MAX_DEPTH).is_err());
    });
    assert_eq!(appended, 0, "stream append allocated");
    eprintln!("stream::ChainState::append: 0 allocations for {RECORDS} records");

    // --- Verifying without the heap: any chunking, faults and details included. ---
    let mut tampered = transcript.clone();
    let at = tampered.len() / 2;
    tampered.insert(at, b' ');
    tampered.extend_from_slice(b"[]\n{\"torn");
    let options = StreamOptions {
        checkpoint: Some(Checkpoint {
            count: RECORDS as u64 + 5,
            head: None,
            ..Default::default()
        }),
        ..StreamOptions::default()
    };
    let (verified, (good, bad)) = allocations(|| {
        let mut good = StreamVerifier::new(StreamOptions::default());
        for byte in transcript.chunks(1) {
            good.push(byte);
        }
        let good = good.finish();
        let mut bad = StreamVerifier::new(options);
        for chunk in tampered.chunks(7) {
            bad.push(chunk);
        }
        let bad = bad.finish();
        let mut text = Fixed {
            buf: [0; 512],
            len: 0,
        };
        for fault in &bad.faults {
            text.len = 0;
            write!(text, "{fault}").expect("fits");
        }
        (good, bad)
    });
    assert_eq!(verified, 0, "stream verify allocated");
    assert!(good.ok(), "{:?}", good.faults);
    assert_eq!(good.count, RECORDS as u64);
    assert_eq!(good.head, Some(chain.head()));
    let kinds: Vec<&str> = bad.faults.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["not_canonical", "not_an_object", "torn_tail", "truncated"]
    );
    eprintln!(
        "stream::StreamVerifier push/finish: 0 allocations for {RECORDS} records (1-byte chunks), \
         state {} bytes",
        std::mem::size_of::<StreamVerifier>()
    );

    // --- The verifier's per-line check (`LineChecker`, what `agentloop verify`'s workers
    // run): the whole-line pass on lines as written, the streaming checker on a line it
    // leaves (a space makes it non-canonical), neither allocating. ---
    let mut spaced = transcript
        .split(|&b| b == b'\n')
        .next()
        .expect("a line")
        .to_vec();
    spaced.insert(1, b' ');
    spaced.push(b'\n');
    let (checked, (sealed, lines, refused)) = allocations(|| {
        let mut checker = LineChecker::new();
        let (mut sealed, mut lines, mut start) = (0usize, 0usize, 0usize);
        while let Some((len, seal)) = transcript.get(start..).and_then(|t| checker.check_first(t)) {
            lines += 1;
            sealed += usize::from(seal.is_some_and(|s| s.stored == s.computed));
            start += len + 1;
        }
        let refused = checker.check_first(&spaced);
        (sealed, lines, refused)
    });
    assert_eq!(checked, 0, "LineChecker allocated");
    assert_eq!((sealed, lines), (RECORDS, RECORDS));
    assert_eq!(refused, Some((spaced.len() - 1, None)));
    eprintln!("stream::LineChecker::check_first: 0 allocations for {RECORDS} records");

    // --- The allocating writer: a reused Chain allocates only while its buffer grows. ---
    let values: Vec<Value> = payloads
        .iter()
        .map(|p| json::parse(p).expect("payload parses"))
        .collect();
    let mut chain = Chain::new();
    let warm_up = 10;
    let (first, ()) = allocations(|| {
        for v in &values[..warm_up] {
            chain.append("note", v).expect("appends");
        }
    });
    let (steady, ()) = allocations(|| {
        for v in &values[warm_up..] {
            chain.append("note", v).expect("appends");
        }
    });
    eprintln!(
        "chain::Chain::append: {first} allocations for the first {warm_up} records, \
         then {steady} for {} more ({:.3} per record)",
        RECORDS - warm_up,
        steady as f64 / (RECORDS - warm_up) as f64
    );
    assert_eq!(steady, 0, "a reused Chain allocates after warm-up");

    // --- The allocating verifier: its fast path takes a canonical, well-formed line
    // without a value tree, so it allocates nothing for one. ---
    let lines: Vec<&[u8]> = transcript
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut verifier = Verifier::new(Options::default());
    let (pushed, ()) = allocations(|| {
        for l in &lines {
            verifier.push_line(l);
        }
    });
    assert!(verifier.finish().ok());
    eprintln!(
        "verify::Verifier::push_line: {pushed} allocations for {} records ({:.1} per record)",
        lines.len(),
        pushed as f64 / lines.len() as f64
    );
    assert_eq!(pushed, 0, "the fast path allocated for canonical lines");
}
