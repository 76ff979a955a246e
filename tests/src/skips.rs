//! Skipped tests, said where `cargo test` shows them: a test that cannot check what it
//! checks here (no `node`, no public vectors, …) reports it through [`skip_or_fail`],
//! and `cargo test --workspace` lists every such report of the run near its end.
//!
//! The test harness keeps what a passing test prints to itself (its output is shown only
//! when it fails), so a skip is written to the process's standard error directly, past
//! that capture, as `SKIPPED <test>: <reason>`. It is also appended to a file of the
//! run, `<target>/skipped-tests/<id>.txt` (`<id>`: the process id of the `cargo test`
//! that runs every test binary of one invocation), which the `summary` test binary of
//! this package — the last test binary `cargo test --workspace` runs, before the
//! doc-tests — prints ([`say_the_skips_of_this_run`]) and keeps in
//! `<target>/skipped-tests/last-run.txt`. In CI ([`in_ci`]) a skip is a failure instead.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::in_ci;

/// Reports that the calling test skipped what it checks, for the reason `message` gives
/// (a leading `skipped: ` in it is not repeated): on the terminal past the test
/// harness's capture, and in this run's list of skips ([`skips_of_this_run`]); or
/// panics with the message when [`in_ci`].
pub fn skip_or_fail(message: &str) {
    assert!(!in_ci(), "{message} (CI is set, so this is a failure)");
    let reason = message.strip_prefix("skipped: ").unwrap_or(message);
    let line = match std::thread::current().name() {
        Some(test) if test != "main" => format!("SKIPPED {test}: {reason}"),
        _ => format!("SKIPPED: {reason}"),
    };
    // One write of the whole line: lines of tests on other threads do not interleave.
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
    if let Some(file) = this_runs_file() {
        let _ = fs::create_dir_all(file.parent().unwrap_or(&file));
        let _ = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
    }
}

/// The folder of the skip lists: `skipped-tests` in cargo's target folder, found from
/// this test binary's path (`<target>/<profile>/deps/<binary>`).
pub fn skips_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let target = exe.parent()?.parent()?.parent()?;
    Some(target.join("skipped-tests"))
}

/// Which `cargo test` ran this test binary: its parent process, which starts every test
/// binary of one invocation (0 where there is no such notion).
fn run_id() -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::process::parent_id()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// The file this run's skips go to.
fn this_runs_file() -> Option<PathBuf> {
    Some(skips_dir()?.join(format!("{}.txt", run_id())))
}

/// The skips reported so far by the test binaries of this run, sorted, each once.
pub fn skips_of_this_run() -> Vec<String> {
    let Some(file) = this_runs_file() else {
        return Vec::new();
    };
    let text = fs::read_to_string(file).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines.dedup();
    lines
}

/// What [`say_the_skips_of_this_run`] prints for `skips`: a line saying none were
/// skipped, or how many and then each.
pub fn skips_summary(skips: &[String]) -> String {
    if skips.is_empty() {
        return "no test was skipped: every tool and folder the tests use was found\n".into();
    }
    let mut text = format!(
        "{} skipped in this run: each passed without checking what it checks, for want \
         of what it names (README.md says what the tests use):\n",
        match skips.len() {
            1 => "1 test".to_owned(),
            n => format!("{n} tests"),
        }
    );
    for line in skips {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Prints this run's skips on the terminal, past the test harness's capture, and keeps
/// the same text in `<target>/skipped-tests/last-run.txt` (the doc-tests print after it,
/// so it may scroll away); then removes the run's list (`forget_finished_runs`).
pub fn say_the_skips_of_this_run() {
    let mut text = skips_summary(&skips_of_this_run());
    if let Some(dir) = skips_dir() {
        let kept = dir.join("last-run.txt");
        if fs::create_dir_all(&dir).is_ok() && fs::write(&kept, &text).is_ok() {
            text.push_str(&format!("(this list is kept in {})\n", kept.display()));
        }
    }
    let _ = std::io::stderr().write_all(format!("\n{text}\n").as_bytes());
    forget_finished_runs();
}

/// Removes this run's list of skips and those of other runs whose `cargo test` is not
/// running any more (as `/proc` tells; where there is no `/proc`, every other list).
fn forget_finished_runs() {
    let Some(entries) = skips_dir().and_then(|dir| fs::read_dir(dir).ok()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name
            .strip_suffix(".txt")
            .and_then(|id| id.parse::<u32>().ok())
        else {
            continue;
        };
        let running = id != run_id() && id != 0 && Path::new("/proc").join(id.to_string()).exists();
        if !running {
            let _ = fs::remove_file(entry.path());
        }
    }
}
