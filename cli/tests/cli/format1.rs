//! Format-1 transcripts as the previous release wrote them (`tests/fixtures/format1/`,
//! whose README says how each was made): they verify as runs, and a run cut after its
//! first tool record resumes — with its side file `FILE.tools.json` for MCP tools — to
//! the very bytes the uncut run wrote, sending the provider the request it was sent then.

use crate::common;

use std::fs;
use std::path::PathBuf;

use agentloop_core::json::{self, Value};
use agentloop_standin::{Exchange, Server};
use agentloop_tests::{have_program, skip_or_fail};
use common::runs::*;
use common::{workspace, Scratch};

/// The fixtures' folder.
fn fixtures() -> PathBuf {
    workspace().join("tests/fixtures/format1")
}

fn fixture(name: &str) -> Vec<u8> {
    fs::read(fixtures().join(name)).unwrap()
}

/// The first `n` lines of `bytes` (each with its `\n`).
fn first_lines(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut end = 0;
    for _ in 0..n {
        end += bytes[end..].iter().position(|&b| b == b'\n').unwrap() + 1;
    }
    bytes[..end].to_vec()
}

/// The stand-in's answer `index` of the script `name` (`[{"json": body}, …]`).
fn scripted_answer(name: &str, index: usize) -> Exchange {
    let Value::Array(script) = json::parse(&fixture(name)).unwrap() else {
        panic!("{name} is not an array");
    };
    let body = common::member(&script[index], "json");
    Exchange::ok(agentloop_core::jcs::to_vec(body).unwrap())
}

#[test]
fn every_format1_fixture_verifies_as_a_run() {
    let scratch = Scratch::new("format1-verify");
    let mut seen = 0;
    for entry in fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            scratch.write(&name, fs::read(&path).unwrap());
            assert_verifies_as_a_loop(&scratch, &name);
            seen += 1;
        }
    }
    assert_eq!(seen, 4, "the four transcripts of tests/fixtures/format1");
}

#[test]
fn a_format1_run_with_demo_tools_resumes_to_the_bytes_it_wrote() {
    let scratch = Scratch::new("format1-add");
    let whole = fixture("add.jsonl");
    scratch.write("t.jsonl", first_lines(&whole, 3));
    let server = Server::start([scripted_answer("standin-add.json", 1)]).unwrap();
    let resume = run_resume(&scratch, "openai:gpt-4.1-mini", &server, &["--demo-tools"]);
    assert_eq!(resume.code, 0, "{}", resume.stderr);
    assert_eq!(
        String::from_utf8(scratch.read("t.jsonl")).unwrap(),
        String::from_utf8(whole).unwrap()
    );
}

#[test]
fn a_format1_run_with_mcp_tools_resumes_with_its_side_file_to_the_bytes_it_wrote() {
    if !have_program("python3") {
        skip_or_fail("skipped: python3 is not installed (the fake MCP server is a Python script)");
        return;
    }
    let scratch = Scratch::new("format1-mcp");
    let whole = fixture("echo-mcp.jsonl");
    scratch.write("t.jsonl", first_lines(&whole, 3));
    scratch.write("t.jsonl.tools.json", fixture("echo-mcp.jsonl.tools.json"));
    scratch.write(
        "fake_server.py",
        fs::read(workspace().join("mcp/tests/servers/fake_server.py")).unwrap(),
    );
    let server = Server::start([scripted_answer("standin-echo.json", 1)]).unwrap();
    let extra = [
        "--mcp",
        "python3 fake_server.py --tools pipe",
        "--system",
        "You are terse.",
        "--max-output-tokens",
        "256",
    ];
    let resume = run_resume(&scratch, "openai:gpt-4.1-mini", &server, &extra);
    assert_eq!(resume.code, 0, "{}", resume.stderr);
    assert_eq!(
        String::from_utf8(scratch.read("t.jsonl")).unwrap(),
        String::from_utf8(whole).unwrap()
    );
    // The provider was sent what the uncut run sent it for its second turn.
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        json::parse(&sent[0].body).unwrap(),
        json::parse(&fixture("echo-mcp.requests/0001.body")).unwrap()
    );
}
