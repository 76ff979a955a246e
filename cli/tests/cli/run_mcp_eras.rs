//! `agentloop run --mcp` with servers of both protocol eras in one run (docs/mcp.md):
//! stateless-only servers written with the official SDKs — the TypeScript SDK v2
//! (`@modelcontextprotocol/server`, npm) and the Python SDK 2.x (`mcp`, PyPI), both
//! installed by `.ci/run` — and a handshake-only server (the fake), their tools listed
//! and called, and each server's agreed revision and identity recorded in
//! the task record's setup. Skips with a message when `node`, `python3` or an SDK is missing,
//! and fails instead in CI.

use crate::common;

use agentloop_core::json::Value;
use agentloop_standin::{canned, Server};
use agentloop_tests::{python_sdk, typescript_sdk, workspace_root};
use common::runs::*;
use common::{member, Scratch};

fn script(name: &str) -> String {
    let path = workspace_root().join("mcp/tests/servers").join(name);
    format!("'{}'", path.display())
}

/// Three servers — TypeScript SDK stateless-only, Python SDK stateless-only, the fake
/// handshake-only — and a model that calls a tool of each, then answers.
#[test]
fn a_run_serves_the_tools_of_stateless_only_sdk_servers_beside_a_handshake_server() {
    let Some(prefix) = typescript_sdk() else {
        return;
    };
    if !python_sdk() {
        return;
    }
    let scratch = Scratch::new("mcp-eras");
    let servers = [
        format!(
            "node {} '{}' modern",
            script("ts_sdk_server.mjs"),
            prefix.display()
        ),
        format!("python3 {} modern", script("python_sdk_server.py")),
        format!("python3 {} --tools pipe", script("fake_server.py")),
    ];
    // The first server keeps the plain names; the second's `add` is `add-1`.
    let model = Server::start([
        canned::openai::tool_calls(&[
            ("add", r#"{"a":2,"b":3}"#),
            ("add-1", r#"{"a":4,"b":5}"#),
            ("echo", r#"{"x":1}"#),
        ]),
        OpenAi.answer("5, 9 and an echo."),
    ])
    .unwrap();
    let url = format!("{}/v1", model.url());
    let mut args = vec![
        "run",
        "--task",
        "add",
        "--model",
        "openai:m",
        "--base-url",
        &url,
    ];
    for server in &servers {
        args.extend(["--mcp", server]);
    }
    args.extend(["--out", "t.jsonl"]);
    let run = agentloop(scratch.dir(), &args, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bytes = scratch.read("t.jsonl");
    let tools: Vec<String> = records(&bytes)
        .iter()
        .filter(|r| member(r, "kind").as_str() == Some("tool"))
        .map(|r| canonical(member(r, "payload")))
        .collect();
    assert_eq!(tools.len(), 3, "{tools:?}");
    for (tool, value) in tools.iter().zip([
        r#""value":{"content":[{"text":"5","type":"text"}]}"#,
        r#""value":{"content":[{"text":"9","type":"text"}],"structuredContent":{"result":"9"}}"#,
        r#""value":{"content":[{"text":"{\"x\": 1}","type":"text"}],"structuredContent":{"x":1}}"#,
    ]) {
        assert!(
            tool.contains(r#""ok":true"#) && tool.contains(value),
            "{tool}"
        );
    }
    // Each server's agreed revision and identity, as it gave them, in the task
    // record's setup.
    let task = member(&records(&scratch.read("t.jsonl"))[0], "payload").clone();
    let map = member(&task, "setup").clone();
    let Value::Array(recorded) = member(&map, "servers") else {
        panic!("{map:?}")
    };
    let recorded: Vec<(String, String)> = recorded
        .iter()
        .map(|s| {
            (
                canonical(member(s, "protocol_version")),
                canonical(member(s, "server_info")),
            )
        })
        .collect();
    assert_eq!(
        recorded,
        [
            (
                r#""2026-07-28""#,
                r#"{"name":"agentloop-ts-sdk-test","version":"1.0.0"}"#
            ),
            (
                r#""2026-07-28""#,
                r#"{"name":"agentloop-python-sdk-test","version":"1.0.0"}"#
            ),
            (r#""2025-11-25""#, r#"{"name":"fake","version":"1"}"#),
        ]
        .map(|(v, i)| (String::from(v), String::from(i)))
    );
}
