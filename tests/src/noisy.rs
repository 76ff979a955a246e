//! A seeded PRNG and a writer of valid but non-canonical JSON.

use agentloop_core::json::Value;

/// A seeded xorshift64* generator: deterministic, no outside crate.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (any value; 0 is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// Writes `value` as valid JSON that is (usually) not canonical: random insignificant
/// white space (never a newline, so the result fits on a JSONL line), members in a
/// shuffled order, strings with random `\uXXXX` escapes (upper- or lowercase hex, and
/// surrogate pairs for astral characters), `\/`, and numbers spelled with Rust's
/// `{:e}`, `{:?}` or `{}` formats, which all read back to the same double.
pub fn write_noisy(value: &Value, rng: &mut XorShift, out: &mut String) {
    fn ws(rng: &mut XorShift, out: &mut String) {
        if rng.one_in(3) {
            for _ in 0..rng.below(3) {
                out.push([' ', '\t', ' ', '\r'][rng.below(4) as usize]);
            }
        }
    }
    fn string(s: &str, rng: &mut XorShift, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            let code = c as u32;
            let must = c == '"' || c == '\\' || code < 0x20;
            if !must && !rng.one_in(4) {
                out.push(c);
                continue;
            }
            let short = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '/' => Some("\\/"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                _ => None,
            };
            match short {
                Some(esc) if rng.below(3) != 0 => out.push_str(esc),
                _ => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        if rng.one_in(2) {
                            out.push_str(&format!("\\u{unit:04x}"));
                        } else {
                            out.push_str(&format!("\\u{unit:04X}"));
                        }
                    }
                }
            }
        }
        out.push('"');
    }
    ws(rng, out);
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match rng.below(3) {
            0 => out.push_str(&format!("{n:e}")),
            1 => out.push_str(&format!("{n:?}")),
            _ => out.push_str(&format!("{n}")),
        },
        Value::String(s) => string(s, rng, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_noisy(item, rng, out);
            }
            ws(rng, out);
            out.push(']');
        }
        Value::Object(o) => {
            let mut members: Vec<(&str, &Value)> = o.iter().collect();
            for i in (1..members.len()).rev() {
                members.swap(i, rng.below(i as u64 + 1) as usize);
            }
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                string(k, rng, out);
                ws(rng, out);
                out.push(':');
                write_noisy(v, rng, out);
            }
            ws(rng, out);
            out.push('}');
        }
    }
    ws(rng, out);
}
