//! A test that skips for want of a tool says so on the terminal, although the test
//! harness keeps what a passing test prints to itself, and lists it for the run, whose
//! `summary` test binary prints the list (tests/src/skips.rs).

use std::process::Command;

use agentloop_tests::{skip_or_fail, skips_dir, skips_summary};

/// Set for the child process of [`a_skip_is_said_past_the_capture_and_listed_for_the_run`].
const CHILD: &str = "AGENTLOOP_TESTS_SKIPS_CHILD";

/// What the child skips for.
const REASON: &str = "frobnicate is not installed (a tool tests/tests/suite/skips.rs made up)";

/// Skips for a made-up tool in the child process; does nothing in any other run.
#[test]
fn a_test_that_skips_when_asked() {
    if std::env::var_os(CHILD).is_some() {
        skip_or_fail(&format!("skipped: {REASON}"));
    }
}

/// This test's name as the harness knows it (`<module>::<name>` in a merged binary).
fn harness_name(name: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

#[test]
fn a_skip_is_said_past_the_capture_and_listed_for_the_run() {
    let child = harness_name("a_test_that_skips_when_asked");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &child])
        .env(CHILD, "1")
        .env_remove("CI")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = format!("SKIPPED {child}: {REASON}");
    assert!(
        stderr.lines().any(|l| l == line),
        "no line {line:?} on the child's stderr, though it passed:\n{stderr}"
    );
    // The child's run is this process, its parent: the run's list holds the line once.
    let list = skips_dir()
        .unwrap()
        .join(format!("{}.txt", std::process::id()));
    let listed = std::fs::read_to_string(&list).unwrap_or_default();
    let _ = std::fs::remove_file(&list);
    assert_eq!(listed, format!("{line}\n"), "{}", list.display());
}

#[test]
fn the_summary_says_that_nothing_was_skipped_or_each_skip() {
    assert_eq!(
        skips_summary(&[]),
        "no test was skipped: every tool and folder the tests use was found\n"
    );
    let skips = ["SKIPPED a::b: node not found".to_owned()];
    assert_eq!(
        skips_summary(&skips),
        "1 test skipped in this run: each passed without checking what it checks, for want \
         of what it names (README.md says what the tests use):\n  SKIPPED a::b: node not found\n"
    );
}
