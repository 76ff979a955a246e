//! The crates of the workspace form layers (docs/architecture.md): a crate depends only
//! on crates of lower layers, so the graph has no cycle and the no-allocator transcript
//! crate stays below everything else. Read from `cargo metadata`; dev-dependencies do
//! not count (a test may use anything).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use agentloop_core::json::{self, Value};

/// Each workspace crate's layer: 0 depends on no crate of the workspace, 1 (JSON values)
/// on the transcript layer only, 2 (schemas; the verifier, checkpoints, notes and
/// proofs) on those, 3 (the library's façade) on those, 4 on the library, 5 are the
/// programs and the test and bench crates. A new crate must be given its place here.
const LAYERS: &[(&str, u32)] = &[
    ("agentloop-transcript", 0),
    ("agentloop-standin", 0),
    ("agentloop-json", 1),
    ("agentloop-schema", 2),
    ("agentloop-tlog", 2),
    ("agentloop-core", 3),
    ("agentloop-http", 4),
    ("agentloop-mcp", 4),
    ("agentloop-otel", 4),
    ("agentloop-ffi", 5),
    ("agentloop-cli", 5),
    ("agentloop-python", 5),
    ("agentloop-tests", 5),
    ("agentloop-benches", 5),
];

/// Every dependency of a workspace crate on another, not a dev-dependency:
/// `(crate, dependency)`.
fn workspace_edges() -> Vec<(String, String)> {
    normal_dependencies()
        .into_iter()
        .filter(|(_, _, in_workspace)| *in_workspace)
        .map(|(from, to, _)| (from, to))
        .collect()
}

/// Every dependency of a workspace crate that is not a dev-dependency: `(crate,
/// dependency, whether the dependency is a crate of the workspace)`.
fn normal_dependencies() -> Vec<(String, String, bool)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata = json::parse(&out.stdout).expect("cargo metadata prints JSON");
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
    let array = |v: Option<&Value>| match v {
        Some(Value::Array(items)) => items.clone(),
        _ => panic!("an array was expected in cargo metadata"),
    };
    let mut edges = Vec::new();
    let packages = metadata.as_object().and_then(|m| m.get("packages"));
    for package in array(packages) {
        let package = package.as_object().expect("a package is an object");
        let name = text(package.get("name")).expect("a package has a name");
        for dep in array(package.get("dependencies")) {
            let dep = dep.as_object().expect("a dependency is an object");
            let dev = text(dep.get("kind")).as_deref() == Some("dev");
            let dep_name = text(dep.get("name")).expect("a dependency has a name");
            if !dev {
                edges.push((name.clone(), dep_name, dep.get("path").is_some()));
            }
        }
    }
    edges
}

/// The edges that do not point to a lower layer, and the crates with no layer.
fn breaks(edges: &[(String, String)], layers: &BTreeMap<&str, u32>) -> (Vec<String>, Vec<String>) {
    let mut upward = Vec::new();
    let mut unplaced = Vec::new();
    for (from, to) in edges {
        match (layers.get(from.as_str()), layers.get(to.as_str())) {
            (Some(a), Some(b)) if b < a => {}
            (Some(a), Some(b)) => upward.push(format!("{from} (layer {a}) -> {to} (layer {b})")),
            (None, _) => unplaced.push(from.clone()),
            (_, None) => unplaced.push(to.clone()),
        }
    }
    (upward, unplaced)
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let layers: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let edges = workspace_edges();
    assert!(
        edges
            .iter()
            .any(|(a, b)| a == "agentloop-core" && b == "agentloop-json"),
        "the graph was read: {edges:?}"
    );
    let (upward, unplaced) = breaks(&edges, &layers);
    assert!(
        upward.is_empty(),
        "dependencies that do not point down: {upward:?}"
    );
    assert!(
        unplaced.is_empty(),
        "crates with no layer in LAYERS: {unplaced:?}"
    );
}

/// A user who wants only the chain and the verifier compiles no regex, ed25519, base64
/// or schemars (issue 29): the regex crates come with the schema crate alone, ed25519 and
/// base64 with the tlog crate alone, and the transcript and JSON crates name none of
/// them (their workspace dependencies are lower layers, checked above).
#[test]
fn heavy_dependencies_come_only_with_the_crates_that_need_them() {
    let heavy = [
        "regex-automata",
        "regex-syntax",
        "ed25519-dalek",
        "base64",
        "schemars",
    ];
    let allowed = |from: &str, to: &str| match to {
        "regex-automata" | "regex-syntax" => from == "agentloop-schema",
        "ed25519-dalek" | "base64" => from == "agentloop-tlog",
        _ => false,
    };
    let deps = normal_dependencies();
    assert!(
        deps.iter()
            .any(|(a, b, _)| a == "agentloop-schema" && b == "regex-automata"),
        "the dependencies were read: {deps:?}"
    );
    let light = [
        "agentloop-transcript",
        "agentloop-json",
        "agentloop-schema",
        "agentloop-tlog",
    ];
    let misplaced: Vec<String> = deps
        .iter()
        .filter(|(from, to, _)| light.contains(&from.as_str()) && heavy.contains(&to.as_str()))
        .filter(|(from, to, _)| !allowed(from, to))
        .map(|(from, to, _)| format!("{from} -> {to}"))
        .collect();
    assert!(
        misplaced.is_empty(),
        "heavy dependencies in a light crate: {misplaced:?}"
    );
}

#[test]
fn the_layer_check_catches_an_upward_edge_a_cycle_and_an_unplaced_crate() {
    let layers: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let edge = |a: &str, b: &str| (String::from(a), String::from(b));
    let down = [edge("agentloop-core", "agentloop-transcript")];
    assert_eq!(breaks(&down, &layers), (vec![], vec![]));
    let up = [edge("agentloop-transcript", "agentloop-core")];
    assert_eq!(breaks(&up, &layers).0.len(), 1);
    let same = [edge("agentloop-http", "agentloop-mcp")];
    assert_eq!(
        breaks(&same, &layers).0.len(),
        1,
        "a layer does not use itself"
    );
    let new = [edge("agentloop-new", "agentloop-core")];
    assert_eq!(breaks(&new, &layers).1, ["agentloop-new"]);
}
