//! No module cycles in core: the top-level modules of `core/src` (each file or folder
//! under it) depend on one another only one way. A module depends on another when a
//! non-comment line of its non-test code names `crate::<other>`. The lower layer's
//! knot — `json` → `stream` → `record` → `json`/`jcs` — is the one known cycle, listed
//! below until the layers step of docs/architecture.md unties it; any other cycle, or a
//! new module in that one, fails here with the lines that make it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The cycles known today, each as its sorted module names.
const KNOWN: &[&[&str]] = &[&["jcs", "json", "record", "stream"]];

/// A dependency graph: module → module it names → where (file:line).
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether the file is test code: a `tests` folder, `tests.rs` or `*_tests.rs`.
fn is_test_file(relative: &Path) -> bool {
    relative.components().any(|c| c.as_os_str() == "tests")
        || relative
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs"))
}

/// The `crate::<name>` paths in `line` (letters, digits and `_`).
fn named_modules(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + "crate::".len()..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        found.push(&tail[..end]);
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

/// The graph of `src`'s top-level modules, from each file's non-test code.
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_path_buf();
        if is_test_file(&relative) {
            continue;
        }
        let first = relative.components().next().unwrap();
        let module = first.as_os_str().to_str().unwrap().trim_end_matches(".rs");
        if module == "lib" {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let code = non_test_code(&text);
        let code = code.as_str();
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for other in named_modules(line) {
                if other != module && !other.is_empty() {
                    graph
                        .entry(module.to_string())
                        .or_default()
                        .entry(other.to_string())
                        .or_default()
                        .push(format!("{}:{}", relative.display(), number + 1));
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

#[test]
fn cores_modules_form_no_cycle_but_the_known_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src");
    let graph = graph_of(&src);
    assert!(
        graph.len() > 10,
        "the scan found too few modules in {src:?}"
    );
    let known: BTreeSet<Vec<String>> = KNOWN
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    for cycle in cycles(&graph) {
        assert!(
            known.contains(&cycle),
            "a module cycle in core: {cycle:?}\n{}",
            explain(&graph, &cycle)
        );
    }
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
