//! `durable-cost [DIR] [N]`: what each sync policy of the durable writer costs.
//!
//! Appends N records (default 2000; a ~200-byte payload each) to a fresh file in DIR
//! (default: the system's temporary directory) once per policy — `always`,
//! `every:10`, `every:100`, `close` — and, as baselines, with a plain `write` per line
//! and no lock, sync or verification (`FileSink`), and into memory (`Vec`). Prints one
//! Markdown table row per case: microseconds per record and records per second, wall
//! clock, best of 3. The figures depend on the disk under DIR: run it where the
//! transcripts will live. `docs/durability.md` has the figures and the command.

// Measuring time is the point of this program; nothing it times reaches a transcript.
#![allow(clippy::disallowed_methods)]

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agentloop_core::chain::Chain;
use agentloop_core::durable::{SyncPolicy, Writer, WriterOptions};
use agentloop_core::json::{self, Value};
use agentloop_core::sink::{FileSink, RecordSink};

fn payload(i: usize) -> Value {
    let text = format!(
        "{{\"i\":{i},\"name\":\"add\",\"ok\":true,\"value\":{{\"sum\":{}}},\"note\":\"{}\"}}",
        i * 3,
        "a typical short tool result, padded to about two hundred bytes"
    );
    json::parse(text.as_bytes()).expect("a valid payload")
}

/// Appends `n` records with the durable writer and `sync`; seconds taken.
fn durable(path: &Path, n: usize, sync: SyncPolicy) -> f64 {
    let _ = std::fs::remove_file(path);
    let options = WriterOptions {
        sync,
        ..WriterOptions::default()
    };
    let start = Instant::now();
    let mut writer = Writer::open(path, options).expect("open");
    for i in 0..n {
        writer.append("tool", &payload(i)).expect("append");
    }
    writer.close().expect("close");
    start.elapsed().as_secs_f64()
}

/// Appends `n` records through a chain into `sink`; seconds taken.
fn plain(n: usize, sink: &mut dyn RecordSink) -> f64 {
    let start = Instant::now();
    let mut chain = Chain::new();
    for i in 0..n {
        let line = chain.append("tool", &payload(i)).expect("append");
        sink.record(line).expect("write");
    }
    start.elapsed().as_secs_f64()
}

/// One measured case: its name and what it runs (returning seconds).
type Case<'a> = (&'static str, Box<dyn Fn() -> f64 + 'a>);

fn best_of_3(mut run: impl FnMut() -> f64) -> f64 {
    (0..3).map(|_| run()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().map_or_else(std::env::temp_dir, PathBuf::from);
    let n: usize = args
        .next()
        .map_or(2000, |a| a.parse().expect("N is a number"));
    let path = dir.join(format!(
        "agentloop-durable-cost-{}.jsonl",
        std::process::id()
    ));
    let every = |k| SyncPolicy::EveryN(NonZeroU32::new(k).expect("non-zero"));
    let cases: [Case; 6] = [
        (
            "`Always` (fsync every record)",
            Box::new(|| durable(&path, n, SyncPolicy::Always)),
        ),
        ("`EveryN(10)`", Box::new(|| durable(&path, n, every(10)))),
        ("`EveryN(100)`", Box::new(|| durable(&path, n, every(100)))),
        (
            "`OnClose`",
            Box::new(|| durable(&path, n, SyncPolicy::OnClose)),
        ),
        (
            "baseline: `FileSink` (no lock, no sync, no checks)",
            Box::new(|| {
                let _ = std::fs::remove_file(&path);
                let mut sink = FileSink::append_to(&path).expect("open");
                plain(n, &mut sink)
            }),
        ),
        (
            "baseline: in memory (`Vec`)",
            Box::new(|| plain(n, &mut Vec::new())),
        ),
    ];
    println!("{n} records of ~200 bytes in {}", dir.display());
    println!("| policy | µs per record | records per second |");
    println!("| --- | ---: | ---: |");
    for (name, run) in &cases {
        let seconds = best_of_3(run);
        println!(
            "| {name} | {:.1} | {:.0} |",
            seconds * 1e6 / n as f64,
            n as f64 / seconds
        );
    }
    let _ = std::fs::remove_file(&path);
}
