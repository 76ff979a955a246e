//! Every export runs inside the panic boundary: scans every `.rs` file under `ffi/src`
//! for each `extern "C" fn` and fails if its body does not start by calling `boundary(`.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth, in a fixed order.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// The body of the function whose signature starts at `at`: from its first `{` to the
/// matching `}` (the sources hold no braces in strings or chars inside signatures).
fn body(source: &str, at: usize) -> &str {
    let open = at + source[at..].find('{').expect("a body");
    let mut depth = 0usize;
    for (i, c) in source[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &source[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces after byte {at}");
}

#[test]
fn every_export_goes_through_boundary() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut exports = Vec::new();
    let files = sources(&src);
    assert!(
        files.iter().any(|p| p.ends_with("agent/mod.rs")),
        "the scan must reach the files in subdirectories"
    );
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        for pattern in ["pub extern \"C\" fn ", "pub unsafe extern \"C\" fn "] {
            for (at, _) in source.match_indices(pattern) {
                let name_at = at + pattern.len();
                let name: String = source[name_at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let statements: Vec<&str> = body(&source, at)
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with("//"))
                    .collect();
                assert!(
                    statements
                        .first()
                        .is_some_and(|l| l.starts_with("boundary(")),
                    "{}: `{name}` does not run its body inside boundary(..)",
                    path.display()
                );
                // Nothing may follow the boundary call's closing line.
                assert!(
                    statements
                        .last()
                        .is_some_and(|l| l.ends_with(')') || l.ends_with("})")),
                    "{}: `{name}` has code after its boundary(..) call",
                    path.display()
                );
                exports.push(name);
            }
        }
        // Any other way to export a symbol must be looked at by hand.
        let code: String = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let other = code.matches("extern \"C\"").count()
            - code.matches("pub extern \"C\" fn ").count()
            - code.matches("pub unsafe extern \"C\" fn ").count()
            // Function-pointer types (callbacks) have no name and export nothing.
            - code.matches("extern \"C\" fn(").count();
        assert_eq!(
            other,
            0,
            "{}: an extern \"C\" item this test does not recognise",
            path.display()
        );
        assert!(
            !source.contains("#[export_name"),
            "{}: use #[no_mangle] exports only",
            path.display()
        );
    }
    exports.sort();
    let before = exports.len();
    exports.dedup();
    assert_eq!(before, exports.len(), "an export is defined twice");
    assert!(exports.len() >= 30, "found only {} exports", exports.len());
    // Every export is named agentloop_<type>_<verb> (or agentloop_library_version).
    for name in &exports {
        assert!(name.starts_with("agentloop_"), "{name}");
    }
}

#[test]
fn the_scan_sees_the_header_functions() {
    let header = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include/agentloop.h"),
    )
    .unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all_sources = String::new();
    for path in sources(&src) {
        all_sources.push_str(&std::fs::read_to_string(path).unwrap());
    }
    for line in header.lines() {
        let Some(start) = line.find(" agentloop_") else {
            continue;
        };
        if line.starts_with([' ', '#', '/', '*', '}']) || !line.contains('(') {
            continue;
        }
        let name: String = line[start + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        assert!(
            all_sources.contains(&format!("extern \"C\" fn {name}(")),
            "header declares {name} but the scan cannot find it in ffi/src"
        );
    }
}
