//! The schema validator on long keywords (issue 15): compiling a `required` of
//! 10,000 names (the limit, `schema::MAX_REQUIRED_NAMES`), reporting all of them
//! missing, and matching 10,000 items against an `enum` of 10,000 values. Each was
//! quadratic before (each name compared with every earlier one and every property, each
//! item with every member, each violation with every earlier one of its value).
//!
//! `cargo bench -p agentloop-benches --features bench --bench schema_large`

use agentloop_core::json::{self, Value};
use agentloop_core::schema::Schema;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

const N: usize = 10_000;

fn parse(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("parses")
}

fn long_keywords(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema_large");
    group.sample_size(10);
    // `properties` p0… and `required` naming every other one of them and as many others,
    // in descending order.
    let properties: Vec<String> = (0..N).map(|i| format!(r#""p{i}":true"#)).collect();
    let required: Vec<String> = (0..N)
        .rev()
        .map(|i| {
            let letter = if i % 2 == 0 { 'p' } else { 'q' };
            format!(r#""{letter}{i}""#)
        })
        .collect();
    let schema = parse(&format!(
        r#"{{"properties":{{{}}},"required":[{}]}}"#,
        properties.join(","),
        required.join(",")
    ));
    group.bench_function("compile_required_10k", |b| {
        b.iter(|| Schema::compile(black_box(&schema)).expect("compiles"))
    });
    let compiled = Schema::compile(&schema).expect("compiles");
    let empty = parse("{}");
    group.bench_function("validate_10k_missing_required", |b| {
        b.iter(|| {
            let found = compiled.validate(black_box(&empty), "$");
            assert_eq!(found.len(), N);
            found
        })
    });
    // An enum of N strings; an array of N items, each a member, in reverse order.
    let members: Vec<String> = (0..N).map(|i| format!(r#""v{i}""#)).collect();
    let schema = parse(&format!(
        r#"{{"items":{{"enum":[{}]}}}}"#,
        members.join(",")
    ));
    group.bench_function("compile_enum_10k", |b| {
        b.iter(|| Schema::compile(black_box(&schema)).expect("compiles"))
    });
    let compiled = Schema::compile(&schema).expect("compiles");
    let items: Vec<&str> = members.iter().rev().map(String::as_str).collect();
    let instance = parse(&format!("[{}]", items.join(",")));
    group.bench_function("is_valid_10k_items_enum_10k", |b| {
        b.iter(|| assert!(compiled.is_valid(black_box(&instance))))
    });
    group.finish();
}

criterion_group!(benches, long_keywords);
criterion_main!(benches);
