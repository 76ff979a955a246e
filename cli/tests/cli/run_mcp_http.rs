//! `agentloop run --mcp-url` (docs/mcp.md): remote servers over Streamable HTTP,
//! written with the official SDKs and started on loopback by the test — the TypeScript
//! SDK v2 stateless-only (behind a bearer token), the Python SDK 2.x (both eras; the
//! stateless one is spoken), the TypeScript SDK's sessionful handshake-only transport —
//! their tools called by a scripted model, each recorded by its URL; the token, given
//! only as a variable's name, and a URL's password are in no file, no output, no log; `--resume` reconnects
//! with the headers given again and compares the URLs. Skips with a message when
//! `node`, `python3` or an SDK is missing, and fails instead in CI.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use agentloop_core::json::Value;
use agentloop_standin::{canned, Server};
use agentloop_tests::{python_sdk, typescript_sdk, workspace_root};
use common::runs::*;
use common::{member, Scratch};

/// A server listening on loopback (it prints its port first), killed when dropped.
struct Listening {
    child: Child,
    url: String,
}

impl Listening {
    fn start(program: &str, args: &[&str], env: &[(&str, &str)]) -> Listening {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let url = format!("http://127.0.0.1:{}/mcp", port.trim());
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn script(name: &str) -> String {
    let path = workspace_root().join("mcp/tests/servers").join(name);
    path.to_string_lossy().into_owned()
}

/// Every byte of every file under `dir`.
fn every_file(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(every_file(&path));
        } else {
            found.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    found
}

const TOKEN: &str = "mcp-tok-5d1f0a9e7c3b42e8";
const PASSWORD: &str = "pw-b81c4e02d7";

#[test]
fn a_run_serves_the_tools_of_remote_sdk_servers_and_keeps_their_token_secret() {
    let Some(prefix) = typescript_sdk() else {
        return;
    };
    if !python_sdk() {
        return;
    }
    let prefix = prefix.to_string_lossy().into_owned();
    let ts = script("ts_sdk_server.mjs");
    let guarded = Listening::start(
        "node",
        &[&ts, &prefix, "modern", "http"],
        &[("AGENTLOOP_TEST_TOKEN", TOKEN)],
    );
    let python = Listening::start(
        "python3",
        &[&script("python_sdk_server.py"), "dual", "http"],
        &[],
    );
    let sessions = Listening::start("node", &[&ts, &prefix, "handshake", "http"], &[]);
    let scratch = Scratch::new("mcp-http");
    let model = Server::start([
        canned::openai::tool_calls(&[
            ("add", r#"{"a":2,"b":3}"#),
            ("add-1", r#"{"a":4,"b":5}"#),
            ("add-2", r#"{"a":6,"b":7}"#),
        ]),
        OpenAi.answer("5, 9 and 13."),
    ])
    .unwrap();
    let base = format!("{}/v1", model.url());
    // A userinfo in a URL is sent (as Basic authorization), never recorded or shown.
    let with_userinfo = python
        .url
        .replace("http://", &format!("http://agent:{PASSWORD}@"));
    let servers = [
        "--mcp-url",
        &guarded.url,
        "--mcp-url",
        &with_userinfo,
        "--mcp-url",
        &sessions.url,
        "--mcp-header",
        "0:Authorization=Bearer ${MCP_TOKEN}",
    ];
    let env = [("MCP_TOKEN", TOKEN)];
    let mut args = vec![
        "run",
        "--task",
        "add",
        "--model",
        "openai:m",
        "--base-url",
        &base,
    ];
    args.extend(servers);
    args.extend(["--out", "t.jsonl"]);
    let run = agentloop(scratch.dir(), &args, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bytes = scratch.read("t.jsonl");
    let tools: Vec<String> = records(&bytes)
        .iter()
        .filter(|r| member(r, "kind").as_str() == Some("tool"))
        .map(|r| canonical(member(r, "payload")))
        .collect();
    assert_eq!(tools.len(), 3, "{tools:?}");
    for (tool, sum) in tools.iter().zip(["5", "9", "13"]) {
        let value = format!(r#""value":{{"content":[{{"text":"{sum}","type":"text"}}]"#);
        assert!(
            tool.contains(r#""ok":true"#) && tool.contains(&value),
            "{tool}"
        );
    }
    // Each server by its URL, revision and identity; no header.
    let task = member(&records(&bytes)[0], "payload").clone();
    let Value::Array(recorded) = member(member(&task, "setup"), "servers") else {
        panic!("{task:?}")
    };
    let recorded: Vec<String> = recorded.iter().map(canonical).collect();
    let identity = |url: &str, version: &str, name: &str| {
        format!(
            r#"{{"protocol_version":"{version}","server_info":{{"name":"{name}","version":"1.0.0"}},"url":"{url}"}}"#
        )
    };
    assert_eq!(
        recorded,
        [
            identity(&guarded.url, "2026-07-28", "agentloop-ts-sdk-test"),
            identity(&python.url, "2026-07-28", "agentloop-python-sdk-test"),
            identity(&sessions.url, "2025-11-25", "agentloop-ts-sdk-test"),
        ]
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");

    // Resumed with the header given again: the run goes on.
    let model = Server::start([OpenAi.answer("again")]).unwrap();
    let resumed = agentloop(
        scratch.dir(),
        &strs(&resume_args("openai:m", &model, "t.jsonl", &servers)),
        &env,
    );
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    // Without the variable: a clear error, exit 2, nothing written.
    let before = scratch.read("t.jsonl");
    let unset = agentloop(
        scratch.dir(),
        &strs(&resume_args("openai:m", &model, "t.jsonl", &servers)),
        &[],
    );
    assert_eq!(unset.code, 2, "{}", unset.stderr);
    assert!(
        unset.stderr.contains(&format!(
            "agentloop: MCP server 0 (--mcp-url \"{}\"): the MCP header 'Authorization' names \
             the environment variable MCP_TOKEN, which is not set",
            guarded.url
        )),
        "{}",
        unset.stderr
    );
    assert_eq!(scratch.read("t.jsonl"), before);
    // Another URL for a server: refused, naming it.
    let moved = [
        "--mcp-url",
        &guarded.url,
        "--mcp-url",
        &sessions.url,
        "--mcp-url",
        &with_userinfo,
        "--mcp-header",
        "0:Authorization=Bearer ${MCP_TOKEN}",
    ];
    let refused = agentloop(
        scratch.dir(),
        &strs(&resume_args("openai:m", &model, "t.jsonl", &moved)),
        &env,
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("the order of the MCP servers: "),
        "{}",
        refused.stderr
    );
    assert_eq!(scratch.read("t.jsonl"), before);

    // The token and the password are nowhere: no file of the run, no output.
    for secret in [TOKEN, PASSWORD] {
        for (name, bytes) in every_file(scratch.dir()) {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(secret), "{name}");
        }
        for output in [&run, &resumed, &unset, &refused] {
            assert!(!output.stdout.contains(secret) && !output.stderr.contains(secret));
        }
    }
}
