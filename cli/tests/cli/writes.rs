//! The commands that write (`append`, `repair`, `checkpoint --out`) refuse what would
//! leave a file no verifier reads, and say so.

use crate::common;

use agentloop_core::verify::MAX_LINE_BYTES;
use common::*;

#[test]
fn append_refuses_a_record_past_the_line_limit_and_writes_nothing() {
    let s = Scratch::new("too_long");
    s.write("t.jsonl", spec_chain());
    // A payload file just within the 16 MiB a whole document may have: with the record
    // around it, the line passes 16 MiB.
    s.write(
        "big.json",
        format!("{{\"pad\":\"{}\"}}", "z".repeat(MAX_LINE_BYTES - 10)),
    );
    let run = s.run(&[
        "append",
        "t.jsonl",
        "--kind",
        "note",
        "--payload-file",
        "big.json",
    ]);
    assert_fails(&run, 1, "agentloop: t.jsonl: the record's line would be ");
    assert!(
        run.stderr.ends_with(&format!(
            " bytes, past the line limit of {MAX_LINE_BYTES} bytes: a verifier would refuse \
             it; nothing was appended\n"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    // The file still takes records and verifies.
    let run = s.run(&["append", "t.jsonl", "--kind", "note", "--payload", "{}"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = s.run(&["verify", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// Runs `agentloop ARGS` in `s` under a file-size limit of `blocks` (`ulimit -f`: 512-byte
/// blocks in a POSIX sh, KiB in bash), through `sh` so the test itself needs no unsafe
/// code.
fn run_limited(s: &Scratch, blocks: u32, args: &[&str]) -> Run {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f {blocks} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .current_dir(s.dir())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        output.status.signal(),
        None,
        "killed by a signal; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        raw_stdout: output.stdout,
        raw_stderr: output.stderr,
    }
}

/// The names in the scratch directory, sorted.
fn names(s: &Scratch) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_size_limit_is_an_error_the_write_is_undone_and_the_file_verifies() {
    let s = Scratch::new("fsize");
    s.write("t.jsonl", spec_chain());
    // 20 KB: past the limit (2 KiB or 4 KiB) whichever unit the shell counts in.
    s.write(
        "big.json",
        format!("{{\"pad\":\"{}\"}}", "z".repeat(20_000)),
    );
    let run = run_limited(
        &s,
        4,
        &[
            "append",
            "t.jsonl",
            "--kind",
            "note",
            "--payload-file",
            "big.json",
        ],
    );
    assert_fails(
        &run,
        2,
        "agentloop: t.jsonl: appending failed: File too large",
    );
    assert!(run.stderr.contains("file-size limit"), "{}", run.stderr);
    assert!(
        run.stderr
            .ends_with("; the file was cut back to its previous length\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    assert_eq!(s.run(&["verify", "t.jsonl"]).code, 0);

    // checkpoint --out: nothing written, no temporary file left behind.
    let run = run_limited(&s, 0, &["checkpoint", "--out", "cp", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: cp: cannot write the checkpoint: File too large",
    );
    assert!(run.stderr.contains("file-size limit"), "{}", run.stderr);
    assert_eq!(names(&s), ["big.json", "t.jsonl"]);
}

#[test]
fn a_repair_that_fails_leaves_no_side_file_and_the_next_one_runs() {
    let s = Scratch::new("repair_fails");
    let mut torn = spec_chain().into_bytes();
    torn.extend_from_slice(&[b'x'; 20_000]);
    s.write("t.jsonl", &torn);
    // The side file would pass the file-size limit: writing it fails part-way.
    let run = run_limited(&s, 4, &["repair", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: t.jsonl: cannot repair: writing the side file or cutting the transcript \
         failed: File too large",
    );
    assert!(run.stderr.contains("nothing was changed"), "{}", run.stderr);
    assert!(run.stderr.contains("file-size limit"), "{}", run.stderr);
    assert_eq!(s.read("t.jsonl"), torn);
    assert_eq!(names(&s), ["t.jsonl"]);
    // Without the limit, the next repair is not refused by a side file it left.
    let run = s.run(&["repair", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let offset = spec_chain().len();
    assert_eq!(
        s.read(&format!("t.jsonl.torn-{offset}")),
        vec![b'x'; 20_000]
    );
    assert_eq!(s.run(&["verify", "t.jsonl"]).code, 0);
}

#[test]
fn checkpoint_out_refuses_the_transcript_itself_by_identity_not_name() {
    let s = Scratch::new("out_is_input");
    s.write("t.jsonl", spec_chain());
    std::fs::hard_link(s.path("t.jsonl"), s.path("link.jsonl")).unwrap();
    for out in ["t.jsonl", "./t.jsonl", "link.jsonl"] {
        let run = s.run(&["checkpoint", "--out", out, "t.jsonl"]);
        assert_fails(
            &run,
            2,
            &format!(
                "agentloop: --out {out}: it is the transcript t.jsonl itself (the same file); \
                 the checkpoint would replace it, so nothing was written"
            ),
        );
        assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    }
    // The transcript given on standard input, redirected from the file itself.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(["checkpoint", "--out", "t.jsonl", "-"])
        .current_dir(s.dir())
        .stdin(std::fs::File::open(s.path("t.jsonl")).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).starts_with(
            "agentloop: --out t.jsonl: it is the transcript <stdin> itself (the same file)"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());
    assert_eq!(names(&s), ["link.jsonl", "t.jsonl"]);
    // Another file is written as before.
    let run = s.run(&["checkpoint", "--out", "cp", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(s.read("cp").ends_with(format!("head {HEAD2}\n").as_bytes()));
}

#[test]
fn a_key_of_the_wrong_kind_is_named_and_its_secret_never_shown() {
    let s = Scratch::new("key_kind");
    s.write("t.jsonl", spec_chain());
    let keys = s.run(&["keygen", "me"]);
    assert_eq!(keys.code, 0, "{}", keys.stderr);
    let mut lines = keys.stdout.lines();
    let (signer, verifier) = (lines.next().unwrap(), lines.next().unwrap());
    // PRIVATE+KEY+<name>+<key id>+<base64 seed>: the seed may itself hold a '+', so
    // split off the four fields before it (a fragment after its last '+' could be a
    // few letters that any sentence contains).
    let secret = signer.splitn(5, '+').nth(4).unwrap();
    assert!(secret.len() >= 40, "{signer}");
    s.write("signer.key", format!("{signer}\n"));
    s.write("verifier.key", format!("# mine\n{verifier}\n"));
    s.write("trusted.keys", format!("# mine\n{signer}\n"));
    let run = s.run(&[
        "checkpoint",
        "--sign-key",
        "signer.key",
        "--out",
        "cp",
        "t.jsonl",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let wanted = "this is a signer key (PRIVATE+KEY+..., secret), but a verifier key is wanted \
                  here: NAME+KEYID+BASE64, without the PRIVATE+KEY+ prefix (`agentloop keygen` \
                  prints it second)\n";
    let run = s.run(&["verify", "--checkpoint", "cp", "--key", signer, "t.jsonl"]);
    assert_fails(&run, 2, "agentloop: --key: this is a signer key");
    assert!(run.stderr.ends_with(wanted), "{}", run.stderr);
    assert!(!run.stderr.contains(secret), "{}", run.stderr);
    let run = s.run(&[
        "verify",
        "--checkpoint",
        "cp",
        "--key-file",
        "trusted.keys",
        "t.jsonl",
    ]);
    assert_fails(
        &run,
        2,
        "agentloop: trusted.keys line 2: this is a signer key",
    );
    assert!(run.stderr.ends_with(wanted), "{}", run.stderr);
    assert!(!run.stderr.contains(secret), "{}", run.stderr);
    // The other way round: a verifier key given to sign.
    let run = s.run(&["checkpoint", "--sign-key", "verifier.key", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: verifier.key line 2: this is a verifier key (NAME+KEYID+BASE64), but a \
         signer key is wanted here",
    );
    // The right keys still work.
    let run = s.run(&["verify", "--checkpoint", "cp", "--key", verifier, "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn standard_input_named_twice_is_refused_before_anything_is_read() {
    let s = Scratch::new("stdin_twice");
    s.write("t.jsonl", spec_chain());
    let cp = s.run(&["checkpoint", "t.jsonl"]).stdout;
    s.write("cp", &cp);
    for (args, names) in [
        (&["verify", "-", "-"][..], "FILE and FILE"),
        (&["verify", "t.jsonl", "-", "-"][..], "FILE and FILE"),
        (
            &["verify", "--checkpoint", "-", "-"][..],
            "FILE and --checkpoint",
        ),
        (
            &["verify", "--key-file", "-", "--checkpoint", "-", "-"][..],
            "FILE, --checkpoint and --key-file",
        ),
        (
            &["checkpoint", "--sign-key", "-", "-"][..],
            "--sign-key and FILE",
        ),
        (
            &["prove", "-", "--index", "0", "--checkpoint", "-"][..],
            "FILE and --checkpoint",
        ),
        (&["verify-proof", "-", "--old", "-"][..], "PROOF and --old"),
        (&["validate", "-", "-"][..], "SCHEMA_FILE and INSTANCE_FILE"),
    ] {
        let run = s.run_stdin(args, spec_chain().as_bytes());
        let (how_many, verb) = if names.contains(',') {
            ("each of", "names")
        } else {
            ("both", "name")
        };
        assert_fails(
            &run,
            2,
            &format!(
                "agentloop: standard input ('-') can be read only once, but {how_many} \
                 {names} {verb} it\n"
            ),
        );
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // Once is fine.
    let run = s.run_stdin(&["verify", "t.jsonl", "-"], spec_chain().as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// SIGPIPE's number (13 on every Unix agentloop builds for).
const SIGPIPE: i32 = 13;

#[test]
fn a_closed_pipe_on_stdout_ends_the_command_quietly_by_sigpipe_as_cat_does() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    let s = Scratch::new("closed_pipe");
    s.write("t.jsonl", spec_chain());
    // The reader is gone before the command writes anything.
    for args in [
        &["show", "t.jsonl"][..],
        &["verify", "--json", "t.jsonl"],
        &["canon", "--jsonl", "t.jsonl"],
        &["checkpoint", "t.jsonl"],
        &["append", "t.jsonl", "--kind", "note", "--payload", "{}"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_agentloop"))
            .args(args)
            .current_dir(s.dir())
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(output.status.signal(), Some(SIGPIPE), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
    }
    // The append was done before its head could not be printed.
    let run = s.run(&["verify", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("4 records"), "{}", run.stdout);

    // `agentloop show t.jsonl | head -1`: the reader leaves after the first line.
    let mut chain = agentloop_core::chain::Chain::new();
    let mut big = Vec::new();
    // Some 400 KB of output: far more than a pipe holds.
    for i in 0..3000 {
        let payload = format!("{{\"i\":{i},\"pad\":\"{}\"}}", "p".repeat(100));
        big.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
    }
    s.write("big.jsonl", &big);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(["show", "big.jsonl"])
        .current_dir(s.dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("seq=0 note "), "{first}");
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.signal(), Some(SIGPIPE));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// Runs `agentloop ARGS` while this test holds `path`'s lock: waits for its first line
/// on stderr, checks it is still waiting, releases the lock and returns that line and
/// the finished run. If no line comes, a watchdog releases the lock after a minute, so
/// the run ends and the test fails instead of hanging (not a timing assertion: the
/// sentence is due after one second).
fn run_while_locked(s: &Scratch, path: &std::path::Path, args: &[&str]) -> (String, Run) {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    use std::sync::{mpsc, Arc};

    let holder = Arc::new(std::fs::File::open(path).unwrap());
    holder.lock().unwrap();
    let (finished, watchdog) = mpsc::channel::<()>();
    let guard = {
        let holder = Arc::clone(&holder);
        std::thread::spawn(move || {
            if watchdog
                .recv_timeout(std::time::Duration::from_secs(60))
                .is_err()
            {
                holder.unlock().unwrap();
            }
        })
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .current_dir(s.dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let still_waiting = child.try_wait().unwrap().is_none();
    holder.unlock().unwrap();
    let _ = finished.send(());
    guard.join().unwrap();
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        still_waiting,
        "the command ended before the lock was released: {first}"
    );
    let run = Run {
        code: status.code().unwrap_or(-1),
        raw_stdout: stdout.clone().into_bytes(),
        raw_stderr: rest.clone().into_bytes(),
        stdout,
        stderr: rest,
    };
    (first, run)
}

#[test]
fn a_command_waiting_for_the_lock_says_so_once_then_goes_on() {
    let s = Scratch::new("lock_wait");
    s.write("t.jsonl", spec_chain());
    let path = s.path("t.jsonl");
    let (said, run) = run_while_locked(
        &s,
        &path,
        &["append", "t.jsonl", "--kind", "note", "--payload", "{}"],
    );
    assert!(
        said.starts_with("agentloop: t.jsonl: waiting for the exclusive lock, held by "),
        "{said}"
    );
    // Linux names the holder: this test's process.
    #[cfg(target_os = "linux")]
    assert!(
        said.contains(&format!("held by process {} (", std::process::id())),
        "{said}"
    );
    assert!(
        said.ends_with(
            "; nothing is written until it is released (--no-wait fails at once instead)\n"
        ),
        "{said}"
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(run.stdout.len(), 65);
    let verified = s.run(&["verify", "t.jsonl"]);
    assert!(verified.stdout.contains("4 records"), "{}", verified.stdout);

    // repair waits and says so the same way.
    let (said, run) = run_while_locked(&s, &path, &["repair", "t.jsonl"]);
    assert!(
        said.starts_with("agentloop: t.jsonl: waiting for the exclusive lock, held by "),
        "{said}"
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("nothing to repair"), "{}", run.stdout);
}
