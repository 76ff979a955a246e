//! The client's bounds over HTTP, against a hostile fake (tests/servers/
//! fake_http_server.py) started on loopback: every bad answer ends the call as an
//! error — data for the loop — within the timeout and the body limit given to the
//! client, and no sentence holds a header value or a userinfo.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use agentloop_core::tools::Toolbox;
use agentloop_mcp::{register_tools, McpOptions, McpServer};
use common::{json, text, Listening};

/// Small bounds: a 2 s timeout, a 64 KiB body.
fn bounded() -> McpOptions {
    McpOptions {
        call_timeout: Duration::from_secs(2),
        init_timeout: Duration::from_secs(8),
        max_line_bytes: 64 << 10,
        shutdown_grace: Duration::from_millis(200),
        ..McpOptions::default()
    }
}

fn hostile() -> Option<Listening> {
    let python = common::python()?;
    let script = common::fake_script().with_file_name("fake_http_server.py");
    Some(Listening::start(python, &[script.as_os_str()], &[]))
}

#[test]
fn every_bad_answer_to_a_call_ends_it_as_an_error_within_its_bounds() {
    let Some(listening) = hostile() else {
        return;
    };
    // (A literal value: the environment is not set from a test, whose process runs
    // others at once; remote.rs's tests and run_mcp_http.rs read it from a variable.)
    let token = "hostile-token-93c1e7b25a40";
    let headers = [("Authorization", format!("Bearer {token}"))];
    let server = McpServer::connect(&listening.url("/mcp"), &headers, &bounded()).unwrap();
    let mut toolbox = Toolbox::new();
    let registration = register_tools(
        std::slice::from_ref(&server),
        &mut toolbox,
        &BTreeMap::new(),
    )
    .unwrap();
    // A tool whose `x-mcp-header` is where it cannot be read is refused; a marked
    // argument is sent as its `Mcp-Param-*` header, which the fake checks.
    assert_eq!(
        registration
            .skipped
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "MCP server 0: tool 'badmark' skipped: its inputSchema has an \"x-mcp-header\" \
          on a property not reached by \"properties\" alone from the root"
        ]
    );
    let call = |tool: &str| toolbox.call(tool, &json("{}")).map(|v| text(&v));
    let over = "'tools/call' to the MCP server over HTTP failed: ";
    for (tool, expected) in [
        (
            "huge",
            format!("{over}a body longer than the limit of 65536 bytes"),
        ),
        (
            "drip",
            String::from("the MCP server did not answer 'tools/call' within 2s"),
        ),
        (
            "endless",
            String::from("the MCP server did not answer 'tools/call' within 2s"),
        ),
        (
            "flood",
            format!("{over}a body longer than the limit of 65536 bytes"),
        ),
        (
            "redirect",
            format!("{over}a redirect (HTTP 307 to http://127.0.0.2:9/mcp), which is not followed"),
        ),
        (
            "wrongtype",
            format!("{over}a body of type 'text/html', not application/json or text/event-stream"),
        ),
        (
            "echo_auth",
            String::from("'tools/call' failed with JSON-RPC error -32000: refused: [redacted]"),
        ),
    ] {
        let error = call(tool).unwrap_err().to_string();
        assert_eq!(error, expected, "{tool}");
        assert!(
            !error.contains(token) && !error.contains("s3cret"),
            "{tool}"
        );
    }
    assert_eq!(
        toolbox
            .call("region", &json(r#"{"region":"us-west1"}"#))
            .map(|v| text(&v))
            .unwrap(),
        r#"{"content":[{"text":"us-west1","type":"text"}]}"#
    );
    // A good answer after a ping (answered), a notification and another id's answer.
    assert_eq!(
        call("ok").unwrap(),
        r#"{"content":[{"text":"fine","type":"text"}]}"#
    );
    assert!(
        !server.tools_changed(),
        "another notification is not a list change"
    );
    // A list change announced on the answer's event stream is noted, once.
    call("changed").unwrap();
    assert!(server.tools_changed());
    assert!(!server.tools_changed());
}

#[test]
fn a_bad_answer_to_the_opening_is_a_clear_error() {
    let Some(listening) = hostile() else {
        return;
    };
    for (behaviour, expected) in [
        (
            "redirect",
            "a redirect (HTTP 307 to http://127.0.0.2:9/mcp), which is not followed",
        ),
        (
            "wrongtype",
            "a body of type 'text/html', not application/json or text/event-stream",
        ),
        ("huge", "a body longer than the limit of 65536 bytes"),
    ] {
        let url = listening.url(&format!("/open/{behaviour}"));
        let error = McpServer::connect::<&str, &str>(&url, &[], &bounded()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("'server/discover' to the MCP server over HTTP failed: {expected}"),
            "{behaviour}"
        );
    }
    let refused = McpServer::connect::<&str, &str>("http://127.0.0.1:9/mcp", &[], &bounded())
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("'server/discover' to the MCP server over HTTP failed: no answer ("),
        "{refused}"
    );
}

#[test]
fn a_session_is_kept_renewed_when_the_server_ends_it_and_deleted_at_the_end() {
    let Some(listening) = hostile() else {
        return;
    };
    let url = listening.url("/sessions");
    let connect = || McpServer::connect::<&str, &str>(&url, &[], &bounded()).unwrap();
    let call = |server: &McpServer, tool: &str| {
        let output = server.call_tool(tool, &json("{}")).unwrap();
        text(&output.value)
    };
    let said = |text: &str| format!(r#"{{"content":[{{"text":"{text}","type":"text"}}]}}"#);
    let server = connect();
    assert_eq!(server.protocol_version(), "2025-11-25");
    assert_eq!(call(&server, "whoami"), said("s1"));
    assert_eq!(call(&server, "whoami"), said("s1"));
    // The server ends it: the next request gets 404, then a new session.
    assert_eq!(call(&server, "expire"), said("expired"));
    assert_eq!(call(&server, "whoami"), said("s2"));
    drop(server);
    let again = connect();
    assert_eq!(call(&again, "deleted"), said("s2"));
}
