//! The client over Streamable HTTP against servers written with the official SDKs
//! (the scripts of sdk_servers.rs, run with `http`), each started on loopback by the
//! test: the TypeScript SDK v2 in each era (`modern` and `dual` are its
//! `createMcpHandler`, `handshake` its sessionful transport), the Python SDK 2.x's
//! `streamable_http_app` (both eras on one endpoint, routed by the protocol version
//! header). Each skips as sdk_servers.rs does.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentloop_core::tools::Toolbox;
use agentloop_mcp::{register_tools, McpServer};
use agentloop_tests::{python_sdk, typescript_sdk};
use common::{json, options, text, Listening};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("servers")
        .join(name)
}

/// The TypeScript SDK server over HTTP, wired for `era`, with `env`.
fn typescript(prefix: &Path, era: &str, env: &[(&str, &str)]) -> Listening {
    let script = script("ts_sdk_server.mjs");
    let args = [
        script.as_os_str(),
        prefix.as_os_str(),
        era.as_ref(),
        "http".as_ref(),
    ];
    Listening::start("node", &args, env)
}

fn name(server: &McpServer) -> String {
    text(
        server
            .server_info()
            .expect("serverInfo")
            .get("name")
            .unwrap(),
    )
}

/// Registers the server's tools and calls `add` and `fail`.
fn list_and_call(server: &McpServer, era: &str, names: &[&str]) {
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
    assert!(
        text(&added).starts_with(r#"{"content":[{"text":"5","type":"text"}]"#),
        "{era}: {}",
        text(&added)
    );
    let failed = toolbox.call("fail", &json("{}")).unwrap_err().to_string();
    assert!(
        failed.starts_with("the server reported an error: ")
            && failed.ends_with("it failed on purpose"),
        "{era}: {failed}"
    );
}

#[test]
fn typescript_sdk_v2_servers_over_http_are_spoken_to_in_their_era() {
    let Some(prefix) = typescript_sdk() else {
        return;
    };
    for (era, version) in [
        ("modern", "2026-07-28"),
        ("dual", "2026-07-28"),
        ("handshake", "2025-11-25"),
    ] {
        let listening = typescript(&prefix, era, &[]);
        let url = listening.url("/mcp");
        let server = McpServer::connect::<&str, &str>(&url, &[], &options())
            .unwrap_or_else(|e| panic!("{era}: {e}"));
        assert_eq!(server.protocol_version(), version, "{era}");
        assert_eq!(server.url(), Some(url.as_str()));
        assert_eq!(server.process_id(), None);
        assert_eq!(name(&server), r#""agentloop-ts-sdk-test""#, "{era}");
        list_and_call(&server, era, &["add", "ask", "fail"]);
    }
}

#[test]
fn the_python_sdk_2_server_over_http_is_spoken_to_statelessly() {
    if !python_sdk() {
        return;
    }
    let script = script("python_sdk_server.py");
    let listening = Listening::start(
        "python3",
        &[script.as_os_str(), "dual".as_ref(), "http".as_ref()],
        &[],
    );
    let server = McpServer::connect::<&str, &str>(&listening.url("/mcp"), &[], &options()).unwrap();
    assert_eq!(server.protocol_version(), "2026-07-28");
    assert_eq!(name(&server), r#""agentloop-python-sdk-test""#);
    list_and_call(&server, "python", &["add", "count", "fail"]);
}

#[test]
fn a_bearer_token_server_refuses_a_request_without_it_and_serves_one_with_it() {
    let Some(prefix) = typescript_sdk() else {
        return;
    };
    let token = "tok-7f3a9c2e1b8d4f60a5e2";
    let listening = typescript(&prefix, "modern", &[("AGENTLOOP_TEST_TOKEN", token)]);
    let url = listening.url("/mcp");
    // Without it, the server refuses: a clear error that holds no header value.
    let refused = McpServer::connect::<&str, &str>(&url, &[], &options()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "'server/discover' to the MCP server over HTTP failed: HTTP status 401, with no \
         JSON-RPC error in the body"
    );
    // (A literal value: the environment is not set from a test, whose process runs
    // others at once; run_mcp_http.rs gives it as a variable's name.)
    let headers = [("Authorization", format!("Bearer {token}"))];
    let server = McpServer::connect(&url, &headers, &options()).unwrap();
    assert_eq!(server.protocol_version(), "2026-07-28");
    list_and_call(&server, "token", &["add", "ask", "fail"]);
    assert!(!format!("{server:?}").contains(token));
}
