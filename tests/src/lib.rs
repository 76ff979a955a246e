//! Shared helpers for the cross-crate tests of agentloop.
//!
//! - where the public vectors live ([`vectors_dir`]) and how a test that needs an outside
//!   resource is skipped locally but fails in CI ([`skip_or_fail`]);
//! - scratch directories that clean up after themselves ([`TempDir`]);
//! - SHA-256 straight from `sha2` ([`sha256`]), so forged records are hashed without the
//!   core's record encoder;
//! - building, forging and tampering transcripts ([`sample_chain`], [`forge_chain`],
//!   [`seal`], [`transcript`]);
//! - running every verifier entry point on the same bytes and checking they agree
//!   ([`verify_everywhere`]);
//! - a seeded PRNG ([`XorShift`]) and a writer of valid but non-canonical JSON
//!   ([`write_noisy`]);
//! - proptest strategies for JSON values and record kinds ([`json_value`], [`record_kind`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use sha2::Digest;
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};
use agentloop_core::verify::{self, FaultKind, Options, Report};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Outside resources
// ---------------------------------------------------------------------------------------

/// The workspace root (the parent of this package).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The public test vectors folder: `$AGENTLOOP_VECTORS` if set (a relative path is taken
/// relative to the workspace root), else `../shared/vectors` relative to the workspace
/// root. Independent of the current directory, so it works whatever cwd cargo uses.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("AGENTLOOP_VECTORS") {
        Some(v) if !v.is_empty() => {
            let p = PathBuf::from(v);
            if p.is_absolute() {
                p
            } else {
                workspace_root().join(p)
            }
        }
        _ => workspace_root().join("..").join("shared").join("vectors"),
    }
}

/// Whether the tests run in CI (`CI` set to anything but empty, `0` or `false`), where a
/// missing outside resource is a failure rather than a skip.
pub fn in_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"),
        Err(_) => false,
    }
}

/// Reports a skipped test on stderr, or panics with the same message when [`in_ci`].
pub fn skip_or_fail(message: &str) {
    assert!(!in_ci(), "{message} (CI is set, so this is a failure)");
    eprintln!("{message}");
}

/// Whether `program` can be started (it answers `--version`).
pub fn have_program(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

// ---------------------------------------------------------------------------------------
// Scratch directories
// ---------------------------------------------------------------------------------------

/// A fresh directory under [`std::env::temp_dir`], removed (with its contents) on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates a directory whose name holds `label`, the process id and a counter.
    pub fn new(label: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let clean: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "agentloop-tests-{clean}-{}-{n}",
                std::process::id()
            ));
            match fs::create_dir(&path) {
                Ok(()) => return TempDir { path },
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create {}: {e}", path.display()),
            }
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` to `name` in the directory and returns the file's path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path.join(name);
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// SHA-256 of `data`, through the `sha2` crate directly rather than the core's
/// record hashing, so forged records do not reuse the code under test.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------
// Records and transcripts
// ---------------------------------------------------------------------------------------

/// The canonical encoding of `value` (panics on a non-finite number).
pub fn canonical(value: &Value) -> Vec<u8> {
    jcs::to_vec(value).expect("the value has a canonical encoding")
}

/// Parses one record line (without its newline) strictly into an object.
pub fn parse_record(line: &[u8]) -> Object {
    match json::parse(line) {
        Ok(Value::Object(o)) => o,
        other => panic!("not a record line: {other:?}"),
    }
}

/// A record object without `hash`: `{kind, payload, prev, seq}`.
pub fn record_object(kind: &str, payload: Value, prev: &Hash, seq: u64) -> Object {
    let mut o = Object::new();
    o.insert("kind", Value::from(kind));
    o.insert("payload", payload);
    o.insert("prev", Value::String(prev.to_string()));
    o.insert("seq", Value::Number(seq as f64));
    o
}

/// The SPEC hash of a record object: SHA-256 (independent implementation) of the
/// canonical encoding of the object without its `hash` member.
pub fn record_hash(record: &Object) -> Hash {
    let mut body = record.clone();
    body.remove("hash");
    Hash(sha256(&canonical(&Value::Object(body))))
}

/// Computes the record's hash, sets its `hash` member, and returns the canonical line
/// (without newline) and the hash.
pub fn seal(mut record: Object) -> (Vec<u8>, Hash) {
    let h = record_hash(&record);
    record.insert("hash", Value::String(h.to_string()));
    (canonical(&Value::Object(record)), h)
}

/// The canonical line of a record object (whatever its `hash` says), without newline.
pub fn encode_record(record: &Object) -> Vec<u8> {
    canonical(&Value::Object(record.clone()))
}

/// The kind of the `i`-th sample record.
pub fn sample_kind(i: usize) -> &'static str {
    ["task", "assistant", "tool", "stop", "note"][i % 5]
}

/// The payload of the `i`-th sample record: an object with unicode text, escapes and
/// numbers whose canonical spelling is not the obvious one.
pub fn sample_payload(i: usize) -> Value {
    let text = format!("record {i}: café ☕ 😀 \"q\" \\ tab\t nl\n ﬁ €");
    let doc = format!(
        r#"{{"i":{i},"text":{},"n":[0.1,1e21,-5,5e-324,1E-7,{i}.5],"ok":true,"nil":null,"nested":{{"b":[],"a":{{}}}}}}"#,
        String::from_utf8(canonical(&Value::String(text))).expect("utf-8")
    );
    json::parse(doc.as_bytes()).expect("sample payload parses")
}

/// A valid transcript of `n` sample records written by the core's [`Chain`]: its lines
/// (without newlines) and the chain.
pub fn sample_chain(n: usize) -> (Vec<Vec<u8>>, Chain) {
    let mut chain = Chain::new();
    let lines = (0..n)
        .map(|i| {
            let line = chain
                .append(sample_kind(i), &sample_payload(i))
                .expect("sample record appends");
            let (body, nl) = line.split_at(line.len() - 1);
            assert_eq!(nl, b"\n", "a Chain line ends with a newline");
            body.to_vec()
        })
        .collect();
    (lines, chain)
}

/// Builds `n` sample records the way a writer would (prev = hash of the record before,
/// seq = position), but lets `edit` change each record object before it is sealed with
/// its recomputed hash. With an `edit` that does nothing the result equals
/// [`sample_chain`] byte for byte. Returns the lines and the stored hash of each.
pub fn forge_chain(
    n: usize,
    mut edit: impl FnMut(usize, &mut Object),
) -> (Vec<Vec<u8>>, Vec<Hash>) {
    let mut prev = Hash::ZERO;
    let mut lines = Vec::new();
    let mut hashes = Vec::new();
    for i in 0..n {
        let mut o = record_object(sample_kind(i), sample_payload(i), &prev, i as u64);
        edit(i, &mut o);
        let (line, h) = seal(o);
        lines.push(line);
        hashes.push(h);
        prev = h;
    }
    (lines, hashes)
}

/// Joins lines into a transcript, each followed by `\n`.
pub fn transcript<L: AsRef<[u8]>>(lines: &[L]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_ref());
        out.push(b'\n');
    }
    out
}

/// Replaces the only occurrence of `from` in `line` by `to` (panics unless there is
/// exactly one, so a tampering step cannot silently do nothing).
pub fn replace_once(line: &[u8], from: &str, to: &str) -> Vec<u8> {
    let f = from.as_bytes();
    let hits: Vec<usize> = line
        .windows(f.len())
        .enumerate()
        .filter(|(_, w)| *w == f)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "expected exactly one {from:?} in {}",
        String::from_utf8_lossy(line)
    );
    let mut out = line[..hits[0]].to_vec();
    out.extend_from_slice(to.as_bytes());
    out.extend_from_slice(&line[hits[0] + f.len()..]);
    out
}

// ---------------------------------------------------------------------------------------
// Verifying everywhere
// ---------------------------------------------------------------------------------------

/// The (index, kind) pairs of a report's faults, in order.
pub fn fault_list(report: &Report) -> Vec<(Option<u64>, FaultKind)> {
    report.faults.iter().map(|f| (f.index, f.kind)).collect()
}

/// Checks the report invariants that hold for a transcript read from a file or bytes:
/// a fault with an index has `line = index + 1` (except `truncated`, whose record is
/// not in the file, and so has no line), `unreadable` has neither, and faults with an
/// index come in line order.
pub fn check_line_invariants(report: &Report) {
    for f in &report.faults {
        match f.kind {
            FaultKind::Unreadable => {
                assert_eq!((f.index, f.line), (None, None), "{f}");
            }
            FaultKind::Truncated => {
                assert_eq!(f.index, Some(report.count), "{f}");
                assert_eq!(f.line, None, "{f}");
            }
            _ => {
                let index = f.index.unwrap_or_else(|| panic!("no index: {f}"));
                assert_eq!(f.line, Some(index + 1), "line = index + 1: {f}");
            }
        }
        assert!(
            !f.detail.to_string().is_empty(),
            "a fault names what was wrong: {f:?}"
        );
    }
    let indices: Vec<u64> = report.faults.iter().filter_map(|f| f.index).collect();
    assert!(
        indices.windows(2).all(|w| w[0] <= w[1]),
        "faults in line order: {:?}",
        fault_list(report)
    );
}

/// Writes `bytes` to a fresh file on disk and verifies it with [`verify::verify_file`],
/// [`verify::verify_bytes`], [`verify::verify_reader`] over the bytes,
/// [`verify::verify_reader`] over a reader that yields one byte at a time, and
/// [`verify::verify_reader_parallel`] / [`verify::verify_file_with`] on threads with
/// chunks from 1 byte up; asserts the reports are identical and satisfy
/// [`check_line_invariants`]; returns the report.
pub fn verify_everywhere(bytes: &[u8], options: &Options) -> Report {
    let report = verify_all_agree(bytes, options);
    check_line_invariants(&report);
    report
}

/// Like [`verify_everywhere`], without [`check_line_invariants`] (for the few reports
/// with a fault that has no record to point at, such as a count-0 checkpoint's
/// `head_mismatch`).
pub fn verify_all_agree(bytes: &[u8], options: &Options) -> Report {
    let dir = TempDir::new("verify");
    let path = dir.write("transcript.jsonl", bytes);
    let from_file = verify::verify_file(&path, options);
    let from_bytes = verify::verify_bytes(bytes, options);
    let from_reader = verify::verify_reader(bytes, options);
    let byte_by_byte = verify::verify_reader(BufReader::with_capacity(1, bytes), options);
    assert_eq!(from_file, from_bytes, "verify_file vs verify_bytes");
    assert_eq!(from_reader, from_bytes, "verify_reader vs verify_bytes");
    assert_eq!(byte_by_byte, from_bytes, "1-byte reader vs verify_bytes");
    // On threads: chunks far smaller than a line (every line crosses buffers), about a
    // line, and larger than the input; and the file path forced onto threads.
    for (threads, chunk_bytes) in [(2, 1), (3, 7), (2, 150), (1, 1 << 20)] {
        let parallel = verify::Parallel {
            threads,
            chunk_bytes,
            from_bytes: 0,
        };
        let threaded = verify::verify_reader_parallel(bytes, options, &parallel);
        assert_eq!(
            threaded, from_bytes,
            "parallel {parallel:?} vs verify_bytes"
        );
    }
    let forced = verify::Parallel {
        threads: 2,
        chunk_bytes: 64,
        from_bytes: 0,
    };
    let from_file_threaded = verify::verify_file_with(&path, options, &forced);
    assert_eq!(
        from_file_threaded, from_bytes,
        "verify_file_with on threads"
    );
    from_file
}

// ---------------------------------------------------------------------------------------
// Randomness and noisy JSON
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// proptest strategies
// ---------------------------------------------------------------------------------------

/// Characters that stress a JSON string encoder: ASCII, the control characters, quote,
/// backslash, slash, U+007F, Latin-1, the BMP including U+2028 and U+E000..=U+FFFF, and
/// astral characters (which sort differently by UTF-16 code units than by code point).
pub fn json_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range(' ', '~'),
        2 => prop::char::range('\u{0}', '\u{1f}'),
        1 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', '\u{2029}', 'é']),
        1 => prop::char::range('\u{80}', '\u{7ff}'),
        1 => prop::char::range('\u{800}', '\u{d7ff}'),
        1 => prop::char::range('\u{e000}', '\u{ffff}'),
        2 => prop::char::range('\u{10000}', '\u{10ffff}'),
    ]
}

/// Strings of 0 to 12 [`json_char`]s.
pub fn json_string() -> impl Strategy<Value = String> {
    prop::collection::vec(json_char(), 0..12).prop_map(|cs| cs.into_iter().collect())
}

/// Non-empty strings, for record kinds.
pub fn record_kind() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(vec!["task", "assistant", "tool", "stop", "resume"])
            .prop_map(String::from),
        1 => prop::collection::vec(json_char(), 1..10).prop_map(|cs| cs.into_iter().collect()),
    ]
}

/// Finite doubles: any bit pattern that is finite, ±0, subnormals, huge values, the
/// ECMAScript formatting boundaries (1e21, 1e-7), and integers within ±2^53.
pub fn json_number() -> impl Strategy<Value = f64> {
    const TWO_53: i64 = 1 << 53;
    prop_oneof![
        3 => any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite()),
        3 => (-TWO_53..=TWO_53).prop_map(|i| i as f64),
        1 => (-1000i64..1000).prop_map(|i| i as f64),
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            2.2250738585072014e-308,
            f64::MAX,
            f64::MIN,
            1e21,
            1e20,
            999999999999999900000.0,
            1e-7,
            1e-6,
            0.000001,
            0.1,
            9007199254740992.0,
            1152921504606847000.0,
        ]),
        1 => (-330i32..310, 1u32..10).prop_map(|(e, d)| f64::from(d) * 10f64.powi(e))
            .prop_filter("finite", |f| f.is_finite()),
        1 => prop::num::f64::SUBNORMAL,
    ]
}

/// JSON values: null, booleans, [`json_number`]s, [`json_string`]s, and arrays and
/// objects nested at most 4 deep, with random unicode keys (deduplicated).
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        json_number().prop_map(Value::Number),
        json_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((json_string(), inner), 0..6).prop_map(|members| {
                let unique: std::collections::BTreeMap<String, Value> =
                    members.into_iter().collect();
                Value::Object(
                    Object::from_members(unique.into_iter().collect()).expect("keys are unique"),
                )
            }),
        ]
    })
}

// ---------------------------------------------------------------------------------------
// Random documents and the ECMAScript oracle
// ---------------------------------------------------------------------------------------

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
    let dir = TempDir::new("ecmascript");
    let mut jsonl = lines.join("\n");
    jsonl.push('\n');
    let path = dir.write("documents.jsonl", jsonl.as_bytes());
    let output = std::process::Command::new("node")
        .arg("-e")
        .arg(NODE_JCS)
        .env("JCS_INPUT", &path)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
        .stdout
        .strip_suffix(b"\n")
        .expect("node output ends with a newline")
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_the_spec_first_record() {
        // SPEC section 5: the bytes hashed for the first record.
        let body = br#"{"kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#;
        assert_eq!(
            hex(&sha256(body)),
            "dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949"
        );
    }

    #[test]
    fn forged_chain_equals_the_core_chain() {
        let (core_lines, chain) = sample_chain(4);
        let (forged, hashes) = forge_chain(4, |_, _| {});
        assert_eq!(core_lines, forged);
        assert_eq!(hashes.last(), Some(&chain.head()));
    }

    #[test]
    fn vectors_dir_is_absolute_and_independent_of_cwd() {
        assert!(vectors_dir().is_absolute() || std::env::var_os("AGENTLOOP_VECTORS").is_some());
    }

    #[test]
    fn noisy_json_reads_back_to_the_same_canonical_bytes() {
        let v = sample_payload(3);
        let mut rng = XorShift::new(7);
        let mut noisy_differs = false;
        for _ in 0..50 {
            let mut s = String::new();
            write_noisy(&v, &mut rng, &mut s);
            assert!(!s.contains('\n'));
            assert_eq!(
                jcs::canonicalize(s.as_bytes()).unwrap(),
                canonical(&v),
                "{s}"
            );
            noisy_differs |= s.as_bytes() != canonical(&v);
        }
        assert!(noisy_differs, "the noisy writer must actually add noise");
    }
}

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;

/// The examples of docs/rust.md (serde, typed tools), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;

/// The no-allocation example of docs/embedded.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/embedded.md")]
pub struct EmbeddedExample;

/// The example of docs/resume.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/resume.md")]
pub struct ResumeExample;
