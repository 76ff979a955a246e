//! Reading the workspace's Rust sources, for the tests that hold rules over them (the
//! module graph, where payload member names are spelled): the files of a folder, and
//! which of them are test code.

use std::fs;
use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, in path order.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

/// Whether a source file (its path from a crate's `src` or from the workspace root) is
/// test code: inside a `tests` or `*_tests` folder, or named `tests.rs`, `testing.rs`,
/// `*_tests.rs` or `tests_*.rs` (the workspace declares these only under `cfg(test)`).
pub fn is_test_file(relative: &Path) -> bool {
    let folders = relative.parent().into_iter().flat_map(Path::components);
    let name = relative
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    folders
        .filter_map(|c| c.as_os_str().to_str())
        .any(|c| c == "tests" || c.ends_with("_tests"))
        || name == "tests.rs"
        || name == "testing.rs"
        || name.ends_with("_tests.rs")
        || name.starts_with("tests_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_told_by_their_folder_or_name() {
        for test in [
            "heap/agent/tests/batch.rs",
            "heap/vocabulary/tests.rs",
            "heap/vocabulary/setup_tests.rs",
            "heap/driver/testing.rs",
            "heap/tools/tests_budget.rs",
            "stream/lexer_tests/a.rs",
        ] {
            assert!(is_test_file(Path::new(test)), "{test}");
        }
        for code in ["heap/agent/turn.rs", "heap/tests_of/x.rs", "testsuite.rs"] {
            assert!(!is_test_file(Path::new(code)), "{code}");
        }
    }
}
