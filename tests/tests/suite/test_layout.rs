//! Each crate's integration tests are one test binary: a folder `<crate>/tests/<name>/`
//! whose `main.rs` declares each file beside it as a module (one link of the core for
//! them all). A file put in such a folder without its `mod` line would never be compiled
//! nor run, and nothing else would say so: this test does.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use agentloop_tests::workspace_root;

/// The modules `main.rs` declares with `mod NAME;` (with or without `pub`).
fn declared(main: &str) -> BTreeSet<String> {
    main.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("pub ").unwrap_or(line);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// The modules the folder `dir` holds: each `NAME.rs` but `main.rs`, and each folder
/// with a `mod.rs`.
fn modules_in(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && path.join("mod.rs").is_file() {
            found.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "main" {
                found.insert(stem.to_owned());
            }
        }
    }
    found
}

#[test]
fn every_file_of_a_test_binary_folder_is_one_of_its_modules() {
    let root = workspace_root();
    let mut binaries = Vec::new();
    for member in fs::read_dir(&root).unwrap() {
        let Ok(folders) = fs::read_dir(member.unwrap().path().join("tests")) else {
            continue;
        };
        for folder in folders {
            let folder = folder.unwrap().path();
            let Ok(main) = fs::read_to_string(folder.join("main.rs")) else {
                continue;
            };
            let missing: Vec<String> = modules_in(&folder)
                .difference(&declared(&main))
                .cloned()
                .collect();
            let shown = folder.strip_prefix(&root).unwrap().display().to_string();
            assert!(
                missing.is_empty(),
                "{shown}/main.rs does not declare {missing:?}: add `mod NAME;` for each, or \
                 its tests are never compiled"
            );
            binaries.push(shown);
        }
    }
    binaries.sort();
    assert_eq!(
        binaries,
        [
            "cli/tests/cli",
            "ffi/tests/ffi",
            "http/tests/http",
            "mcp/tests/mcp",
            "tests/tests/memory",
            "tests/tests/suite"
        ]
    );
}

/// The integration-test files that are test binaries of their own, each for a reason:
/// `.ci/run` names `header`; `summary` runs last; `binary` and `gen_transcript` are their
/// crates' only test files.
const ALONE: [&str; 4] = [
    "benches/tests/gen_transcript.rs",
    "ffi/tests/header.rs",
    "standin/tests/binary.rs",
    "tests/tests/summary.rs",
];

/// A file put straight in a crate's `tests/` is a test binary of its own, linking the
/// core once more: a new test file (one merged from a branch that started before the
/// folders, say) goes into its crate's folder instead, unless it is one of [`ALONE`].
#[test]
fn no_test_file_is_a_binary_of_its_own_but_those_that_must_be() {
    let root = workspace_root();
    let mut alone = Vec::new();
    for member in fs::read_dir(&root).unwrap() {
        let Ok(files) = fs::read_dir(member.unwrap().path().join("tests")) else {
            continue;
        };
        for file in files {
            let file = file.unwrap().path();
            if file.is_file() && file.extension().is_some_and(|e| e == "rs") {
                alone.push(file.strip_prefix(&root).unwrap().display().to_string());
            }
        }
    }
    alone.sort();
    assert_eq!(
        alone, ALONE,
        "a test file straight in a crate's tests/ folder: move it into the crate's folder \
         target (docs/architecture.md, \"A test\") and declare it in that main.rs"
    );
}
