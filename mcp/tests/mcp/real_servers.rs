//! The client against real MCP servers nobody here wrote, installed by `.ci/run` from
//! the package registries:
//!
//! - `@modelcontextprotocol/server-filesystem` (npm, the reference filesystem server),
//!   under `$AGENTLOOP_MCP_SERVERS/npm` (default `<workspace>/target/mcp-servers/npm`),
//!   run with `node`;
//! - `mcp-server-time` (PyPI, the reference time server, on the Python SDK), run with
//!   `python3 -m mcp_server_time`.
//!
//! Each test skips with a message when `node`, `python3` or the package is missing,
//! and fails instead when `CI` is set.

use crate::common;

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentloop_core::agent::{Budgets, StopReason};
use agentloop_core::json::Value;
use agentloop_core::model::{Reply, Scripted};
use agentloop_core::tools::Toolbox;
use agentloop_core::{driver, verify};
use agentloop_mcp::{register_tools, McpError, McpOptions, McpServer, Registration};
use agentloop_tests::{filesystem_server, hex, sha256, skip_or_fail, TempDir};
use common::{json, kill, mkfifo, options, text};

/// The filesystem server allowed to work in `dir`.
fn filesystem(entry: &Path, dir: &Path, options: &McpOptions) -> McpServer {
    McpServer::spawn("node", &[entry.as_os_str(), dir.as_os_str()], options).unwrap()
}

/// `python3` if the time server is installed, or `None` after reporting the skip.
fn time_server() -> Option<&'static str> {
    let installed = Command::new("python3")
        .args(["-c", "import mcp_server_time"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !installed {
        skip_or_fail(
            "skipped: python3 with the PyPI package mcp-server-time is needed; install it as \
             .ci/run does: python3 -m pip install mcp-server-time==2026.10.19",
        );
        return None;
    }
    Some("python3")
}

fn time(python: &str, options: &McpOptions) -> McpServer {
    McpServer::spawn(
        python,
        &["-m", "mcp_server_time", "--local-timezone", "UTC"],
        options,
    )
    .unwrap()
}

/// A scratch directory by its real path (the filesystem server resolves symlinks).
fn scratch(label: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(label);
    let real = dir.path().canonicalize().unwrap();
    (dir, real)
}

fn register(servers: &[McpServer]) -> (Toolbox, Registration) {
    let mut toolbox = Toolbox::new();
    let registration = register_tools(servers, &mut toolbox, &BTreeMap::new()).unwrap();
    (toolbox, registration)
}

fn path_arguments(path: &Path, extra: &str) -> Value {
    json(&format!(
        r#"{{"path":{}{extra}}}"#,
        text(&Value::from(path.to_str().unwrap()))
    ))
}

#[test]
fn filesystem_server_tools_are_all_registered_under_their_own_names() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let (_dir, root) = scratch("mcp-fs-list");
    let server = filesystem(&entry, &root, &options());
    assert_eq!(server.protocol_version(), "2025-11-25");
    let (toolbox, registration) = register(std::slice::from_ref(&server));
    // A refused schema would be listed here with the keyword and where it is.
    assert_eq!(registration.skipped, []);
    assert_eq!(registration.renamed().count(), 0);
    let names: Vec<&str> = toolbox.manifest().names().collect();
    assert_eq!(names.len(), 14, "{names:?}");
    for expected in [
        "create_directory",
        "list_directory",
        "read_media_file",
        "read_text_file",
        "write_file",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    // Not idempotent unless the server's hints are trusted; then its read-only tools are.
    assert!(!toolbox.manifest().idempotent("read_text_file"));
    let trusting = filesystem(
        &entry,
        &root,
        &McpOptions {
            trust_hints: true,
            ..options()
        },
    );
    let (toolbox, _) = register(&[trusting]);
    // read-only; idempotentHint true (write_file overwrites); idempotentHint false.
    assert!(toolbox.manifest().idempotent("read_text_file"));
    assert!(toolbox.manifest().idempotent("write_file"));
    assert!(!toolbox.manifest().idempotent("edit_file"));
    assert!(!toolbox.manifest().idempotent("move_file"));
}

#[test]
fn filesystem_server_writes_reads_back_lists_and_fails_on_a_missing_file() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let (_dir, root) = scratch("mcp-fs-calls");
    let server = filesystem(&entry, &root, &options());
    let (tools, _) = register(&[server]);
    let file = root.join("notes.txt");
    let wrote = tools
        .call(
            "write_file",
            &path_arguments(&file, r#","content":"first line\nsecond line\n""#),
        )
        .unwrap();
    let said = format!("Successfully wrote to {}", file.display());
    assert_eq!(
        text(&wrote),
        format!(
            r#"{{"content":[{{"text":{0},"type":"text"}}],"structuredContent":{{"content":{0}}}}}"#,
            text(&Value::from(said.as_str()))
        )
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "first line\nsecond line\n"
    );
    let read = tools
        .call("read_text_file", &path_arguments(&file, ""))
        .unwrap();
    assert_eq!(
        text(&read),
        r#"{"content":[{"text":"first line\nsecond line\n","type":"text"}],"structuredContent":{"content":"first line\nsecond line\n"}}"#
    );
    let listed = tools
        .call("list_directory", &path_arguments(&root, ""))
        .unwrap();
    assert_eq!(
        text(&listed),
        r#"{"content":[{"text":"[FILE] notes.txt","type":"text"}],"structuredContent":{"content":"[FILE] notes.txt"}}"#
    );
    // A missing file: the server's own words, as an ok:false sentence.
    let missing = root.join("missing.txt");
    let error = tools
        .call("read_text_file", &path_arguments(&missing, ""))
        .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the server reported an error: ENOENT: no such file or directory, open '{}'",
            missing.display()
        )
    );
}

#[test]
fn filesystem_server_media_is_recorded_by_type_size_and_hash() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let (_dir, root) = scratch("mcp-fs-media");
    // Not a real PNG: the server goes by the extension.
    let image: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    std::fs::write(root.join("picture.png"), &image).unwrap();
    std::fs::write(root.join("data.bin"), b"hello").unwrap();
    let server = filesystem(&entry, &root, &options());
    let read = |name: &str| {
        server
            .call_tool("read_media_file", &path_arguments(&root.join(name), ""))
            .unwrap()
    };
    let picture = read("picture.png");
    // The value docs/mcp.md shows.
    assert_eq!(
        hex(&sha256(&image)),
        "a8af099bf2e878609558dbf69d8f88f4a31040a8cf84b549a0cfa912f12ffc3f"
    );
    assert!(!picture.is_error);
    let content = picture.value.as_object().unwrap().get("content").unwrap();
    assert_eq!(
        text(content),
        format!(
            r#"[{{"bytes":1000,"mimeType":"image/png","sha256":"{}","type":"image"}}]"#,
            hex(&sha256(&image))
        )
    );
    let blob = read("data.bin");
    let content = blob.value.as_object().unwrap().get("content").unwrap();
    let uri = format!("file://{}", root.join("data.bin").display());
    assert_eq!(
        text(content),
        format!(
            r#"[{{"bytes":5,"mimeType":"application/octet-stream","sha256":"{}","type":"resource","uri":{}}}]"#,
            hex(&sha256(b"hello")),
            text(&Value::from(uri.as_str()))
        )
    );
}

#[test]
fn filesystem_server_killed_mid_call_fails_the_call_and_every_later_one_at_once() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let (_dir, root) = scratch("mcp-fs-kill");
    let fifo = root.join("pipe");
    mkfifo(&fifo);
    let options = McpOptions {
        // A later call that waited for an answer would fail with a timeout.
        call_timeout: Duration::from_secs(20),
        ..options()
    };
    let server = filesystem(&entry, &root, &options);
    let (tools, _) = register(std::slice::from_ref(&server));
    let calling = server.clone();
    let arguments = path_arguments(&fifo, "");
    let running = std::thread::spawn(move || calling.call_tool("read_text_file", &arguments));
    // Returns once the server has opened the FIFO to read it: the call is running.
    let writer = OpenOptions::new().write(true).open(&fifo).unwrap();
    kill(server.process_id().unwrap());
    let sentence = "the MCP server exited (signal: 9 (SIGKILL)); it is not restarted, so every \
                    call to its tools fails";
    assert_eq!(running.join().unwrap().unwrap_err().to_string(), sentence);
    drop(writer);
    let later = tools
        .call("list_directory", &path_arguments(&root, ""))
        .unwrap_err();
    assert_eq!(later.message(), sentence);
}

/// A loop run whose model calls the filesystem server's tools: write, read back,
/// list, read a missing file.
fn filesystem_run(entry: &Path, root: &Path) -> (Vec<u8>, StopReason) {
    // What the previous run left.
    let _ = std::fs::remove_file(root.join("out.txt"));
    let server = filesystem(entry, root, &options());
    let (mut tools, registration) = register(&[server]);
    assert_eq!(registration.skipped, []);
    let file = root.join("out.txt");
    let mut model = Scripted::new([
        Reply::new("writing").with_call(
            "write_file",
            path_arguments(&file, r#","content":"forty-two""#),
        ),
        Reply::new("checking")
            .with_call("read_text_file", path_arguments(&file, ""))
            .with_call("list_directory", path_arguments(root, ""))
            .with_call("read_text_file", path_arguments(&root.join("gone.txt"), "")),
        Reply::new("done"),
    ]);
    let mut transcript = Vec::new();
    let outcome = driver::run(
        "write 42 to a file and read it back",
        Budgets::default(),
        &mut model,
        &mut tools,
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    (transcript, outcome.reason)
}

#[test]
fn a_loop_run_on_the_filesystem_server_records_each_result_and_reruns_byte_identically() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let (_dir, root) = scratch("mcp-fs-run");
    let (first, reason) = filesystem_run(&entry, &root);
    assert_eq!(reason, StopReason::NoToolCalls);
    let report = verify::verify_bytes(&first, &verify::Options::default());
    assert!(report.ok(), "{report:?}");
    let lines: Vec<Value> = first
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| agentloop_core::json::parse(l).unwrap())
        .collect();
    let tool_records: Vec<String> = lines
        .iter()
        .filter(|r| r.as_object().unwrap().get("kind") == Some(&Value::from("tool")))
        .map(|r| text(r.as_object().unwrap().get("payload").unwrap()))
        .collect();
    assert_eq!(tool_records.len(), 4);
    assert!(
        tool_records[0].contains(r#""ok":true"#),
        "{}",
        tool_records[0]
    );
    assert!(
        tool_records[1].contains(r#""value":{"content":[{"text":"forty-two","type":"text"}]"#),
        "{}",
        tool_records[1]
    );
    assert!(
        tool_records[2].contains("[FILE] out.txt"),
        "{}",
        tool_records[2]
    );
    let gone = root.join("gone.txt");
    assert!(
        tool_records[3].contains(&format!(
            r#""error":"tool 'read_text_file' failed: the server reported an error: ENOENT: no such file or directory, open '{}'""#,
            gone.display()
        )),
        "{}",
        tool_records[3]
    );
    assert!(tool_records[3].contains(r#""ok":false"#));
    // The same run again, in the same place, writes the same bytes.
    let (second, _) = filesystem_run(&entry, &root);
    assert_eq!(
        String::from_utf8_lossy(&second),
        String::from_utf8_lossy(&first)
    );
}

#[test]
fn time_server_tools_are_registered_and_called_successfully_and_unsuccessfully() {
    let Some(python) = time_server() else { return };
    let trusting = McpOptions {
        trust_hints: true,
        ..options()
    };
    let server = time(python, &trusting);
    // On the Python SDK 2.x, which speaks both eras: it answers the probe, and the
    // stateless revision is spoken, the server's identity taken from the discovery.
    assert_eq!(server.protocol_version(), "2026-07-28");
    assert_eq!(
        server
            .server_info()
            .map(|info| text(&Value::Object(info.clone()))),
        Some(String::from(
            r#"{"name":"mcp-time","version":"2026.10.19"}"#
        ))
    );
    let (tools, registration) = register(std::slice::from_ref(&server));
    assert_eq!(registration.skipped, []);
    let names: Vec<&str> = tools.manifest().names().collect();
    assert_eq!(names, ["convert_time", "get_current_time"]);
    // Both are declared read-only, and trusted here.
    assert!(tools.manifest().idempotent("convert_time"));
    // UTC and Tokyo have no daylight saving time: the difference is always 9 hours.
    let converted = tools
        .call(
            "convert_time",
            &json(r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#),
        )
        .unwrap();
    let structured = converted
        .as_object()
        .unwrap()
        .get("structuredContent")
        .unwrap()
        .as_object()
        .unwrap();
    assert_eq!(
        structured.get("time_difference"),
        Some(&Value::from("+9.0h"))
    );
    let target = structured.get("target").unwrap().as_object().unwrap();
    assert!(
        target
            .get("datetime")
            .and_then(Value::as_str)
            .is_some_and(|t| t.ends_with("T21:00:00+09:00")),
        "{target:?}"
    );
    // A tool error (isError) and a protocol error (unknown tool: JSON-RPC -32602).
    let error = tools
        .call(
            "get_current_time",
            &json(r#"{"timezone":"Nowhere/Atlantis"}"#),
        )
        .unwrap_err();
    assert_eq!(
        error.message(),
        "the server reported an error: Error executing tool get_current_time: Invalid \
         timezone: 'No time zone found with key Nowhere/Atlantis'"
    );
    let unknown = server.call_tool("no_such_tool", &json("{}")).unwrap_err();
    assert_eq!(
        unknown,
        McpError::Rpc {
            method: String::from("tools/call"),
            code: -32602,
            message: String::from("Unknown tool: no_such_tool"),
            data: None,
        }
    );
}

#[test]
fn time_server_killed_fails_every_later_call_at_once() {
    let Some(python) = time_server() else { return };
    let server = time(
        python,
        &McpOptions {
            // A call that waited for an answer would fail with a timeout.
            call_timeout: Duration::from_secs(20),
            ..options()
        },
    );
    let (tools, _) = register(std::slice::from_ref(&server));
    kill(server.process_id().unwrap());
    let sentence = "the MCP server exited (signal: 9 (SIGKILL)); it is not restarted, so every \
                    call to its tools fails";
    for _ in 0..2 {
        let error = tools
            .call("get_current_time", &json(r#"{"timezone":"UTC"}"#))
            .unwrap_err();
        assert_eq!(error.message(), sentence);
    }
}

#[test]
fn both_real_servers_share_one_toolbox() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    let Some(python) = time_server() else { return };
    let (_dir, root) = scratch("mcp-both");
    let servers = [
        filesystem(&entry, &root, &options()),
        time(python, &options()),
    ];
    let (tools, registration) = register(&servers);
    assert_eq!(registration.skipped, []);
    assert_eq!(registration.renamed().count(), 0);
    assert!(registration
        .tools
        .iter()
        .any(|t| t.server == 1 && t.name == "convert_time"));
    let listed = tools
        .call("list_directory", &path_arguments(&root, ""))
        .unwrap();
    assert_eq!(
        text(&listed),
        r#"{"content":[{"text":"","type":"text"}],"structuredContent":{"content":""}}"#
    );
    assert!(tools
        .call("get_current_time", &json(r#"{"timezone":"UTC"}"#))
        .is_ok());
}
