//! The tool-argument schemas the `schema` bench (`benches/schema.rs`) and the
//! `schema_profile` example (instruction counts under callgrind) validate against: the
//! schemas of typical tools and the arguments a model sends them, valid and with one or
//! two mistakes.

/// (name, schema, a valid instance, an invalid one).
pub const CASES: &[(&str, &str, &str, &str)] = &[
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
