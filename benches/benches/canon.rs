//! Canonicalisation throughput (`jcs::canonicalize`: parse + RFC 8785 encoding) and
//! the one-pass canonical-form check (`stream::check_canonical`) on realistic record
//! lines from the verify-against-peers generator, and append in memory of the same
//! payloads (`Chain::append`: encode + SHA-256).

use agentloop_benches::realistic;
use agentloop_core::chain::Chain;
use agentloop_core::jcs;
use agentloop_core::json::{self, Value};
use agentloop_core::stream::{check_canonical, RECORD_MAX_DEPTH};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// About 2 MB of realistic canonical lines.
fn lines() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    realistic::write_transcript(&mut out, 2_000_000, realistic::DEFAULT_SEED).expect("generates");
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn canon(c: &mut Criterion) {
    let lines = lines();
    let bytes: u64 = lines.iter().map(|l| l.len() as u64 + 1).sum();
    let records: Vec<(String, Value)> = lines
        .iter()
        .map(|l| {
            let Ok(Value::Object(o)) = json::parse(l) else {
                panic!("a record line")
            };
            let kind = o
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("note")
                .to_string();
            (kind, o.get("payload").cloned().unwrap_or(Value::Null))
        })
        .collect();
    let mut group = c.benchmark_group("canon");
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("canonicalize_realistic_lines", |b| {
        b.iter(|| {
            let mut n = 0;
            for l in &lines {
                n += jcs::canonicalize(black_box(l)).expect("canonical").len();
            }
            black_box(n)
        })
    });
    group.bench_function("check_canonical_realistic_lines", |b| {
        b.iter(|| {
            for l in &lines {
                check_canonical(black_box(l), RECORD_MAX_DEPTH).expect("canonical");
            }
        })
    });
    group.bench_function("append_realistic_records", |b| {
        b.iter(|| {
            let mut chain = Chain::new();
            let mut n = 0;
            for (kind, payload) in &records {
                n += chain.append(kind, payload).expect("appends").len();
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group!(benches, canon);
criterion_main!(benches);
