//! `agentloop canon --jsonl` against ECMAScript itself: thousands of random, deliberately
//! non-canonical documents (unicode keys, control characters, random doubles) must come
//! out exactly as node's `JSON.stringify` with UTF-16 key order writes them.

use crate::common;

use agentloop_tests::{
    ecmascript_canonical, have_program, random_document, skip_or_fail, write_noisy, XorShift,
};
use common::Scratch;

const DOCUMENTS: usize = 2000;

#[test]
fn canon_command_matches_ecmascript() {
    if !have_program("node") {
        skip_or_fail("skipped: node not found");
        return;
    }
    let mut rng = XorShift::new(0x0c11_ca90_2026);
    let inputs: Vec<String> = (0..DOCUMENTS)
        .map(|_| {
            let mut line = String::new();
            write_noisy(&random_document(&mut rng), &mut rng, &mut line);
            line
        })
        .collect();
    let expected = ecmascript_canonical(&inputs);
    assert_eq!(expected.len(), DOCUMENTS);

    let scratch = Scratch::new("canon_oracle");
    let mut jsonl = inputs.join("\n");
    jsonl.push('\n');
    let path = scratch.write("documents.jsonl", jsonl.as_bytes());
    let run = scratch.run(&["canon", "--jsonl", path.to_str().expect("utf-8 path")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<&[u8]> = run
        .raw_stdout
        .strip_suffix(b"\n")
        .expect("output ends with a newline")
        .split(|&b| b == b'\n')
        .collect();
    assert_eq!(got.len(), DOCUMENTS, "one canonical line per document");
    let differing: Vec<usize> = (0..DOCUMENTS).filter(|&i| got[i] != expected[i]).collect();
    assert!(
        differing.is_empty(),
        "{} documents differ from ECMAScript; first: line {}\n  input {}\n  node  {}\n  ours  {}",
        differing.len(),
        differing[0] + 1,
        inputs[differing[0]],
        String::from_utf8_lossy(&expected[differing[0]]),
        String::from_utf8_lossy(got[differing[0]])
    );
    // The input really needed canonicalising.
    let changed = (0..DOCUMENTS)
        .filter(|&i| inputs[i].as_bytes() != expected[i])
        .count();
    assert!(changed > DOCUMENTS * 8 / 10, "{changed}");
}
