//! End-to-end tests of the `agentloop` binary: exit statuses, output formats, stdin,
//! the SPEC section 5 vectors, and concurrent appends under the lock.

use crate::common;

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};
use std::thread;

use agentloop_core::json::Value;

use common::{
    assert_fails, faults, json_lines, member, num, run_in, sample_path, spec_chain, tampered_chain,
    workspace, Scratch, HEAD0, HEAD1, HEAD2, LINE0, LINE1, LINE2,
};

#[test]
fn docs_sample_is_the_spec_chain_and_verifies() {
    assert_eq!(fs::read_to_string(sample_path()).unwrap(), spec_chain());
    let run = run_in(&workspace(), &["verify", "docs/sample.jsonl"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("docs/sample.jsonl: ok, 3 records, head {HEAD2}\n")
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn verify_json_shape_and_unreadable() {
    let s = Scratch::new("verify_json");
    s.write("t.jsonl", spec_chain());
    let run = s.run(&["verify", "--json", "t.jsonl", "missing.jsonl"]);
    assert_eq!(run.code, 2);
    let reports = json_lines(&run.stdout);
    assert_eq!(reports.len(), 2);
    let ok = &reports[0];
    assert_eq!(member(ok, "file"), &Value::from("t.jsonl"));
    assert_eq!(member(ok, "ok"), &Value::Bool(true));
    assert_eq!(member(ok, "count"), &num(3.0));
    assert_eq!(member(ok, "head"), &Value::from(HEAD2));
    assert_eq!(member(ok, "faults"), &Value::Array(Vec::new()));
    let keys: Vec<&str> = ok.as_object().unwrap().iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["count", "faults", "file", "head", "ok"]);
    let missing = &reports[1];
    assert_eq!(member(missing, "file"), &Value::from("missing.jsonl"));
    assert_eq!(member(missing, "ok"), &Value::Bool(false));
    assert_eq!(
        faults(missing),
        [(Value::Null, Value::Null, String::from("unreadable"))]
    );
    // Each line is canonical JSON.
    for line in run.stdout.lines() {
        let canon = agentloop_core::jcs::canonicalize(line.as_bytes()).unwrap();
        assert_eq!(canon, line.as_bytes());
    }
}

#[test]
fn verify_exit_is_the_worst_of_several_files() {
    let s = Scratch::new("verify_worst");
    s.write("good.jsonl", spec_chain());
    s.write("bad.jsonl", tampered_chain());
    let code = |args: &[&str]| s.run(args).code;
    assert_eq!(code(&["verify", "good.jsonl", "good.jsonl"]), 0);
    assert_eq!(code(&["verify", "good.jsonl", "bad.jsonl"]), 1);
    assert_eq!(code(&["verify", "bad.jsonl", "good.jsonl"]), 1);
    assert_eq!(code(&["verify", "missing", "bad.jsonl", "good.jsonl"]), 2);
    assert_eq!(code(&["verify", "good.jsonl", "missing"]), 2);
}

/// Several files are verified on several threads, but reported in argument order, with
/// each file's faults (stderr) before its verdict line (stdout), whichever finished first.
#[test]
fn several_files_are_reported_in_argument_order() {
    let s = Scratch::new("verify_order");
    // A large file first, so that the small ones after it finish first.
    s.write("big.jsonl", spec_chain().repeat(2000));
    s.write("good.jsonl", spec_chain());
    s.write("bad.jsonl", tampered_chain());
    let names = [
        "big.jsonl",
        "good.jsonl",
        "bad.jsonl",
        "missing",
        "good.jsonl",
        "bad.jsonl",
    ];
    let mut args = vec!["verify"];
    args.extend(names);
    let run = s.run(&args);
    assert_eq!(run.code, 2);
    let said: Vec<&str> = run
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(said, names);
    let complaints: Vec<&str> = run
        .stderr
        .lines()
        .map(|l| {
            l.trim_start_matches("agentloop: ")
                .split([' ', ':'])
                .next()
                .unwrap()
        })
        .filter(|name| *name != "big.jsonl")
        .collect();
    assert_eq!(complaints, ["bad.jsonl", "missing", "bad.jsonl"]);
    let json = s.run(&[&["verify", "--json"][..], &names[..]].concat());
    let files: Vec<Value> = json_lines(&json.stdout)
        .iter()
        .map(|r| member(r, "file").clone())
        .collect();
    let expected: Vec<Value> = names.iter().map(|n| Value::from(*n)).collect();
    assert_eq!(files, expected);
}

#[test]
fn verify_human_output_names_file_line_and_fault() {
    let s = Scratch::new("verify_human");
    s.write("t.jsonl", tampered_chain());
    let run = s.run(&["verify", "t.jsonl"]);
    assert_fails(
        &run,
        1,
        &format!(
            "agentloop: t.jsonl line 3: hash_mismatch: stored hash {HEAD2}, but the record hashes to "
        ),
    );
    assert_eq!(run.stderr.lines().count(), 1);
    assert_eq!(run.stdout, "t.jsonl: 1 fault in 3 records\n");

    assert_fails(
        &s.run(&["verify", "missing.jsonl"]),
        2,
        "agentloop: missing.jsonl: unreadable: cannot open missing.jsonl",
    );
}

#[test]
fn verify_reads_stdin_for_dash() {
    let s = Scratch::new("verify_stdin");
    let run = s.run_stdin(&["verify", "-"], spec_chain().as_bytes());
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        format!("<stdin>: ok, 3 records, head {HEAD2}\n")
    );
    let run = s.run_stdin(&["verify", "--json", "-"], spec_chain().as_bytes());
    assert_eq!(
        member(&json_lines(&run.stdout)[0], "file"),
        &Value::from("-")
    );
    let torn = format!("{LINE0}\n{LINE1}");
    let run = s.run_stdin(&["verify", "-"], torn.as_bytes());
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .contains("agentloop: <stdin> line 2: torn_tail: "));
}

#[test]
fn verify_torn_tail() {
    let s = Scratch::new("verify_torn");
    let mut text = spec_chain();
    text.push_str(&LINE2[..40]);
    s.write("t.jsonl", text);
    let run = s.run(&["verify", "--json", "t.jsonl"]);
    assert_eq!(run.code, 1);
    let report = &json_lines(&run.stdout)[0];
    assert_eq!(
        faults(report),
        [(num(3.0), num(4.0), String::from("torn_tail"))]
    );
    assert_eq!(member(report, "count"), &num(3.0));
    assert_eq!(run.stderr, "", "--json prints faults only as JSON");
}

#[test]
fn verify_inline_checkpoint() {
    let s = Scratch::new("verify_expect");
    s.write("t.jsonl", spec_chain());
    let run = s.run(&["verify", "--json", "--expect-count", "4", "t.jsonl"]);
    assert_eq!(run.code, 1);
    let report = &json_lines(&run.stdout)[0];
    assert_eq!(
        faults(report),
        [(num(3.0), Value::Null, String::from("truncated"))]
    );
    assert_eq!(member(report, "beyond_checkpoint"), &Value::Null);

    let wrong = "ab".repeat(32);
    let run = s.run(&[
        "verify",
        "--json",
        "--expect-count",
        "3",
        "--expect-head",
        &wrong,
        "t.jsonl",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(
        faults(&json_lines(&run.stdout)[0]),
        [(num(2.0), num(3.0), String::from("head_mismatch"))]
    );

    let run = s.run(&[
        "verify",
        "--expect-count",
        "2",
        "--expect-head",
        HEAD1,
        "t.jsonl",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!("t.jsonl: ok, 3 records, head {HEAD2}, 1 beyond the checkpoint\n")
    );

    // --expect-head needs --expect-count; a malformed hash is bad usage.
    let code = |args: &[&str]| s.run(args).code;
    assert_eq!(code(&["verify", "--expect-head", HEAD1, "t.jsonl"]), 2);
    assert_eq!(
        code(&[
            "verify",
            "--expect-count",
            "3",
            "--expect-head",
            "AB",
            "t.jsonl"
        ]),
        2
    );
    assert_eq!(code(&["verify", "--expect-count", "x", "t.jsonl"]), 2);
}

#[test]
fn checkpoint_round_trips_into_verify() {
    let s = Scratch::new("checkpoint");
    s.write("t.jsonl", spec_chain());
    let run = s.run(&["checkpoint", "--v1", "t.jsonl"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        format!("{{\"count\":3,\"head\":\"{HEAD2}\"}}\n")
    );
    s.write("cp.json", &run.stdout);

    let run = s.run(&["verify", "--json", "--checkpoint", "cp.json", "t.jsonl"]);
    assert_eq!(run.code, 0);
    let report = &json_lines(&run.stdout)[0];
    assert_eq!(member(report, "ok"), &Value::Bool(true));
    assert_eq!(member(report, "beyond_checkpoint"), &num(0.0));

    s.write("cut.jsonl", format!("{LINE0}\n{LINE1}\n"));
    let run = s.run(&["verify", "--json", "--checkpoint", "cp.json", "cut.jsonl"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        faults(&json_lines(&run.stdout)[0]),
        [(num(2.0), Value::Null, String::from("truncated"))]
    );

    // The checkpoint of stdin, and of a file with faults (nothing on stdout).
    let run = s.run_stdin(&["checkpoint", "--v1", "-"], spec_chain().as_bytes());
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, fs::read_to_string(s.path("cp.json")).unwrap());
    s.write("bad.jsonl", tampered_chain());
    let run = s.run(&["checkpoint", "bad.jsonl"]);
    assert_fails(&run, 1, "agentloop: bad.jsonl line 3: hash_mismatch: ");
    assert_eq!(run.stdout, "");
    let run = s.run(&["checkpoint", "missing.jsonl"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn bad_checkpoint_files_cannot_grade() {
    let s = Scratch::new("checkpoint_bad");
    s.write("t.jsonl", spec_chain());
    s.write("bad.json", r#"{"count":3,"head":"xyz"}"#);
    s.write("big.json", vec![b' '; 1 << 17]);
    for (cp, needle) in [
        ("bad.json", "agentloop: bad.json: checkpoint_malformed: "),
        (
            "missing.json",
            "agentloop: missing.json: cannot read the checkpoint: ",
        ),
        ("big.json", "agentloop: big.json: checkpoint_malformed: "),
    ] {
        let run = s.run(&["verify", "--json", "--checkpoint", cp, "t.jsonl"]);
        assert_eq!(run.code, 2, "{cp}");
        assert_eq!(run.stdout, "");
        assert!(run.stderr.starts_with(needle), "{}", run.stderr);
    }
    s.write("cp.json", format!("{{\"count\":3,\"head\":\"{HEAD2}\"}}"));
    let run = s.run(&[
        "verify",
        "--checkpoint",
        "cp.json",
        "--expect-count",
        "3",
        "t.jsonl",
    ]);
    assert_eq!(run.code, 2);
}

#[test]
fn anchor_continues_a_transcript() {
    let s = Scratch::new("anchor");
    let anchor = format!("3:{HEAD2}");
    let run = s.run(&[
        "append",
        "next.jsonl",
        "--kind",
        "resume",
        "--payload",
        r#"{"after":"no_tool_calls"}"#,
        "--anchor",
        &anchor,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let head = run.stdout.trim().to_owned();
    let run = s.run(&[
        "append",
        "next.jsonl",
        "--kind",
        "x",
        "--payload",
        "null",
        "--anchor",
        &anchor,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(s.read("next.jsonl")).unwrap();
    assert!(text.contains(&format!("\"prev\":\"{HEAD2}\",\"seq\":3}}\n")));
    assert!(text.contains(&format!("\"prev\":\"{head}\",\"seq\":4}}\n")));

    let code = |args: &[&str]| s.run(args).code;
    assert_eq!(code(&["verify", "next.jsonl"]), 1);
    assert_eq!(code(&["verify", "--anchor", &anchor, "next.jsonl"]), 0);
    assert_eq!(code(&["checkpoint", "--anchor", &anchor, "next.jsonl"]), 0);
    assert_eq!(code(&["show", "--anchor", &anchor, "next.jsonl"]), 0);

    let run = s.run(&["verify", "--anchor", "3", "next.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("an anchor is SEQ0:PREV0"),
        "{}",
        run.stderr
    );
    assert_eq!(code(&["verify", "--anchor", "x:00", "next.jsonl"]), 2);
    assert_eq!(
        code(&[
            "append",
            "next.jsonl",
            "--kind",
            "k",
            "--payload",
            "1",
            "--anchor",
            "1:x"
        ]),
        2
    );
}

#[test]
fn canon_spec_vector_byte_for_byte() {
    let s = Scratch::new("canon_vector");
    let input = r#"{"€":1,"\r":2,"😀":3,"ﬁ":4,"a":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}"#;
    let expected =
        r#"{"\r":2,"a":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],"€":1,"😀":3,"ﬁ":4}"#;
    s.write("doc.json", format!(" {input}\n"));
    for (args, stdin) in [
        (&["canon", "doc.json"][..], None),
        (&["canon"][..], Some(input.as_bytes())),
        (&["canon", "-"][..], Some(input.as_bytes())),
    ] {
        let run = run_in(s.dir(), args, stdin);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.raw_stdout, expected.as_bytes());
    }
}

#[test]
fn canon_refuses_input_without_canonical_form() {
    let s = Scratch::new("canon_refuse");
    let cases: [(&str, &[u8]); 7] = [
        ("inexact.json", b"[1,\n 9007199254740993]"),
        ("range.json", b"1e400"),
        ("surrogate.json", br#""\ud800""#),
        ("dup.json", br#"{"a":1,"\u0061":2}"#),
        ("bom.json", b"\xef\xbb\xbf{}"),
        ("utf8.json", b"\"\xff\""),
        ("syntax.json", b"{\"a\" 1}"),
    ];
    for (name, bytes) in cases {
        s.write(name, bytes);
        let run = s.run(&["canon", name]);
        assert_eq!(run.code, 1, "{name}");
        assert_eq!(run.stdout, "", "{name}");
        assert!(
            run.stderr.starts_with(&format!("agentloop: {name} line ")),
            "{}",
            run.stderr
        );
        assert_eq!(run.stderr.lines().count(), 1);
    }
    let run = s.run(&["canon", "inexact.json"]);
    assert!(run.stderr.starts_with(
        "agentloop: inexact.json line 2 column 2: the input has no canonical encoding"
    ));
    assert_eq!(s.run(&["canon", "missing.json"]).code, 2);
    assert_eq!(s.run(&["canon", "--jsonl", "missing.json"]).code, 2);
}

#[test]
fn canon_jsonl_streams_and_stops_at_the_bad_line() {
    let s = Scratch::new("canon_jsonl");
    let run = s.run_stdin(
        &["canon", "--jsonl"],
        b"{\"b\":1, \"a\":1e21}\n[1.0]\n\"x\"",
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "{\"a\":1e+21,\"b\":1}\n[1]\n\"x\"\n");

    s.write(
        "l.jsonl",
        "{\"b\":2,\"a\":1}\n{\"x\":9007199254740993}\n{}\n",
    );
    let run = s.run(&["canon", "--jsonl", "l.jsonl"]);
    assert_fails(&run, 1, "agentloop: l.jsonl line 2 column 6: ");
    assert_eq!(run.stdout, "{\"a\":1,\"b\":2}\n");

    s.write("e.jsonl", "1\n\n2\n");
    let run = s.run(&["canon", "--jsonl", "e.jsonl"]);
    assert_fails(&run, 1, "agentloop: e.jsonl line 2 column 1: ");
    assert_eq!(run.stdout, "1\n");

    let run = s.run_stdin(&["canon", "--jsonl"], b"");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

#[test]
fn canon_on_a_closed_pipe_exits_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop"))
        .args(["canon", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let input = "[1,2,3]\n".repeat(50_000);
    let mut stdin = child.stdin.take().unwrap();
    // The child may stop reading once its output fails.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    // As cat: ended by SIGPIPE (13), without a message (docs/cli.md).
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(13));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn append_writes_the_spec_chain() {
    let s = Scratch::new("append_spec");
    s.write("p.json", r#"{"value":{"sum":42},"ok":true,"name":"add"}"#);
    let steps: [(&[&str], &str); 3] = [
        (
            &["--kind", "task", "--payload", r#"{"task":"add 2 and 40"}"#],
            HEAD0,
        ),
        (
            &[
                "--kind",
                "assistant",
                "--payload",
                r#"{"tool_calls":[{"name":"add","arguments":{"b":40,"a":2}}],"text":""}"#,
            ],
            HEAD1,
        ),
        (&["--kind", "tool", "--payload-file", "p.json"], HEAD2),
    ];
    for (extra, head) in steps {
        let mut args = vec!["append", "t.jsonl"];
        args.extend_from_slice(extra);
        let run = s.run(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stdout, format!("{head}\n"));
        assert_eq!(run.stderr, "");
    }
    assert_eq!(s.read("t.jsonl"), spec_chain().as_bytes());

    // A payload from standard input.
    let run = s.run_stdin(
        &["append", "t.jsonl", "--kind", "note", "--payload-file", "-"],
        b"{\"n\": -1}",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.run(&["verify", "t.jsonl"]).code, 0);
}

#[test]
fn append_refusals_leave_the_file_untouched() {
    let s = Scratch::new("append_refuse");
    s.write("t.jsonl", spec_chain());
    s.write("bad.jsonl", tampered_chain());
    s.write("torn.jsonl", format!("{LINE0}\n{}", &LINE1[..10]));
    // (arguments, exit code, the file left untouched, how stderr starts: "" for any way)
    let cases: [(&[&str], i32, &str, &str); 9] = [
        (
            &[
                "append",
                "t.jsonl",
                "--kind",
                "x",
                "--payload",
                "9007199254740993",
            ],
            1,
            "t.jsonl",
            "agentloop: t.jsonl: the payload (--payload line 1 column 1) has no canonical encoding",
        ),
        (
            &[
                "append",
                "t.jsonl",
                "--kind",
                "x",
                "--payload",
                "{\"a\":1,\"a\":2}",
            ],
            1,
            "t.jsonl",
            "",
        ),
        (
            &["append", "bad.jsonl", "--kind", "x", "--payload", "1"],
            1,
            "bad.jsonl",
            "agentloop: bad.jsonl line 3: hash_mismatch: ",
        ),
        (
            &["append", "torn.jsonl", "--kind", "x", "--payload", "1"],
            1,
            "torn.jsonl",
            "agentloop: torn.jsonl: torn_tail: the file ends in an incomplete line (10 bytes at \
             offset 206): an earlier append did not finish; nothing was appended \
             (`agentloop repair torn.jsonl` moves that line to a side file)",
        ),
        (
            &["append", "t.jsonl", "--kind", "", "--payload", "1"],
            2,
            "t.jsonl",
            "",
        ),
        (
            &[
                "append",
                "t.jsonl",
                "--kind",
                "x",
                "--payload-file",
                "missing.json",
            ],
            2,
            "t.jsonl",
            "",
        ),
        (&["append", "t.jsonl", "--kind", "x"], 2, "t.jsonl", ""),
        (
            &[
                "append",
                "t.jsonl",
                "--kind",
                "x",
                "--payload",
                "1",
                "--payload-file",
                "p",
            ],
            2,
            "t.jsonl",
            "",
        ),
        (
            &["append", "-", "--kind", "x", "--payload", "1"],
            2,
            "t.jsonl",
            "",
        ),
    ];
    for (args, code, file, stderr) in cases {
        let before = s.read(file);
        let run = s.run(args);
        assert_eq!(run.code, code, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert_eq!(s.read(file), before, "{args:?}");
        assert!(run.stderr.starts_with(stderr), "{args:?}: {}", run.stderr);
    }

    // A refused payload does not create the file.
    let run = s.run(&["append", "new.jsonl", "--kind", "x", "--payload", "1e400"]);
    assert_eq!(run.code, 1);
    assert!(!s.path("new.jsonl").exists());
    // An unreadable transcript (a directory) cannot be graded.
    fs::create_dir(s.path("dir.jsonl")).unwrap();
    let run = s.run(&["append", "dir.jsonl", "--kind", "x", "--payload", "1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn concurrent_appends_are_serialised_by_the_lock() {
    let s = Scratch::new("append_concurrent");
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let dir = s.dir().to_path_buf();
            thread::spawn(move || {
                for i in 0..25 {
                    let payload = format!("{{\"worker\":{w},\"i\":{i}}}");
                    let run = run_in(
                        &dir,
                        &[
                            "append",
                            "shared.jsonl",
                            "--kind",
                            "note",
                            "--payload",
                            &payload,
                        ],
                        None,
                    );
                    assert_eq!(run.code, 0, "{}", run.stderr);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let run = s.run(&["verify", "--json", "shared.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = &json_lines(&run.stdout)[0];
    assert_eq!(member(report, "count"), &num(100.0));
    assert_eq!(member(report, "ok"), &Value::Bool(true));
}

#[test]
fn show_prints_one_line_per_record() {
    let s = Scratch::new("show");
    s.write("t.jsonl", spec_chain());
    let expected = concat!(
        "seq=0 task task=\"add 2 and 40\"\n",
        "seq=1 assistant text=\"\" calls=1 add({\"a\":2,\"b\":40})\n",
        "seq=2 tool add ok=True value={\"sum\":42}\n",
    );
    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, expected);
    assert_eq!(run.stderr, "");
    let run = s.run_stdin(&["show", "-"], spec_chain().as_bytes());
    assert_eq!((run.code, run.stdout.as_str()), (0, expected));

    // A line that is not a record is named, the rest still shown; faults on stderr.
    s.write("bad.jsonl", format!("{LINE0}\n[1, 2]\n{LINE2}\n"));
    let run = s.run(&["show", "bad.jsonl"]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "seq=0 task task=\"add 2 and 40\"");
    assert!(
        lines[1].starts_with("line 2: not a record: "),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "seq=2 tool add ok=True value={\"sum\":42}");
    assert!(run
        .stderr
        .contains("agentloop: bad.jsonl line 2: not_an_object: "));

    // A file whose lines are all records but that does not verify.
    s.write("tampered.jsonl", tampered_chain());
    let run = s.run(&["show", "tampered.jsonl"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 3);
    assert!(run
        .stderr
        .contains("agentloop: tampered.jsonl line 3: hash_mismatch: "));

    assert_fails(
        &s.run(&["show", "missing.jsonl"]),
        2,
        "agentloop: missing.jsonl: unreadable: ",
    );
}

#[test]
fn usage_help_and_version() {
    let s = Scratch::new("usage");
    let code = |args: &[&str]| s.run(args).code;
    assert_eq!(code(&[]), 2);
    assert_eq!(code(&["frobnicate"]), 2);
    assert_eq!(code(&["verify"]), 2);
    assert_eq!(code(&["verify", "--bogus", "x"]), 2);
    assert_eq!(code(&["--help"]), 0);
    assert_eq!(code(&["verify", "--help"]), 0);
    assert_eq!(code(&["--version"]), 0);
}

/// A file name with an escape sequence and one with a right-to-left override: every
/// command that prints a name shows the control characters as escapes, on stdout and
/// on stderr — never raw.
#[test]
fn file_names_are_printed_with_controls_escaped() {
    let s = Scratch::new("escaped_names");
    let raw = [
        "t\u{1b}[2J\u{1b}]0;owned\u{7}.jsonl",
        "t\u{202e}lnosj.jsonl",
    ];
    let shown = [
        r"t\u001b[2J\u001b]0;owned\u0007.jsonl",
        r"t\u202elnosj.jsonl",
    ];
    // A run of the loop, for `verify --loop`.
    assert_eq!(s.run(&["demo"]).code, 0);
    let run = s.read("demo-answer.jsonl");
    for (raw, shown) in raw.iter().zip(shown) {
        s.write(raw, &run);
        let outputs = [
            s.run(&["verify", raw]),
            s.run(&["verify", "--loop", raw]),
            s.run(&["repair", raw]),
        ];
        for run in &outputs {
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert!(
                run.stdout.starts_with(&format!("{shown}: ")),
                "{}",
                run.stdout
            );
        }
        let missing = format!("missing-{raw}");
        let run = s.run(&["verify", &missing]);
        assert!(
            run.stdout.starts_with(&format!("missing-{shown}: ")),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr
                .starts_with(&format!("agentloop: missing-{shown}: ")),
            "{}",
            run.stderr
        );
        s.write(raw, tampered_chain());
        let run = s.run(&["show", raw]);
        assert!(
            run.stderr.contains(&format!("agentloop: {shown} line 3: ")),
            "{}",
            run.stderr
        );
        for run in outputs.iter().chain([&run]) {
            for bytes in [&run.raw_stdout, &run.raw_stderr] {
                let text = String::from_utf8_lossy(bytes);
                assert!(!text.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{text:?}");
            }
        }
    }
}

/// `show`: record content with an override, DEL and C1 controls is escaped too (JSON
/// quoting leaves those raw).
#[test]
fn show_escapes_bidi_and_c1_controls_in_records() {
    let s = Scratch::new("show_bidi");
    let run = s.run(&[
        "append",
        "t.jsonl",
        "--kind",
        "tool",
        "--payload",
        "{\"name\":\"ad\u{202e}d\",\"ok\":false,\"error\":\"x\u{7f}\u{9b}31m\u{2066}y\"}",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "seq=0 tool \"ad\\u202ed\" ok=False error=\"x\\u007f\\u009b31m\\u2066y\"\n"
    );
}

/// The words the command says about itself and its inputs: the tagline names running
/// the loop; `validate --help` describes the whole draft 2020-12 language; a misspelt
/// command or an option given without its first word gets a suggestion; a file that
/// cannot be read is said to be not verified (not "1 fault in 0 records"); a CRLF line
/// ending is named.
#[test]
fn help_suggestions_and_verdicts_say_what_is_so() {
    let s = Scratch::new("words");
    let run = s.run(&["--help"]);
    assert!(
        run.stdout.starts_with(
            "agentloop: run a budgeted agent tool loop against a model, writing a \
             hash-chained JSONL transcript; verify"
        ),
        "{}",
        run.stdout
    );
    let run = s.run(&["validate", "--help"]);
    assert_eq!(run.code, 0);
    for words in [
        "draft 2020-12",
        "the whole validation language",
        "unevaluatedProperties",
        "$dynamicRef",
        "format and the\nother annotations are not asserted",
    ] {
        assert!(run.stdout.contains(words), "{words}: {}", run.stdout);
    }
    assert!(
        !run.stdout.contains("any other keyword is refused"),
        "{}",
        run.stdout
    );

    let run = s.run(&["verfy", "t.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("tip: some similar subcommands exist: 'verify-proof', 'verify'"),
        "{}",
        run.stderr
    );
    for steps in ["--steps", "--steps=3"] {
        let run = s.run(&["run", steps, "3", "--model", "openai:m", "--out", "t.jsonl"]);
        assert_eq!(run.code, 2);
        assert!(
            run.stderr
                .contains("tip: a similar argument exists: '--max-steps'"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("--system"), "{}", run.stderr);
    }
    let run = s.run(&["run", "--max-step", "3"]);
    assert!(run.stderr.contains("'--max-steps'"), "{}", run.stderr);

    let run = s.run(&["verify", "missing.jsonl"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stdout,
        "missing.jsonl: not verified: cannot open missing.jsonl: No such file or directory \
         (os error 2)\n"
    );

    s.write("crlf.jsonl", spec_chain().replace('\n', "\r\n"));
    let run = s.run(&["verify", "crlf.jsonl"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (1, "crlf.jsonl: 3 faults in 3 records\n")
    );
    assert!(
        run.stderr.starts_with(&format!(
            "agentloop: crlf.jsonl line 1: not_canonical: the line is not in canonical (RFC \
             8785) form: a carriage return (white space; CRLF line endings leave one before \
             each newline) at column {}\n",
            LINE0.len() + 1
        )),
        "{}",
        run.stderr
    );
}
