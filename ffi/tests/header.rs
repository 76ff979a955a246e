//! The checked-in header `include/agentloop.h` is exactly what cbindgen makes of the
//! sources: regenerates it in memory and fails on any difference.
//!
//! To accept a change of the C API, regenerate it:
//! `AGENTLOOP_REGENERATE_HEADER=1 cargo test -p agentloop-ffi --test header`.

use std::path::PathBuf;

fn generate() -> Vec<u8> {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("ffi/cbindgen.toml reads");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    out
}

fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include/agentloop.h")
}

#[test]
fn checked_in_header_matches_the_sources() {
    let fresh = generate();
    let path = header_path();
    if std::env::var_os("AGENTLOOP_REGENERATE_HEADER").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        eprintln!("rewrote {}", path.display());
        return;
    }
    let stored = std::fs::read(&path).unwrap_or_default();
    if stored != fresh {
        let stored = String::from_utf8_lossy(&stored);
        let fresh = String::from_utf8_lossy(&fresh);
        let first = stored
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(stored.lines().count().min(fresh.lines().count()));
        panic!(
            "include/agentloop.h is out of date with ffi/src (first difference at line {}:\n  \
             checked in: {:?}\n  generated:  {:?}).\n\
             Regenerate it: AGENTLOOP_REGENERATE_HEADER=1 cargo test -p agentloop-ffi --test header",
            first + 1,
            stored.lines().nth(first).unwrap_or("<end of file>"),
            fresh.lines().nth(first).unwrap_or("<end of file>"),
        );
    }
}

#[test]
fn header_names_the_crate_version() {
    let header = String::from_utf8(generate()).unwrap();
    let define = format!(
        "#define AGENTLOOP_HEADER_VERSION \"{}\"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        header.contains(&define),
        "ffi/cbindgen.toml's after_includes must say {define}"
    );
}

#[test]
fn every_export_is_documented_in_the_header() {
    let header = String::from_utf8(generate()).unwrap();
    let lines: Vec<&str> = header.lines().collect();
    let mut functions = 0;
    for (i, line) in lines.iter().enumerate() {
        // A declaration starts at column 0 with a return type and an agentloop_ name.
        let is_decl = !line.starts_with([' ', '#', '/', '*', '}'])
            && !line.starts_with("typedef")
            && !line.starts_with("enum")
            && line.contains("agentloop_")
            && line.contains('(');
        if is_decl {
            functions += 1;
            assert!(
                i > 0 && lines[i - 1].trim_end().ends_with("*/"),
                "no doc comment above `{line}`"
            );
        }
    }
    assert!(functions >= 30, "found only {functions} declarations");
}
