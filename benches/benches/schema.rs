//! The schema validator (`core::schema`) against the `jsonschema` crate (the draft of the
//! schema's `$schema`, 2020-12 without one; no resolvers) on tool-argument-sized
//! instances (`agentloop_benches::schema_cases`, pydantic- and zod-style schemas among
//! them).
//!
//! Parsing is excluded on both sides: each validates an instance parsed before timing
//! (ours by `json::parse`, theirs by `serde_json`) with a schema compiled once, as the
//! loop does for every call. Five entries per instance:
//! - `agentloop_is_valid` / `jsonschema_is_valid`: a yes/no answer, stopping at the
//!   first failure, no message built on either side;
//! - `agentloop_validate`: what the loop calls, every violation with its JSON path and
//!   message as `String`s, in document order;
//! - `jsonschema_errors`: every error of `iter_errors`, with its instance path and its
//!   message each turned into a `String` (`to_string()`), so both sides build the same
//!   kind of output;
//! - `jsonschema_count`: `iter_errors().count()`, every error found but no `String`
//!   built (the comparison published before, kept for continuity).

use agentloop_benches::schema_cases::CASES;

#[path = "support/their_errors.rs"]
mod support;
use agentloop_core::json::{self, Value};
use agentloop_core::schema::Schema;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use support::their_errors;

fn schema_validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema");
    group.throughput(Throughput::Elements(1));
    for &(name, schema, valid, invalid) in CASES {
        let ours = Schema::compile(&json::parse(schema.as_bytes()).expect("schema parses"))
            .expect("schema compiles");
        let theirs_schema: serde_json::Value = serde_json::from_str(schema).expect("json");
        // Their draft by the schema's `$schema` (2020-12 without one), as ours.
        let theirs = jsonschema::validator_for(&theirs_schema).expect("jsonschema compiles");
        for (verdict, instance) in [("valid", valid), ("invalid", invalid)] {
            let our_value: Value = json::parse(instance.as_bytes()).expect("instance parses");
            let their_value: serde_json::Value = serde_json::from_str(instance).expect("json");
            // Both must agree before they are timed.
            assert_eq!(
                ours.validate(&our_value, "$").is_empty(),
                theirs.is_valid(&their_value),
                "{name} {verdict}"
            );
            assert_eq!(ours.is_valid(&our_value), theirs.is_valid(&their_value));
            group.bench_function(format!("{name}/{verdict}/agentloop_is_valid"), |b| {
                b.iter(|| black_box(ours.is_valid(black_box(&our_value))))
            });
            group.bench_function(format!("{name}/{verdict}/jsonschema_is_valid"), |b| {
                b.iter(|| black_box(theirs.is_valid(black_box(&their_value))))
            });
            group.bench_function(format!("{name}/{verdict}/agentloop_validate"), |b| {
                b.iter(|| black_box(ours.validate(black_box(&our_value), "$")).len())
            });
            group.bench_function(format!("{name}/{verdict}/jsonschema_errors"), |b| {
                b.iter(|| black_box(their_errors(&theirs, black_box(&their_value))))
            });
            group.bench_function(format!("{name}/{verdict}/jsonschema_count"), |b| {
                b.iter(|| black_box(theirs.iter_errors(black_box(&their_value)).count()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, schema_validation);
criterion_main!(benches);
