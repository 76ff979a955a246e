//! End-to-end tests of `agentloop demo`: the three transcripts, their claims, atomic
//! replacement on a rerun, and the exit statuses.

use crate::common;

use std::fs;
use std::path::Path;

use agentloop_core::demo;
use agentloop_core::verify::{self, Options};

use common::{assert_fails, Run, Scratch};

const FILES: [(&str, usize); 3] = [
    ("demo-answer.jsonl", 5),
    ("demo-recover.jsonl", 11),
    ("demo-budget.jsonl", 9),
];

/// `agentloop ARGS` in `s`; the demo's output must be UTF-8 as written, not only once
/// decoded lossily.
fn agentloop(s: &Scratch, args: &[&str]) -> Run {
    let run = s.run(args);
    std::str::from_utf8(&run.raw_stdout).unwrap();
    std::str::from_utf8(&run.raw_stderr).unwrap();
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
    let run = agentloop(&s, &["demo", "--out", "out"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "");
    let out = s.path("out");
    for (name, lines) in FILES {
        let bytes = fs::read(out.join(name)).unwrap();
        assert_eq!(
            bytes.iter().filter(|&&b| b == b'\n').count(),
            lines,
            "{name}"
        );
        let report = verify::verify_file(
            &out.join(name),
            &Options::default(),
            &verify::Parallel::default(),
        );
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
    let first = agentloop(&s, &["demo"]);
    assert_eq!(first.code, 0, "{}", first.stdout);
    let before = read_all(s.dir());
    // Damage one file: the rerun replaces it rather than appending or refusing.
    s.write("demo-answer.jsonl", b"garbage\n");
    let second = agentloop(&s, &["demo"]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(read_all(s.dir()), before);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn show_on_demo_recover_shows_the_three_failures() {
    let s = Scratch::new("show");
    assert_eq!(agentloop(&s, &["demo"]).code, 0);
    let run = agentloop(&s, &["show", "demo-recover.jsonl"]);
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
    let run = agentloop(&s, &["show", "demo-budget.jsonl"]);
    assert!(run
        .stdout
        .ends_with("stop reason=token_budget steps=4 tokens=49 unrun_calls=2\n"));
}

#[test]
fn an_unwritable_folder_cannot_grade() {
    let s = Scratch::new("unwritable");
    s.write("file", b"");
    let run = agentloop(&s, &["demo", "--out", "file/sub"]);
    assert_fails(&run, 2, "agentloop: file/sub: cannot write it: ");
    assert_eq!(run.stdout, "");
    // A target that is a folder cannot be replaced: exit 2, naming it.
    fs::create_dir_all(s.path("out/demo-recover.jsonl")).unwrap();
    assert_fails(
        &agentloop(&s, &["demo", "--out", "out"]),
        2,
        "agentloop: out/demo-recover.jsonl: cannot write it: ",
    );
    let names: Vec<String> = fs::read_dir(s.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
