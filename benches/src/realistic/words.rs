//! The generator's randomness and words: a reproducible xorshift, text of words with the odd non-ASCII word, code block or escape, and small value builders.

use agentloop_core::json::{Object, Value};

use super::*;

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
pub(super) const WORDS: &[&str] = &[
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
pub(super) const UNICODE_WORDS: &[&str] = &[
    "naïve", "café", "Zürich", "résumé", "façade", "coöperate", "Ångström", "über",
    "日本語", "テスト", "中文", "검증", "Ελληνικά", "привет", "مرحبا", "→", "≤", "λ", "✓",
    "—", "“quoted”", "😀", "🚀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
];

pub(super) const PUNCT: &[&str] = &[". ", ". ", ". ", ", ", "; ", ": ", "? ", "! "];

pub(super) const SNIPPETS: &[&str] = &[
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

pub(super) fn int(n: u64) -> Value {
    Value::Number(n as f64)
}

/// A score `k / 1024`: exactly representable, with a short shortest-round-trip form.
pub(super) fn score(rng: &mut XorShift) -> Value {
    Value::Number(rng.range(1, 1023) as f64 / 1024.0)
}

pub(super) fn ident(rng: &mut XorShift) -> String {
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
