//! Random documents and the ECMAScript oracle (node).

use agentloop_core::json::{Object, Value};

use crate::noisy::XorShift;
use crate::scratch::TempDir;

/// Reads JSONL from the file named by `$JCS_INPUT` and prints the RFC 8785 form of each
/// line, one per line.
pub const NODE_JCS: &str = r#"
const fs = require('fs');
function canon(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}
const out = [];
for (const line of fs.readFileSync(process.env.JCS_INPUT, 'utf8').split('\n')) {
  if (line.length > 0) out.push(canon(JSON.parse(line)));
}
process.stdout.write(out.join('\n') + '\n');
"#;

/// A random character, weighted towards the ones canonicalisation treats specially
/// (controls, quotes, U+2028, astral and U+E000.. characters).
pub fn random_char(rng: &mut XorShift) -> char {
    let code = match rng.below(10) {
        0..=2 => 0x20 + rng.below(0x5f) as u32,
        3 => rng.below(0x20) as u32,
        4 => [0x22, 0x5c, 0x2f, 0x7f, 0x2028, 0x2029, 0xe9, 0xfeff][rng.below(8) as usize],
        5 => 0x80 + rng.below(0x780) as u32,
        6 => 0x800 + rng.below(0xd800 - 0x800) as u32,
        7 => 0xe000 + rng.below(0x2000) as u32,
        _ => 0x10000 + rng.below(0x100000) as u32,
    };
    char::from_u32(code).unwrap_or('?')
}

/// A random string of up to 9 [`random_char`]s.
pub fn random_string(rng: &mut XorShift) -> String {
    let len = rng.below(10);
    (0..len).map(|_| random_char(rng)).collect()
}

/// A random finite double, weighted towards the edges of ECMAScript's number spelling
/// (zeros, subnormals, safe integers, powers of ten near 1e21 and 1e-7).
pub fn random_number(rng: &mut XorShift) -> f64 {
    const TWO_53: u64 = 1 << 53;
    let sign = if rng.one_in(2) { -1.0 } else { 1.0 };
    let n = match rng.below(8) {
        0 | 1 => loop {
            let f = f64::from_bits(rng.next_u64());
            if f.is_finite() {
                break f;
            }
        },
        2 => [0.0, -0.0][rng.below(2) as usize],
        3 => f64::from_bits(rng.below(1 << 52)), // subnormal (or zero)
        4 => sign * rng.below(TWO_53 + 1) as f64,
        5 => sign * rng.below(100_000) as f64,
        _ => {
            // Around the ECMAScript switches to exponent form: 1e21 and 1e-7.
            let exp = [21, 20, 22, -7, -6, -8, 0, 1][rng.below(8) as usize];
            let base = (1 + rng.below(9)) as f64 * 10f64.powi(exp);
            let bits = base.to_bits();
            let nudged = match rng.below(3) {
                0 => bits,
                1 => bits + 1,
                _ => bits - 1,
            };
            sign * f64::from_bits(nudged)
        }
    };
    if n.is_finite() {
        n
    } else {
        0.5
    }
}

fn random_value(rng: &mut XorShift, depth: usize) -> Value {
    let container = depth == 0 || (depth < 4 && rng.below(10) < 4);
    if !container {
        return match rng.below(8) {
            0 => Value::Null,
            1 => Value::Bool(rng.one_in(2)),
            2..=4 => Value::Number(random_number(rng)),
            _ => Value::String(random_string(rng)),
        };
    }
    let len = rng.below(6) as usize;
    if rng.one_in(2) {
        Value::Array((0..len).map(|_| random_value(rng, depth + 1)).collect())
    } else {
        let mut object = Object::new();
        for _ in 0..len {
            let key = random_string(rng);
            let value = random_value(rng, depth + 1);
            object.insert(key, value);
        }
        Value::Object(object)
    }
}

/// A random JSON document (an array or object at the top, nesting at most 4 deep).
pub fn random_document(rng: &mut XorShift) -> Value {
    random_value(rng, 0)
}

/// The RFC 8785 form of each document according to ECMAScript itself (node running
/// [`NODE_JCS`]), one entry per input line. Panics if node fails.
pub fn ecmascript_canonical(lines: &[String]) -> Vec<Vec<u8>> {
    let mut jsonl = lines.join("\n");
    jsonl.push('\n');
    node_on_file(NODE_JCS, "JCS_INPUT", jsonl.as_bytes())
        .strip_suffix(b"\n")
        .expect("node output ends with a newline")
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// What node prints when it runs `script` with the environment variable `env` naming a
/// scratch file that holds `input`. Panics if node fails.
pub fn node_on_file(script: &str, env: &str, input: &[u8]) -> Vec<u8> {
    let dir = TempDir::new("node");
    let path = dir.write("input", input);
    let output = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .env(env, &path)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}
