//! The setup a run records (format 2, SPEC section 4 "What a run records"): no secret
//! in any transcript byte; `--new-setup` only after a stop, then stated in the resume
//! record and in force from there on.

use crate::common;

use agentloop_core::json::{self, Value};
use agentloop_standin::Server;
use agentloop_tests::{have_program, skip_or_fail, workspace_root};
use common::runs::*;
use common::{member, Scratch};

/// A run with a secret in each place one can be given — the key in its variable, a
/// header (`Authorization: Bearer`, which the key sets), a password in the base URL's
/// userinfo, a word of an MCP server's command line — records the setup, and none of
/// the secrets is in any byte of the transcript, nor after it was resumed.
#[test]
fn no_secret_is_in_any_transcript_byte() {
    if !have_program("python3") {
        skip_or_fail("skipped: python3 is not installed (the fake MCP server is a Python script)");
        return;
    }
    const KEY: &str = "sk-key-5e3f1a";
    const PASSWORD: &str = "pw-userinfo-77c2";
    const WORD: &str = "postgres://app:db-secret-41b9@db/app";
    let scratch = Scratch::new("setup-secrets");
    let script = workspace_root().join("mcp/tests/servers/fake_server.py");
    let mcp = format!("python3 '{}' --stderr '{WORD}'", script.display());
    let server = Server::start([OpenAi.answer("hi"), OpenAi.answer("again")]).unwrap();
    let plain = format!("{}/v1", server.url());
    // OpenAI's key and a URL's password share the Authorization header: the run sends
    // the key, its resumption the password.
    let base = server
        .url()
        .replace("://", &format!("://agent:{PASSWORD}@"));
    let base = format!("{base}/v1");
    let key = [("OPENAI_API_KEY", KEY)];
    let args = [
        "run",
        "--task",
        "t",
        "--model",
        "openai:gpt-test",
        "--base-url",
        &plain,
        "--mcp",
        &mcp,
        "--demo-tools",
        "--out",
        "t.jsonl",
    ];
    let run = agentloop(scratch.dir(), &args, &key);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The key reached the provider, in its header: it was there to leak.
    let sent = &server.requests()[0];
    assert!(format!("{sent:?}").contains(KEY));
    let resume = [
        "run",
        "--resume",
        "--base-url",
        &base,
        "--api-key-env",
        "",
        "--mcp",
        &mcp,
        "--demo-tools",
        "--out",
        "t.jsonl",
    ];
    let task = member(&records(&scratch.read("t.jsonl"))[0], "payload").clone();
    let setup = member(&task, "setup");
    assert_eq!(
        canonical(member(setup, "model")),
        r#"{"name":"gpt-test","provider":"openai"}"#
    );
    assert_eq!(
        member(setup, "endpoint").as_str(),
        Some(format!("{}/v1", server.url()).as_str())
    );
    // Resumed after its stop with the same setup from the file (no --model); the
    // endpoint is not compared, so the URL may carry a password now.
    let resumed = agentloop(scratch.dir(), &resume, &key);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(format!("{:?}", server.requests()[1]).contains("Basic"));
    let bytes = String::from_utf8(scratch.read("t.jsonl")).unwrap();
    assert_eq!(
        kinds(bytes.as_bytes()),
        ["task", "assistant", "stop", "resume", "assistant", "stop"]
    );
    for secret in [
        KEY,
        PASSWORD,
        WORD,
        "db-secret",
        "agent:",
        "Bearer",
        "fake_server.py",
    ] {
        assert!(
            !bytes.contains(secret),
            "{secret} is in the transcript: {bytes}"
        );
    }
    assert!(!scratch.path("t.jsonl.tools.json").exists());
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// `--new-setup`: refused for a transcript that ends inside a run (nothing written);
/// after a stop, the resume record states the new setup, the requests from there on
/// use it, and a later plain `--resume` is held to it.
#[test]
fn a_new_setup_is_stated_in_the_resume_record_and_only_after_a_stop() {
    let scratch = Scratch::new("setup-new");
    let server = Server::start([OpenAi.add_call(), OpenAi.answer("42")]).unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &["--system", "Be terse."]);
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let whole = scratch.read("t.jsonl");

    // Cut after its tool record: inside a run.
    let cut: Vec<u8> = whole
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .flatten()
        .copied()
        .collect();
    scratch.write("cut.jsonl", &cut);
    let url = format!("{}/v1", server.url());
    let mid = [
        "run",
        "--resume",
        "--new-setup",
        "--system",
        "Be long.",
        "--base-url",
        &url,
        "--demo-tools",
        "--out",
        "cut.jsonl",
    ];
    let refused = agentloop(scratch.dir(), &mid, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(
        refused.stderr,
        "agentloop: cut.jsonl: --new-setup is refused: the transcript ends inside a run (its \
         last record is not a stop), and a setup changes only between runs, stated in the \
         resume record after a stop; resume without --new-setup; nothing was run\n"
    );
    assert_eq!(scratch.read("cut.jsonl"), cut);

    // Without --new-setup, another system prompt is refused naming it.
    let server = Server::start([OpenAi.answer("long"), OpenAi.answer("still long")]).unwrap();
    let url = format!("{}/v1", server.url());
    let plain = [
        "run",
        "--resume",
        "--base-url",
        &url,
        "--demo-tools",
        "--out",
        "t.jsonl",
    ];
    let mut other = plain.to_vec();
    other.extend(["--system", "Be long."]);
    let refused = agentloop(scratch.dir(), &other, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.starts_with(
            "agentloop: t.jsonl: --system \"Be long.\" differs from the setup the transcript \
             records, which has the system prompt \"Be terse.\""
        ),
        "{}",
        refused.stderr
    );
    assert_eq!(scratch.read("t.jsonl"), whole);

    // After the stop: the resume record states the new setup.
    let mut new = other.clone();
    new.push("--new-setup");
    let changed = agentloop(scratch.dir(), &new, &[]);
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    let records = records(&scratch.read("t.jsonl"));
    let resume = &records[5];
    assert_eq!(member(resume, "kind").as_str(), Some("resume"));
    let payload = member(resume, "payload");
    assert_eq!(member(payload, "after").as_str(), Some("no_tool_calls"));
    assert_eq!(
        member(member(payload, "setup"), "system").as_str(),
        Some("Be long.")
    );
    let system = |request: usize| {
        let body = json::parse(&server.requests()[request].body).unwrap();
        let Value::Array(messages) = member(&body, "messages").clone() else {
            panic!("no messages")
        };
        canonical(&messages[0])
    };
    assert_eq!(system(0), r#"{"content":"Be long.","role":"system"}"#);
    assert_verifies_as_a_loop(&scratch, "t.jsonl");

    // The setup in force is the resume record's: a plain --resume sends it, and the
    // task record's prompt is now the one refused.
    let again = agentloop(scratch.dir(), &plain, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(system(1), r#"{"content":"Be long.","role":"system"}"#);
    let mut old = plain.to_vec();
    old.extend(["--system", "Be terse."]);
    let refused = agentloop(scratch.dir(), &old, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// A setup changed with `--new-setup` is followed segment by segment: the records
/// before the change were checked against the tools offered then (here a refusal that
/// names them), so resuming after a change of tools — and again after that — rebuilds
/// the run instead of finding the loop would have written another refusal.
#[test]
fn each_segment_is_followed_with_the_tools_its_setup_offered() {
    if !have_program("python3") {
        skip_or_fail("skipped: python3 is not installed (the fake MCP server is a Python script)");
        return;
    }
    let scratch = Scratch::new("setup-segments");
    let script = workspace_root().join("mcp/tests/servers/fake_server.py");
    let mcp = format!("python3 '{}'", script.display());
    let nosuch = agentloop_standin::canned::openai::tool_calls(&[("nosuch", "{}")]);
    let server = Server::start([nosuch, OpenAi.answer("no such tool")]).unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &[]);
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let refusal = "no tool named 'nosuch' (have: add, echo, fail, greet)";
    assert!(String::from_utf8(scratch.read("t.jsonl"))
        .unwrap()
        .contains(refusal));
    // The tools change: the fake server's join the demo tools.
    let server = Server::start([OpenAi.answer("more tools"), OpenAi.answer("again")]).unwrap();
    let url = format!("{}/v1", server.url());
    let mut resume = vec!["run", "--resume", "--base-url", &url, "--demo-tools"];
    resume.extend(["--mcp", &mcp, "--out", "t.jsonl"]);
    let mut new = resume.clone();
    new.push("--new-setup");
    let changed = agentloop(scratch.dir(), &new, &[]);
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    let records = records(&scratch.read("t.jsonl"));
    let setup = member(member(&records[5], "payload"), "setup");
    assert!(
        canonical(setup).contains(r#""mcp_name":"echo""#),
        "{setup:?}"
    );
    // And on again with the setup now in force.
    let again = agentloop(scratch.dir(), &resume, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        kinds(&scratch.read("t.jsonl")),
        [
            "task",
            "assistant",
            "tool",
            "assistant",
            "stop",
            "resume",
            "assistant",
            "stop",
            "resume",
            "assistant",
            "stop"
        ]
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}
