//! Docs that match the tree: every file of this repository that README.md or a
//! `docs/*.md` names in code spans or links (`ffi/tests/ffi/c_examples.rs`,
//! `../c-examples/proof.c`, …) exists. A path is read relative to the repository root,
//! or to the document's folder when it starts with `../`.

use std::fs;
use std::path::{Path, PathBuf};

/// The top-level folders whose files the docs name.
const ROOTS: [&str; 18] = [
    "ffi/",
    "transcript/",
    "json/",
    "schema/",
    "tlog/",
    "cli/",
    "core/",
    "tests/",
    "mcp/",
    "http/",
    "standin/",
    "benches/",
    "c-examples/",
    "fuzz/",
    "include/",
    "nostd-check/",
    ".ci/",
    "python/",
];

/// The file name endings of the paths checked.
const ENDINGS: [&str; 10] = [
    ".rs", ".c", ".cpp", ".sh", ".py", ".h", ".hpp", ".toml", ".md", ".pc",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository paths named in `text`: a run of path characters that starts at a
/// word boundary with one of [`ROOTS`] (after any `../`) and ends with one of
/// [`ENDINGS`].
fn named_paths(text: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_/.-".contains(c);
    let mut found = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let boundary = i == 0 || !is_path_char(chars[i - 1].1);
        if !(boundary && is_path_char(c)) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_path_char(chars[j].1) {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |&(at, _)| at);
        let word = text[start..end].trim_end_matches('.');
        let bare = word.trim_start_matches("../");
        if ROOTS.iter().any(|r| bare.starts_with(r)) && ENDINGS.iter().any(|e| bare.ends_with(e)) {
            found.push(word.to_string());
        }
        i = j;
    }
    found
}

/// Whether `path`, named in `doc`, exists.
fn exists(doc: &Path, path: &str) -> bool {
    let root = repo();
    let beside = doc.parent().unwrap_or(Path::new("")).join(path);
    root.join(path).exists() || beside.exists()
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = repo();
    let mut docs = vec![root.join("README.md")];
    for entry in fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = fs::read_to_string(doc).unwrap();
        for (number, line) in text.lines().enumerate() {
            for path in named_paths(line) {
                checked += 1;
                if !exists(doc, &path) {
                    let name = doc.strip_prefix(&root).unwrap_or(doc).display();
                    missing.push(format!("{name}:{}: {path}", number + 1));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "paths named in the docs that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_reads_paths_as_written() {
    assert_eq!(
        named_paths("see `ffi/tests/ffi/c_examples.rs`, [proof](../c-examples/proof.c)."),
        ["ffi/tests/ffi/c_examples.rs", "../c-examples/proof.c"]
    );
    // Not a repository path: another root, no known ending, inside a longer word.
    assert!(named_paths("src/lib.rs, core/src, x-core/a.rs, https://h/core/a.rs").is_empty());
    let doc = repo().join("docs/c-api.md");
    assert!(exists(&doc, "../c-examples/proof.c"));
    assert!(exists(&doc, "ffi/tests/ffi/c_examples.rs"));
    assert!(!exists(&doc, "tests/c_examples.rs"));
}
