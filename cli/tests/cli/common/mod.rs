//! Plumbing shared by the CLI integration tests (each test module does `use
//! crate::common;`): running the `agentloop` binary in a scratch directory, reading its
//! JSON reports, and the SPEC section 5 chain.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use agentloop_core::json::{self, Value};

pub mod runs;

/// The SPEC section 5 chain, one record a line (without the newline)...
pub const LINE0: &str = r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#;
pub const LINE1: &str = r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#;
pub const LINE2: &str = r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#;
/// ...and the head after each of its records.
pub const HEAD0: &str = "dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949";
pub const HEAD1: &str = "ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01";
pub const HEAD2: &str = "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6";

/// The SPEC section 5 chain as a transcript: the three lines, each ended by a newline.
pub fn spec_chain() -> String {
    format!("{LINE0}\n{LINE1}\n{LINE2}\n")
}

/// The SPEC chain with the tool's result changed, so record 2 (line 3) no longer hashes
/// to its stored hash.
pub fn tampered_chain() -> String {
    spec_chain().replace(r#""sum":42"#, r#""sum":43"#)
}

/// The workspace root (the parent of the CLI crate).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `docs/sample.jsonl`, the SPEC chain as shipped in the docs.
pub fn sample_path() -> PathBuf {
    workspace().join("docs/sample.jsonl")
}

/// A scratch directory, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh, empty directory named after the test binary, `test`, this process and
    /// a count, so two tests that give the same `test` never share one.
    pub fn new(test: &str) -> Scratch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "agentloop-{}-{test}-{}-{}",
            env!("CARGO_CRATE_NAME"),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// The directory itself.
    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `bytes` to `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        fs::write(&path, bytes).unwrap();
        path
    }

    /// The bytes of `name` inside the directory.
    pub fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }

    /// Runs `agentloop ARGS` in the directory, with an empty standard input.
    pub fn run(&self, args: &[&str]) -> Run {
        run_in(&self.0, args, None)
    }

    /// Runs `agentloop ARGS` in the directory, with `stdin` on its standard input.
    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Run {
        run_in(&self.0, args, Some(stdin))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What a run of the binary produced: its exit code (-1 if killed by a signal), and its
/// output both decoded (lossily) and as bytes.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub raw_stdout: Vec<u8>,
    pub raw_stderr: Vec<u8>,
}

/// Runs `agentloop ARGS` in `dir`, feeding it `stdin` (or an empty standard input), and
/// asserts that it did not panic.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // A child that exits without reading everything closes the pipe: not an error here.
        let _ = pipe.write_all(bytes);
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        raw_stdout: stdout,
        raw_stderr: stderr,
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

/// Asserts that `run` exited with `code` and that its standard error starts with `prefix`.
#[track_caller]
pub fn assert_fails(run: &Run, code: i32, prefix: &str) {
    assert_eq!(run.code, code, "{}", run.stderr);
    assert!(run.stderr.starts_with(prefix), "{}", run.stderr);
}

/// Each line of `stdout` parsed as JSON.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| json::parse(l.as_bytes()).unwrap())
        .collect()
}

/// The member `key` of the object `value`, or null where it has none.
pub fn member<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.as_object().unwrap().get(key).unwrap_or(&Value::Null)
}

/// The `faults` of a `verify --json` report as `(index, line, kind)`.
pub fn faults(report: &Value) -> Vec<(Value, Value, String)> {
    match member(report, "faults") {
        Value::Array(items) => items
            .iter()
            .map(|f| {
                (
                    member(f, "index").clone(),
                    member(f, "line").clone(),
                    member(f, "kind").as_str().unwrap().to_owned(),
                )
            })
            .collect(),
        other => panic!("faults is {other:?}"),
    }
}

/// A JSON number.
pub fn num(n: f64) -> Value {
    Value::Number(n)
}
