//! Commands that read a transcript line by line outside `verify` (`show`, `canon
//! --jsonl`, `prove` and `verify-proof`) take every line `verify` takes: a record line
//! nests one level deeper than its payload (SPEC section 1).

mod common;

use agentloop_core::chain::Chain;
use agentloop_core::json::{self, MAX_DEPTH};
use common::*;

/// A payload of `depth` nested arrays around `1`: `[[…[1]…]]`.
fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// A transcript of three records whose middle payload nests `depth` deep, written by
/// the core's chain (which encodes any depth).
fn with_deep_payload(depth: usize) -> String {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    out.extend_from_slice(chain.append_json("task", br#"{"task":"deep"}"#).unwrap());
    let payload = json::parse_with(
        nested(depth).as_bytes(),
        json::ParseOptions { max_depth: depth },
    )
    .unwrap();
    out.extend_from_slice(chain.append("note", &payload).unwrap());
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
