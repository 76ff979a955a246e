//! A server that changes its tool list mid-run (docs/mcp.md, "When a server's tools
//! change"): the fake server's `changing` set drops `gone` and adds `added` after a call
//! to `gone`, telling the client with `notifications/tools/list_changed`; the run
//! records the new setup between the turns, refuses `gone` as unknown, runs `added`,
//! and the transcript alone proves each request and resumes.

use crate::common;
use crate::run_mcp::fake_server;

use agentloop_core::chain::Chain;
use agentloop_core::json::{Object, Value};
use agentloop_standin::{canned, Exchange, Server};
use common::runs::*;
use common::{member, Run, Scratch};

/// The stand-in's turns: `gone` (ok), `gone` again (unknown now), `added`, an answer.
fn turns() -> Vec<Exchange> {
    vec![
        canned::openai::tool_calls(&[("gone", "{}")]),
        canned::openai::tool_calls(&[("gone", "{}")]),
        canned::openai::tool_calls(&[("added", "{}")]),
        OpenAi.answer("done"),
    ]
}

/// The fake server's command line, its state file in `scratch`.
fn changing(fake: &str, scratch: &Scratch) -> String {
    let state = scratch.path("tools-changed");
    format!("{fake} --tools changing --state '{}'", state.display())
}

/// `run` (or `run --resume` when `resume`) on `out` against `server`.
fn run(scratch: &Scratch, server: &Server, mcp: &str, out: &str, resume: bool) -> Run {
    let url = format!("{}/v1", server.url());
    let mut args = vec!["run", "--base-url", &url, "--mcp", mcp, "--out", out];
    if resume {
        args.push("--resume");
    } else {
        args.extend(["--task", "t", "--model", "openai:m"]);
    }
    agentloop(scratch.dir(), &args, &[])
}

/// The records of `bytes`, the payload of record `at` edited, chained again.
fn rechain(bytes: &[u8], at: usize, edit: impl Fn(&mut Object)) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for (index, record) in records(bytes).iter().enumerate() {
        let kind = member(record, "kind").as_str().unwrap();
        let mut payload = member(record, "payload").as_object().unwrap().clone();
        if index == at {
            edit(&mut payload);
        }
        out.extend_from_slice(chain.append(kind, &Value::Object(payload)).unwrap());
    }
    out
}

#[test]
fn a_server_that_changes_its_tools_mid_run_is_followed_and_the_change_is_in_the_file() {
    let Some(fake) = fake_server() else {
        return;
    };
    let scratch = Scratch::new("mcp-list-changed");
    let mcp = changing(&fake, &scratch);
    let server = Server::start(turns()).unwrap();
    let done = run(&scratch, &server, &mcp, "t.jsonl", false);
    assert_eq!(done.code, 0, "{}", done.stderr);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(
        kinds(&bytes),
        [
            "task",
            "assistant",
            "tool",
            "setup",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "stop"
        ]
    );
    let all = records(&bytes);
    let setup = member(&all[3], "payload");
    assert_eq!(member(setup, "reason"), &Value::from("tools_changed"));
    let offered: Vec<&str> = match member(member(setup, "setup"), "tools") {
        Value::Array(tools) => tools
            .iter()
            .map(|t| member(t, "name").as_str().unwrap())
            .collect(),
        other => panic!("tools is {other:?}"),
    };
    assert_eq!(offered, ["added", "echo"]);
    let results: Vec<String> = [2, 5, 7]
        .iter()
        .map(|&at| canonical(member(&all[at], "payload")))
        .collect();
    assert!(results[0].contains(r#""ok":true"#), "{}", results[0]);
    assert!(
        results[1].contains(r#""error":"no tool named 'gone' (have: added, echo)","id":"call_4_0","name":"gone","ok":false"#),
        "{}",
        results[1]
    );
    assert!(results[2].contains(r#""ok":true"#), "{}", results[2]);
    assert!(
        done.stderr
            .contains("seq 3 setup tools_changed: tools added, echo"),
        "{}",
        done.stderr
    );
    // The first request offered `gone`, the second `added` (the setup record came first).
    let offered: Vec<Vec<String>> = server
        .requests()
        .iter()
        .map(|r| {
            let body = agentloop_core::json::parse(&r.body).unwrap();
            let Value::Array(tools) = member(&body, "tools") else {
                panic!("no tools")
            };
            tools
                .iter()
                .map(|t| {
                    member(member(t, "function"), "name")
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
        .collect();
    assert_eq!(offered[0], ["echo", "gone"]);
    assert_eq!(offered[1], ["added", "echo"]);
    assert_eq!(offered[3], ["added", "echo"]);

    assert_verifies_as_a_loop(&scratch, "t.jsonl");
    // `show`, the provider history and the OTLP export read the setup record.
    let shown = scratch.run(&["show", "t.jsonl"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown.stdout.contains("seq=3 setup reason=tools_changed"),
        "{}",
        shown.stdout
    );
    for format in ["openai", "otlp"] {
        let exported = scratch.run(&["export", "--format", format, "t.jsonl"]);
        assert_eq!(exported.code, 0, "{format}: {}", exported.stderr);
    }
    let proven = scratch.run(&["verify", "--requests", "t.jsonl"]);
    assert_eq!(proven.code, 0, "{}{}", proven.stdout, proven.stderr);

    // The setup record edited (and chained again): the request of the turn after it no
    // longer matches its record.
    let edited = rechain(&bytes, 3, |payload| {
        let Some(Value::Object(mut setup)) = payload.remove("setup") else {
            panic!("no setup")
        };
        let Some(Value::Array(mut tools)) = setup.remove("tools") else {
            panic!("no tools")
        };
        let Value::Object(added) = &mut tools[0] else {
            panic!()
        };
        added.insert("description", Value::from("another tool"));
        setup.insert("tools", Value::Array(tools));
        payload.insert("setup", Value::Object(setup));
    });
    scratch.write("edited.jsonl", edited);
    assert_verifies_as_a_loop(&scratch, "edited.jsonl");
    let checked = scratch.run(&["verify", "--requests", "edited.jsonl"]);
    assert_eq!(checked.code, 1, "{}{}", checked.stdout, checked.stderr);
    assert!(
        checked.stdout.starts_with(
            "edited.jsonl: the request of the turn at seq 4 does not match its record"
        ),
        "{}",
        checked.stdout
    );

    // Cut after the setup record, the transcript resumes (the server, started again,
    // lists the changed tools) to the bytes the whole run wrote.
    let cut: Vec<u8> = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(4)
        .flatten()
        .copied()
        .collect();
    scratch.write("cut.jsonl", &cut);
    let rest = Server::start(turns().into_iter().skip(1)).unwrap();
    let resumed = run(&scratch, &rest, &mcp, "cut.jsonl", true);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(
        String::from_utf8(scratch.read("cut.jsonl")).unwrap(),
        String::from_utf8(bytes).unwrap()
    );
}
