//! `agentloop append` on a full disk (a small tmpfs the test mounts; it needs root, and
//! fails rather than skips when `CI` is set): a clear sentence, exit 2, and a file that
//! still verifies with every record that fit.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentloop_tests::skip_or_fail;
use common::*;

/// A tmpfs mounted on a directory, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn append_on_a_full_disk_says_so_and_leaves_a_file_that_verifies() {
    let s = Scratch::new("full_disk");
    std::fs::create_dir(s.path("small")).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&s.path("small"), "64k") else {
        skip_or_fail("cannot mount a tmpfs here (needs root): the CLI full-disk test did not run");
        return;
    };
    s.write("small.json", r#"{"note":"fits"}"#);
    s.write(
        "big.json",
        format!("{{\"pad\":\"{}\"}}", "z".repeat(200_000)),
    );
    for _ in 0..3 {
        let run = s.run(&[
            "append",
            "small/t.jsonl",
            "--kind",
            "note",
            "--payload-file",
            "small.json",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let before = s.read("small/t.jsonl");
    let run = s.run(&[
        "append",
        "small/t.jsonl",
        "--kind",
        "note",
        "--payload-file",
        "big.json",
    ]);
    assert_fails(
        &run,
        2,
        "agentloop: small/t.jsonl: appending failed: No space left on device",
    );
    assert!(
        run.stderr
            .ends_with("; the file was cut back to its previous length\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(s.read("small/t.jsonl"), before);
    let run = s.run(&["verify", "small/t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A record that fits still goes in after the failure.
    let run = s.run(&[
        "append",
        "small/t.jsonl",
        "--kind",
        "note",
        "--payload-file",
        "small.json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.run(&["verify", "small/t.jsonl"]).code, 0);
}
