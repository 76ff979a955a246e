//! `verify_profile FILE [stream]`: the verifier's per-line work on one thread, for
//! callgrind (docs/performance.md, "Instructions per byte"). Without `stream`: every
//! line of FILE through `stream::LineChecker::check_first`, as a worker thread of
//! `agentloop verify` runs it (the canonical-form check and SHA-256 of each record; no
//! chain linking, no Merkle tree, no threads). With `stream`: the whole no-allocation
//! `StreamVerifier` over FILE in 64 KiB chunks. Prints the lines sealed (or the
//! stream report's count) so that the work cannot be optimised away.

use std::process::ExitCode;

use agentloop_core::stream::{LineChecker, StreamOptions, StreamVerifier};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: verify_profile FILE [stream]");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.get(1).map(String::as_str) == Some("stream") {
        let mut verifier = StreamVerifier::new(StreamOptions::default());
        for chunk in bytes.chunks(64 << 10) {
            verifier.push(chunk);
        }
        let report = verifier.finish();
        println!("{} records, ok: {}", report.count, report.ok());
        return ExitCode::SUCCESS;
    }
    let mut checker = LineChecker::new();
    let (mut lines, mut sealed, mut start) = (0u64, 0u64, 0usize);
    while let Some((len, seal)) = bytes.get(start..).and_then(|t| checker.check_first(t)) {
        lines += 1;
        sealed += u64::from(seal.is_some_and(|s| s.stored == s.computed));
        start += len + 1;
    }
    println!("{lines} lines, {sealed} sealed with their hash");
    ExitCode::SUCCESS
}
