//! Fault injection on the durable writer, with real processes and a real full disk:
//!
//! - a writer process killed with SIGKILL at seeded pseudo-random points, twenty times:
//!   the file always verifies (after `repair` when the kill tore the last line) and
//!   holds every record whose append had returned (fsync every record);
//! - a full disk (a small tmpfs): a clear error, the failed record cut back, a file
//!   that verifies;
//! - two processes appending 10,000 records each at once: 20,000 records that verify,
//!   each process's records all there, in its order.
//!
//! The writer process is `src/bin/append_loop.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use agentloop_core::durable::{self, TailRepair, WriteError, Writer, WriterOptions};
use agentloop_core::json::{self, Value};
use agentloop_core::verify::{verify_file, FaultKind, Options, Parallel};
use agentloop_tests::{skip_or_fail, TempDir, XorShift};

/// Starts the writer process on `file`.
fn append_loop(file: &Path, count: u64, tag: &str, sync: &str, big: bool) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_append_loop"));
    command.arg(file).arg(count.to_string()).arg(tag).arg(sync);
    if big {
        command.arg("big");
    }
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `SEQ HEAD` as the writer process prints it, if the line is complete.
fn reported(line: &str) -> Option<(u64, String)> {
    let (seq, head) = line.strip_suffix('\n')?.split_once(' ')?;
    Some((seq.parse().ok()?, head.to_owned()))
}

/// The stored hash of each line of the file (the 64 hex digits after `{"hash":"`).
fn hashes(path: &Path) -> Vec<String> {
    let bytes = fs::read(path).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| String::from_utf8(l[9..73].to_vec()).unwrap())
        .collect()
}

/// Whether the file's last byte is not a newline: an append is being written.
fn mid_line(path: &Path) -> bool {
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let mut last = [0u8; 1];
    match file.seek(SeekFrom::End(-1)) {
        Ok(_) => file.read_exact(&mut last).is_ok() && last[0] != b'\n',
        Err(_) => false,
    }
}

#[test]
fn a_writer_killed_anywhere_loses_no_returned_record() {
    let dir = TempDir::new("kill");
    let path = dir.path().join("t.jsonl");
    let mut rng = XorShift::new(0x6b69_6c6c);
    let mut returned: BTreeMap<u64, String> = BTreeMap::new();
    let mut repairs = 0;
    for round in 0..20 {
        let mut child = append_loop(&path, 1_000_000, &format!("r{round}"), "always", true);
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let wait_for = 1 + rng.below(10);
        let mut line = String::new();
        for _ in 0..wait_for {
            line.clear();
            if out.read_line(&mut line).unwrap() == 0 {
                let mut err = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                panic!("round {round}: the writer stopped early: {err}");
            }
            let (seq, head) = reported(&line).expect("a complete line");
            returned.insert(seq, head);
        }
        // Aim the kill into a write: wait (a bounded number of looks) until the file
        // ends in the middle of a line, which it does while a big record is written.
        for _ in 0..20_000 {
            if mid_line(&path) {
                break;
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // Appends that returned between the last read and the kill.
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        for line in rest.split_inclusive('\n') {
            if let Some((seq, head)) = reported(line) {
                returned.insert(seq, head);
            }
        }

        let report = verify_file(&path, &Options::default(), &Parallel::default());
        if !report.ok() {
            assert_eq!(
                report.faults.iter().map(|f| f.kind).collect::<Vec<_>>(),
                [FaultKind::TornTail],
                "round {round}: {:?}",
                report.faults
            );
            let repaired = durable::repair(&path, &WriterOptions::default()).unwrap();
            match repaired.tail {
                TailRepair::Removed(removed) => {
                    assert_eq!(fs::metadata(&path).unwrap().len(), removed.offset);
                    fs::remove_file(&removed.side_file).unwrap();
                }
                // The kill left a whole record but for its newline: repair keeps it (an
                // append killed before it returned may or may not be in the file).
                TailRepair::Completed { .. } => {}
                TailRepair::Untouched => panic!("round {round}: a torn tail to repair"),
            }
            repairs += 1;
        }
        assert!(
            verify_file(&path, &Options::default(), &Parallel::default()).ok(),
            "round {round}"
        );
        let in_file = hashes(&path);
        for (seq, head) in &returned {
            assert_eq!(
                in_file.get(*seq as usize),
                Some(head),
                "round {round}: record {seq} returned but is not in the file"
            );
        }
    }
    eprintln!(
        "{} records returned over 20 kills; {repairs} kills tore the last line",
        returned.len()
    );
}

#[test]
fn a_torn_tail_stops_the_next_writer_until_repaired() {
    let dir = TempDir::new("torn-process");
    let path = dir.path().join("t.jsonl");
    let status = append_loop(&path, 3, "a", "always", false).wait().unwrap();
    assert!(status.success());
    let complete = fs::metadata(&path).unwrap().len();
    // What a kill in the middle of a write leaves.
    let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(br#"{"hash":"0123"#).unwrap();

    let output = append_loop(&path, 1, "b", "always", false)
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "torn_tail: the transcript ends in an incomplete line (13 bytes at offset {complete})"
        )),
        "{err}"
    );

    let repaired = durable::repair(&path, &WriterOptions::default()).unwrap();
    let TailRepair::Removed(removed) = repaired.tail else {
        panic!("{:?}", repaired.tail);
    };
    assert_eq!((removed.offset, removed.len), (complete, 13));
    assert_eq!(fs::read(&removed.side_file).unwrap(), br#"{"hash":"0123"#);
    let status = append_loop(&path, 2, "b", "always", false).wait().unwrap();
    assert!(status.success());
    let report = verify_file(&path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.count, 5);
}

/// A small tmpfs mounted for the test, unmounted when dropped.
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

fn padded(i: usize, pad: usize) -> Value {
    json::parse(format!("{{\"i\":{i},\"pad\":\"{}\"}}", "y".repeat(pad)).as_bytes()).unwrap()
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_file_still_verifies() {
    let dir = TempDir::new("full");
    let mount_point = dir.path().join("small");
    fs::create_dir(&mount_point).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&mount_point, "256k") else {
        skip_or_fail("cannot mount a tmpfs here (needs root): the full-disk test did not run");
        return;
    };
    let path = mount_point.join("t.jsonl");
    let mut writer = Writer::open(&path, WriterOptions::default()).unwrap();
    let mut appended = 0;
    let error = loop {
        assert!(appended < 1000, "a 256 KiB disk took 1000 records of 10 KB");
        match writer.append("note", &padded(appended, 10_000)) {
            Ok(_) => appended += 1,
            Err(e) => break e,
        }
    };
    match &error {
        WriteError::Write(e) => assert_eq!(e.kind(), std::io::ErrorKind::StorageFull),
        other => panic!("{other:?}"),
    }
    let sentence = error.to_string();
    assert!(
        sentence.starts_with("writing the record failed: No space left on device"),
        "{sentence}"
    );
    assert!(sentence.ends_with("the file was cut back to its length before the append"));
    assert_eq!(fs::metadata(&path).unwrap().len(), writer.len());
    let report = verify_file(&path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.count, appended as u64);
    assert_eq!(report.head, Some(writer.head()));
    // The writer is not broken by a full disk: freeing space lets it go on.
    drop(writer);
    let mut writer = Writer::open(&path, WriterOptions::default()).unwrap();
    let error = writer
        .append("note", &padded(appended, 300_000))
        .unwrap_err();
    assert!(matches!(error, WriteError::Write(_)), "{error:?}");
    assert!(verify_file(&path, &Options::default(), &Parallel::default()).ok());

    // A writer process on the full disk exits with the same clear error.
    let output = append_loop(&path, 1000, "p", "always", true)
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("No space left on device"), "{err}");
    assert!(verify_file(&path, &Options::default(), &Parallel::default()).ok());
}

#[test]
fn two_processes_appending_ten_thousand_each_never_fork_the_chain() {
    let dir = TempDir::new("concurrent");
    let path = dir.path().join("t.jsonl");
    const EACH: u64 = 10_000;
    let children = [
        append_loop(&path, EACH, "a", "close", false),
        append_loop(&path, EACH, "b", "close", false),
    ];
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            output.stdout.iter().filter(|&&b| b == b'\n').count(),
            EACH as usize
        );
    }
    let report = verify_file(&path, &Options::default(), &Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.count, 2 * EACH);
    // Each process's records are all there, in the order it appended them.
    let mut next = BTreeMap::from([("a".to_owned(), 0.0), ("b".to_owned(), 0.0)]);
    for line in fs::read_to_string(&path).unwrap().lines() {
        let record = json::parse(line.as_bytes()).unwrap();
        let payload = record.as_object().unwrap().get("payload").unwrap();
        let payload = payload.as_object().unwrap();
        let tag = payload.get("tag").unwrap().as_str().unwrap();
        let i = match payload.get("i") {
            Some(Value::Number(i)) => *i,
            other => panic!("{other:?}"),
        };
        let expected = next.get_mut(tag).unwrap();
        assert_eq!(i, *expected, "{tag}");
        *expected += 1.0;
    }
    assert_eq!(next["a"], EACH as f64);
    assert_eq!(next["b"], EACH as f64);
}

#[test]
fn the_writer_process_refuses_an_unknown_policy() {
    // The helper refuses what it does not know instead of guessing a policy.
    let dir = TempDir::new("usage");
    let path = dir.path().join("t.jsonl");
    let output = append_loop(&path, 1, "a", "sometimes", false)
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(!path.exists());
}
