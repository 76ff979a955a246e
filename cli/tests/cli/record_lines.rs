//! Commands that read a transcript line by line outside `verify` (`show`, `canon
//! --jsonl`, `prove` and `verify-proof`) take every line `verify` takes: a record line
//! nests one level deeper than its payload (SPEC section 1). Every input is read to a
//! bound: a line to the line limit, a whole document to the same 16 MiB.

use crate::common;

use agentloop_core::chain::Chain;
use agentloop_core::json::{self, MAX_DEPTH};
use agentloop_core::{record, Anchor};
use common::*;

/// A payload of `depth` nested arrays around `1`: `[[…[1]…]]`.
fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// A transcript of three records whose middle payload nests `depth` deep. The middle
/// line is put together from the record functions, since the chain refuses a payload
/// deeper than a verifier reads (`AppendError::TooDeep`); the chain continues after it.
fn with_deep_payload(depth: usize) -> String {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    out.extend_from_slice(chain.append_json("task", br#"{"task":"deep"}"#).unwrap());
    let payload = json::parse_with(
        nested(depth).as_bytes(),
        json::ParseOptions { max_depth: depth },
    )
    .unwrap();
    let (prev, seq) = (chain.head(), chain.next_seq());
    let hash = record::record_hash("note", &payload, &prev, seq).unwrap();
    let mut body = Vec::new();
    record::write_body("note", &payload, &prev, seq, &mut body).unwrap();
    out.extend_from_slice(record::LINE_PREFIX);
    out.extend_from_slice(&hash.to_hex());
    out.extend_from_slice(b"\",");
    out.extend_from_slice(&body);
    out.push(b'\n');
    let mut chain = Chain::from_anchor(Anchor {
        seq0: seq + 1,
        prev0: hash,
    });
    out.extend_from_slice(chain.append_json("note", b"{}").unwrap());
    String::from_utf8(out).unwrap()
}

#[test]
fn a_payload_at_the_depth_limit_is_read_by_show_canon_and_proofs() {
    let s = Scratch::new("depth-limit");
    let text = with_deep_payload(MAX_DEPTH);
    s.write("t.jsonl", &text);
    // The line itself nests MAX_DEPTH + 1 deep, and verifies.
    let run = s.run(&["verify", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(
        lines[1].starts_with("seq=1 note payload=[[[["),
        "{}",
        lines[1]
    );

    // canon --jsonl gives back the (canonical) transcript, byte for byte.
    let run = s.run(&["canon", "--jsonl", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, text);

    for i in 0..3 {
        let i = i.to_string();
        let run = s.run(&["prove", "t.jsonl", "--index", &i]);
        assert_eq!(run.code, 0, "prove --index {i}: {}", run.stderr);
        s.write("p", &run.stdout);
        let run = s.run(&["verify-proof", "p"]);
        assert_eq!(run.code, 0, "verify-proof of {i}: {}", run.stdout);
        assert!(run.stdout.contains(&format!("holds: record {i} ")));
    }
}

#[test]
fn a_payload_one_level_deeper_is_refused_as_too_deep() {
    let s = Scratch::new("too-deep");
    s.write("t.jsonl", with_deep_payload(MAX_DEPTH + 1));
    // verify: bad_json on line 2, too deep.
    let run = s.run(&["verify", "--json", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = &json_lines(&run.stdout)[0];
    assert_eq!(faults(report)[0].2, "bad_json");

    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("seq=0 task"), "{}", run.stdout);
    assert!(
        lines[1].starts_with("line 2: the line is not I-JSON (column ")
            && lines[1].contains("nesting deeper than the limit"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("seq=2 note"), "{}", run.stdout);

    // canon --jsonl: the first line printed, then line 2 named, nothing after it.
    let run = s.run(&["canon", "--jsonl", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1);
    assert!(
        run.stderr.starts_with("agentloop: t.jsonl line 2")
            && run.stderr.contains("nesting deeper than the limit"),
        "{}",
        run.stderr
    );

    // prove: the file does not verify, so no proof.
    let run = s.run(&["prove", "t.jsonl", "--index", "0"]);
    assert_ne!(run.code, 0);
    assert!(run.stdout.is_empty());
}

// ---------------------------------------------------------------------------------------
// Overlong lines: reported, never buffered.
//
// How memory is held to a bound: the child runs under `sh -c 'ulimit -v N; exec …'`, a
// cap on its address space, so a reader that buffers a whole line past the 16 MiB
// limit fails to allocate (and aborts, exit 134) instead of passing. The overlong line
// is 64 MiB, streamed into the child's standard input from a thread (never held in the
// test), and the cap is 56 MiB: room for the binary (about 10 MiB of address space)
// and one line up to the 16 MiB limit, not for a 64 MiB one. The cap is on the address
// space, not on time, so the test does not depend on the machine's speed; it also
// catches a reader that stores the line without touching its pages.
// ---------------------------------------------------------------------------------------

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The line limit (`verify::MAX_LINE_BYTES`).
const LIMIT: usize = 16 << 20;
/// The overlong line: four times the limit.
const LONG: usize = 64 << 20;
/// The address-space cap of the child, in KiB.
const CAP_KIB: usize = 56 << 10;

/// What the test writes on the child's standard input.
enum Feed {
    /// `before`, then `len` bytes `x` (no newline), then `after`.
    Long {
        before: Vec<u8>,
        len: usize,
        after: Vec<u8>,
    },
    /// Bytes `0` until the child stops reading (like `/dev/zero`, but no NUL: the line
    /// is one long, plausible token).
    Endless,
}

/// Runs `agentloop ARGS` under the address-space cap with `feed` on its standard
/// input; returns (exit code, stdout, stderr).
fn capped(args: &[&str], feed: Feed) -> (i32, String, String) {
    let script = format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_agentloop"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![b'x'; 1 << 16];
        // The child may stop reading (and exit) at any point: a broken pipe ends this.
        let _ = (|| -> std::io::Result<()> {
            match feed {
                Feed::Long { before, len, after } => {
                    stdin.write_all(&before)?;
                    for _ in 0..len / block.len() {
                        stdin.write_all(&block)?;
                    }
                    stdin.write_all(&block[..len % block.len()])?;
                    stdin.write_all(&after)
                }
                Feed::Endless => {
                    let zeros = vec![b'0'; 1 << 16];
                    // Bounded all the same (4 GiB), should the child never stop.
                    for _ in 0..(1u64 << 16) {
                        stdin.write_all(&zeros)?;
                    }
                    Ok(())
                }
            }
        })();
    });
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let _ = err.read_to_end(&mut stderr);
        stderr
    });
    out.read_to_end(&mut stdout).unwrap();
    let stderr = reader.join().unwrap();
    let status = child.wait().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        stderr,
    )
}

#[test]
fn show_reports_an_overlong_line_without_buffering_it_and_goes_on() {
    let (code, stdout, stderr) = capped(
        &["show", "-"],
        Feed::Long {
            before: format!("{LINE0}\n").into_bytes(),
            len: LONG,
            after: format!("\n{LINE2}\n").into_bytes(),
        },
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("seq=0 task"), "{stdout}");
    assert_eq!(
        lines[1],
        format!("line 2: the line is {LONG} bytes long, more than the limit of {LIMIT} bytes")
    );
    assert!(lines[2].starts_with("seq=2 tool"), "{stdout}");
    // The verification names the line too, as verify does.
    assert!(
        stderr.contains(&format!(
            "<stdin> line 2: bad_json: the line is {LONG} bytes long, more than the limit of {LIMIT} bytes"
        )),
        "{stderr}"
    );
}

#[test]
fn show_names_an_overlong_torn_tail() {
    let (code, stdout, stderr) = capped(
        &["show", "-"],
        Feed::Long {
            before: format!("{LINE0}\n").into_bytes(),
            len: LONG,
            after: Vec::new(),
        },
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.ends_with("line 2: the last line has no terminating newline (a torn append)\n"),
        "{stdout}"
    );
    assert!(stderr.contains("torn_tail"), "{stderr}");
}

#[test]
fn canon_jsonl_stops_at_an_overlong_line_without_reading_it_to_its_end() {
    let (code, stdout, stderr) = capped(
        &["canon", "--jsonl", "-"],
        Feed::Long {
            before: b"{\"b\":1, \"a\":2}\n".to_vec(),
            len: LONG,
            after: b"\n{}\n".to_vec(),
        },
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "{\"a\":2,\"b\":1}\n");
    assert_eq!(
        stderr,
        format!("agentloop: <stdin> line 2: the line is longer than the limit of {LIMIT} bytes\n")
    );
    // An endless line (`canon --jsonl /dev/zero`): the same, at once.
    let (code, stdout, stderr) = capped(&["canon", "--jsonl", "-"], Feed::Endless);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert_eq!(
        stderr,
        format!("agentloop: <stdin> line 1: the line is longer than the limit of {LIMIT} bytes\n")
    );
}

#[test]
fn a_line_at_the_limit_is_still_read() {
    // Exactly the limit: a JSON string of LIMIT - 2 characters between its quotes.
    let s = Scratch::new("at-limit");
    let mut doc = vec![b'"'];
    doc.resize(LIMIT - 1, b'a');
    doc.extend_from_slice(b"\"\n");
    assert_eq!(doc.len(), LIMIT + 1);
    s.write("one.jsonl", &doc);
    let run = s.run(&["canon", "--jsonl", "one.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.raw_stdout, doc);
    // One byte more is refused.
    doc.insert(1, b'a');
    s.write("two.jsonl", &doc);
    let run = s.run(&["canon", "--jsonl", "two.jsonl"]);
    assert_fails(
        &run,
        1,
        &format!("agentloop: two.jsonl line 1: the line is longer than the limit of {LIMIT} bytes"),
    );
}

/// Runs `agentloop ARGS` under the address-space cap, with an empty standard input.
fn capped_no_input(args: &[&str]) -> (i32, String, String) {
    let nothing = Feed::Long {
        before: Vec::new(),
        len: 0,
        after: Vec::new(),
    };
    capped(args, nothing)
}

/// Every command that reads a whole document, given one without end (`/dev/zero`, or
/// an endless standard input): refused after the 16 MiB bound with a sentence naming
/// the input and the bound, within the address-space cap (the old reader grew until
/// it failed to allocate), and nothing written.
#[test]
fn a_whole_document_is_read_to_the_bound_and_refused_past_it() {
    let s = Scratch::new("document-bound");
    let schema = s.write("schema.json", "{}");
    let (schema, out) = (schema.to_str().unwrap(), s.path("t.jsonl"));
    let out = out.to_str().unwrap();
    let too_large = |name: &str| {
        format!(
            "agentloop: {name}: cannot read it: it is longer than the limit of {LIMIT} bytes \
             (16 MiB); it was not read further\n"
        )
    };
    let cases: [(&[&str], i32, String); 5] = [
        (&["canon", "/dev/zero"], 2, too_large("/dev/zero")),
        (
            &["validate", "/dev/zero", schema],
            2,
            too_large("/dev/zero"),
        ),
        (
            &["validate", schema, "/dev/zero"],
            2,
            too_large("/dev/zero"),
        ),
        (
            &[
                "run",
                "--task-file",
                "/dev/zero",
                "--model",
                "openai:m",
                "--out",
                out,
            ],
            2,
            too_large("/dev/zero"),
        ),
        (
            &["append", out, "--kind", "k", "--payload-file", "/dev/zero"],
            1,
            format!(
                "agentloop: /dev/zero: cannot read the payload: it is longer than the limit \
                 of {LIMIT} bytes (16 MiB); nothing was appended\n"
            ),
        ),
    ];
    for (args, code, sentence) in cases {
        let (found, stdout, stderr) = capped_no_input(args);
        assert_eq!((found, stdout.as_str()), (code, ""), "{args:?}: {stderr}");
        assert_eq!(stderr, sentence, "{args:?}");
        assert!(!s.path("t.jsonl").exists(), "{args:?}");
    }
    let (code, stdout, stderr) = capped(&["canon", "-"], Feed::Endless);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert_eq!(stderr, too_large("<stdin>"));
    // A proof has a bound of its own (a record line in base64, and more), past the
    // cap: refused there too, rather than cut and misread.
    let run = s.run(&["verify-proof", "/dev/zero"]);
    assert_fails(
        &run,
        2,
        "agentloop: /dev/zero: cannot read it: it is longer than the limit of 33554432 \
         bytes (32 MiB); it was not read further",
    );
}

/// `prove`, `export` and `replay` hold a transcript whole, read line by line: a line
/// without end is refused at the line limit, naming it, within the cap.
#[test]
fn a_transcript_held_whole_is_read_line_by_line_to_the_limit() {
    let too_long = |name: &str| {
        format!("agentloop: {name} line 1: the line is longer than the limit of {LIMIT} bytes\n")
    };
    for args in [
        &["prove", "--index", "0", "/dev/zero"][..],
        &["export", "--format", "openai", "/dev/zero"],
        &["replay", "/dev/zero"],
    ] {
        let (code, stdout, stderr) = capped_no_input(args);
        assert_eq!((code, stdout.as_str()), (1, ""), "{args:?}: {stderr}");
        assert_eq!(stderr, too_long("/dev/zero"), "{args:?}");
    }
    let (code, _, stderr) = capped(&["export", "--format", "anthropic", "-"], Feed::Endless);
    assert_eq!((code, stderr), (1, too_long("<stdin>")));
}
