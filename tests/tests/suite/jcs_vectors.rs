//! RFC 8785 public vectors (cyberphone/json-canonicalization): every input canonicalises
//! byte for byte to its `output/` file and to the bytes listed in `outhex/`.

use std::fs;
use std::path::Path;

use agentloop_core::jcs::canonicalize;
use agentloop_tests::{skip_or_fail, vectors_dir};

/// Parses whitespace-separated hex bytes.
fn parse_hex(text: &str, file: &Path) -> Vec<u8> {
    text.split_whitespace()
        .map(|h| {
            u8::from_str_radix(h, 16)
                .unwrap_or_else(|e| panic!("{}: bad hex byte {h:?}: {e}", file.display()))
        })
        .collect()
}

#[test]
fn rfc8785_public_vectors_byte_for_byte() {
    let root = vectors_dir().join("jcs").join("testdata");
    let input_dir = root.join("input");
    if !input_dir.is_dir() {
        skip_or_fail(&format!(
            "skipped: public vectors not found at {} (set AGENTLOOP_VECTORS)",
            vectors_dir().display()
        ));
        return;
    }
    let mut names: Vec<String> = fs::read_dir(&input_dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", input_dir.display()))
        .map(|entry| entry.expect("directory entry").file_name())
        .filter_map(|n| n.into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        6,
        "RFC 8785 vector inputs in {}: {names:?}",
        input_dir.display()
    );
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".json");
        let input = fs::read(input_dir.join(name)).expect("read input");
        let expected = fs::read(root.join("output").join(name)).expect("read output");
        let hex_path = root.join("outhex").join(format!("{stem}.txt"));
        let hex_text = fs::read_to_string(&hex_path).expect("read outhex");
        let expected_hex = parse_hex(&hex_text, &hex_path);
        assert!(!expected_hex.is_empty(), "{}: no bytes", hex_path.display());
        // The two expectations must agree with each other, or the vectors are damaged.
        assert_eq!(
            expected, expected_hex,
            "{name}: output/ and outhex/ disagree"
        );
        match canonicalize(&input) {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!(
                "{name}:\n  expected {}\n  got      {}",
                String::from_utf8_lossy(&expected),
                String::from_utf8_lossy(&got)
            )),
            Err(e) => failures.push(format!("{name}: refused: {e}")),
        }
        // Canonical output is a fixed point.
        assert_eq!(
            canonicalize(&expected).ok(),
            Some(expected.clone()),
            "{name}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
