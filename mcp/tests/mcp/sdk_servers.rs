//! The client against small servers written with the official SDKs, pinned and
//! installed by `.ci/run`, in each era over stdio (tests/servers/):
//!
//! - `ts_sdk_server.mjs` on `@modelcontextprotocol/server` 2.4.0 (the TypeScript SDK
//!   v2, npm, under `$AGENTLOOP_MCP_SERVERS/npm`), run with `node`;
//! - `python_sdk_server.py` on `mcp` 2.3.0 (the Python SDK, PyPI), run with `python3`.
//!
//! Each is run `modern` (the stateless revision only), `dual` (the SDK's default: both
//! eras) and `handshake` (the handshake revisions only). Each test skips with a message
//! when `node`, `python3` or a package is missing, and fails instead when `CI` is set.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentloop_core::tools::Toolbox;
use agentloop_mcp::{register_tools, McpServer};
use agentloop_tests::{python_sdk, typescript_sdk};
use common::{json, options, text};

/// The eras each SDK server is run in, and the revision the client agrees on with it.
const ERAS: [(&str, &str); 3] = [
    ("modern", "2026-07-28"),
    ("dual", "2026-07-28"),
    ("handshake", "2025-11-25"),
];

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("servers")
        .join(name)
}

/// The TypeScript SDK server, wired for `era`.
fn typescript(prefix: &Path, era: &str) -> McpServer {
    let script = script("ts_sdk_server.mjs");
    McpServer::spawn(
        "node",
        &[script.as_os_str(), prefix.as_os_str(), era.as_ref()],
        &options(),
    )
    .unwrap_or_else(|e| panic!("{era}: {e}"))
}

/// The Python SDK server, run in `era`.
fn python(era: &str) -> McpServer {
    let script = script("python_sdk_server.py");
    McpServer::spawn("python3", &[script.as_os_str(), era.as_ref()], &options())
        .unwrap_or_else(|e| panic!("{era}: {e}"))
}

/// Registers the server's tools and calls them: `add` succeeds, `fail` is an error
/// result. Returns the toolbox for more calls.
fn list_and_call(server: &McpServer, era: &str, names: &[&str], sum: &str) -> Toolbox {
    let mut toolbox = Toolbox::new();
    let registration =
        register_tools(std::slice::from_ref(server), &mut toolbox, &BTreeMap::new()).unwrap();
    assert_eq!(registration.skipped, [], "{era}");
    assert_eq!(
        toolbox.manifest().names().collect::<Vec<_>>(),
        names,
        "{era}"
    );
    let added = toolbox.call("add", &json(r#"{"a":2,"b":3}"#)).unwrap();
    assert_eq!(text(&added), sum, "{era}");
    let failed = toolbox.call("fail", &json("{}")).unwrap_err().to_string();
    // (The Python SDK says which tool before the words.)
    assert!(
        failed.starts_with("the server reported an error: ")
            && failed.ends_with("it failed on purpose"),
        "{era}: {failed}"
    );
    toolbox
}

fn name(server: &McpServer) -> String {
    let info = server.server_info().expect("serverInfo");
    text(info.get("name").unwrap())
}

#[test]
fn typescript_sdk_v2_servers_are_spoken_to_in_their_era_and_serve_their_tools() {
    let Some(prefix) = typescript_sdk() else {
        return;
    };
    for (era, version) in ERAS {
        let server = typescript(&prefix, era);
        assert_eq!(server.protocol_version(), version, "{era}");
        assert_eq!(name(&server), r#""agentloop-ts-sdk-test""#, "{era}");
        let toolbox = list_and_call(
            &server,
            era,
            &["add", "ask", "fail"],
            r#"{"content":[{"text":"5","type":"text"}]}"#,
        );
        if version == "2026-07-28" {
            // Its input request needs the elicitation capability, which this client does
            // not declare: the SDK refuses the call, and the call fails with its words.
            let asked = toolbox.call("ask", &json("{}")).unwrap_err().to_string();
            assert!(
                asked.starts_with("'tools/call' failed with JSON-RPC error -32021: "),
                "{era}: {asked}"
            );
        }
    }
}

#[test]
fn python_sdk_2_servers_are_spoken_to_in_their_era_and_serve_their_tools() {
    if !python_sdk() {
        return;
    }
    for (era, version) in ERAS {
        let server = python(era);
        assert_eq!(server.protocol_version(), version, "{era}");
        assert_eq!(name(&server), r#""agentloop-python-sdk-test""#, "{era}");
        let toolbox = list_and_call(
            &server,
            era,
            &["add", "count", "fail"],
            r#"{"content":[{"text":"5","type":"text"}],"structuredContent":{"result":"5"}}"#,
        );
        // Its `count` declares an integer and answers a string, which the SDK's lax
        // check lets through: this client's check fails the call.
        let counted = toolbox.call("count", &json("{}")).unwrap_err().to_string();
        assert_eq!(
            counted,
            "its structuredContent does not match its outputSchema: \
             $.structuredContent.result: expected type integer, got string",
            "{era}"
        );
    }
}
