//! RFC 6962 / RFC 9162 public vectors (transparency-dev/merkle): every inclusion and
//! consistency case verifies or fails exactly as `wantErr` says, the failing ones
//! included.

use std::fs;
use std::path::{Path, PathBuf};

use agentloop_core::json::{self, Value};
use agentloop_core::merkle::{verify_consistency, verify_inclusion};
use agentloop_tests::{skip_or_fail, vectors_dir};
use base64::Engine;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn member<'a>(v: &'a Value, key: &str, file: &Path) -> &'a Value {
    v.as_object()
        .and_then(|o| o.get(key))
        .unwrap_or_else(|| panic!("{}: no member {key}", file.display()))
}

/// A size or index. Some exceed 2^53 (`u64::MAX`), beyond what the strict I-JSON parser
/// takes as a number, so [`read_case`] turns them into strings first.
fn number(v: &Value, key: &str, file: &Path) -> u64 {
    member(v, key, file)
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{}: {key} is not a u64", file.display()))
}

/// Reads a case, quoting the integer values so they parse exactly.
fn read_case(file: &Path) -> Value {
    let text = fs::read_to_string(file).expect("read case");
    let mut quoted = String::with_capacity(text.len() + 16);
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\": ") {
        let (head, tail) = rest.split_at(at + 3);
        quoted.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            quoted.push('"');
            quoted.push_str(&tail[..digits]);
            quoted.push('"');
        }
        rest = &tail[digits..];
    }
    quoted.push_str(rest);
    json::parse(quoted.as_bytes()).unwrap_or_else(|e| panic!("{}: not JSON: {e:?}", file.display()))
}

/// A base64 member; JSON `null` reads as no bytes (Go marshals a nil slice so).
fn bytes(v: &Value, key: &str, file: &Path) -> Vec<u8> {
    match member(v, key, file) {
        Value::Null => Vec::new(),
        s => base64::engine::general_purpose::STANDARD
            .decode(s.as_str().expect("a string"))
            .unwrap_or_else(|e| panic!("{}: {key}: {e}", file.display())),
    }
}

fn proof(v: &Value, file: &Path) -> Vec<Vec<u8>> {
    match member(v, "proof", file) {
        Value::Null => Vec::new(),
        Value::Array(items) => items
            .iter()
            .map(|s| {
                base64::engine::general_purpose::STANDARD
                    .decode(s.as_str().expect("a string"))
                    .expect("base64 proof entry")
            })
            .collect(),
        other => panic!("{}: proof is {}", file.display(), other.type_name()),
    }
}

fn cases(kind: &str) -> Option<Vec<PathBuf>> {
    let dir = vectors_dir().join("merkle").join("testdata").join(kind);
    if !dir.is_dir() {
        skip_or_fail(&format!(
            "skipped: public Merkle vectors not found at {} (set AGENTLOOP_VECTORS)",
            dir.display()
        ));
        return None;
    }
    let mut out = Vec::new();
    files(&dir, &mut out);
    out.sort();
    Some(out)
}

#[test]
fn inclusion_vectors_verify_or_fail_as_published() {
    let Some(cases) = cases("inclusion") else {
        return;
    };
    assert_eq!(cases.len(), 98, "inclusion cases");
    let mut failures = Vec::new();
    let (mut passing, mut failing) = (0, 0);
    for file in &cases {
        let v = read_case(file);
        let want_err = matches!(member(&v, "wantErr", file), Value::Bool(true));
        let got = verify_inclusion(
            number(&v, "leafIdx", file),
            number(&v, "treeSize", file),
            &bytes(&v, "leafHash", file),
            &proof(&v, file),
            &bytes(&v, "root", file),
        );
        if got.is_err() != want_err {
            failures.push(format!(
                "{}: wantErr {want_err}, got {got:?}",
                file.display()
            ));
        }
        if want_err {
            failing += 1;
        } else {
            passing += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        passing > 0 && failing > 0,
        "{passing} passing, {failing} failing"
    );
}

#[test]
fn consistency_vectors_verify_or_fail_as_published() {
    let Some(cases) = cases("consistency") else {
        return;
    };
    assert_eq!(cases.len(), 98, "consistency cases");
    let mut failures = Vec::new();
    let (mut passing, mut failing) = (0, 0);
    for file in &cases {
        let v = read_case(file);
        let want_err = matches!(member(&v, "wantErr", file), Value::Bool(true));
        let got = verify_consistency(
            number(&v, "size1", file),
            number(&v, "size2", file),
            &proof(&v, file),
            &bytes(&v, "root1", file),
            &bytes(&v, "root2", file),
        );
        if got.is_err() != want_err {
            failures.push(format!(
                "{}: wantErr {want_err}, got {got:?}",
                file.display()
            ));
        }
        if want_err {
            failing += 1;
        } else {
            passing += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        passing > 0 && failing > 0,
        "{passing} passing, {failing} failing"
    );
}
