//! Which protocol era the client speaks, chosen by what the server answers (docs/mcp.md,
//! "The protocol spoken"), against the fake server in each era
//! (tests/servers/fake_server.py `--era`): the stateless revision 2026-07-28 with a
//! server that answers `server/discover`, the handshake with one that does not, and a
//! clear refusal of a server that speaks neither.

use crate::common;

use std::time::Duration;

use agentloop_core::json::Value;
use agentloop_mcp::{McpError, McpOptions, McpServer};
use agentloop_tests::TempDir;
use common::{fake, json, options, process_exists, python, read_pid, text};

/// What the server received so far (its `methods` tool), and the `_meta` of that call.
fn received(server: &McpServer) -> (Vec<String>, String) {
    let output = server.call_tool("methods", &json("{}")).unwrap();
    let value = output.value.as_object().unwrap();
    let structured = value.get("structuredContent").unwrap().as_object().unwrap();
    let methods = match structured.get("methods") {
        Some(Value::Array(methods)) => methods.iter().map(text).collect(),
        other => panic!("{other:?}"),
    };
    (methods, text(structured.get("meta").unwrap()))
}

fn quoted(methods: &[&str]) -> Vec<String> {
    methods.iter().map(|m| format!("\"{m}\"")).collect()
}

/// The `_meta` every stateless request carries.
fn envelope() -> String {
    format!(
        r#"{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"agentloop","version":"{}"}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

#[test]
fn a_server_that_answers_the_probe_is_spoken_to_statelessly_with_meta_on_every_request() {
    let Some(python) = python() else { return };
    // Pages of 5, each with cache hints; every request without the envelope would be
    // refused with -32602.
    let server = fake(python, &["--era", "modern", "--page-size", "5"], &options()).unwrap();
    assert_eq!(server.protocol_version(), "2026-07-28");
    assert_eq!(
        server
            .server_info()
            .map(|info| text(&Value::Object(info.clone()))),
        Some(String::from(r#"{"name":"fake","version":"1"}"#))
    );
    assert_eq!(server.instructions(), Some("for tests"));
    assert!(server.has_tools());
    assert_eq!(server.list_tools().unwrap().len(), 14);
    let echoed = server.call_tool("echo", &json(r#"{"a":1}"#)).unwrap();
    assert_eq!(
        text(&echoed.value),
        r#"{"content":[{"text":"{\"a\": 1}","type":"text"}],"structuredContent":{"a":1}}"#
    );
    // No handshake, no notification: the probe, the pages, the calls.
    let (methods, meta) = received(&server);
    assert_eq!(
        methods,
        quoted(&[
            "server/discover",
            "tools/list",
            "tools/list",
            "tools/list",
            "tools/call",
            "tools/call"
        ])
    );
    assert_eq!(meta, envelope());
}

#[test]
fn a_server_that_refuses_the_probe_gets_the_handshake_and_no_meta() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    assert_eq!(server.protocol_version(), "2025-11-25");
    let (methods, meta) = received(&server);
    assert_eq!(
        methods,
        quoted(&[
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ])
    );
    assert_eq!(meta, "null");
}

#[test]
fn a_server_that_leaves_the_probe_unanswered_gets_the_handshake_after_the_probe_wait() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        init_timeout: Duration::from_secs(8),
        ..options()
    };
    let server = fake(python, &["--silent-probe"], &options).unwrap();
    assert_eq!(server.protocol_version(), "2025-11-25");
    // The unanswered probe is not cancelled: a handshake server may not know it.
    let (methods, _) = received(&server);
    assert_eq!(
        methods,
        quoted(&[
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ])
    );
}

#[test]
fn a_stateless_server_not_up_for_the_probe_is_probed_again_when_it_refuses_initialize() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        init_timeout: Duration::from_secs(8),
        ..options()
    };
    let server = fake(
        python,
        &["--era", "modern", "--ignore-first-discover"],
        &options,
    )
    .unwrap();
    assert_eq!(server.protocol_version(), "2026-07-28");
    let (methods, meta) = received(&server);
    assert_eq!(
        methods,
        quoted(&[
            "server/discover",
            "initialize",
            "server/discover",
            "tools/call"
        ])
    );
    assert_eq!(meta, envelope());
}

#[test]
fn a_server_that_answers_neither_era_is_refused_naming_both_answers_and_is_reaped() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-no-era");
    let pid_file = dir.path().join("pid");
    let pid_arg = pid_file.to_string_lossy().into_owned();
    let error = fake(
        python,
        &["--era", "none", "--pid-file", &pid_arg],
        &options(),
    )
    .unwrap_err();
    let not_found = |method: &str| McpError::Rpc {
        method: String::from(method),
        code: -32601,
        message: String::from("Method not found"),
        data: None,
    };
    assert_eq!(
        error,
        McpError::NoEra {
            discover: Box::new(not_found("server/discover")),
            initialize: Box::new(not_found("initialize")),
        }
    );
    assert_eq!(
        error.to_string(),
        "the MCP server answered neither protocol era this client speaks: to the 2026-07-28 \
         probe, 'server/discover' failed with JSON-RPC error -32601: Method not found; to the \
         handshake, 'initialize' failed with JSON-RPC error -32601: Method not found"
    );
    let pid = read_pid(&pid_file);
    assert_ne!(
        process_exists(pid),
        Some(true),
        "server {pid} was not reaped"
    );
}

#[test]
fn a_modern_error_to_the_probe_is_not_taken_for_a_handshake_server() {
    let Some(python) = python() else { return };
    // UnsupportedProtocolVersion naming only versions this client does not speak.
    let error = fake(
        python,
        &[
            "--discover-error",
            r#"{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}"#,
        ],
        &options(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        McpError::NoCommonVersion {
            method: String::from("server/discover"),
            supported: vec![String::from("2027-01-01")],
        }
    );
    assert_eq!(
        error.to_string(),
        "the MCP server answered 'server/discover' that it supports protocol versions \
         [2027-01-01], none of which this client speaks (it speaks 2026-07-28, 2025-11-25, \
         2025-06-18, 2025-03-26, 2024-11-05)"
    );
    // MissingRequiredClientCapability: a modern server, whose error is the answer.
    let error = fake(
        python,
        &[
            "--discover-error",
            r#"{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}"#,
        ],
        &options(),
    )
    .unwrap_err();
    assert!(
        matches!(&error, McpError::Rpc { method, code: -32021, .. } if method == "server/discover"),
        "{error:?}"
    );
    // UnsupportedProtocolVersion naming a handshake version this client speaks: the
    // handshake.
    let server = fake(
        python,
        &[
            "--discover-error",
            r#"{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}"#,
            "--version",
            "2025-06-18",
        ],
        &options(),
    )
    .unwrap();
    assert_eq!(server.protocol_version(), "2025-06-18");
}

#[test]
fn a_discovery_that_is_malformed_or_names_no_version_we_speak_fails_saying_why() {
    let Some(python) = python() else { return };
    let malformed = "the MCP server's answer to 'server/discover' is malformed: ";
    for (result, why) in [
        ("[]", "it is not an object"),
        (
            r#"{"capabilities":{}}"#,
            "it has no \"supportedVersions\" array",
        ),
        (
            r#"{"supportedVersions":["2026-07-28",1],"capabilities":{}}"#,
            "its \"supportedVersions\" has a member that is not a string",
        ),
        (
            r#"{"supportedVersions":["2026-07-28"]}"#,
            "it has no \"capabilities\" object",
        ),
        (
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":"x"}}"#,
            "its \"_meta\" has a serverInfo that is not an object",
        ),
        (
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"later"}"#,
            "its \"resultType\" 'later' is not one this client knows",
        ),
    ] {
        let error = fake(python, &["--discover-result", result], &options()).unwrap_err();
        assert_eq!(error.to_string(), format!("{malformed}{why}"), "{result}");
    }
    let error = fake(
        python,
        &[
            "--discover-result",
            r#"{"supportedVersions":["2027-01-01"],"capabilities":{}}"#,
        ],
        &options(),
    )
    .unwrap_err();
    assert!(
        matches!(&error, McpError::NoCommonVersion { supported, .. } if supported == &["2027-01-01"]),
        "{error:?}"
    );
    // A discovery listing only handshake versions: the handshake. Neither serverInfo
    // nor instructions is required, nor the cache hints.
    let server = fake(
        python,
        &[
            "--discover-result",
            r#"{"supportedVersions":["2025-11-25"],"capabilities":{}}"#,
        ],
        &options(),
    )
    .unwrap();
    assert_eq!(server.protocol_version(), "2025-11-25");
    let bare = fake(
        python,
        &[
            "--era",
            "modern",
            "--discover-result",
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{}}"#,
        ],
        &options(),
    )
    .unwrap();
    assert_eq!(bare.protocol_version(), "2026-07-28");
    assert_eq!((bare.server_info(), bare.instructions()), (None, None));
    assert!(!bare.has_tools());
    assert_eq!(bare.list_tools().unwrap(), []);
}

#[test]
fn an_answer_that_asks_for_input_or_is_of_an_unknown_type_fails_the_call_and_the_server_goes_on() {
    let Some(python) = python() else { return };
    let server = fake(python, &["--era", "modern"], &options()).unwrap();
    let error = server.call_tool("input", &json("{}")).unwrap_err();
    assert_eq!(
        error,
        McpError::InputRequired {
            method: String::from("tools/call"),
            requests: vec![
                String::from("elicitation/create"),
                String::from("roots/list")
            ],
        }
    );
    assert_eq!(
        error.to_string(),
        "the MCP server answered 'tools/call' asking for input (elicitation/create, \
         roots/list), which agentloop does not give (it declares no client capabilities), \
         so the request fails"
    );
    let error = server.call_tool("odd_result", &json("{}")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the MCP server's answer to 'tools/call' is malformed: its \"resultType\" 'partial' \
         is not one this client knows"
    );
    // Neither is retried, and the server is still in use.
    assert!(server.call_tool("echo", &json("{}")).is_ok());
    let (methods, _) = received(&server);
    assert_eq!(
        methods,
        quoted(&[
            "server/discover",
            "tools/call",
            "tools/call",
            "tools/call",
            "tools/call"
        ])
    );
}
