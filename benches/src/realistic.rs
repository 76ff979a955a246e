//! A deterministic, realistic transcript of one long run of the loop, for the
//! side-by-side verify benchmark (`benches/verify_peers.sh`, issue 7).
//!
//! One `task`, then turns of an `assistant` record (text of 200–2000 characters with
//! some non-ASCII and some characters JSON must escape, one to three tool calls with
//! arguments, `tokens` as the loop estimates them) each followed by one `tool` record
//! per call (`ok: true` with a nested value, about one in ten `ok: false` with a
//! sentence), until the target size is reached; then a last `assistant` turn with no
//! calls and the `stop` record (`no_tool_calls`, counts matching the records). Every
//! record is appended with [`Chain::append`], so the file is canonical and passes
//! `agentloop verify --loop`.
//!
//! Randomness is a seeded xorshift64* generator: no clock, no `rand`, so the same
//! target size and seed give the same bytes on every machine.

use std::io::{self, Write};

use agentloop_core::agent::{call_id, estimate_tokens};
use agentloop_core::chain::Chain;
use agentloop_core::json::{Object, Value};

use crate::rich;

/// The seed `gen-transcript` uses unless given another.
pub const DEFAULT_SEED: u64 = 0x5eed_a6e7_100b_2025;

/// xorshift64* (Vigna): small, fast, and reproducible everywhere.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator; a zero seed (a fixed point of xorshift) is replaced.
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 { DEFAULT_SEED } else { seed })
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-enough in `lo..=hi` (modulo bias is irrelevant here).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "file", "function", "returns", "value", "error", "test", "build", "check",
    "result", "I", "will", "now", "read", "search", "for", "and", "then", "run", "it",
    "again", "with", "a", "small", "change", "to", "configuration", "module", "parser",
    "because", "output", "shows", "that", "handler", "is", "called", "twice", "when",
    "request", "times", "out", "so", "retry", "logic", "should", "be", "bounded", "let",
    "me", "look", "at", "line", "numbers", "in", "stack", "trace", "first", "cache",
    "invalidation", "seems", "wrong", "here", "which", "explains", "flaky", "behaviour",
    "on", "CI", "dependency", "version", "upgrade", "fixes", "regression", "summary",
    "next", "step", "verify", "patch", "applies", "cleanly", "schema", "field", "missing",
    "optional", "default", "timeout", "seconds",
];

/// About one word in twenty of a text: accents, CJK, Greek, Cyrillic, Arabic, symbols,
/// and characters outside the BMP (two UTF-16 units, four UTF-8 bytes).
#[rustfmt::skip]
const UNICODE_WORDS: &[&str] = &[
    "naïve", "café", "Zürich", "résumé", "façade", "coöperate", "Ångström", "über",
    "日本語", "テスト", "中文", "검증", "Ελληνικά", "привет", "مرحبا", "→", "≤", "λ", "✓",
    "—", "“quoted”", "😀", "🚀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
];

const PUNCT: &[&str] = &[". ", ". ", ". ", ", ", "; ", ": ", "? ", "! "];

const SNIPPETS: &[&str] = &[
    "\n\n```rust\nfn main() {\n    println!(\"hello, {}\", name);\n}\n```\n\n",
    "\n\n```sh\ncargo test -p core -- --nocapture\n```\n\n",
    "\n- step one\n- step two\n- step three\n\n",
    " (path: C:\\Users\\ada\\src\\main.rs) ",
    "\n\tindented\tby\ttabs\n",
    " {\"key\": \"value\", \"n\": 3} ",
];

/// Text of `lo..=hi` Unicode scalar values: sentences of words from `WORDS`, with
/// `UNICODE_WORDS` and the odd code block or escaped character.
pub fn text(rng: &mut XorShift, lo: u64, hi: u64) -> String {
    let target = rng.range(lo, hi) as usize;
    let mut out = String::with_capacity(target * 2);
    let mut chars = 0usize;
    let mut capital = true;
    while chars < target {
        let list = if rng.chance(2) {
            SNIPPETS
        } else if rng.chance(5) {
            UNICODE_WORDS
        } else {
            WORDS
        };
        let piece = *rng.pick(list);
        let n = piece.chars().count();
        if chars + n + 2 > target {
            break;
        }
        if capital {
            let mut it = piece.chars();
            if let Some(c) = it.next() {
                out.extend(c.to_uppercase());
                out.push_str(it.as_str());
            }
            capital = false;
        } else {
            out.push_str(piece);
        }
        chars += n;
        if rng.chance(12) {
            let p = rng.pick(PUNCT);
            out.push_str(p);
            chars += p.chars().count();
            capital = p.starts_with(['.', '?', '!']);
        } else {
            out.push(' ');
            chars += 1;
        }
    }
    while chars < target {
        out.push('.');
        chars += 1;
    }
    out
}

/// An object of the given members.
pub fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut o = Object::new();
    for (k, v) in members {
        o.insert(k, v);
    }
    Value::Object(o)
}

fn int(n: u64) -> Value {
    Value::Number(n as f64)
}

/// A score `k / 1024`: exactly representable, with a short shortest-round-trip form.
fn score(rng: &mut XorShift) -> Value {
    Value::Number(rng.range(1, 1023) as f64 / 1024.0)
}

fn ident(rng: &mut XorShift) -> String {
    let parts = [
        "src", "core", "cli", "tests", "lib", "util", "net", "db", "api",
    ];
    let names = [
        "main", "parse", "verify", "chain", "config", "handler", "retry", "cache",
    ];
    let exts = ["rs", "py", "toml", "md", "json", "ts"];
    format!(
        "{}/{}/{}_{}.{}",
        rng.pick(&parts),
        rng.pick(&parts),
        rng.pick(&names),
        rng.range(0, 99),
        rng.pick(&exts)
    )
}

const TOOLS: &[&str] = &[
    "read_file",
    "search",
    "run_shell",
    "http_get",
    "add",
    "write_file",
];

/// Arguments for a call of `tool`.
fn arguments(rng: &mut XorShift, tool: &str) -> Value {
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
fn value(rng: &mut XorShift, tool: &str, arguments: &Value) -> Value {
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
fn search_results(rng: &mut XorShift) -> Value {
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
fn http_response(rng: &mut XorShift) -> Value {
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

const ERRORS: &[&str] = &[
    "tool 'run_shell' failed: command timed out after 30 s",
    "invalid arguments: $.read_file.limit: expected type integer, got string",
    "tool 'http_get' failed: connection reset by peer",
    "no tool named 'browse' (have: add, http_get, read_file, run_shell, search, write_file)",
    "tool 'write_file' failed: permission denied: /etc/passwd",
];

/// A chain and where its lines go.
struct Appender<'a> {
    chain: Chain,
    out: &'a mut dyn Write,
    written: u64,
}

impl Appender<'_> {
    fn emit(&mut self, kind: &str, payload: &Value) -> io::Result<()> {
        let line = self
            .chain
            .append(kind, payload)
            .map_err(|e| io::Error::other(e.to_string()))?;
        self.written += line.len() as u64;
        self.out.write_all(line)
    }
}

/// What the transcript's content looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Mostly ASCII prose and code (about 3 % of bytes non-ASCII), a few escapes,
    /// integers and scores k/1024: the transcript of issue 7.
    Typical,
    /// Hard on a verifier: much non-ASCII text, many escapes and control characters,
    /// numbers of every spelling ([`crate::rich`]).
    Rich,
}

impl Profile {
    /// The profile named `typical` or `rich`.
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "typical" => Some(Profile::Typical),
            "rich" => Some(Profile::Rich),
            _ => None,
        }
    }

    fn text(self, rng: &mut XorShift, lo: u64, hi: u64) -> String {
        match self {
            Profile::Typical => text(rng, lo, hi),
            Profile::Rich => rich::text(rng, lo, hi),
        }
    }

    fn tool(self, rng: &mut XorShift) -> &'static str {
        match self {
            Profile::Typical => rng.pick::<&str>(TOOLS),
            Profile::Rich => rng.pick::<&str>(rich::TOOLS),
        }
    }

    fn arguments(self, rng: &mut XorShift, tool: &str) -> Value {
        match self {
            Profile::Typical => arguments(rng, tool),
            Profile::Rich => rich::arguments(rng, tool),
        }
    }

    fn value(self, rng: &mut XorShift, tool: &str, arguments: &Value) -> Value {
        match self {
            Profile::Typical => value(rng, tool, arguments),
            Profile::Rich => rich::value(rng, tool),
        }
    }
}

/// An `assistant` payload: its text, its calls and its token estimate.
fn assistant_record(body: String, calls: &[(String, &str, Value)], tokens: u64) -> Value {
    let tool_calls = calls
        .iter()
        .map(|(id, name, args)| {
            object([
                ("id", Value::from(id.as_str())),
                ("name", Value::from(*name)),
                ("arguments", args.clone()),
            ])
        })
        .collect();
    object([
        ("text", Value::from(body)),
        ("tool_calls", Value::Array(tool_calls)),
        ("tokens", int(tokens)),
    ])
}

/// One `tool` record per call, in call order: one in ten a failure.
fn emit_results(
    w: &mut Appender<'_>,
    rng: &mut XorShift,
    profile: Profile,
    calls: &[(String, &str, Value)],
) -> io::Result<()> {
    for (id, name, args) in calls {
        let (ok, member, result) = if rng.chance(10) {
            (false, "error", Value::from(*rng.pick(ERRORS)))
        } else {
            (true, "value", profile.value(rng, name, args))
        };
        let record = object([
            ("id", Value::from(id.as_str())),
            ("name", Value::from(*name)),
            ("ok", Value::Bool(ok)),
            (member, result),
        ]);
        w.emit("tool", &record)?;
    }
    Ok(())
}

/// Writes the typical transcript ([`write_transcript_with`], [`Profile::Typical`]).
pub fn write_transcript(
    out: &mut dyn Write,
    target_bytes: u64,
    seed: u64,
) -> io::Result<(u64, u64)> {
    write_transcript_with(out, target_bytes, seed, Profile::Typical)
}

/// Writes the transcript: records are added until at least `target_bytes` are written,
/// then the closing turn and `stop`. Returns the bytes and records written.
pub fn write_transcript_with(
    out: &mut dyn Write,
    target_bytes: u64,
    seed: u64,
    profile: Profile,
) -> io::Result<(u64, u64)> {
    let mut rng = XorShift::new(seed);
    let mut w = Appender {
        chain: Chain::new(),
        out,
        written: 0,
    };
    let task = object([
        (
            "task",
            Value::from("Find why the retry handler fires twice on timeouts, fix it, and prove the fix with a test."),
        ),
        ("budgets", object([("max_steps", int(100_000_000))])),
    ]);
    w.emit("task", &task)?;
    let (mut steps, mut tokens) = (0u64, 0u64);
    loop {
        let seq = w.chain.next_seq();
        let last = w.written >= target_bytes;
        let body = profile.text(&mut rng, 200, 2000);
        let turn_tokens = estimate_tokens(&body);
        let ncalls = if last {
            0
        } else {
            *rng.pick(&[1, 1, 1, 1, 2, 2, 3])
        };
        let calls: Vec<(String, &str, Value)> = (0..ncalls)
            .map(|i| {
                let tool = profile.tool(&mut rng);
                (call_id(seq, i), tool, profile.arguments(&mut rng, tool))
            })
            .collect();
        let assistant = assistant_record(body, &calls, turn_tokens);
        w.emit("assistant", &assistant)?;
        steps += 1;
        tokens += turn_tokens;
        emit_results(&mut w, &mut rng, profile, &calls)?;
        if last {
            break;
        }
    }
    let stop = object([
        ("reason", Value::from("no_tool_calls")),
        ("steps", int(steps)),
        ("tokens", int(tokens)),
        ("unrun_calls", int(0)),
    ]);
    w.emit("stop", &stop)?;
    w.out.flush()?;
    Ok((w.written, w.chain.count()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::{audit, verify};

    #[test]
    fn small_transcript_is_deterministic_canonical_and_a_run() {
        let make = |seed| {
            let mut bytes = Vec::new();
            let (written, records) = write_transcript(&mut bytes, 200_000, seed).unwrap();
            assert_eq!(written, bytes.len() as u64);
            (bytes, records)
        };
        let (a, records) = make(DEFAULT_SEED);
        let (b, _) = make(DEFAULT_SEED);
        assert_eq!(a, b);
        assert_ne!(make(7).0, a);
        assert!(a.len() >= 200_000 && a.len() < 240_000, "{}", a.len());
        let report = audit::verify_loop_bytes(&a, &verify::Options::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(report.count, records);
        let text = std::str::from_utf8(&a).unwrap();
        assert!(text.contains("\\n") && text.contains("\\\"") && text.contains("日本語"));
        assert!(text.contains("\"ok\":false") && text.contains("\"score\":0."));
    }

    /// Share of non-ASCII bytes, backslashes per 1,000 bytes, and share of bytes in
    /// number literals (outside strings).
    fn richness(bytes: &[u8]) -> (f64, f64, f64) {
        let n = bytes.len() as f64;
        let non_ascii = bytes.iter().filter(|&&b| b >= 0x80).count() as f64 / n;
        let escapes = bytes.iter().filter(|&&b| b == b'\\').count() as f64 * 1000.0 / n;
        let (mut in_string, mut escaped, mut number_bytes) = (false, false, 0usize);
        for &b in bytes {
            if in_string {
                in_string = escaped || b != b'"';
                escaped = !escaped && b == b'\\';
            } else if b == b'"' {
                in_string = true;
            } else if b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-') {
                number_bytes += 1;
            }
        }
        (non_ascii, escapes, number_bytes as f64 / n)
    }

    #[test]
    fn rich_transcript_is_deterministic_canonical_a_run_and_richer() {
        let make = |profile| {
            let mut bytes = Vec::new();
            let (written, records) =
                write_transcript_with(&mut bytes, 300_000, DEFAULT_SEED, profile).unwrap();
            assert_eq!(written, bytes.len() as u64);
            (bytes, records)
        };
        let (rich, records) = make(Profile::Rich);
        assert_eq!(make(Profile::Rich).0, rich);
        let report = audit::verify_loop_bytes(&rich, &verify::Options::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(report.count, records);
        // The typical profile is the one write_transcript writes, byte for byte.
        let (typical, _) = make(Profile::Typical);
        let mut plain = Vec::new();
        write_transcript(&mut plain, 300_000, DEFAULT_SEED).unwrap();
        assert_eq!(plain, typical);
        let (r_text, r_esc, r_num) = richness(&rich);
        let (t_text, t_esc, t_num) = richness(&typical);
        assert!(
            r_text > 0.2 && r_text > 5.0 * t_text,
            "{r_text} vs {t_text}"
        );
        assert!(r_esc > 3.0 * t_esc, "{r_esc} vs {t_esc}");
        assert!(r_num > 5.0 * t_num, "{r_num} vs {t_num}");
        // Escapes of every kind, control characters among them, and exponents.
        let text = std::str::from_utf8(&rich).unwrap();
        for needle in [
            "\\u001b[31m",
            "\\u0000",
            "\\b",
            "\\f",
            "\\\"",
            "\\\\",
            "e-",
            "e+",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
        assert_eq!(Profile::from_name("rich"), Some(Profile::Rich));
        assert_eq!(Profile::from_name("typical"), Some(Profile::Typical));
        assert_eq!(Profile::from_name("Rich"), None);
    }
}
