//! The `rich` profile of the realistic transcript (`gen-transcript --profile rich`):
//! the same run of the loop as the typical profile, with content that is harder on a
//! verifier. Text is about one word in three non-ASCII (whole sentences of CJK,
//! Cyrillic, Greek, Arabic, emoji) with many characters JSON must escape (code with
//! quotes and backslashes, tabs and newlines, terminal colour codes `\u001b[…m` and
//! other control characters that canonical form writes as `\u00XX`); tool results
//! carry numbers of every spelling: integers, decimals of up to 17 significant digits,
//! negatives, exponents (`1e-7`, `6.02e+23`), and arrays of them (embedding vectors,
//! samples, histograms).
//!
//! Same generator as the typical profile (seeded xorshift64*, no clock): the same
//! arguments give the same bytes.

use agentloop_core::json::Value;

use crate::realistic::{object, XorShift};

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "build", "failed", "because", "parser", "returns", "error", "value", "test",
    "retry", "handler", "cache", "config", "module", "request", "timeout", "line", "check",
    "naïve", "café", "Zürich", "résumé", "façade", "Ångström", "über", "señor", "crème",
    "日本語", "テスト", "中文", "検証", "ログ", "검증", "Ελληνικά", "привет", "ошибка", "مرحبا",
    "שלום", "हिन्दी", "→", "≤", "≥", "λ", "∑", "✓", "✗", "—", "…", "😀", "🚀", "🔥", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
];

/// Whole phrases in one script: a run of multi-byte text with no ASCII between.
#[rustfmt::skip]
const PHRASES: &[&str] = &[
    "検証に失敗しました", "キャッシュの無効化が間違っています", "请再试一次",
    "Ошибка при разборе ответа", "Η δοκιμή απέτυχε", "فشل الاختبار مرة أخرى",
    "🚀🚀🔥✓", "∀x∈ℝ: x²≥0",
];

/// Pieces that need escaping in JSON: quotes, backslashes, tabs, newlines, terminal
/// colour codes and other control characters.
#[rustfmt::skip]
const ESCAPED: &[&str] = &[
    "\n\n```rust\nlet s = \"a \\\"quoted\\\" word\";\nprintln!(\"{s}\\n\");\n```\n\n",
    "\n\tat parse (src\\\\parser.rs:42:7)\n\tat main (src\\\\main.rs:3:1)\n",
    " C:\\Users\\ada\\AppData\\Local\\Temp\\build.log ",
    "\u{1b}[31merror\u{1b}[0m: expected `;`, found `}`\r\n",
    "\u{1b}[1;32m    Finished\u{1b}[0m release [optimized]\n",
    " {\"key\": \"value\", \"path\": \"a\\\\b\"} ",
    "\u{7}\u{0}\u{8}\u{c}\u{1f}",
    " \"quoted\" and 'single' ",
];

/// Text of `lo..=hi` Unicode scalar values, rich in non-ASCII and escapes.
pub fn text(rng: &mut XorShift, lo: u64, hi: u64) -> String {
    let target = rng.range(lo, hi) as usize;
    let mut out = String::with_capacity(target * 3);
    let mut chars = 0usize;
    while chars < target {
        let piece = if rng.chance(10) {
            *rng.pick(ESCAPED)
        } else if rng.chance(10) {
            *rng.pick(PHRASES)
        } else {
            *rng.pick(WORDS)
        };
        let n = piece.chars().count();
        if chars + n + 1 > target {
            break;
        }
        out.push_str(piece);
        out.push(if rng.chance(15) { '\n' } else { ' ' });
        chars += n + 1;
    }
    while chars < target {
        out.push('…');
        chars += 1;
    }
    out
}

/// A number of one of the spellings a tool result carries.
fn number(rng: &mut XorShift) -> Value {
    let sign = if rng.chance(30) { -1.0 } else { 1.0 };
    let x = match rng.range(0, 6) {
        // An integer, small or up to 2^53.
        0 => rng.range(0, 1 << 20) as f64,
        1 => rng.range(0, 1 << 53) as f64,
        // A decimal of 2 to 6 places.
        2 => rng.range(0, 1_000_000) as f64 / 10f64.powi(rng.range(2, 6) as i32),
        // Full double precision (up to 17 significant digits).
        3 => (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64,
        // Very small and very large: exponent spellings.
        4 => rng.range(1, 999) as f64 * 10f64.powi(-(rng.range(7, 30) as i32)),
        _ => rng.range(1, 999) as f64 * 10f64.powi(rng.range(21, 40) as i32),
    };
    Value::Number(sign * x)
}

fn numbers(rng: &mut XorShift, lo: u64, hi: u64) -> Value {
    Value::Array((0..rng.range(lo, hi)).map(|_| number(rng)).collect())
}

/// The tools of the rich profile.
pub const TOOLS: &[&str] = &["embed", "stats", "run_shell", "read_file", "translate"];

/// Arguments for a call of `tool`.
pub fn arguments(rng: &mut XorShift, tool: &str) -> Value {
    match tool {
        "embed" => object([
            ("input", Value::from(text(rng, 20, 200))),
            ("dimensions", Value::Number(rng.range(8, 48) as f64)),
        ]),
        "stats" => object([
            (
                "series",
                Value::from(*rng.pick(&["latency_ms", "tokens/s", "Δt"])),
            ),
            ("window", number(rng)),
        ]),
        "translate" => object([
            ("text", Value::from(text(rng, 20, 300))),
            ("to", Value::from(*rng.pick(&["ja", "ru", "el", "ar"]))),
        ]),
        _ => object([
            ("command", Value::from(text(rng, 10, 60))),
            ("timeout_s", number(rng)),
        ]),
    }
}

/// The value a successful call of `tool` returns.
pub fn value(rng: &mut XorShift, tool: &str) -> Value {
    match tool {
        "embed" => {
            let dims = rng.range(8, 48);
            let vector = (0..dims)
                .map(|_| {
                    let v = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                    Value::Number(v)
                })
                .collect();
            object([
                ("vector", Value::Array(vector)),
                ("norm", number(rng)),
                ("model", Value::from("embed-ünïcode-v2")),
            ])
        }
        "stats" => object([
            ("samples", numbers(rng, 10, 60)),
            ("mean", number(rng)),
            ("stddev", number(rng)),
            (
                "histogram",
                Value::Array((0..rng.range(3, 12)).map(|_| numbers(rng, 3, 3)).collect()),
            ),
        ]),
        "translate" => object([
            ("text", Value::from(text(rng, 100, 1500))),
            ("confidence", number(rng)),
        ]),
        _ => object([
            ("stdout", Value::from(text(rng, 100, 2000))),
            ("stderr", Value::from(text(rng, 0, 400))),
            ("exit_code", Value::Number(rng.range(0, 2) as f64)),
            ("elapsed_s", number(rng)),
        ]),
    }
}
