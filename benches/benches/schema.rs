//! The schema validator (`core::schema`) against the `jsonschema` crate (draft 2020-12,
//! without resolvers) on tool-argument-sized instances: the schemas of typical tools
//! and the arguments a model sends them, valid and with one or two mistakes.
//!
//! Both sides validate an already parsed instance with a schema compiled once, as the
//! loop does for every call. `agentloop` always collects every violation with its path
//! and message; `jsonschema` is measured both for a yes/no answer (`is_valid`) and for
//! every error (`iter_errors`), the fair comparison when an instance is invalid.

use agentloop_core::json::{self, Value};
use agentloop_core::schema::Schema;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// (name, schema, a valid instance, an invalid one).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "add",
        r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}"#,
        r#"{"a":2,"b":40}"#,
        r#"{"a":"2","b":40.5}"#,
    ),
    (
        "read_file",
        r#"{"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":4096},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":100000}},"required":["path"],"additionalProperties":false}"#,
        r#"{"limit":200,"offset":0,"path":"core/src/verify/mod.rs"}"#,
        r#"{"limit":0,"path":"","whence":"start"}"#,
    ),
    (
        "run_shell",
        r#"{"type":"object","properties":{"command":{"type":"string","minLength":1},"cwd":{"type":"string"},"timeout_s":{"type":"number","exclusiveMinimum":0,"maximum":600},"env":{"type":"object","additionalProperties":{"type":"string"}},"args":{"type":"array","items":{"type":"string"},"maxItems":64}},"required":["command"],"additionalProperties":false}"#,
        r#"{"args":["test","-p","agentloop-core","--","verify"],"command":"cargo","cwd":"/work/repo","env":{"CARGO_TARGET_DIR":"/tmp/t","RUST_LOG":"info"},"timeout_s":120}"#,
        r#"{"args":["test",7],"command":"cargo","env":{"RUST_LOG":1},"timeout_s":0}"#,
    ),
    (
        "search",
        r##"{"$defs":{"filter":{"type":"object","properties":{"field":{"enum":["path","lang","size"]},"value":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["field","value"]}},"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":500},"top_k":{"type":"integer","minimum":1,"maximum":50},"filters":{"type":"array","items":{"$ref":"#/$defs/filter"},"maxItems":8},"exact":{"type":"boolean"}},"required":["query"]}"##,
        r#"{"exact":false,"filters":[{"field":"lang","value":"rust"},{"field":"size","value":4096}],"query":"hash chain verifier fast path","top_k":10}"#,
        r#"{"filters":[{"field":"owner","value":"x"},{"field":"size","value":null}],"query":"","top_k":100}"#,
    ),
];

fn schema_validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema");
    group.throughput(Throughput::Elements(1));
    for &(name, schema, valid, invalid) in CASES {
        let ours = Schema::compile(&json::parse(schema.as_bytes()).expect("schema parses"))
            .expect("schema compiles");
        let theirs_schema: serde_json::Value = serde_json::from_str(schema).expect("json");
        let theirs = jsonschema::draft202012::new(&theirs_schema).expect("jsonschema compiles");
        for (verdict, instance) in [("valid", valid), ("invalid", invalid)] {
            let our_value: Value = json::parse(instance.as_bytes()).expect("instance parses");
            let their_value: serde_json::Value = serde_json::from_str(instance).expect("json");
            // Both must agree before they are timed.
            assert_eq!(
                ours.validate(&our_value, "$").is_empty(),
                theirs.is_valid(&their_value),
                "{name} {verdict}"
            );
            group.bench_function(format!("{name}/{verdict}/agentloop"), |b| {
                b.iter(|| black_box(ours.validate(black_box(&our_value), "$").len()))
            });
            group.bench_function(format!("{name}/{verdict}/jsonschema_is_valid"), |b| {
                b.iter(|| black_box(theirs.is_valid(black_box(&their_value))))
            });
            group.bench_function(format!("{name}/{verdict}/jsonschema_all_errors"), |b| {
                b.iter(|| black_box(theirs.iter_errors(black_box(&their_value)).count()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, schema_validation);
criterion_main!(benches);
