//! Core's layers and modules, read from its source, and those of agentloop-transcript
//! (the no-allocator layer, `fixed` in core's paths, its own crate since issue 29) and
//! agentloop-json (core's `json`, the values half of `jcs`, and `quote`),
//! agentloop-schema (core's `schema`) and agentloop-tlog (core's `verify`, `tlog`, `note`
//! and the proof-making half of `merkle`).
//!
//! - **No module cycles**: the modules of `core/src` (each file or folder of a layer
//!   folder `heap/`, `host/`), of `transcript/src`, `json/src`, `schema/src` and `tlog/src`
//!   depend on one another only one way. A module
//!   depends on another when a non-comment line of its non-test code names
//!   `crate::<module>`; a public module made of parts in several layers (`jcs`,
//!   `record`, `sink`, `merkle`, `verify`, composed in `lib.rs`) resolves to the part
//!   that defines the item named. A cycle fails here with the lines that make it.
//! - **Layers point down**: a `heap/` module uses no `host/` one (the transcript crate
//!   cannot name core's at all: cargo holds that).
//! - **A fixed-size file needs no `cfg`**: no file of the transcript crate has a `cfg`
//!   other than `cfg(test)`, nor names `alloc` or `std`, outside its tests — but `lib.rs`,
//!   which declares `with_alloc.rs` under its one feature, `alloc`, and that file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use agentloop_tests::{is_test_file, rust_files};

/// The layer folders, lowest first (`fixed` is the transcript crate now; the checks'
/// own tests still build a three-layer tree).
const LAYERS: [&str; 3] = ["fixed", "heap", "host"];

/// The public modules made of parts in several layers (as `lib.rs` composes them).
const SPLIT: &[(&str, &[&str])] = &[
    ("record", &["fixed/record", "heap/record_value"]),
    (
        "sink",
        &["fixed/sink", "heap/record_sink", "host/file_sink"],
    ),
    ("model", &["heap/model", "host/threaded_model"]),
    (
        "verify",
        &["heap/verify", "host/verify_io", "host/verify_parallel"],
    ),
];

/// A dependency graph: module → module it names → where (file:line).
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// The `crate::<name>` paths in `line` (letters, digits and `_`), each with the rest
/// of the line after the name. `crate::fixed::x` and the like name `x`.
fn named_modules(line: &str) -> Vec<(String, &str)> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let mut tail = &rest[at + "crate::".len()..];
        let mut layer_of = None;
        for layer in LAYERS {
            if let Some(inner) = tail.strip_prefix(layer).and_then(|t| t.strip_prefix("::")) {
                tail = inner;
                layer_of = Some(layer);
            }
        }
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        if end > 0 {
            let name = &tail[..end];
            found.push((
                layer_of.map_or(name.to_string(), |l| format!("{l}/{name}")),
                &tail[end..],
            ));
        }
        rest = &tail[end..];
    }
    found
}

/// The code of a file without its test-only items: an inline `mod … {` under
/// `#[cfg(test)]` (or `#[cfg(all(test, …))]`) ends the code (test modules come last in
/// this code base); any other item under such an attribute (`mod tests;`, a `use`) is
/// left out, line by line.
fn non_test_code(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            match lines.next() {
                Some(item) if item.trim_end().ends_with('{') => break,
                _ => {
                    // Keep the line count: the attribute and its item stay as blanks.
                    code.push_str("\n\n");
                    continue;
                }
            }
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The module a file belongs to: `layer/name` inside a layer folder, else its first
/// component (`None` for `lib.rs` and a layer's `mod.rs`).
fn module_of(relative: &Path) -> Option<String> {
    let parts: Vec<&str> = relative
        .components()
        .map(|c| c.as_os_str().to_str().unwrap())
        .collect();
    let name = |s: &str| s.trim_end_matches(".rs").to_string();
    match parts.as_slice() {
        [layer, "mod.rs"] if LAYERS.contains(layer) => None,
        [layer, rest, ..] if LAYERS.contains(layer) => Some(format!("{layer}/{}", name(rest))),
        // The transcript crate's internals: each file its own module, named as the
        // crate root names it.
        ["__private", rest, ..] => Some(name(rest)),
        ["lib.rs"] => None,
        [first, ..] => Some(name(first)),
        [] => None,
    }
}

/// The public name of a module (`heap/json` → `json`).
fn public_name(module: &str) -> &str {
    for (name, parts) in SPLIT {
        if parts.contains(&module) {
            return name;
        }
    }
    module.rsplit('/').next().unwrap_or(module)
}

/// The items a path names after `crate::<module>::`: one identifier, or each of a
/// `{a, b::c, self}` list (`None`: the module itself or something unreadable). `self`
/// stands for the module's lowest part (its later uses through the name are not
/// followed).
fn named_items(tail: &str) -> Option<Vec<&str>> {
    let tail = tail.strip_prefix("::")?;
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    if let Some(list) = tail.strip_prefix('{') {
        let list = &list[..list.find('}')?];
        let items: Vec<&str> = list
            .split(',')
            .map(|i| i.trim())
            .map(|i| &i[..ident(i)])
            .filter(|i| !i.is_empty())
            .collect();
        Some(items)
    } else {
        let end = ident(tail);
        (end > 0).then(|| vec![&tail[..end]])
    }
}

/// Whether `code` defines `item`: a `pub` or `pub(crate)` item of that name, or a
/// re-export naming it.
fn defines(code: &str, item: &str) -> bool {
    code.lines().any(|line| {
        let line = line.trim_start();
        let Some(rest) = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub "))
        else {
            return false;
        };
        let mut words = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        match words.next() {
            Some("use") => words.any(|w| w == item),
            Some("fn" | "struct" | "enum" | "const" | "trait" | "type" | "static" | "mod") => {
                words.next() == Some(item)
            }
            _ => false,
        }
    })
}

/// The graph of `src`'s modules, from each file's non-test code.
fn graph_of(src: &Path) -> Graph {
    let files = rust_files(src);
    // Each module's non-test code, and where each line came from.
    let mut code_of: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_path_buf();
        if is_test_file(&relative) {
            continue;
        }
        let Some(module) = module_of(&relative) else {
            continue;
        };
        let text = fs::read_to_string(&file).unwrap();
        code_of
            .entry(module)
            .or_default()
            .push((relative.display().to_string(), non_test_code(&text)));
    }
    let modules: Vec<String> = code_of.keys().cloned().collect();
    let parts_of = |name: &str| -> Vec<String> {
        modules
            .iter()
            .filter(|m| public_name(m) == name || m.as_str() == name)
            .cloned()
            .collect()
    };
    let mut graph = Graph::new();
    for (module, files) in &code_of {
        for (file, code) in files {
            for (number, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for (name, tail) in named_modules(line) {
                    let parts = parts_of(&name);
                    let targets: Vec<String> = match named_items(tail) {
                        // A split module's path resolves to the parts that define its
                        // items; an item none defines is the transcript crate's (`fixed`).
                        Some(items) if SPLIT.iter().any(|(n, _)| *n == name) => parts
                            .iter()
                            .enumerate()
                            .filter(|(i, part)| {
                                items.iter().any(|item| {
                                    (*item == "self" && *i == 0)
                                        || code_of[part.as_str()]
                                            .iter()
                                            .any(|(_, c)| defines(c, item))
                                })
                            })
                            .map(|(_, part)| part)
                            .cloned()
                            .collect(),
                        _ => parts,
                    };
                    for target in targets {
                        if &target != module {
                            graph
                                .entry(module.clone())
                                .or_default()
                                .entry(target)
                                .or_default()
                                .push(format!("{file}:{}", number + 1));
                        }
                    }
                }
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(graph: &Graph) -> BTreeSet<Vec<String>> {
    struct Walk<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: BTreeSet<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        let graph = w.graph;
        for next in graph.get(v).into_iter().flat_map(|m| m.keys()) {
            let next = next.as_str();
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[v].min(w.low[next]);
                w.low.insert(v, low);
            } else if w.stack.contains(&next) {
                let low = w.low[v].min(w.index[next]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            while let Some(top) = w.stack.pop() {
                component.push(top.to_string());
                if top == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.insert(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: BTreeSet::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

/// The edges inside a cycle, with where each is made.
fn explain(graph: &Graph, cycle: &[String]) -> String {
    let mut lines = Vec::new();
    for from in cycle {
        for (to, at) in graph.get(from).into_iter().flatten() {
            if cycle.contains(to) {
                lines.push(format!("  {from} -> {to}: {}", at.join(", ")));
            }
        }
    }
    lines.join("\n")
}

fn core_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src")
}

fn transcript_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../transcript/src")
}

/// Fails with the lines that make each cycle among the modules of `crate_name`'s `src`
/// (at least `least` modules, or the scan is broken).
fn assert_no_cycle_in(crate_name: &str, least: usize) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../{crate_name}/src"));
    let graph = graph_of(&src);
    assert!(
        graph.len() >= least,
        "the scan found too few modules in {src:?}: {}",
        graph.len()
    );
    let found: Vec<String> = cycles(&graph)
        .iter()
        .map(|cycle| format!("{cycle:?}\n{}", explain(&graph, cycle)))
        .collect();
    assert!(
        found.is_empty(),
        "module cycles in agentloop-{crate_name}:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_transcript_crates_modules_form_no_cycle() {
    assert_no_cycle_in("transcript", 6);
}

#[test]
fn the_json_crates_modules_form_no_cycle() {
    assert_no_cycle_in("json", 4);
}

#[test]
fn the_schema_crates_modules_form_no_cycle() {
    assert_no_cycle_in("schema", 3);
}

#[test]
fn the_tlog_crates_modules_form_no_cycle() {
    assert_no_cycle_in("tlog", 2);
}

#[test]
fn cores_modules_form_no_cycle() {
    let src = core_src();
    let graph = graph_of(&src);
    assert!(
        graph.len() > 15,
        "the scan found too few modules in {src:?}: {}",
        graph.len()
    );
    let found: Vec<String> = cycles(&graph)
        .iter()
        .map(|cycle| format!("{cycle:?}\n{}", explain(&graph, cycle)))
        .collect();
    assert!(
        found.is_empty(),
        "module cycles in core:\n{}",
        found.join("\n")
    );
}

/// The edges from a layer to a higher one, with where each is made.
fn upward_edges(graph: &Graph) -> Vec<String> {
    let rank = |m: &str| LAYERS.iter().position(|l| m.starts_with(&format!("{l}/")));
    let mut found = Vec::new();
    for (from, edges) in graph {
        for (to, at) in edges {
            let (Some(a), Some(b)) = (rank(from), rank(to)) else {
                continue;
            };
            if b > a {
                found.push(format!("{from} -> {to}: {at:?}"));
            }
        }
    }
    found
}

#[test]
fn layers_point_down() {
    let src = core_src();
    let graph = graph_of(&src);
    for layer in ["heap", "host"] {
        assert!(
            graph.keys().any(|m| m.starts_with(&format!("{layer}/"))),
            "no module found in {layer}/"
        );
    }
    let upward = upward_edges(&graph);
    assert!(
        upward.is_empty(),
        "a layer uses a higher one:\n{}",
        upward.join("\n")
    );
}

/// The lines of the non-test code of `folder` (inside `src`) that choose by feature or
/// name an allocator or `std`: any `cfg` but `cfg(test)` and one that only names a
/// `target_arch` (an instruction set, the same in every layer: `lexer/scan/lanes.rs`
/// picks SSE2 on x86-64 and words elsewhere). The files named in `allowed` (relative to
/// `src`) are not read.
fn layer_breaks_in(src: &Path, folder: &Path, allowed: &[&str]) -> Vec<String> {
    let files = rust_files(folder);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_path_buf();
        if is_test_file(&relative) || allowed.iter().any(|a| relative == Path::new(a)) {
            continue;
        }
        let code = non_test_code(&fs::read_to_string(&file).unwrap());
        for (number, line) in code.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") {
                continue;
            }
            let target_only = trimmed.contains("target_arch")
                && !trimmed.contains("feature")
                && !trimmed.contains("test");
            let cfg = (trimmed.contains("cfg(") || trimmed.contains("cfg_attr("))
                && !trimmed.starts_with("#[cfg(test)]")
                && !target_only;
            let names = ["alloc::", "std::", "extern crate"]
                .iter()
                .any(|n| trimmed.contains(n) && !trimmed.contains(&format!("core::{n}")));
            if cfg || names {
                found.push(format!("{}:{}: {trimmed}", relative.display(), number + 1));
            }
        }
    }
    found
}

#[test]
fn fixed_size_files_need_no_cfg_and_no_allocator() {
    let src = transcript_src();
    let breaks = layer_breaks_in(&src, &src, &["lib.rs", "with_alloc.rs"]);
    assert!(
        breaks.is_empty(),
        "in agentloop-transcript:\n{}",
        breaks.join("\n")
    );
}

#[test]
fn the_split_modules_are_those_lib_rs_composes() {
    let lib = fs::read_to_string(core_src().join("lib.rs")).unwrap();
    for (name, parts) in SPLIT {
        assert!(lib.contains(&format!("pub mod {name} {{")), "{name}");
        for part in *parts {
            let path = format!("crate::{}", part.replace('/', "::"));
            assert!(lib.contains(&path), "{part} is not composed into {name}");
        }
    }
}

#[test]
fn the_layer_checks_catch_an_upward_use_and_a_cfg() {
    let dir = std::env::temp_dir().join(format!("agentloop-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for d in ["fixed", "heap/json", "host"] {
        fs::create_dir_all(dir.join(d)).unwrap();
    }
    fs::write(dir.join("fixed/hash.rs"), "pub struct Hash;\n").unwrap();
    fs::write(dir.join("heap/json/mod.rs"), "use crate::hash::Hash;\n").unwrap();
    fs::write(dir.join("host/durable.rs"), "use crate::json::Value;\n").unwrap();
    let graph = graph_of(&dir);
    assert!(upward_edges(&graph).is_empty());
    assert!(layer_breaks_in(&dir, &dir.join("fixed"), &[]).is_empty());
    fs::write(
        dir.join("fixed/hash.rs"),
        "use crate::json::Value;\n#[cfg(feature = \"alloc\")]\npub fn f() -> alloc::vec::Vec<u8> { todo!() }\n#[cfg(target_arch = \"x86_64\")]\nfn g() {}\n#[cfg(all(feature = \"std\", target_arch = \"x86_64\"))]\nfn h() {}\n#[cfg(test)]\nmod tests { use alloc::vec::Vec; }\n",
    )
    .unwrap();
    let graph = graph_of(&dir);
    let upward = upward_edges(&graph);
    assert_eq!(upward.len(), 1, "{upward:?}");
    assert!(
        upward[0].starts_with("fixed/hash -> heap/json"),
        "{upward:?}"
    );
    // The feature cfg, `alloc::`, and the feature cfg that also names a target; not
    // the cfg that only names a target.
    let breaks = layer_breaks_in(&dir, &dir.join("fixed"), &[]);
    assert_eq!(breaks.len(), 3, "{breaks:?}");
    assert!(breaks[0].starts_with("fixed/hash.rs:2:"), "{breaks:?}");
    assert!(breaks[2].starts_with("fixed/hash.rs:6:"), "{breaks:?}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_scan_finds_a_cycle_and_only_through_code() {
    let dir = std::env::temp_dir().join(format!("agentloop-cycles-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("agent")).unwrap();
    fs::create_dir_all(dir.join("audit/tests")).unwrap();
    fs::write(dir.join("lib.rs"), "pub mod agent; pub mod audit;\n").unwrap();
    fs::write(
        dir.join("agent/mod.rs"),
        "use crate::audit::LoopAudit;\n//! see crate::model\n",
    )
    .unwrap();
    fs::write(
        dir.join("model.rs"),
        "/// [`crate::agent`]\npub struct M;\n",
    )
    .unwrap();
    // Only a test names `agent` from `audit`: no cycle.
    fs::write(dir.join("audit/mod.rs"), "pub struct LoopAudit;\n").unwrap();
    fs::write(dir.join("audit/tests/x.rs"), "use crate::agent::Agent;\n").unwrap();
    fs::write(
        dir.join("audit/inline.rs"),
        "pub fn f() {}\n#[cfg(test)]\nmod tests { use crate::agent::Agent; }\n",
    )
    .unwrap();
    fs::write(
        dir.join("audit/gated.rs"),
        "pub fn g() {}\n#[cfg(all(test, feature = \"alloc\"))]\nmod t { use crate::agent::A; }\n",
    )
    .unwrap();
    assert!(cycles(&graph_of(&dir)).is_empty());
    // Code in audit that names agent: the cycle, with the line that makes it.
    fs::write(
        dir.join("audit/mod.rs"),
        "#[cfg(test)]\nmod tests;\nuse crate::agent::StopReason;\n",
    )
    .unwrap();
    let graph = graph_of(&dir);
    let found = cycles(&graph);
    let expected = vec![String::from("agent"), String::from("audit")];
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        vec![expected.clone()]
    );
    assert!(explain(&graph, &expected).contains("audit -> agent: audit/mod.rs:3"));
    fs::remove_dir_all(&dir).unwrap();
}
