//! The tool-argument schemas the `schema` bench (`benches/schema.rs`) and the
//! `schema_profile` example (instruction counts under callgrind) validate against: the
//! schemas of typical tools and the arguments a model sends them, valid and with one or
//! more mistakes; two of them as generators write them (pydantic, zod-to-json-schema).

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
        r#"{"limit":200,"offset":0,"path":"core/src/heap/verify/mod.rs"}"#,
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
    // As pydantic v2 writes a model's schema (`model_json_schema()`): `$defs` for nested
    // models and enums, `anyOf` with `null` for `Optional`, `title` everywhere,
    // `default`, a `$ref` with a sibling `default`, `format` (an annotation).
    (
        "pydantic_event",
        r##"{"$defs":{"Attendee":{"properties":{"email":{"title":"Email","type":"string","maxLength":254},"name":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Name"},"optional":{"default":false,"title":"Optional","type":"boolean"}},"required":["email"],"title":"Attendee","type":"object"},"Priority":{"enum":["low","normal","high"],"title":"Priority","type":"string"}},"properties":{"title":{"maxLength":200,"minLength":1,"title":"Title","type":"string"},"start":{"format":"date-time","title":"Start","type":"string"},"duration_minutes":{"default":30,"exclusiveMinimum":0,"maximum":1440,"title":"Duration Minutes","type":"integer"},"attendees":{"items":{"$ref":"#/$defs/Attendee"},"title":"Attendees","type":"array"},"priority":{"$ref":"#/$defs/Priority","default":"normal"},"location":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Location"},"tags":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}],"default":null,"title":"Tags"}},"required":["title","start"],"title":"CreateEventArgs","type":"object"}"##,
        r#"{"attendees":[{"email":"ada@example.com","name":"Ada"},{"email":"bob@example.com","name":null,"optional":true}],"duration_minutes":45,"location":null,"priority":"high","start":"2026-12-04T10:00:00Z","tags":["review","q4"],"title":"Design review"}"#,
        r#"{"attendees":[{"name":"Ada"},{"email":"bob@example.com","optional":"yes"}],"duration_minutes":0,"priority":"urgent","start":"2026-12-04T10:00:00Z","tags":"review","title":""}"#,
    ),
    // As zod-to-json-schema writes a zod object for an MCP server: draft-07 `$schema`,
    // `additionalProperties: false` on every object, `definitions`, `pattern`,
    // `minLength`, `enum`, `.nullable()` as a type list.
    (
        "zod_issues",
        r##"{"type":"object","properties":{"owner":{"type":"string","minLength":1,"maxLength":39,"pattern":"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$"},"repo":{"type":"string","minLength":1,"maxLength":100,"pattern":"^[A-Za-z0-9._-]+$"},"state":{"type":"string","enum":["open","closed","all"],"default":"open"},"labels":{"type":"array","items":{"type":"string","minLength":1},"maxItems":20},"sort":{"$ref":"#/definitions/sort"},"per_page":{"type":"number","minimum":1,"maximum":100},"since":{"type":"string","format":"date-time"},"filter":{"type":"object","properties":{"author":{"type":"string","pattern":"^[a-z0-9-]{1,39}$"},"milestone":{"type":["string","null"]}},"additionalProperties":false}},"required":["owner","repo"],"additionalProperties":false,"definitions":{"sort":{"type":"string","enum":["created","updated","comments"]}},"$schema":"http://json-schema.org/draft-07/schema#"}"##,
        r#"{"filter":{"author":"octocat","milestone":null},"labels":["bug","good first issue"],"owner":"rust-lang","per_page":50,"repo":"rust-clippy","since":"2026-11-01T00:00:00Z","sort":"updated","state":"open"}"#,
        r#"{"filter":{"author":"Octo Cat","assignee":"x"},"labels":["bug",""],"owner":"-rust","per_page":500,"repo":"rust clippy","sort":"stars"}"#,
    ),
];
