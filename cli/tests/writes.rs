//! The commands that write (`append`, `repair`, `checkpoint --out`) refuse what would
//! leave a file no verifier reads, and say so.

mod common;

use agentloop_core::verify::MAX_LINE_BYTES;
use common::*;

#[test]
fn append_refuses_a_record_past_the_line_limit_and_writes_nothing() {
    let s = Scratch::new("too_long");
    s.write("t.jsonl", spec_chain());
    // A 16 MiB string: with the record around it, the line passes 16 MiB.
    s.write(
        "big.json",
        format!("{{\"pad\":\"{}\"}}", "z".repeat(MAX_LINE_BYTES)),
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
