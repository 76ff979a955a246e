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
use agentloop_core::json::Value;

use crate::rich;

mod calls;
mod words;

use calls::*;
use words::*;
pub use words::{object, text, XorShift};

/// The seed `gen-transcript` uses unless given another.
pub const DEFAULT_SEED: u64 = 0x5eed_a6e7_100b_2025;

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
