//! Parallel tool calls (issue 18): one turn of 8 calls to a concurrent tool that sleeps
//! 100 ms, run by `driver::run_with` with `parallel: 8` and `parallel: 1`. The
//! transcripts are the same bytes (checked here once, and by the core's tests); the
//! time is what differs: about 100 ms against about 800 ms. Not a test: the figures
//! are recorded in docs/performance.md.

use std::time::Duration;

use agentloop_core::agent::Budgets;
use agentloop_core::driver::{self, RunOptions};
use agentloop_core::json::{parse, Value};
use agentloop_core::model::{Reply, Scripted};
use agentloop_core::tools::{FnTool, ToolOptions, ToolSpec, Toolbox};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};

fn toolbox() -> Toolbox {
    let spec = ToolSpec::new(
        "nap",
        "sleeps 100 ms",
        parse(br#"{"type":"object"}"#).unwrap(),
    );
    let mut tools = Toolbox::new();
    tools
        .register(
            FnTool::new(spec, |arguments: &Value| {
                std::thread::sleep(Duration::from_millis(100));
                Ok(arguments.clone())
            }),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    tools
}

fn run(parallel: usize, tools: &mut Toolbox, out: &mut Vec<u8>) {
    let mut turn = Reply::new("eight naps");
    for i in 0..8 {
        let arguments = parse(format!(r#"{{"i":{i}}}"#).as_bytes()).unwrap();
        turn = turn.with_call("nap", arguments);
    }
    let mut model = Scripted::new([turn, Reply::new("rested")]);
    out.clear();
    driver::run(
        "nap eight times",
        Budgets::default(),
        &mut model,
        tools,
        &mut || false,
        out,
        RunOptions { parallel },
    )
    .unwrap();
}

fn parallel(c: &mut Criterion) {
    let mut tools = toolbox();
    let (mut one, mut eight) = (Vec::new(), Vec::new());
    run(1, &mut tools, &mut one);
    run(8, &mut tools, &mut eight);
    assert_eq!(one, eight, "the transcripts differ");
    let mut group = c.benchmark_group("turn_of_8_calls_sleeping_100ms");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(12));
    for parallel in [8usize, 1] {
        group.bench_with_input(
            BenchmarkId::new("parallel", parallel),
            &parallel,
            |b, &parallel| {
                let mut out = Vec::new();
                b.iter(|| {
                    run(black_box(parallel), &mut tools, &mut out);
                    black_box(out.len())
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, parallel);
criterion_main!(benches);
