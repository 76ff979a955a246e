//! The loop's own overhead per step: a trivial model (one call to `noop` per turn) and
//! a trivial tool, so what is measured is the state machine, the checks, the records,
//! their canonical encoding and SHA-256 chaining. One step = one assistant record and
//! one tool record.

use agentloop_benches::{run_steps, toolbox};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn loop_overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("loop");
    for steps in [10u64, 100, 1000] {
        // Records per run: task + 2 per step + stop.
        group.throughput(Throughput::Elements(2 * steps + 2));
        group.bench_with_input(BenchmarkId::new("steps", steps), &steps, |b, &steps| {
            let mut tools = toolbox();
            let mut out = Vec::with_capacity(512 * steps as usize);
            b.iter(|| {
                let outcome = run_steps(black_box(steps), &mut tools, &mut out);
                black_box((outcome.steps, out.len()))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, loop_overhead);
criterion_main!(benches);
