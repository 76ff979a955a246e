//! `agentloop run --mcp` and `agentloop tools`: the reference filesystem server (npm)
//! driven by a scripted model through the stand-in provider, end to end for both
//! providers; Ctrl-C while an MCP tool runs (a fake server's tool that blocks on a
//! FIFO): the first lets it finish, the second ends the run at once, and `--resume`
//! finishes either; renamed and skipped tools, the tools map; a result checked against
//! its tool's outputSchema. Tests skip with a
//! message when `node`, the server or `python3` is missing, and fail instead in CI.

use crate::common;

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Child;
use std::sync::mpsc::{self, Receiver};
use std::thread;

use agentloop_core::json::{self, Value};
use agentloop_standin::{canned, Exchange, Server};
use agentloop_tests::{filesystem_server, have_program, hex, sha256, skip_or_fail, workspace_root};
use common::runs::*;
use common::{member, Run, Scratch};

/// `python3` with the fake server's script, or `None` after reporting the skip.
pub(crate) fn fake_server() -> Option<String> {
    if !have_program("python3") {
        skip_or_fail("skipped: python3 is not installed (the fake MCP server is a Python script)");
        return None;
    }
    let script = workspace_root().join("mcp/tests/servers/fake_server.py");
    Some(format!("python3 '{}'", script.display()))
}

/// A JSON string literal.
fn quote(text: &str) -> String {
    canonical(&Value::from(text))
}

/// A turn calling `calls` (name, arguments as JSON text) in the provider's shape.
fn calls(provider: Provider, calls: &[(&str, &str)]) -> Exchange {
    match provider {
        OpenAi => canned::openai::tool_calls(calls),
        Anthropic => canned::anthropic::tool_use(None, calls),
    }
}

/// The `tool` records' payloads, as canonical JSON.
fn tool_payloads(bytes: &[u8]) -> Vec<String> {
    records(bytes)
        .iter()
        .filter(|r| member(r, "kind").as_str() == Some("tool"))
        .map(|r| canonical(member(r, "payload")))
        .collect()
}

/// A run on the filesystem server rooted at `root`, the transcript `out` in `dir`:
/// write a file, read it back, list the folder, read a missing file, answer.
fn filesystem_run(
    provider: Provider,
    entry: &Path,
    dir: &Path,
    root: &Path,
    out: &str,
) -> (Run, Vec<agentloop_standin::Request>) {
    let _ = fs::remove_file(root.join("out.txt"));
    let file = root.join("out.txt");
    let path = |p: &Path| format!(r#"{{"path":{}}}"#, quote(p.to_str().unwrap()));
    let write = format!(
        r#"{{"content":"forty-two","path":{}}}"#,
        quote(file.to_str().unwrap())
    );
    let server = Server::start([
        calls(provider, &[("write_file", &write)]),
        calls(
            provider,
            &[
                ("read_text_file", &path(&file)),
                ("list_directory", &path(root)),
                ("read_text_file", &path(&root.join("gone.txt"))),
            ],
        ),
        provider.answer("The file holds forty-two."),
    ])
    .unwrap();
    let mcp = format!("node '{}' '{}'", entry.display(), root.display());
    let url = format!("{}/v1", server.url());
    let run = agentloop(
        dir,
        &[
            "run",
            "--task",
            "write 42 to a file and read it back",
            "--model",
            &provider.model(),
            "--base-url",
            &url,
            "--mcp",
            &mcp,
            "--out",
            out,
        ],
        &[],
    );
    (run, server.requests())
}

/// The acceptance run: the stand-in scripted to call the filesystem server's tools —
/// write a file, read it back, list the folder, ask for a missing file — for both
/// providers: a transcript that verifies and passes the loop audit, each result as the
/// server gave it (the missing file as `ok:false` with the server's message), an export
/// equal to what the last request sent, valid in the provider's shape, and the same
/// bytes when the run is made again in the same place.
#[test]
fn a_run_on_the_filesystem_server_verifies_exports_what_was_sent_and_reruns_identically() {
    let Some(entry) = filesystem_server() else {
        return;
    };
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("fs-{}", provider.name()));
        let root = scratch.dir().join("root");
        fs::create_dir_all(&root).unwrap();
        // The server resolves symbolic links: name the folder as it will.
        let root = root.canonicalize().unwrap();
        let (first, requests) =
            filesystem_run(provider, &entry, scratch.dir(), &root, "first.jsonl");
        assert_eq!(first.code, 0, "{provider:?}: {}", first.stderr);
        let bytes = scratch.read("first.jsonl");
        assert_eq!(
            kinds(&bytes),
            [
                "task",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "tool",
                "tool",
                "assistant",
                "stop"
            ]
        );
        assert_verifies_as_a_loop(&scratch, "first.jsonl");
        let tools = tool_payloads(&bytes);
        assert!(
            tools[0].contains(r#""name":"write_file","ok":true"#),
            "{}",
            tools[0]
        );
        assert!(
            tools[1].contains(r#""value":{"content":[{"text":"forty-two","type":"text"}]"#),
            "{}",
            tools[1]
        );
        assert!(tools[2].contains("[FILE] out.txt"), "{}", tools[2]);
        let gone = root.join("gone.txt");
        assert!(
            tools[3].contains(&format!(
                r#""error":"tool 'read_text_file' failed: the server reported an error: ENOENT: no such file or directory, open '{}'""#,
                gone.display()
            )),
            "{}",
            tools[3]
        );
        assert_eq!(
            fs::read_to_string(root.join("out.txt")).unwrap(),
            "forty-two"
        );

        // The export is what the last request sent, then the answer.
        let export = agentloop(
            scratch.dir(),
            &["export", "--format", provider.name(), "first.jsonl"],
            &[],
        );
        assert_eq!(export.code, 0, "{}", export.stderr);
        let Value::Array(mut history) = json::parse(export.stdout.trim_end().as_bytes()).unwrap()
        else {
            panic!("{}", export.stdout)
        };
        history.pop();
        assert_eq!(
            canonical(&Value::Array(history)),
            canonical(&Value::Array(sent_messages(requests.last().unwrap())))
        );
        // Every request offered the server's tools under their own names.
        let offered = json::parse(&requests[0].body).unwrap();
        assert!(canonical(member(&offered, "tools")).contains(r#""read_text_file""#));

        // The task record's setup says where each tool came from.
        let task = member(&records(&bytes)[0], "payload").clone();
        let map = member(&task, "setup").clone();
        let Value::Array(tools) = member(&map, "tools") else {
            panic!("{map:?}")
        };
        let write = tools
            .iter()
            .find(|t| member(t, "name").as_str() == Some("write_file"))
            .unwrap();
        for (key, value) in [
            ("idempotent", "false"),
            ("mcp_name", r#""write_file""#),
            ("server", "0"),
            ("source", r#""mcp""#),
        ] {
            assert_eq!(canonical(member(write, key)), value, "{key}");
        }
        // As offered: its description and schema too.
        assert!(member(write, "description").as_str().is_some());
        assert!(canonical(member(write, "schema")).contains(r#""path""#));

        // Again, in the same place: the same bytes.
        let (second, _) = filesystem_run(provider, &entry, scratch.dir(), &root, "second.jsonl");
        assert_eq!(second.code, 0, "{}", second.stderr);
        assert_eq!(
            but_the_endpoint(&scratch.read("second.jsonl")),
            but_the_endpoint(&bytes)
        );
    }
}

/// The lines of a child's stderr, as they come.
fn stderr_lines(child: &mut Child) -> Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Waits for a line of `lines` starting with `prefix`, keeping those read in `seen`;
/// fails if the child's stderr ends first.
fn wait_for_line(lines: &Receiver<String>, prefix: &str, seen: &mut Vec<String>) {
    loop {
        let line = lines.recv().unwrap_or_else(|_| {
            panic!("stderr ended before a line starting {prefix:?}: {seen:#?}")
        });
        let found = line.starts_with(prefix);
        seen.push(line);
        if found {
            return;
        }
    }
}

/// Opens the FIFO at `path` for writing: returns once the server has opened it for
/// reading, i.e. once the tool call is running. Fails if the child ends first.
fn open_fifo_when_read(path: &Path, child: &mut Child) -> fs::File {
    let (send, receive) = mpsc::channel();
    let fifo = path.to_path_buf();
    thread::spawn(move || {
        let _ = send.send(OpenOptions::new().write(true).open(fifo));
    });
    loop {
        if let Ok(opened) = receive.try_recv() {
            return opened.unwrap();
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before the tool opened its FIFO");
        }
        thread::sleep(std::time::Duration::from_millis(5));
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// A run whose model calls the fake server's `block` tool (see [`block_call`]), started
/// in the background with its stderr piped.
fn blocking_run(scratch: &Scratch, fake: &str, server: &Server) -> Child {
    let url = format!("{}/v1", server.url());
    let mut command = command(
        scratch.dir(),
        &[
            "run",
            "--task",
            "wait for the pipe",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--mcp",
            fake,
            "--mcp-timeout",
            "30",
            "--out",
            "t.jsonl",
        ],
        &[],
    );
    command.spawn().unwrap()
}

/// The answer that calls `block` on the FIFO.
fn block_call(fifo: &Path) -> Exchange {
    calls(
        OpenAi,
        &[(
            "block",
            &format!(r#"{{"path":{}}}"#, quote(fifo.to_str().unwrap())),
        )],
    )
}

/// Ctrl-C while an MCP tool runs: the notice is said, the tool is let finish and its
/// result recorded, then the run stops as `cancelled` (exit 130); `--resume` finishes
/// the run.
#[test]
fn sigint_during_a_tool_call_lets_it_finish_then_cancels_and_resume_finishes() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("sigint-tool");
    let fifo = scratch.path("pipe");
    mkfifo(&fifo);
    let server = Server::start([block_call(&fifo)]).unwrap();
    let mut child = blocking_run(&scratch, &fake, &server);
    let lines = stderr_lines(&mut child);
    let mut writer = open_fifo_when_read(&fifo, &mut child);
    interrupt(&child);
    let mut seen = Vec::new();
    wait_for_line(&lines, "agentloop: interrupted: ", &mut seen);
    // Only now does the tool get its input and return.
    writer.write_all(b"data").unwrap();
    drop(writer);
    let status = child.wait().unwrap();
    seen.extend(lines.iter());
    assert_eq!(status.code(), Some(130), "{seen:#?}");
    let bytes = scratch.read("t.jsonl");
    assert_eq!(kinds(&bytes), ["task", "assistant", "tool", "stop"]);
    assert!(
        tool_payloads(&bytes)[0]
            .contains(r#""ok":true,"value":{"content":[{"text":"read data","type":"text"}]}"#),
        "{:?}",
        tool_payloads(&bytes)
    );
    assert_eq!(
        member(&last_payload(&bytes), "reason").as_str(),
        Some("cancelled")
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
    drop(server);

    let server = Server::start([OpenAi.answer("done")]).unwrap();
    let resume = run_resume(&scratch, "openai:m", &server, &["--mcp", &fake]);
    assert_eq!(resume.code, 0, "{}", resume.stderr);
    assert_eq!(
        kinds(&scratch.read("t.jsonl")),
        [
            "task",
            "assistant",
            "tool",
            "stop",
            "resume",
            "assistant",
            "stop"
        ]
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// A second Ctrl-C while the MCP tool still runs ends the process at once (exit 130,
/// no record for the call, no stop); `--resume` records the call as result lost — an
/// MCP tool is not idempotent, it may have taken effect — and the run goes on. (Were
/// the second Ctrl-C not to end it, the tool would time out after 30 s and the run
/// would write its failure and a stop, which the test refuses.)
#[test]
fn a_second_sigint_during_a_tool_call_ends_at_once_and_resume_records_the_result_lost() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("sigint-tool-twice");
    let fifo = scratch.path("pipe");
    mkfifo(&fifo);
    let server = Server::start([block_call(&fifo)]).unwrap();
    let mut child = blocking_run(&scratch, &fake, &server);
    let lines = stderr_lines(&mut child);
    let writer = open_fifo_when_read(&fifo, &mut child);
    interrupt(&child);
    let mut seen = Vec::new();
    wait_for_line(&lines, "agentloop: interrupted: ", &mut seen);
    interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen:#?}");
    // The tool is still blocked: only the process's end stopped the run.
    drop(writer);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(kinds(&bytes), ["task", "assistant"]);
    drop(server);

    let server = Server::start([OpenAi.answer("it may have run")]).unwrap();
    let resume = run_resume(&scratch, "openai:m", &server, &["--mcp", &fake]);
    assert_eq!(resume.code, 0, "{}", resume.stderr);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(
        kinds(&bytes),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert!(
        tool_payloads(&bytes)[0]
            .contains("result lost: the run was interrupted while tool 'block' was running"),
        "{:?}",
        tool_payloads(&bytes)
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// Tools whose names clash or that providers would refuse are renamed, the others
/// skipped with a warning; the start line says which is which, the tools map records
/// it, and a resumed run must offer the tools under the same names.
#[test]
fn renamed_and_skipped_tools_are_said_and_recorded_and_resume_holds_to_the_names() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("names");
    let names = format!("{fake} --tools names");
    let server = Server::start([
        calls(OpenAi, &[("echo-0", r#"{"x":1}"#)]),
        OpenAi.answer("ok"),
    ])
    .unwrap();
    let url = format!("{}/v1", server.url());
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--demo-tools",
            "--mcp",
            &names,
            "--tool-limit",
            "echo-0=1",
            "--out",
            "t.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = run.stderr.lines().find(|l| l.starts_with("run: ")).unwrap();
    assert!(first.contains("tools add, echo, echo-0 (MCP server 0's \"echo\"), fail, fs_read-4074bc02575511e2 (MCP server 0's \"fs.read\"), greet, idem, ro, titled, "), "{first}");
    for skipped in ["look_ahead", "no_schema", "string_root", "dup"] {
        assert!(
            run.stderr.contains(&format!(
                "agentloop: warning: MCP server 0: tool '{skipped}' skipped: "
            )),
            "{skipped}: {}",
            run.stderr
        );
    }
    // The call went to the server's `echo`, under the name the model was offered.
    let payloads = tool_payloads(&scratch.read("t.jsonl"));
    assert!(
        payloads[0].contains(r#""name":"echo-0","ok":true"#),
        "{payloads:?}"
    );
    assert!(
        payloads[0].contains(r#""structuredContent":{"x":1}"#),
        "{payloads:?}"
    );
    // The limit was recorded under that name.
    let task = member(&records(&scratch.read("t.jsonl"))[0], "payload").clone();
    assert_eq!(
        canonical(member(member(&task, "budgets"), "tool_limits")),
        r#"{"echo-0":1}"#
    );

    // The task record's setup says where each tool came from; no side file is written.
    let setup = member(&task, "setup");
    let tools = canonical(member(setup, "tools"));
    assert!(tools.starts_with(r#"[{"description":"Adds two integers a and b; returns {\"sum\": a + b}.","idempotent":true,"name":"add","schema":"#), "{tools}");
    assert!(tools.contains(r#"{"description":"the echo tool","idempotent":false,"mcp_name":"echo","name":"echo-0","schema":{"type":"object"},"server":0,"source":"mcp"}"#), "{tools}");
    let Value::Array(servers) = member(setup, "servers") else {
        panic!("{setup:?}")
    };
    let server0 = canonical(&servers[0]);
    assert!(
        server0.starts_with(r#"{"command_sha256":""#) && !server0.contains("python3"),
        "{server0}"
    );
    assert!(!scratch.path("t.jsonl.tools.json").exists());

    // Resumed without the demo tools, the server's echo would be `echo`, and the
    // recorded limit names no tool: refused.
    let before = scratch.read("t.jsonl");
    let refused = run_resume(&scratch, "openai:m", &server, &["--mcp", &names]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("agentloop: a limit is set for the tool \"echo-0\" (by --tool-limit, or a resumed run's task record), but no tool of that name is offered; the tools are echo, fs_read-"), "{}", refused.stderr);
    // With a second server, the names are not those the run began with: refused.
    let twice = ["--demo-tools", "--mcp", &names, "--mcp", &names];
    let refused = run_resume(&scratch, "openai:m", &server, &twice);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("agentloop: t.jsonl: this run's setup differs from the transcript's: the number of MCP servers: 1 against 2; "), "{}", refused.stderr);
    assert_eq!(scratch.read("t.jsonl"), before);
    // The same tools: the run goes on.
    drop(server);
    let server = Server::start([OpenAi.answer("again")]).unwrap();
    let resumed = run_resume(
        &scratch,
        "openai:m",
        &server,
        &["--demo-tools", "--mcp", &names],
    );
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// `tools` prints the manifest a run with the same flags offers, in each format, as the
/// library builds it from the same registration.
#[test]
fn tools_prints_the_manifest_a_run_offers() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("tools");
    let names = format!("{fake} --tools names");
    // The same registration, made here with the library.
    let script = workspace_root().join("mcp/tests/servers/fake_server.py");
    let server = agentloop_mcp::McpServer::spawn(
        "python3",
        &[script.to_str().unwrap(), "--tools", "names"],
        &agentloop_mcp::McpOptions::default(),
    )
    .unwrap();
    let mut toolbox = agentloop_core::demo::toolbox().unwrap();
    agentloop_mcp::register_tools(&[server], &mut toolbox, &BTreeMap::new()).unwrap();
    let specs = toolbox.manifest().specs();
    for (format, expected) in [
        (
            "openai",
            agentloop_core::provider::Provider::OpenAi.tools(specs),
        ),
        (
            "anthropic",
            agentloop_core::provider::Provider::Anthropic.tools(specs),
        ),
        ("mcp", agentloop_core::export::mcp_tools(specs)),
    ] {
        let run = agentloop(
            scratch.dir(),
            &["tools", "--format", format, "--demo-tools", "--mcp", &names],
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            run.stdout,
            format!("{}\n", canonical(&expected)),
            "{format}"
        );
        assert!(run.stderr.contains("agentloop: warning: MCP server 0: tool 'no_schema' skipped: the server gave no inputSchema"), "{}", run.stderr);
    }
    // A server that cannot be started: exit 2, naming it.
    let run = agentloop(
        scratch.dir(),
        &[
            "tools",
            "--format",
            "mcp",
            "--mcp",
            "agentloop-no-such-program x",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "agentloop: MCP server 0 (--mcp \"agentloop-no-such-program x\"): could not start the MCP server 'agentloop-no-such-program': No such file or directory (os error 2)\n"
    );
    // A run with the same server refuses before it creates its transcript.
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--mcp",
            "agentloop-no-such-program",
            "--out",
            "t.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(!scratch.path("t.jsonl").exists());
}

/// The README's MCP example: its command line is shown, and its script drives the
/// filesystem server through a run that writes, reads back, lists and fails on the
/// missing file (the script's folder moved to a scratch one).
#[test]
fn the_readme_mcp_example_runs_its_script_on_the_filesystem_server() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let shown = "target/debug/agentloop run --model openai:gpt-4.1-mini --base-url \"$(cat url-fs.txt)/v1\" \\\n    --mcp 'npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/agentloop-example' \\\n    --task \"write 42 to a file and read it back\" --out run-fs.jsonl";
    assert!(
        readme.contains(shown),
        "the README no longer shows: {shown}"
    );
    assert!(readme.contains("target/debug/agentloop-standin --exit-when-done docs/examples/standin-filesystem.json requests-fs/ > url-fs.txt &"));
    let Some(entry) = filesystem_server() else {
        return;
    };
    let scratch = Scratch::new("readme-fs");
    let root = scratch.dir().join("agentloop-example");
    fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    let script = fs::read_to_string(workspace_root().join("docs/examples/standin-filesystem.json"))
        .unwrap()
        .replace("/tmp/agentloop-example", root.to_str().unwrap());
    let server = Server::start(agentloop_standin::script::parse(&script).unwrap()).unwrap();
    let url = format!("{}/v1", server.url());
    let mcp = format!("node '{}' '{}'", entry.display(), root.display());
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--model",
            "openai:gpt-4.1-mini",
            "--base-url",
            &url,
            "--mcp",
            &mcp,
            "--task",
            "write 42 to a file and read it back",
            "--out",
            "run-fs.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bytes = scratch.read("run-fs.jsonl");
    let oks: Vec<bool> = tool_payloads(&bytes)
        .iter()
        .map(|p| p.contains(r#""ok":true"#))
        .collect();
    assert_eq!(oks, [true, true, true, false]);
    assert!(run.stderr.contains("seq 6 turn 2: read_text_file failed: \"tool 'read_text_file' failed: the server reported an error: ENOENT: no such file or directory"), "{}", run.stderr);
    assert!(scratch.path("run-fs.jsonl.mcp.log").exists());
    // The setup says where the tools came from; no side file is written.
    assert!(!scratch.path("run-fs.jsonl.tools.json").exists());
    let task = member(&records(&bytes)[0], "payload").clone();
    assert!(canonical(member(&task, "setup")).contains(r#""mcp_name":"write_file""#));
    assert_verifies_as_a_loop(&scratch, "run-fs.jsonl");
    // Each request the provider received is the one its assistant record proves, and the
    // transcript alone rebuilds every one of them.
    let received: Vec<String> = server
        .requests()
        .iter()
        .map(|r| hex(&sha256(&r.body)))
        .collect();
    let recorded: Vec<String> = records(&bytes)
        .iter()
        .filter(|r| member(r, "kind") == &Value::from("assistant"))
        .map(|r| {
            let provider = member(member(r, "payload"), "provider");
            member(provider, "request_sha256")
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(!received.is_empty());
    assert_eq!(recorded, received);
    let proven = agentloop(
        scratch.dir(),
        &["verify", "--requests", "run-fs.jsonl"],
        &[],
    );
    assert_eq!(proven.code, 0, "{}{}", proven.stdout, proven.stderr);

    // Cut after its first tool record, as a crash leaves it, the transcript alone
    // resumes it — no --model, no --task, only the server (and where the stand-in
    // listens now) — to the bytes the whole run wrote.
    let cut: Vec<u8> = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .flatten()
        .copied()
        .collect();
    scratch.write("cut.jsonl", &cut);
    let rest: Vec<Exchange> = agentloop_standin::script::parse(&script)
        .unwrap()
        .into_iter()
        .skip(1)
        .collect();
    let server = Server::start(rest).unwrap();
    let url = format!("{}/v1", server.url());
    let args = [
        "run",
        "--resume",
        "--base-url",
        &url,
        "--mcp",
        &mcp,
        "--out",
        "cut.jsonl",
    ];
    let resumed = agentloop(scratch.dir(), &args, &[]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(
        String::from_utf8(scratch.read("cut.jsonl")).unwrap(),
        String::from_utf8(bytes).unwrap()
    );
    let proven = agentloop(scratch.dir(), &["verify", "--requests", "cut.jsonl"], &[]);
    assert_eq!(proven.code, 0, "{}{}", proven.stdout, proven.stderr);
}

/// `agentloop run` on two MCP servers and the demo tools, `--parallel N`, the model
/// scripted by `turns`; the run's transcript.
fn parallel_run(scratch: &Scratch, fake: &str, turns: Vec<Exchange>, parallel: &str) -> Vec<u8> {
    let server = Server::start(turns).unwrap();
    let url = format!("{}/v1", server.url());
    let pipe = format!("{fake} --tools pipe");
    let out = format!("parallel-{parallel}.jsonl");
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--demo-tools",
            "--mcp",
            &pipe,
            "--mcp",
            &pipe,
            "--mcp-timeout",
            "30",
            "--parallel",
            parallel,
            "--out",
            &out,
        ],
        &[],
    );
    assert_eq!(run.code, 0, "--parallel {parallel}: {}", run.stderr);
    assert_verifies_as_a_loop(scratch, &out);
    scratch.read(&out)
}

/// A turn of calls to two MCP servers (their `echo` renamed `echo-0` and `echo-1`:
/// the demo tools' `echo` keeps the name) and a demo tool, one at a time and
/// together: the same bytes.
#[test]
fn a_turn_of_mcp_calls_writes_the_same_bytes_whatever_parallel_is() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("mcp-parallel-same");
    let turns = || {
        vec![
            calls(
                OpenAi,
                &[
                    ("echo-0", r#"{"n":0}"#),
                    ("echo-1", r#"{"n":1}"#),
                    ("add", r#"{"a":2,"b":40}"#),
                    ("echo-0", r#"{"n":3}"#),
                    ("echo-1", r#"{"n":4}"#),
                ],
            ),
            OpenAi.answer("done"),
        ]
    };
    let one = parallel_run(&scratch, &fake, turns(), "1");
    let payloads = tool_payloads(&one);
    assert_eq!(payloads.len(), 5, "{payloads:?}");
    for (n, payload) in payloads.iter().enumerate() {
        assert!(payload.contains(r#""ok":true"#), "{payload}");
        if n != 2 {
            assert!(
                payload.contains(&format!(r#""structuredContent":{{"n":{n}}}"#)),
                "{payload}"
            );
        }
    }
    for parallel in ["2", "8"] {
        let together = parallel_run(&scratch, &fake, turns(), parallel);
        assert_eq!(
            but_the_endpoint(&together),
            but_the_endpoint(&one),
            "--parallel {parallel}"
        );
    }
}

/// The calls of a turn to different MCP servers run together: the first (`block`, on
/// server 0) waits on a FIFO that the second (`write-1`, on server 1) writes. One at a
/// time the first would wait for its timeout and the second never start; with
/// `--parallel 2` and 8 both succeed, and the transcripts are the same bytes. No
/// clock: the FIFO's open is the only wait.
#[test]
fn calls_to_different_mcp_servers_run_together() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("mcp-parallel-together");
    let fifo = scratch.path("pipe");
    mkfifo(&fifo);
    let path = quote(fifo.to_str().unwrap());
    let turns = || {
        vec![
            calls(
                OpenAi,
                &[
                    ("block", &format!(r#"{{"path":{path}}}"#)),
                    ("write-1", &format!(r#"{{"path":{path},"text":"met"}}"#)),
                ],
            ),
            OpenAi.answer("done"),
        ]
    };
    let two = parallel_run(&scratch, &fake, turns(), "2");
    let payloads = tool_payloads(&two);
    assert_eq!(payloads.len(), 2, "{payloads:?}");
    assert!(
        payloads[0].contains(r#""ok":true"#) && payloads[0].contains("read met"),
        "{payloads:?}"
    );
    assert!(
        payloads[1].contains(r#""ok":true"#) && payloads[1].contains("wrote met"),
        "{payloads:?}"
    );
    let eight = parallel_run(&scratch, &fake, turns(), "8");
    assert_eq!(but_the_endpoint(&eight), but_the_endpoint(&two));
}

/// `--resume` holds the run to the setup its task record states (format 2), not only to
/// the tools' names: the same two servers in the other order (each tool keeps its name,
/// but a recorded call would run on the other server), another program under the same
/// identity, a tool whose schema changed, the servers left out, or another system prompt
/// are refused (exit 2, a sentence naming the difference) with nothing appended; the
/// same setup goes on from the file alone (no --model, no --system, no side file).
#[test]
fn resume_refuses_a_setup_that_differs_from_the_recorded_one() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("setup-whole");
    // Another program that lists the same tools.
    let script = workspace_root().join("mcp/tests/servers/fake_server.py");
    fs::copy(&script, scratch.path("other.py")).unwrap();
    let one = format!("{fake} --tools pipe");
    let two = format!(
        "python3 '{}' --tools pipe",
        scratch.path("other.py").display()
    );
    let run = |servers: &[&str], flags: &[&str], env: &[(&str, &str)]| {
        let server = Server::start([OpenAi.answer("done")]).unwrap();
        let url = format!("{}/v1", server.url());
        let mut args = vec!["run", "--base-url", &url];
        args.extend(flags);
        for server in servers {
            args.extend(["--mcp", server]);
        }
        args.extend(["--out", "t.jsonl"]);
        agentloop(scratch.dir(), &args, env)
    };
    let new = [
        "--model",
        "openai:m",
        "--system",
        "Be terse.",
        "--task",
        "t",
        "--max-steps",
        "3",
    ];
    let resume = ["--resume", "--mcp-env", "FAKE_MCP_SCHEMA"];
    let object = [("FAKE_MCP_SCHEMA", r#"{"type":"object"}"#)];
    let began = run(&[&one, &two], &new, &[]);
    assert_eq!(began.code, 0, "{}", began.stderr);
    let transcript = scratch.read("t.jsonl");
    assert!(!scratch.path("t.jsonl.tools.json").exists());
    let digest = |words: &[&str]| {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let hash = agentloop_core::vocabulary::ServerIdentity::command_digest(&words);
        hash.to_string()
    };
    let (script, other) = (script.to_str().unwrap(), scratch.path("other.py"));
    let first = digest(&["python3", script, "--tools", "pipe"]);
    let second = digest(&["python3", other.to_str().unwrap(), "--tools", "pipe"]);
    let differs = "agentloop: t.jsonl: this run's setup differs from the transcript's: ";
    let remedy = "; give the same --demo-tools and --mcp servers in the same order (or \
                  --new-setup after a stop); nothing was run\n";
    let (a, b) = (&first[..12], &second[..12]);
    for (servers, env, says) in [
        (
            vec![&two, &one],
            &object,
            format!(
                "the order of the MCP servers: fake 1 (command {a}), fake 1 (command {b}) \
                 against fake 1 (command {b}), fake 1 (command {a})"
            ),
        ),
        (
            vec![&two, &two],
            &object,
            format!("MCP server 0's command line (its SHA-256): {first} against {second}"),
        ),
        (
            vec![&one, &two],
            &[(
                "FAKE_MCP_SCHEMA",
                r#"{"type":"object","properties":{"x":{"type":"string"}}}"#,
            )],
            String::from(
                "tool 0 (\"block\")'s schema: {\"type\":\"object\"} against \
                 {\"properties\":{\"x\":{\"type\":\"string\"}},\"type\":\"object\"}",
            ),
        ),
        (
            vec![],
            &object,
            String::from("the number of MCP servers: 2 against 0"),
        ),
    ] {
        let servers: Vec<&str> = servers.iter().map(|s| s.as_str()).collect();
        let refused = run(&servers, &resume, env);
        assert_eq!(refused.code, 2, "{servers:?}: {}", refused.stderr);
        assert_eq!(
            refused.stderr,
            format!("{differs}{says}{remedy}"),
            "{servers:?}"
        );
        assert_eq!(scratch.read("t.jsonl"), transcript);
    }
    // Another system prompt is refused naming the flag.
    let mut other_system = resume.to_vec();
    other_system.extend(["--system", "Be long."]);
    let refused = run(&[&one, &two], &other_system, &object);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(
        refused.stderr,
        "agentloop: t.jsonl: --system \"Be long.\" differs from the setup the transcript \
         records, which has the system prompt \"Be terse.\": a resumed run keeps the \
         recorded setup (leave the flag out, or give --new-setup after a stop); nothing was \
         run\n"
    );
    assert_eq!(scratch.read("t.jsonl"), transcript);
    // The same setup: the run goes on from the file alone, sending the recorded system
    // prompt and model.
    let server = Server::start([OpenAi.answer("again")]).unwrap();
    let url = format!("{}/v1", server.url());
    let mut args = vec!["run", "--resume", "--base-url", &url];
    for s in [&one, &two] {
        args.extend(["--mcp", s.as_str()]);
    }
    args.extend(["--mcp-env", "FAKE_MCP_SCHEMA", "--out", "t.jsonl"]);
    let resumed = agentloop(scratch.dir(), &args, &object);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(
        kinds(&scratch.read("t.jsonl")),
        ["task", "assistant", "stop", "resume", "assistant", "stop"]
    );
    let sent = json::parse(&server.requests()[0].body).unwrap();
    assert_eq!(member(&sent, "model").as_str(), Some("m"));
    assert!(canonical(member(&sent, "messages"))
        .starts_with(r#"[{"content":"Be terse.","role":"system"}"#));
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// Whether process `pid` is gone: no such process, or one that has exited and waits
/// to be reaped (a zombie, as an orphan is where nothing reaps orphans).
fn gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `PID (COMM) STATE …`: the state follows the last ')'.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

/// A second Ctrl-C while an MCP tool runs ends the server's process group before the
/// process exits: the server, in the middle of the call, and the process it started
/// for it (the fake server's `family` tool starts `sleep` and waits) are gone, not
/// left running with init as their parent. Only the wait for them is bounded.
#[test]
fn a_second_sigint_ends_the_mcp_server_in_a_call_and_what_it_started() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("sigint-family");
    let pids = scratch.path("pids");
    let call = format!(r#"{{"path":{}}}"#, quote(pids.to_str().unwrap()));
    let server = Server::start([calls(OpenAi, &[("family", &call)])]).unwrap();
    let url = format!("{}/v1", server.url());
    let family = format!("{fake} --tools family");
    let mut child = command(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--mcp",
            &family,
            "--out",
            "t.jsonl",
        ],
        &[],
    )
    .spawn()
    .unwrap();
    let lines = stderr_lines(&mut child);
    while !pids.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before the tool started its child");
        }
        thread::sleep(std::time::Duration::from_millis(5));
    }
    let text = fs::read_to_string(&pids).unwrap();
    let family: Vec<u32> = text.split(' ').map(|p| p.parse().unwrap()).collect();
    assert!(family.iter().all(|&pid| !gone(pid)), "{family:?}");
    interrupt(&child);
    let mut seen = Vec::new();
    wait_for_line(&lines, "agentloop: interrupted: ", &mut seen);
    interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen:#?}");
    for _ in 0..1000 {
        if family.iter().all(|&pid| gone(pid)) {
            break;
        }
        thread::sleep(std::time::Duration::from_millis(10));
    }
    let left: Vec<u32> = family.iter().copied().filter(|&pid| !gone(pid)).collect();
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(left.is_empty(), "left running: {left:?} of {family:?}");
    assert_eq!(kinds(&scratch.read("t.jsonl")), ["task", "assistant"]);
}

/// A tool with an `outputSchema` (the fake server's `typed`: `structuredContent` is its
/// argument `structured`): a call whose result breaks the schema is recorded `ok:false`
/// with a sentence naming the tool and the violation, one whose result has no
/// `structuredContent` too, and a conforming one `ok:true` with the result as sent.
#[test]
fn a_result_that_breaks_its_tools_output_schema_is_recorded_as_a_failed_call() {
    let Some(fake) = fake_server() else { return };
    let scratch = Scratch::new("mcp-output-schema");
    let model = Server::start([
        calls(
            OpenAi,
            &[
                ("typed", r#"{"structured":{"n":"one"}}"#),
                ("typed", "{}"),
                ("typed", r#"{"structured":{"n":1}}"#),
            ],
        ),
        OpenAi.answer("done"),
    ])
    .unwrap();
    let url = format!("{}/v1", model.url());
    let output = format!("{fake} --tools output");
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--mcp",
            &output,
            "--out",
            "t.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The two tools whose outputSchema cannot be checked are skipped, saying why.
    assert!(
        run.stderr
            .contains("tool 'bad_output' skipped: its outputSchema is refused"),
        "{}",
        run.stderr
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
    let payloads = tool_payloads(&scratch.read("t.jsonl"));
    assert_eq!(payloads.len(), 3, "{payloads:?}");
    assert_eq!(
        payloads,
        [
            r#"{"error":"tool 'typed' failed: its structuredContent does not match its outputSchema: $.structuredContent.n: expected type integer, got string","id":"call_1_0","name":"typed","ok":false}"#,
            r#"{"error":"tool 'typed' failed: the tool has an outputSchema but its result has no structuredContent","id":"call_1_1","name":"typed","ok":false}"#,
            r#"{"id":"call_1_2","name":"typed","ok":true,"value":{"content":[{"text":"{\"n\": 1}","type":"text"}],"structuredContent":{"n":1}}}"#,
        ]
    );
}
