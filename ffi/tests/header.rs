//! The checked-in header `include/agentloop.h` is exactly what cbindgen makes of the
//! sources: regenerates it in memory and fails on any difference.
//!
//! To accept a change of the C API, regenerate it:
//! `AGENTLOOP_REGENERATE_HEADER=1 cargo test -p agentloop-ffi --test header`.

use std::path::PathBuf;

mod common;
use common::parameters;

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
fn header_defines_the_hex_length_the_library_writes() {
    let header = String::from_utf8(generate()).unwrap();
    let define = format!(
        "#define AGENTLOOP_HASH_HEX_LEN {}\n",
        agentloop::hash::AGENTLOOP_HASH_HEX_LEN
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

/// The homes a function may have (docs/c-api.md, "Names"): the C type it works on, or,
/// for a function that works on no C type, a module named for what it takes.
const TYPE_HOMES: &[&str] = &[
    // Opaque handles.
    "agent",
    "chain",
    "report",
    "reply",
    "schema",
    "tool_result",
    "verifier",
    "writer",
    // Plain structs.
    "budgets",
    "hash",
    "tool",
    "verify_options",
    "writer_options",
    // Enums: `_str` names a value.
    "fault_kind",
    "result",
    "stop",
];
const ENUM_HOMES: &[&str] = &["fault_kind", "result", "stop"];
const MODULE_HOMES: &[&str] = &["driver", "json", "library", "proof", "transcript"];

/// Functions of a type home that take no parameter of that type, and why.
const NOT_ON_THEIR_TYPE: &[&str] = &[
    // Says why a document would not compile into an `agentloop_schema`.
    "agentloop_schema_explain",
    // Says why a name and schema would not register as an `agentloop_tool`.
    "agentloop_tool_explain",
];

/// Every function the header declares: its name and its parameter list.
fn declarations(header: &str) -> Vec<(String, String)> {
    common::declared_functions(header)
        .into_iter()
        .map(|f| (f.name, f.params))
        .collect()
}

/// The types the header declares, without their `agentloop_` prefix.
fn declared_types(header: &str) -> Vec<String> {
    let mut types = Vec::new();
    for line in header.lines() {
        let rest = line.strip_prefix("typedef ").unwrap_or(line);
        for keyword in ["enum ", "struct "] {
            if let Some(name) = rest.strip_prefix(keyword) {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if let Some(home) = name.strip_prefix("agentloop_") {
                    types.push(home.to_string());
                }
            }
        }
    }
    types.sort();
    types.dedup();
    types
}

/// The home of `name` (the longest that fits) and its verb, if it follows the rule.
fn home_and_verb(name: &str) -> Option<(&'static str, &str)> {
    let rest = name.strip_prefix("agentloop_")?;
    let home = TYPE_HOMES
        .iter()
        .chain(MODULE_HOMES)
        .filter(|home| {
            rest.strip_prefix(**home)
                .is_some_and(|after| after.starts_with('_'))
        })
        .max_by_key(|home| home.len())?;
    let verb = &rest[home.len() + 1..];
    let well_formed = !verb.is_empty()
        && verb
            .split('_')
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase()));
    well_formed.then_some((home, verb))
}

#[test]
fn every_function_is_named_agentloop_home_verb() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let types = declared_types(&header);
    let functions = declarations(&header);
    assert!(functions.len() >= 90, "found only {}", functions.len());
    let mut used = Vec::new();
    for (name, params) in &functions {
        let Some((home, verb)) = home_and_verb(name) else {
            panic!(
                "`{name}` is not agentloop_<home>_<verb> with a home of {TYPE_HOMES:?} or \
                 {MODULE_HOMES:?} and a verb of lowercase words (docs/c-api.md, \"Names\")"
            );
        };
        used.push(home);
        if ENUM_HOMES.contains(&home) {
            assert_eq!(verb, "str", "`{name}`: an enum's home has only `_str`");
            assert!(
                params.starts_with("uint32_t ") && !params.contains(','),
                "`{name}` takes one value of the enum, as a uint32_t: ({params})"
            );
        } else if TYPE_HOMES.contains(&home) && !NOT_ON_THEIR_TYPE.contains(&name.as_str()) {
            assert!(
                params.contains(&format!("agentloop_{home} ")),
                "`{name}` has the home `{home}` but no parameter of that type: ({params})"
            );
        }
    }
    for home in TYPE_HOMES {
        assert!(types.iter().any(|t| t == home), "no type agentloop_{home}");
    }
    for home in MODULE_HOMES {
        assert!(
            !types.iter().any(|t| t == home),
            "agentloop_{home} is a type: list it among the type homes"
        );
    }
    for home in TYPE_HOMES.iter().chain(MODULE_HOMES) {
        assert!(used.contains(home), "no function has the home `{home}`");
    }
    // The rule sees what it must refuse.
    for bad in [
        "agentloop_canonicalize",
        "agentloop_run",
        "agentloop_verify_buffer",
        "agentloop_chain_Append",
        "agentloop_chain_",
        "agentloop_chain__append",
        "agentloop_version",
    ] {
        assert_eq!(home_and_verb(bad), None, "{bad}");
    }
    assert_eq!(
        home_and_verb("agentloop_writer_options_init"),
        Some(("writer_options", "init"))
    );
}

#[test]
fn the_guide_lists_every_home() {
    let guide =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/c-api.md"))
            .unwrap();
    let names = guide
        .split("\n- **Names**")
        .nth(1)
        .and_then(|rest| rest.split("\n- **").next())
        .expect("docs/c-api.md has a \"- **Names**\" rule");
    for home in TYPE_HOMES.iter().chain(MODULE_HOMES) {
        assert!(
            names.contains(&format!("`{home}`")),
            "docs/c-api.md's Names rule does not list the home `{home}`"
        );
    }
}

/// One string convention (docs/c-api.md, "Inputs"): no function takes a NUL-terminated
/// string; the only `char` pointers are the NUL-terminated names and sentences the
/// library hands out (`const char **` outputs, `const char *` returns).
#[test]
fn no_function_takes_a_nul_terminated_string() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    for (name, params) in declarations(&header) {
        for (ty, param) in parameters(&params) {
            assert!(
                !ty.contains("char") || ty == "const char **",
                "`{name}` takes `{ty} {param}`: inputs are (const uint8_t *ptr, size_t len)"
            );
        }
    }
}

/// Sizes and counts (docs/c-api.md, "Sizes and counts"): `size_t` only for sizes of
/// memory — lengths, capacities, array lengths — and no function returns one.
#[test]
fn size_t_is_only_for_sizes_of_memory() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let mut seen = 0;
    for line in header.lines() {
        assert!(
            !line.starts_with("size_t "),
            "a count is returned as size_t: {line}"
        );
    }
    for (name, params) in declarations(&header) {
        for (ty, param) in parameters(&params) {
            if ty.contains("size_t") {
                seen += 1;
                assert!(
                    param == "len"
                        || param.ends_with("_len")
                        || param.ends_with("_lens")
                        || param.ends_with("_cap"),
                    "`{name}`: `{ty} {param}` is not a length or a capacity; counts are uint64_t"
                );
            }
        }
    }
    assert!(seen > 100, "found only {seen} size_t parameters");
}

/// Every writer into a caller buffer takes its capacity: each non-const byte pointer is
/// an `out_buf`, followed by `size_t out_cap` and `size_t *out_len`.
#[test]
fn every_caller_buffer_comes_with_its_capacity() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let mut buffers = 0;
    for (name, params) in declarations(&header) {
        let params = parameters(&params);
        for (i, (ty, param)) in params.iter().enumerate() {
            let writable = ty.ends_with('*') && !ty.starts_with("const");
            if writable && (ty.contains("uint8_t") || ty.contains("char")) {
                buffers += 1;
                let next: Vec<(&str, &str)> = params[i + 1..]
                    .iter()
                    .take(2)
                    .map(|(t, p)| (t.as_str(), p.as_str()))
                    .collect();
                assert_eq!(
                    (param.as_str(), next),
                    (
                        "out_buf",
                        vec![("size_t", "out_cap"), ("size_t *", "out_len")]
                    ),
                    "`{name}` writes into a caller buffer without its capacity"
                );
            }
        }
    }
    assert!(buffers > 20, "found only {buffers} caller buffers");
}

/// Library-owned outputs (docs/c-api.md, "Borrowed outputs"): a function lends bytes —
/// a `const uint8_t **` output, with its `size_t *` length after it — exactly when its
/// name ends in `_borrowed`, and each such function has a copying twin that writes the
/// same bytes into a caller buffer.
#[test]
fn lent_outputs_are_named_borrowed_and_have_a_copying_twin() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let functions = declarations(&header);
    let names: Vec<&str> = functions.iter().map(|(n, _)| n.as_str()).collect();
    let mut lending = 0;
    for (name, params) in &functions {
        let params = parameters(params);
        let lent = params.iter().position(|(t, _)| t == "const uint8_t **");
        assert_eq!(
            lent.is_some(),
            name.ends_with("_borrowed"),
            "`{name}`: a lent output and the `_borrowed` suffix go together"
        );
        if let Some(at) = lent {
            lending += 1;
            assert_eq!(
                params.get(at + 1).map(|(t, _)| t.as_str()),
                Some("size_t *"),
                "`{name}`: the lent pointer is followed by its length"
            );
            let twin = name.trim_end_matches("_borrowed");
            assert!(
                names.contains(&twin),
                "`{name}` has no copying twin `{twin}`"
            );
        }
    }
    assert!(lending >= 2, "found only {lending} lending functions");
}

/// Every constant a comment of the header or docs/c-api.md names — `` `NULL_PARAMETER` ``,
/// `` `AGENTLOOP_NEED_DONE` `` — is one the header declares (a result code may drop its
/// `AGENTLOOP_RESULT_` prefix), so a renamed or removed code cannot linger in the docs.
#[test]
fn every_constant_the_docs_name_is_declared() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let mut declared: Vec<String> = Vec::new();
    for line in header.lines() {
        let line = line.trim();
        let name = line
            .strip_prefix("#define ")
            .unwrap_or(line)
            .split([' ', ','])
            .next()
            .unwrap_or("");
        if name.starts_with("AGENTLOOP_") {
            declared.push(name.to_string());
        }
    }
    // Names of the C library and the system, not of this one.
    let system = [
        "SIGXFSZ",
        "RLIMIT_FSIZE",
        "PTRDIFF_MAX",
        "UINT64_MAX",
        "EFBIG",
    ];
    // The install Makefile's variables and version parts ("Build and link").
    let make = [
        "MINOR",
        "PATCH",
        "PREFIX",
        "LIBDIR",
        "INCLUDEDIR",
        "PKGCONFIGDIR",
        "DESTDIR",
        "PROFILE",
        "TARGET_DIR",
        "CARGO_TARGET_DIR",
        "ARTIFACTS",
    ];
    let guide =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/c-api.md"))
            .unwrap();
    for (file, text) in [("include/agentloop.h", &header), ("docs/c-api.md", &guide)] {
        let mut named = 0;
        for token in text.split('`').skip(1).step_by(2) {
            let is_constant = token.len() > 1
                && token
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                && token.bytes().next().is_some_and(|b| b.is_ascii_uppercase());
            if !is_constant || system.contains(&token) || make.contains(&token) {
                continue;
            }
            named += 1;
            let full = format!("AGENTLOOP_RESULT_{token}");
            assert!(
                declared.iter().any(|d| d == token || *d == full),
                "{file} names `{token}`, which the header does not declare"
            );
        }
        assert!(named > 50, "{file}: found only {named} constants");
    }
}

/// The opaque handles: a `T *` of one of these is the object a function works on or
/// takes, not an output.
const OPAQUE: &[&str] = &[
    "agent",
    "chain",
    "reply",
    "report",
    "schema",
    "tool_result",
    "verifier",
    "writer",
];

/// Whether a parameter of type `ty` in function `name` is something the function
/// writes for its caller: a non-const pointer, other than a handle it works on, the
/// caller's `void *userdata`, or the plain struct an `_init` fills (its home).
fn is_output(name: &str, ty: &str) -> bool {
    let ty = ty.trim();
    // `const T *` is an input; `const T **` is a writable pointer to a const one.
    let writable = ty.ends_with("**") || (ty.ends_with('*') && !ty.starts_with("const "));
    if !writable || ty.starts_with("void") {
        return false;
    }
    let pointee = ty
        .trim_start_matches("struct ")
        .trim_end_matches('*')
        .trim();
    let single = !ty.ends_with("**");
    let handle = pointee
        .strip_prefix("agentloop_")
        .is_some_and(|t| OPAQUE.contains(&t));
    let filled = name.ends_with("_init")
        && home_and_verb(name).is_some_and(|(home, _)| pointee == format!("agentloop_{home}"));
    !(filled || (single && handle))
}

/// Output parameters have one naming rule (docs/c-api.md, "Outputs"): `out` when a
/// function writes one thing, `out_<what>` otherwise (`out_buf`, `out_len`,
/// `out_report`, `out_has_head`, …); and a parameter named so is an output (or the
/// capacity `out_cap` of an `out_buf`).
#[test]
fn output_parameters_are_named_out() {
    let header = std::fs::read_to_string(header_path()).unwrap();
    let mut outputs = 0;
    for (name, params) in declarations(&header) {
        for (ty, param) in parameters(&params) {
            let named_out = param == "out" || param.starts_with("out_");
            if is_output(&name, &ty) {
                outputs += 1;
                assert!(
                    named_out,
                    "`{name}`: the output `{ty} {param}` is not named `out` or `out_<what>`"
                );
            } else {
                assert!(
                    !named_out || param == "out_cap",
                    "`{name}`: `{ty} {param}` is named as an output but is an input"
                );
            }
        }
    }
    assert!(outputs > 80, "found only {outputs} outputs");
    // The rule sees what it must: a bool flag, a lent string, a handle, an _init.
    assert!(is_output("agentloop_report_head", "bool *"));
    assert!(is_output("agentloop_report_fault", "const char **"));
    assert!(is_output(
        "agentloop_chain_new",
        "struct agentloop_chain **"
    ));
    assert!(!is_output(
        "agentloop_chain_append",
        "struct agentloop_chain *"
    ));
    assert!(!is_output(
        "agentloop_budgets_init",
        "struct agentloop_budgets *"
    ));
    assert!(!is_output("agentloop_driver_run", "void *"));
}
