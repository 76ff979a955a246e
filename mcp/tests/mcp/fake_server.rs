//! The client against a small fake server (tests/servers/fake_server.py): the cases
//! the real servers do not exercise.

use crate::common;

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::time::Duration;

use agentloop_core::json::{Object, Value};
use agentloop_core::tools::{provider_safe_name, FnTool, ToolOptions, ToolSpec, Toolbox};
use agentloop_mcp::{
    register_tools, Garbage, McpError, McpOptions, McpServer, RegisterToolsError, Stderr,
};
use agentloop_tests::TempDir;
use common::{fake, json, kill, mkfifo, options, process_exists, python, read_pid, text};

/// SHA-256 of "hello" (`printf hello | sha256sum`).
const HELLO: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

fn call(server: &McpServer, name: &str, arguments: &str) -> Result<Value, McpError> {
    server.call_tool(name, &json(arguments)).map(|output| {
        assert!(!output.is_error, "{name}: {output:?}");
        output.value
    })
}

#[test]
fn the_handshake_agrees_on_our_latest_version_and_keeps_what_the_server_says() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    assert_eq!(server.protocol_version(), "2025-11-25");
    assert_eq!(
        server
            .server_info()
            .map(|info| text(&Value::Object(info.clone()))),
        Some(String::from(r#"{"name":"fake","version":"1"}"#))
    );
    assert_eq!(server.instructions(), Some("for tests"));
    assert!(server.has_tools());
    assert_eq!(server.exited(), None);
}

#[test]
fn a_server_that_answers_an_older_version_we_speak_is_accepted() {
    let Some(python) = python() else { return };
    for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        let server = fake(python, &["--version", version], &options()).unwrap();
        assert_eq!(server.protocol_version(), version);
        assert_eq!(server.list_tools().unwrap().len(), 14);
    }
}

#[test]
fn a_version_we_do_not_speak_is_refused_and_the_server_is_reaped() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-version");
    let pid_file = dir.path().join("pid");
    let pid_arg = pid_file.to_string_lossy().into_owned();
    let error = fake(
        python,
        &["--version", "2026-07-28", "--pid-file", &pid_arg],
        &options(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        McpError::UnsupportedVersion(String::from("2026-07-28"))
    );
    assert_eq!(
        error.to_string(),
        "the MCP server answered 'initialize' with protocol version '2026-07-28', which this \
         client does not speak (it speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)"
    );
    let pid = read_pid(&pid_file);
    assert_ne!(
        process_exists(pid),
        Some(true),
        "server {pid} was not reaped"
    );
}

#[test]
fn a_server_that_answers_nothing_times_out_naming_both_eras_and_is_reaped() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-no-init");
    // Long enough for a Python server to start and write its pid file on a loaded
    // machine (400 ms was not, once): a server killed before writing it fails the test.
    let options = McpOptions {
        init_timeout: Duration::from_millis(2000),
        ..options()
    };
    // One that reads its stdin forever and ignores its end (so shutdown has to
    // escalate to signals), and `sleep`, which never reads it at all.
    let pid_file = dir.path().join("python.pid");
    let pid_arg = pid_file.to_string_lossy().into_owned();
    let python_error = fake(
        python,
        &["--no-init", "--ignore-stdin-eof", "--pid-file", &pid_arg],
        &options,
    )
    .unwrap_err();
    let sleep_pid = dir.path().join("sleep.pid");
    let script = format!("echo $$ > '{}'; exec sleep 1000", sleep_pid.display());
    let sleep_error = McpServer::spawn("sh", &["-c", &script], &options).unwrap_err();
    // The probe waits a quarter of the init timeout, the handshake half (a quarter is
    // kept for a second probe): the whole opening within the init timeout.
    for error in [python_error, sleep_error] {
        assert_eq!(
            error,
            McpError::NoEra {
                discover: Box::new(McpError::Timeout {
                    method: String::from("server/discover"),
                    after: Duration::from_millis(500)
                }),
                initialize: Box::new(McpError::Timeout {
                    method: String::from("initialize"),
                    after: Duration::from_millis(1000)
                }),
            }
        );
        assert_eq!(
            error.to_string(),
            "the MCP server answered neither protocol era this client speaks: to the \
             2026-07-28 probe, the MCP server did not answer 'server/discover' within 500ms; \
             to the handshake, the MCP server did not answer 'initialize' within 1s"
        );
    }
    for file in [pid_file, sleep_pid] {
        let pid = read_pid(&file);
        assert_ne!(
            process_exists(pid),
            Some(true),
            "server {pid} was not reaped"
        );
    }
}

#[test]
fn a_program_that_cannot_start_is_an_error_naming_it() {
    let error = McpServer::spawn("/nonexistent/mcp-server", &["--x"], &options()).unwrap_err();
    assert!(
        matches!(&error, McpError::Spawn { program, .. } if program == "/nonexistent/mcp-server"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("could not start the MCP server '/nonexistent/mcp-server': "),
        "{error}"
    );
}

#[test]
fn garbage_before_the_answer_to_initialize_fails_the_handshake() {
    let Some(python) = python() else { return };
    let error = fake(python, &["--banner"], &options()).unwrap_err();
    assert!(
        matches!(error, McpError::Garbage(Garbage::NotJson(_))),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the MCP server wrote a line that is not a JSON-RPC message: it is not JSON the \
         parser accepts: unexpected character 'f' at byte 0"
    );
}

#[test]
fn tools_are_listed_across_pages_in_the_servers_order() {
    let Some(python) = python() else { return };
    let whole = fake(python, &[], &options()).unwrap().list_tools().unwrap();
    let paged = fake(python, &["--page-size", "3"], &options())
        .unwrap()
        .list_tools()
        .unwrap();
    assert_eq!(paged, whole);
    let names: Vec<&str> = paged.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo", "media", "fail", "rpc_fail", "garbage", "too_long", "big", "block", "exit",
            "ask", "env", "stray", "stderr", "say"
        ]
    );
    assert_eq!(paged[0].description.as_deref(), Some("the echo tool"));
    assert_eq!(paged[0].input_schema, Some(json(r#"{"type":"object"}"#)));
}

#[test]
fn a_list_changed_notification_is_noted_once_and_the_list_read_again_is_the_new_one() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-list-changed");
    let state = dir.path().join("changed");
    let state = state.to_str().unwrap();
    let server = fake(
        python,
        &["--tools", "changing", "--state", state],
        &options(),
    )
    .unwrap();
    let names = |server: &McpServer| -> Vec<String> {
        server
            .list_tools()
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect()
    };
    assert_eq!(names(&server), ["echo", "gone"]);
    assert!(!server.tools_changed());
    // The server sends the notification before the call's answer.
    call(&server, "gone", "{}").unwrap();
    assert!(server.tools_changed());
    assert!(!server.tools_changed(), "the note is cleared once read");
    assert_eq!(names(&server), ["echo", "added"]);
    // Other notifications are not taken for it.
    call(&server, "ask", "{}").unwrap();
    assert!(!server.tools_changed());
}

#[test]
fn listing_is_bounded_in_pages_and_in_tools() {
    let Some(python) = python() else { return };
    let few_pages = McpOptions {
        max_pages: 5,
        ..options()
    };
    let endless = fake(python, &["--endless", "--page-size", "1"], &few_pages).unwrap();
    assert_eq!(endless.list_tools(), Err(McpError::TooManyPages(5)));
    let few_tools = McpOptions {
        max_tools: 10,
        ..options()
    };
    let many = fake(
        python,
        &["--tools", "many:11", "--page-size", "4"],
        &few_tools,
    )
    .unwrap();
    assert_eq!(many.list_tools(), Err(McpError::TooManyTools(10)));
    let ten = fake(
        python,
        &["--tools", "many:10", "--page-size", "4"],
        &few_tools,
    )
    .unwrap();
    assert_eq!(ten.list_tools().unwrap().len(), 10);
}

#[test]
fn a_server_without_the_tools_capability_lists_nothing() {
    let Some(python) = python() else { return };
    let server = fake(python, &["--no-tools"], &options()).unwrap();
    assert!(!server.has_tools());
    assert_eq!(server.list_tools(), Ok(Vec::new()));
}

#[test]
fn every_content_type_is_recorded_in_the_documented_shape() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let value = call(&server, "media", "{}").unwrap();
    assert_eq!(
        text(&value),
        format!(
            concat!(
                r#"{{"content":[{{"text":"all kinds","type":"text"}},"#,
                r#"{{"bytes":5,"mimeType":"image/png","sha256":"{h}","type":"image"}},"#,
                r#"{{"bytes":5,"mimeType":"audio/wav","sha256":"{h}","type":"audio"}},"#,
                r#"{{"mimeType":"text/plain","text":"A","type":"resource","uri":"mem://a"}},"#,
                r#"{{"bytes":5,"sha256":"{h}","type":"resource","uri":"mem://b"}},"#,
                r#"{{"name":"c","size":5,"type":"resource_link","uri":"mem://c"}},"#,
                r#"{{"depth":3,"type":"hologram"}}],"structuredContent":{{"kinds":7}}}}"#
            ),
            h = HELLO
        )
    );
    // Asked for, the base64 is kept too.
    let inline = fake(
        python,
        &[],
        &McpOptions {
            inline_media: true,
            ..options()
        },
    )
    .unwrap();
    let value = call(&inline, "media", "{}").unwrap();
    let shown = text(&value);
    assert!(
        shown.contains(&format!(
            r#"{{"bytes":5,"data":"aGVsbG8=","mimeType":"image/png","sha256":"{HELLO}","type":"image"}}"#
        )),
        "{shown}"
    );
    assert!(shown.contains(r#""blob":"aGVsbG8=""#), "{shown}");
}

/// A toolbox with every tool of `server`.
fn toolbox(server: &McpServer) -> Toolbox {
    let mut toolbox = Toolbox::new();
    let registration =
        register_tools(std::slice::from_ref(server), &mut toolbox, &BTreeMap::new()).unwrap();
    assert_eq!(registration.skipped, []);
    toolbox
}

#[test]
fn an_error_result_and_a_json_rpc_error_fail_the_call_with_the_servers_words() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let output = server
        .call_tool("fail", &json(r#"{"why":"disk"}"#))
        .unwrap();
    assert!(output.is_error);
    assert_eq!(output.error_text(), "it went wrong: disk");
    let error = server.call_tool("rpc_fail", &json("{}")).unwrap_err();
    assert_eq!(
        error,
        McpError::Rpc {
            method: String::from("tools/call"),
            code: -32000,
            message: String::from("boom"),
            data: Some(String::from(r#"{"why":"test"}"#)),
        }
    );
    // As tools: the sentences the loop records after "tool '<name>' failed: ".
    let tools = toolbox(&server);
    assert_eq!(
        tools
            .call("fail", &json(r#"{"why":"disk"}"#))
            .unwrap_err()
            .message(),
        "the server reported an error: it went wrong: disk"
    );
    assert_eq!(
        tools.call("rpc_fail", &json("{}")).unwrap_err().message(),
        r#"'tools/call' failed with JSON-RPC error -32000: boom (data: {"why":"test"})"#
    );
    // The server goes on.
    assert_eq!(
        text(&tools.call("echo", &json(r#"{"a":[1,"x"]}"#)).unwrap()),
        r#"{"content":[{"text":"{\"a\": [1, \"x\"]}","type":"text"}],"structuredContent":{"a":[1,"x"]}}"#
    );
}

#[test]
fn a_failure_sentence_is_cut_to_the_limit() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        max_error_bytes: 40,
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let tools = toolbox(&server);
    let why = "x".repeat(100);
    let error = tools
        .call("fail", &json(&format!(r#"{{"why":"{why}"}}"#)))
        .unwrap_err();
    // "the server reported an error: it went wrong: " is 45 bytes.
    assert_eq!(
        error.message(),
        "the server reported an error: it went wr… (cut: 145 bytes in all)"
    );
}

#[test]
fn garbage_on_stdout_fails_that_call_and_the_server_goes_on() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let error = call(&server, "garbage", "{}").unwrap_err();
    assert_eq!(
        error.to_string(),
        "the MCP server wrote a line that is not a JSON-RPC message: it is not JSON the \
         parser accepts: unexpected character 't' at byte 0"
    );
    assert!(call(&server, "echo", "{}").is_ok());
    assert_eq!(server.exited(), None);
}

#[test]
fn a_line_over_the_limit_fails_that_call_without_being_kept_and_the_server_goes_on() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        max_line_bytes: 1000,
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let error = call(&server, "too_long", r#"{"bytes":5000}"#).unwrap_err();
    assert_eq!(
        error,
        McpError::Garbage(Garbage::TooLong {
            len: 5000,
            max: 1000
        })
    );
    assert!(call(&server, "echo", "{}").is_ok());
    // Exactly at the limit is a line like any other (here: not JSON).
    let at_limit = call(&server, "too_long", r#"{"bytes":1000}"#).unwrap_err();
    assert!(
        matches!(at_limit, McpError::Garbage(Garbage::NotJson(_))),
        "{at_limit:?}"
    );
}

#[test]
fn a_result_too_large_to_record_fails_the_call() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        max_result_bytes: 1000,
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    // {"content":[{"text":"<n × b>","type":"text"}]} is n + 39 bytes.
    assert!(call(&server, "big", r#"{"bytes":961}"#).is_ok());
    let error = call(&server, "big", r#"{"bytes":962}"#).unwrap_err();
    assert_eq!(
        error,
        McpError::ResultTooLarge {
            bytes: 1001,
            max: 1000
        }
    );
    assert_eq!(
        error.to_string(),
        "the result is 1001 bytes as JSON, more than the limit of 1000 bytes for a recorded result"
    );
}

#[test]
fn a_server_that_exits_mid_call_fails_it_and_every_later_call_at_once() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        // A later call that waited for an answer would fail with a timeout.
        call_timeout: Duration::from_secs(20),
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let tools = toolbox(&server);
    let sentence = "the MCP server exited (exit status: 3); it is not restarted, so every call \
                    to its tools fails";
    let error = tools.call("exit", &json(r#"{"code":3}"#)).unwrap_err();
    assert_eq!(error.message(), sentence);
    let status = server.exited().flatten().expect("an exit status");
    assert_eq!(status.code(), Some(3));
    for name in ["echo", "media"] {
        assert_eq!(
            tools.call(name, &json("{}")).unwrap_err().message(),
            sentence
        );
    }
    assert_eq!(server.list_tools(), Err(McpError::Exited(Some(status))));
}

#[test]
fn a_server_killed_mid_call_fails_it_and_every_later_call_at_once() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-kill");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let options = McpOptions {
        // A later call that waited for an answer would fail with a timeout.
        call_timeout: Duration::from_secs(20),
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let tools = toolbox(&server);
    let arguments = json(&format!(
        r#"{{"path":{}}}"#,
        text(&Value::from(fifo.to_str().unwrap()))
    ));
    let calling = server.clone();
    let running = std::thread::spawn(move || calling.call_tool("block", &arguments));
    // Opening the FIFO for writing returns once the server has opened it for reading:
    // the call is running, blocked reading.
    let writer = OpenOptions::new().write(true).open(&fifo).unwrap();
    kill(server.process_id().unwrap());
    let error = running.join().unwrap().unwrap_err();
    let sentence = "the MCP server exited (signal: 9 (SIGKILL)); it is not restarted, so every \
                    call to its tools fails";
    assert_eq!(error.to_string(), sentence);
    drop(writer);
    assert_eq!(
        tools.call("echo", &json("{}")).unwrap_err().message(),
        sentence
    );
}

#[test]
fn a_call_past_its_timeout_fails_and_its_late_answer_does_not_confuse_the_next() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-timeout");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    // Long enough for the next call's answer on a loaded machine.
    let options = McpOptions {
        call_timeout: Duration::from_secs(3),
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let arguments = format!(
        r#"{{"path":{}}}"#,
        text(&Value::from(fifo.to_str().unwrap()))
    );
    let error = call(&server, "block", &arguments).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the MCP server did not answer 'tools/call' within 3s"
    );
    // Let the blocked call finish: the server answers it (nobody waits any more),
    // then answers the next call.
    let mut writer = OpenOptions::new().write(true).open(&fifo).unwrap();
    writer.write_all(b"late").unwrap();
    drop(writer);
    assert_eq!(
        text(&call(&server, "echo", r#"{"n":1}"#).unwrap()),
        r#"{"content":[{"text":"{\"n\": 1}","type":"text"}],"structuredContent":{"n":1}}"#
    );
    assert_eq!(server.exited(), None);
}

#[test]
fn the_servers_requests_are_answered_and_its_notifications_and_stray_answers_ignored() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let value = call(&server, "ask", "{}").unwrap();
    assert_eq!(
        text(&value),
        concat!(
            r#"{"content":[],"structuredContent":{"#,
            r#""7":{"error":{"code":-32601,"message":"Method not found: agentloop does not support 'roots/list'"},"id":7,"jsonrpc":"2.0"},"#,
            r#""p1":{"id":"p1","jsonrpc":"2.0","result":{}}}}"#
        )
    );
    let value = call(&server, "stray", "{}").unwrap();
    assert_eq!(
        text(&value),
        r#"{"content":[{"text":"after the stray","type":"text"}]}"#
    );
}

fn environment(server: &McpServer) -> Vec<String> {
    let value = call(server, "env", "{}").unwrap();
    let Some(Value::Array(names)) = value.as_object().unwrap().get("structuredContent") else {
        panic!("{value:?}")
    };
    names
        .iter()
        .map(|n| String::from(n.as_str().unwrap()))
        .collect()
}

#[test]
fn a_server_gets_only_the_safe_environment_unless_told_otherwise() {
    let Some(python) = python() else { return };
    // Cargo sets CARGO_PKG_NAME for this test process: a stand-in for an API key.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    let mut options = options();
    options.env.push(("AGENTLOOP_MCP_TEST".into(), "1".into()));
    let names = environment(&fake(python, &[], &options).unwrap());
    assert!(names.contains(&String::from("PATH")), "{names:?}");
    assert!(
        names.contains(&String::from("AGENTLOOP_MCP_TEST")),
        "{names:?}"
    );
    assert!(
        !names.contains(&String::from("CARGO_PKG_NAME")),
        "{names:?}"
    );
    options.inherit_env = true;
    let names = environment(&fake(python, &[], &options).unwrap());
    assert!(names.contains(&String::from("CARGO_PKG_NAME")), "{names:?}");
}

#[test]
fn stderr_goes_to_the_log_and_never_into_a_result() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-stderr");
    let log = dir.path().join("server.log");
    std::fs::write(&log, "kept\n").unwrap();
    let options = McpOptions {
        stderr: Stderr::Append(log.clone()),
        ..options()
    };
    let server = fake(python, &["--stderr", "starting up"], &options).unwrap();
    let value = call(&server, "stderr", "{}").unwrap();
    assert_eq!(
        text(&value),
        r#"{"content":[{"text":"wrote to stderr","type":"text"}]}"#
    );
    drop(server);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "kept\nstarting up\na line on stderr that must not be recorded\n"
    );
    // A log that cannot be opened is an error before anything starts.
    let missing = dir.path().join("no").join("such.log");
    let error = fake(
        python,
        &[],
        &McpOptions {
            stderr: Stderr::Append(missing.clone()),
            ..common::options()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&error, McpError::StderrLog { path, .. } if *path == missing),
        "{error:?}"
    );
}

#[test]
fn dropping_the_last_handle_reaps_the_server_even_one_that_ignores_its_stdin_closing() {
    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-reap");
    for (i, args) in [&[][..], &["--ignore-stdin-eof"][..]].iter().enumerate() {
        let pid_file = dir.path().join(format!("{i}.pid"));
        let pid_arg = pid_file.to_string_lossy().into_owned();
        let mut all = vec!["--pid-file", &pid_arg];
        all.extend(args.iter().copied());
        let server = fake(python, &all, &options()).unwrap();
        let tools = toolbox(&server);
        let pid = read_pid(&pid_file);
        assert_eq!(pid, server.process_id().unwrap());
        drop(server);
        // The tools hold the server too.
        assert!(process_exists(pid).unwrap_or(true));
        drop(tools);
        assert_ne!(
            process_exists(pid),
            Some(true),
            "server {pid} was not reaped"
        );
    }
}

fn names_set(python: &str, options: &McpOptions) -> McpServer {
    fake(python, &["--tools", "names"], options).unwrap()
}

#[test]
fn tools_are_named_safely_and_uniquely_and_refused_ones_are_skipped_with_the_reason() {
    let Some(python) = python() else { return };
    let first = names_set(python, &options());
    let trusted = McpOptions {
        trust_hints: true,
        ..options()
    };
    let second = names_set(python, &trusted);
    let mut toolbox = Toolbox::new();
    toolbox
        .register(
            FnTool::new(
                ToolSpec::new("titled-1", "already here", json(r#"{"type":"object"}"#)),
                |_: &Value| Ok(Value::Null),
            ),
            ToolOptions::new(),
        )
        .unwrap();
    let mut limits = BTreeMap::new();
    limits.insert(String::from("echo-1"), 2);
    let registration = register_tools(&[first, second], &mut toolbox, &limits).unwrap();
    let long = "x".repeat(70);
    let fs_read = provider_safe_name("fs.read").into_owned();
    let long_safe = provider_safe_name(&long).into_owned();
    assert_eq!(long_safe.len(), 57);
    let registered: Vec<(usize, &str, &str, bool)> = registration
        .tools
        .iter()
        .map(|t| (t.server, t.mcp_name.as_str(), t.name.as_str(), t.idempotent))
        .collect();
    assert_eq!(
        registered,
        [
            (0, "echo", "echo", false),
            (0, "fs.read", fs_read.as_str(), false),
            (0, "idem", "idem", false),
            (0, "ro", "ro", false),
            (0, "titled", "titled", false),
            (0, long.as_str(), long_safe.as_str(), false),
            (1, "echo", "echo-1", false),
            (1, "fs.read", format!("{fs_read}-1").as_str(), false),
            (1, "idem", "idem-1", true),
            (1, "ro", "ro-1", true),
            (1, "titled", "titled-1-2", false),
            (1, long.as_str(), format!("{long_safe}-1").as_str(), false),
        ]
    );
    let skipped: Vec<String> = registration.skipped.iter().map(|s| s.to_string()).collect();
    // A skipped tool's name is not taken: server 1's are refused under the same names.
    let per_server = |server: usize| {
        vec![
            format!("MCP server {server}: tool 'dup' skipped: the server lists more than one tool of this name"),
            format!("MCP server {server}: tool 'dup' skipped: the server lists more than one tool of this name"),
            format!(
                "MCP server {server}: tool 'look_ahead' skipped: tool 'look_ahead': schema refused at \
                 /properties/a/pattern: keyword 'pattern': 'a(?=b)' is refused: look-around '(?=' at \
                 position 1 has no linear-time meaning"
            ),
            format!("MCP server {server}: tool 'no_schema' skipped: the server gave no inputSchema"),
            format!(
                "MCP server {server}: tool 'string_root' skipped: tool 'string_root': the root \
                 schema's \"type\" is \"string\"; providers require a root schema with \"type\": \"object\""
            ),
        ]
    };
    let mut expected = per_server(0);
    expected.extend(per_server(1));
    assert_eq!(skipped, expected);
    let renamed: Vec<&str> = registration.renamed().map(|t| t.name.as_str()).collect();
    assert_eq!(renamed.len(), 8, "{renamed:?}");
    // What the toolbox shows a model, and what a call reaches.
    let manifest = toolbox.manifest();
    assert_eq!(manifest.len(), 13);
    assert_eq!(manifest.limit("echo-1"), Some(2));
    assert!(manifest.idempotent("ro-1") && !manifest.idempotent("ro"));
    let titled = manifest
        .specs()
        .iter()
        .find(|s| s.name == "titled")
        .unwrap();
    assert_eq!(titled.description, "Only a title");
    let echo = manifest
        .specs()
        .iter()
        .find(|s| s.name == "echo-1")
        .unwrap();
    assert_eq!(echo.description, "the echo tool");
    assert_eq!(
        text(&toolbox.call("echo-1", &json(r#"{"b":2}"#)).unwrap()),
        r#"{"content":[{"text":"{\"b\": 2}","type":"text"}],"structuredContent":{"b":2}}"#
    );
}

#[test]
fn a_server_whose_tools_cannot_be_listed_stops_registration_before_anything_is_registered() {
    let Some(python) = python() else { return };
    let fine = fake(python, &[], &options()).unwrap();
    let endless = fake(
        python,
        &["--endless"],
        &McpOptions {
            max_pages: 3,
            ..options()
        },
    )
    .unwrap();
    let mut toolbox = Toolbox::new();
    let error = register_tools(&[fine, endless], &mut toolbox, &BTreeMap::new()).unwrap_err();
    assert_eq!(
        error,
        RegisterToolsError::List {
            server: 1,
            error: McpError::TooManyPages(3)
        }
    );
    assert_eq!(
        error.to_string(),
        "could not list the tools of MCP server 1: the MCP server's tool list has more than 3 \
         pages (the page limit)"
    );
    assert!(toolbox.manifest().is_empty());
}

#[test]
fn calls_from_several_threads_share_one_server() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let server = server.clone();
            std::thread::spawn(move || call(&server, "echo", &format!(r#"{{"n":{n}}}"#)).unwrap())
        })
        .collect();
    for (n, thread) in threads.into_iter().enumerate() {
        let value = thread.join().unwrap();
        let mut expected = Object::new();
        expected.insert("n", Value::Number(n as f64));
        assert_eq!(
            value.as_object().unwrap().get("structuredContent"),
            Some(&Value::Object(expected))
        );
    }
}

#[test]
fn a_server_that_stops_reading_its_input_makes_requests_fail_busy_not_block() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        call_timeout: Duration::from_millis(5),
        ..options()
    };
    let server = fake(python, &["--deaf"], &options).unwrap();
    // More than the pipe holds: the writer thread blocks on the first one, then the
    // queue fills with requests and their cancellations, each request timing out.
    let arguments = json(&format!(r#"{{"pad":"{}"}}"#, "p".repeat(100 << 10)));
    let mut errors = Vec::new();
    for _ in 0..1000 {
        match server.call_tool("echo", &arguments) {
            Err(McpError::Timeout { .. }) => continue,
            other => {
                errors.push(other);
                break;
            }
        }
    }
    assert_eq!(errors, [Err(McpError::Busy(256))]);
    assert_eq!(
        errors[0].as_ref().unwrap_err().to_string(),
        "the MCP server is not reading its input (256 messages are waiting to be written to it)"
    );
}

#[test]
fn each_kind_of_line_that_is_not_an_answer_fails_the_waiting_call_saying_what_it_is() {
    let Some(python) = python() else { return };
    let server = fake(python, &[], &options()).unwrap();
    let not_message = "the MCP server wrote a line that is not a JSON-RPC message: ";
    let malformed = "the MCP server's answer to 'tools/call' is malformed: ";
    for (line, sentence) in [
        ("[1]", format!("{not_message}it is not a JSON object")),
        (
            r#"{"id":"ID","result":{}}"#,
            format!("{not_message}it has no \"jsonrpc\": \"2.0\""),
        ),
        (
            r#"{"jsonrpc":"2.0"}"#,
            format!("{not_message}it has neither a \"method\" nor an \"id\""),
        ),
        (
            r#"{"jsonrpc":"2.0","method":5}"#,
            format!("{not_message}its \"method\" is not a string"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null}"#,
            format!("{not_message}it has a null \"id\" and no \"error\""),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2}"#,
            format!(
                "{not_message}it is not JSON the parser accepts: duplicate object key at byte 24"
            ),
        ),
        // An error the server could not tie to a request fails the one waiting.
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            String::from("'tools/call' failed with JSON-RPC error -32700: Parse error"),
        ),
        // An answer to this very request, but not a well-formed one.
        (
            r#"{"jsonrpc":"2.0","id":"ID","result":{},"error":{"code":1,"message":"m"}}"#,
            format!("{malformed}it has both \"result\" and \"error\""),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"ID"}"#,
            format!("{malformed}it has neither \"result\" nor \"error\""),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"ID","error":{"code":1.5,"message":"m"}}"#,
            format!("{malformed}its \"error\" has no integer \"code\""),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"ID","error":{"code":1}}"#,
            format!("{malformed}its \"error\" has no string \"message\""),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"ID","error":[]}"#,
            format!("{malformed}its \"error\" is not an object"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"ID","result":{"content":5}}"#,
            format!("{malformed}its \"content\" is not an array"),
        ),
    ] {
        let arguments = json(&format!(r#"{{"line":{}}}"#, text(&Value::from(line))));
        let error = server.call_tool("say", &arguments).unwrap_err();
        assert_eq!(error.to_string(), sentence, "{line}");
    }
    // The real answers that followed each line found nobody waiting; the server goes
    // on. A blank line is skipped.
    let said = server.call_tool("say", &json(r#"{"line":""}"#)).unwrap();
    assert_eq!(
        text(&said.value),
        r#"{"content":[{"text":"said","type":"text"}]}"#
    );
}

#[test]
fn a_malformed_answer_to_initialize_or_an_error_fails_the_handshake_saying_why() {
    let Some(python) = python() else { return };
    let malformed = "the MCP server's answer to 'initialize' is malformed: ";
    for (result, why) in [
        ("[]", "it is not an object"),
        (
            r#"{"capabilities":{}}"#,
            "it has no string \"protocolVersion\"",
        ),
        (
            r#"{"protocolVersion":"2025-11-25"}"#,
            "it has no \"capabilities\" object",
        ),
        (
            r#"{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":"x"}"#,
            "its \"serverInfo\" is not an object",
        ),
        (
            r#"{"protocolVersion":"2025-11-25","capabilities":{},"instructions":1}"#,
            "its \"instructions\" is not a string",
        ),
    ] {
        let error = fake(python, &["--init-result", result], &options()).unwrap_err();
        assert_eq!(error.to_string(), format!("{malformed}{why}"), "{result}");
    }
    // Neither serverInfo nor instructions is required.
    let bare = fake(
        python,
        &[
            "--init-result",
            r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#,
        ],
        &options(),
    )
    .unwrap();
    assert_eq!((bare.server_info(), bare.instructions()), (None, None));
    assert!(!bare.has_tools());
    // A server that refuses the handshake naming the stateless revision is probed
    // again; one that then does not answer the probe either speaks neither era.
    let error = fake(python, &["--init-error"], &options()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the MCP server answered neither protocol era this client speaks: to the \
         2026-07-28 probe, 'server/discover' failed with JSON-RPC error -32601: Method not \
         found; to the handshake, 'initialize' failed with JSON-RPC error -32022: \
         Unsupported protocol version (data: \
         {\"requested\":\"2025-11-25\",\"supported\":[\"2026-07-28\"]})"
    );
}

/// MCP tools are registered shared, so the driver's parallel path runs them off its
/// thread, together with the turn's other calls: a turn whose first call (`block`, on
/// the server) waits on a FIFO that its second call (`release`, a tool here) writes.
/// Run one at a time the first call would wait for ever (here: its timeout) and the
/// second never start; with `parallel: 2` both run and the turn is recorded as both
/// succeeded. No clock: the FIFO's open and read are the only waits.
#[test]
fn mcp_tools_are_shared_and_a_parallel_run_runs_them_with_the_turns_other_calls() {
    use agentloop_core::agent::{Budgets, StopReason};
    use agentloop_core::driver::{self, RunOptions};
    use agentloop_core::model::{Reply, Scripted};

    let Some(python) = python() else { return };
    let dir = TempDir::new("mcp-parallel");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let options = McpOptions {
        // Only a broken parallel path waits for this.
        call_timeout: Duration::from_secs(30),
        ..options()
    };
    let server = fake(python, &[], &options).unwrap();
    let mut tools = toolbox(&server);
    assert!(tools.concurrent("block").is_some() && tools.concurrent("echo").is_some());
    let path = fifo.clone();
    let spec = ToolSpec::new("release", "writes the FIFO", json(r#"{"type":"object"}"#));
    tools
        .register(
            FnTool::new(spec, move |_: &Value| {
                // Opening for writing waits until `block` has opened it for reading.
                let mut writer = OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| agentloop_core::tools::ToolError::new(e.to_string()))?;
                writer
                    .write_all(b"released")
                    .map_err(|e| agentloop_core::tools::ToolError::new(e.to_string()))?;
                Ok(Value::from("written"))
            }),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    let block = format!(
        r#"{{"path":{}}}"#,
        text(&Value::from(fifo.to_str().unwrap()))
    );
    let mut transcript = Vec::new();
    let outcome = driver::run(
        "meet",
        Budgets::default(),
        &mut Scripted::new([
            Reply::new("")
                .with_call("block", json(&block))
                .with_call("release", json("{}")),
            Reply::new("done"),
        ]),
        &mut tools,
        &mut || false,
        &mut transcript,
        RunOptions { parallel: 2 },
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    let text = String::from_utf8(transcript).unwrap();
    let tools: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(r#""kind":"tool""#))
        .collect();
    assert_eq!(tools.len(), 2, "{text}");
    assert!(
        tools[0].contains(r#""ok":true"#) && tools[0].contains("read released"),
        "{text}"
    );
    assert!(tools[1].contains(r#""ok":true"#), "{text}");
}
