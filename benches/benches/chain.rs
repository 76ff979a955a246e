//! Chain throughput: appending records (canonical encoding + SHA-256) and verifying a
//! transcript from memory (parse, canonical check, hash, seq and prev).

use agentloop_benches::{payload, transcript};
use agentloop_core::chain::Chain;
use agentloop_core::verify::{self, Options};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const RECORDS: u64 = 10_000;

fn append(c: &mut Criterion) {
    let payloads: Vec<_> = (0..RECORDS).map(payload).collect();
    let bytes = transcript(RECORDS);
    let mut group = c.benchmark_group("chain");
    group.throughput(Throughput::Elements(RECORDS));
    group.bench_function("append_10k_records", |b| {
        b.iter(|| {
            let mut chain = Chain::new();
            let mut written = 0usize;
            for p in &payloads {
                written += chain.append("note", p).expect("appends").len();
            }
            black_box((written, chain.head()))
        });
    });
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("verify_10k_records", |b| {
        b.iter(|| {
            let report = verify::verify_bytes(black_box(&bytes), &Options::default());
            assert!(report.ok());
            black_box(report.count)
        });
    });
    group.finish();
}

criterion_group!(benches, append);
criterion_main!(benches);
