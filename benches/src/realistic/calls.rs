//! A call's arguments and its result for each tool the transcript uses.

use agentloop_core::json::Value;

use super::*;

pub(super) const TOOLS: &[&str] = &[
    "read_file",
    "search",
    "run_shell",
    "http_get",
    "add",
    "write_file",
];

/// Arguments for a call of `tool`.
pub(super) fn arguments(rng: &mut XorShift, tool: &str) -> Value {
    match tool {
        "read_file" => object([
            ("path", Value::from(ident(rng))),
            ("offset", int(rng.range(0, 5000))),
            ("limit", int(rng.range(50, 400))),
        ]),
        "search" => object([
            ("query", Value::from(text(rng, 8, 60))),
            ("max_results", int(rng.range(3, 20))),
            (
                "filters",
                object([
                    (
                        "lang",
                        Value::from(*rng.pick(&["rust", "python", "any", "日本語"])),
                    ),
                    (
                        "since",
                        Value::from(format!("2025-{:02}-01", rng.range(1, 12))),
                    ),
                    ("case_sensitive", Value::Bool(rng.chance(30))),
                ]),
            ),
        ]),
        "run_shell" => object([
            (
                "command",
                Value::from(format!(
                    "cargo test -p {} -- {} --test-threads={}",
                    rng.pick(&["core", "cli", "ffi"]),
                    rng.pick(WORDS),
                    rng.range(1, 8)
                )),
            ),
            ("timeout_s", int(rng.range(10, 600))),
            (
                "env",
                object([
                    (
                        "RUST_LOG",
                        Value::from(*rng.pick(&["info", "debug", "warn"])),
                    ),
                    ("CI", Value::from("true")),
                ]),
            ),
        ]),
        "http_get" => object([
            (
                "url",
                Value::from(format!(
                    "https://api.example.invalid/v{}/items/{}?q={}",
                    rng.range(1, 3),
                    rng.range(1, 1 << 20),
                    rng.pick(WORDS)
                )),
            ),
            (
                "headers",
                object([
                    ("accept", Value::from("application/json")),
                    (
                        "x-request-id",
                        Value::from(format!("{:016x}", rng.next_u64())),
                    ),
                ]),
            ),
        ]),
        "add" => object([
            ("a", int(rng.range(0, 1 << 40))),
            ("b", int(rng.range(0, 1 << 40))),
        ]),
        _ => object([
            ("path", Value::from(ident(rng))),
            ("content", Value::from(text(rng, 100, 800))),
            ("create_dirs", Value::Bool(rng.chance(50))),
        ]),
    }
}

/// The value a successful call of `tool` returns: nested objects and arrays.
pub(super) fn value(rng: &mut XorShift, tool: &str, arguments: &Value) -> Value {
    match tool {
        "read_file" => object([
            ("content", Value::from(text(rng, 200, 3000))),
            ("lines", int(rng.range(5, 120))),
            ("truncated", Value::Bool(rng.chance(20))),
        ]),
        "search" => search_results(rng),
        "run_shell" => object([
            ("exit_code", int(if rng.chance(70) { 0 } else { 101 })),
            ("stdout", Value::from(text(rng, 100, 1500))),
            ("stderr", Value::from(text(rng, 0, 300))),
            ("duration_ms", int(rng.range(3, 90_000))),
        ]),
        "http_get" => http_response(rng),
        "add" => {
            let get = |k: &str| {
                arguments
                    .as_object()
                    .and_then(|o| o.get(k))
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
            };
            object([("sum", Value::Number(get("a") + get("b")))])
        }
        _ => object([
            ("bytes_written", int(rng.range(100, 2000))),
            ("created", Value::Bool(rng.chance(40))),
        ]),
    }
}

/// A search tool's result: a few hits with snippets and context lines.
pub(super) fn search_results(rng: &mut XorShift) -> Value {
    let hits = (0..rng.range(1, 6))
        .map(|_| {
            object([
                ("path", Value::from(ident(rng))),
                ("line", int(rng.range(1, 4000))),
                ("score", score(rng)),
                ("snippet", Value::from(text(rng, 40, 200))),
                (
                    "context",
                    Value::Array(
                        (0..rng.range(0, 3))
                            .map(|_| Value::from(text(rng, 10, 80)))
                            .collect(),
                    ),
                ),
            ])
        })
        .collect();
    object([
        ("results", Value::Array(hits)),
        ("total", int(rng.range(6, 500))),
    ])
}

/// An HTTP tool's result: status, headers and a JSON body with a nested owner.
pub(super) fn http_response(rng: &mut XorShift) -> Value {
    object([
        ("status", int(*rng.pick(&[200, 200, 200, 404, 500]))),
        (
            "headers",
            object([
                (
                    "content-type",
                    Value::from("application/json; charset=utf-8"),
                ),
                ("etag", Value::from(format!("\"{:x}\"", rng.next_u64()))),
            ]),
        ),
        (
            "body",
            object([
                ("id", int(rng.range(1, 1 << 20))),
                ("title", Value::from(text(rng, 10, 80))),
                (
                    "tags",
                    Value::Array(
                        (0..rng.range(0, 5))
                            .map(|_| Value::from(*rng.pick(WORDS)))
                            .collect(),
                    ),
                ),
                (
                    "owner",
                    object([
                        (
                            "name",
                            Value::from(*rng.pick(&["ada", "Grace", "Zoë", "李"])),
                        ),
                        ("score", score(rng)),
                        ("active", Value::Bool(rng.chance(80))),
                        ("manager", Value::Null),
                    ]),
                ),
            ]),
        ),
    ])
}
