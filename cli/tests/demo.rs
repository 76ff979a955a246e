//! End-to-end tests of `agentloop demo`: the three transcripts, their claims, atomic
//! replacement on a rerun, and the exit statuses.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agentloop_core::demo;
use agentloop_core::verify::{self, Options};

const FILES: [(&str, usize); 3] = [
    ("demo-answer.jsonl", 5),
    ("demo-recover.jsonl", 11),
    ("demo-budget.jsonl", 9),
];

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("agentloop-demo-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn agentloop(dir: &Path, args: &[&str]) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn read_all(dir: &Path) -> Vec<Vec<u8>> {
    FILES
        .iter()
        .map(|(name, _)| fs::read(dir.join(name)).unwrap())
        .collect()
}

#[test]
fn demo_writes_three_verified_transcripts_and_every_claim_holds() {
    let s = Scratch::new("writes");
    let run = agentloop(&s.0, &["demo", "--out", "out"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "");
    let out = s.0.join("out");
    for (name, lines) in FILES {
        let bytes = fs::read(out.join(name)).unwrap();
        assert_eq!(
            bytes.iter().filter(|&&b| b == b'\n').count(),
            lines,
            "{name}"
        );
        let report = verify::verify_file(&out.join(name), &Options::default());
        assert!(report.ok(), "{name}: {:?}", report.faults);
        assert_eq!(report.count, lines as u64);
    }
    // One line per claim, each ok, then the summary.
    let lines: Vec<&str> = run.stdout.lines().collect();
    let (summary, claims) = lines.split_last().unwrap();
    assert!(claims.len() >= 20, "{}", run.stdout);
    assert!(
        claims.iter().all(|l| l.starts_with("ok ")),
        "{}",
        run.stdout
    );
    assert_eq!(
        *summary,
        format!("all {} claims held, in out", claims.len())
    );
    for sentence in demo::RECOVER_ERRORS {
        assert!(
            run.stdout.contains(&format!("error=\"{sentence}\"")),
            "{sentence}"
        );
    }
    assert!(run.stdout.contains("stop: reason token_budget"));
    assert!(run
        .stdout
        .contains("unrun_calls 2 = calls of the last turn"));
    // No temporary file is left behind.
    let mut names: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "demo-answer.jsonl",
            "demo-budget.jsonl",
            "demo-recover.jsonl"
        ]
    );
}

#[test]
fn a_rerun_replaces_the_files_with_identical_bytes() {
    let s = Scratch::new("rerun");
    // The default folder is the current one.
    let first = agentloop(&s.0, &["demo"]);
    assert_eq!(first.code, 0, "{}", first.stdout);
    let before = read_all(&s.0);
    // Damage one file: the rerun replaces it rather than appending or refusing.
    fs::write(s.0.join("demo-answer.jsonl"), b"garbage\n").unwrap();
    let second = agentloop(&s.0, &["demo"]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(read_all(&s.0), before);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn show_on_demo_recover_shows_the_three_failures() {
    let s = Scratch::new("show");
    assert_eq!(agentloop(&s.0, &["demo"]).code, 0);
    let run = agentloop(&s.0, &["show", "demo-recover.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 11);
    assert_eq!(
        lines[2],
        "seq=2 tool multiply ok=False error=\"no tool named 'multiply' (have: add, echo, fail, greet)\""
    );
    assert_eq!(
        lines[4],
        "seq=4 tool add ok=False error=\"invalid arguments: $.add.a: expected type integer, got string\""
    );
    assert_eq!(
        lines[6],
        "seq=6 tool fail ok=False error=\"tool 'fail' failed: the tool is broken on purpose\""
    );
    assert_eq!(lines[8], "seq=8 tool add ok=True value={\"sum\":42}");
    assert!(lines[10].starts_with("seq=10 stop reason=no_tool_calls steps=5 "));
    let run = agentloop(&s.0, &["show", "demo-budget.jsonl"]);
    assert!(run
        .stdout
        .ends_with("stop reason=token_budget steps=4 tokens=49 unrun_calls=2\n"));
}

#[test]
fn an_unwritable_folder_cannot_grade() {
    let s = Scratch::new("unwritable");
    fs::write(s.0.join("file"), b"").unwrap();
    let run = agentloop(&s.0, &["demo", "--out", "file/sub"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("agentloop: file/sub: cannot write it: "),
        "{}",
        run.stderr
    );
    // A target that is a folder cannot be replaced: exit 2, naming it.
    fs::create_dir_all(s.0.join("out/demo-recover.jsonl")).unwrap();
    let run = agentloop(&s.0, &["demo", "--out", "out"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("agentloop: out/demo-recover.jsonl: cannot write it: "),
        "{}",
        run.stderr
    );
    let names: Vec<String> = fs::read_dir(s.0.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
