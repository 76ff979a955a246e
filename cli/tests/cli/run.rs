//! `agentloop run` and `agentloop export` against the loopback stand-in provider
//! (`agentloop-standin`, in process): scripted runs for both providers that verify,
//! pass the loop audit, export exactly what was sent, and are the same bytes when made
//! again; retries, a model that keeps failing, Ctrl-C and `--resume`, refusals, and an
//! API key that never reaches a transcript or a message.

use crate::common;

use agentloop_core::json::{self, Value};
use agentloop_standin::{canned, Exchange, Server};
use common::runs::*;
use common::{json_lines, member, Scratch};

/// A run that calls `add` then answers, for each provider: exit 0; a transcript that
/// verifies and passes the loop audit; its export is exactly the last request's
/// `messages` plus the answer; the key went to the header only; a second run writes
/// the same bytes and sends the same requests.
#[test]
fn a_scripted_run_verifies_exports_what_was_sent_and_is_the_same_again() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("scripted-{}", provider.name()));
        let mut transcripts = Vec::new();
        let mut bodies = Vec::new();
        for (i, out) in ["first.jsonl", "second.jsonl"].into_iter().enumerate() {
            let server =
                Server::start([provider.add_call(), provider.answer("2 + 40 = 42.")]).unwrap();
            let args = run_args(provider, &server, out, &[]);
            let run = agentloop(
                scratch.dir(),
                &strs(&args),
                &[(provider.key_variable(), KEY)],
            );
            assert_eq!(run.code, 0, "{provider:?}: {}", run.stderr);
            let bytes = scratch.read(out);
            assert_eq!(
                kinds(&bytes),
                ["task", "assistant", "tool", "assistant", "stop"]
            );
            assert_eq!(
                canonical(&last_payload(&bytes)),
                format!(
                    r#"{{"reason":"no_tool_calls","steps":2,"tokens":{},"unrun_calls":0}}"#,
                    match provider {
                        OpenAi => 20,
                        Anthropic => 1006,
                    }
                )
            );
            assert_verifies_as_a_loop(&scratch, out);

            // The progress, one line per record, and the summary.
            let lines: Vec<&str> = run.stderr.lines().collect();
            assert_eq!(lines.len(), 6, "{}", run.stderr);
            assert!(
                lines[0].starts_with(&format!(
                    "run: {} at {}/v1/",
                    provider.model(),
                    server.url()
                )),
                "{}",
                lines[0]
            );
            assert_eq!(lines[1], "seq 0 task \"add 2 and 40\"");
            assert!(
                lines[2].starts_with("seq 1 turn 1: calls add; tokens "),
                "{}",
                lines[2]
            );
            assert_eq!(lines[3], "seq 2 turn 1: add ok");
            assert!(
                lines[4].starts_with("seq 3 turn 2: answer \"2 + 40 = 42.\"; tokens "),
                "{}",
                lines[4]
            );
            assert!(
                lines[5].starts_with("seq 4 stop no_tool_calls: 2 turns, "),
                "{}",
                lines[5]
            );
            let head = member(records(&bytes).last().unwrap(), "hash")
                .as_str()
                .unwrap()
                .to_string();
            assert!(
                run.stdout.starts_with("no_tool_calls: 2 turns, "),
                "{}",
                run.stdout
            );
            assert!(
                run.stdout.ends_with(&format!(
                    "{out}: 5 records verified (chain and loop), head {head}\n"
                )),
                "{}",
                run.stdout
            );

            // The key: in the header of every request, nowhere else.
            let requests = server.requests();
            assert_eq!(requests.len(), 2);
            let (header, value) = provider.key_header();
            for request in &requests {
                assert_eq!(request.header(header), Some(value.as_str()));
                assert!(!String::from_utf8_lossy(&request.body).contains(KEY));
            }
            for text in [
                &String::from_utf8_lossy(&bytes).into_owned(),
                &run.stdout,
                &run.stderr,
            ] {
                assert!(!text.contains(KEY), "the key leaked: {text}");
            }

            // The export is what the loop sent in its last request, then the answer.
            let export = agentloop(
                scratch.dir(),
                &["export", "--format", provider.name(), out],
                &[],
            );
            assert_eq!(export.code, 0, "{}", export.stderr);
            assert!(export.stdout.ends_with('\n') && export.stdout.lines().count() == 1);
            let exported = json::parse(export.stdout.trim_end().as_bytes()).unwrap();
            assert_eq!(
                canonical(&exported),
                export.stdout.trim_end(),
                "not canonical"
            );
            let Value::Array(mut history) = exported else {
                panic!("{}", export.stdout)
            };
            let answer = history.pop().unwrap();
            assert_eq!(member(&answer, "role").as_str(), Some("assistant"));
            assert!(canonical(&answer).contains("2 + 40 = 42."));
            let sent = sent_messages(requests.last().unwrap());
            assert_eq!(
                canonical(&Value::Array(history)),
                canonical(&Value::Array(sent))
            );
            // And the first request sent the task alone.
            assert_eq!(sent_messages(&requests[0]).len(), 1);

            if i == 1 {
                // The other format is another shape of the same conversation.
                let other = match provider {
                    OpenAi => "anthropic",
                    Anthropic => "openai",
                };
                let export = agentloop(scratch.dir(), &["export", "--format", other, out], &[]);
                assert_eq!(export.code, 0, "{}", export.stderr);
            }
            transcripts.push(bytes);
            bodies.push(requests.into_iter().map(|r| r.body).collect::<Vec<_>>());
        }
        assert_eq!(
            transcripts[0], transcripts[1],
            "{provider:?}: the reruns differ"
        );
        assert_eq!(bodies[0], bodies[1], "{provider:?}: the requests differ");
    }
}

/// `--json`: one event per record on stdout, between a start and an end event; the
/// stderr stays silent.
#[test]
fn json_prints_one_event_per_record() {
    let scratch = Scratch::new("json-events");
    let server = Server::start([OpenAi.add_call(), OpenAi.answer("42")]).unwrap();
    let args = run_args(
        OpenAi,
        &server,
        "t.jsonl",
        &["--json", "--max-tokens", "100"],
    );
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let events = json_lines(&run.stdout);
    let bytes = scratch.read("t.jsonl");
    let records = records(&bytes);
    assert_eq!(events.len(), records.len() + 2);
    let start = &events[0];
    assert_eq!(member(start, "event").as_str(), Some("start"));
    assert_eq!(
        canonical(member(start, "budgets")),
        r#"{"max_steps":4,"max_tokens":100}"#
    );
    assert_eq!(
        canonical(member(start, "tools")),
        r#"["add","echo","fail","greet"]"#
    );
    for (event, record) in events[1..events.len() - 1].iter().zip(&records) {
        assert_eq!(member(event, "event").as_str(), Some("record"));
        for key in ["seq", "kind", "hash"] {
            assert_eq!(member(event, key), member(record, key), "{key}");
        }
    }
    assert_eq!(canonical(&events[2]), canonical(&json::parse(format!(
        r#"{{"event":"record","seq":1,"kind":"assistant","hash":{},"turn":1,"tokens":10,"total_tokens":29,"tool_calls":0,"calls":[{{"id":"call_1_0","name":"add"}}],"text":""}}"#,
        canonical(member(&records[1], "hash"))
    ).as_bytes()).unwrap()));
    assert_eq!(canonical(&events[3]), canonical(&json::parse(format!(
        r#"{{"event":"record","seq":2,"kind":"tool","hash":{},"turn":1,"tokens":10,"total_tokens":29,"tool_calls":1,"id":"call_1_0","name":"add","ok":true}}"#,
        canonical(member(&records[2], "hash"))
    ).as_bytes()).unwrap()));
    let end = events.last().unwrap();
    assert_eq!(canonical(end), canonical(&json::parse(format!(
        r#"{{"event":"end","reason":"no_tool_calls","exit":0,"count":5,"head":{},"verified":true,"checkpoint":null}}"#,
        canonical(member(records.last().unwrap(), "hash"))
    ).as_bytes()).unwrap()));
}

/// What a run showed: its `--parallel`, transcript, request bodies, events.
type Seen = (String, Vec<u8>, Vec<Vec<u8>>, Vec<String>);

/// A turn of six calls — four that run (one failing), one refused by its schema, one
/// to a tool not offered — then the answer, run with `--parallel 1`, 2, 8 and the
/// default, for each provider: the transcripts are the same bytes, the requests sent
/// the same bodies, and the `--json` events the same (each `tool` event with the
/// count of calls as of it: 1 to 6, in call order).
#[test]
fn a_turn_of_several_calls_writes_the_same_bytes_whatever_parallel_is() {
    let calls = [
        ("add", r#"{"a":2,"b":40}"#),
        ("echo", r#"{"text":"one"}"#),
        ("fail", r#"{"reason":"on purpose"}"#),
        ("add", r#"{"a":"two","b":40}"#),
        ("nosuch", r#"{}"#),
        ("greet", r#"{"name":"Ada"}"#),
    ];
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("parallel-{}", provider.name()));
        let mut seen: Vec<Seen> = Vec::new();
        for parallel in ["1", "2", "8", "default"] {
            let turn = match provider {
                OpenAi => canned::openai::tool_calls(&calls),
                Anthropic => canned::anthropic::tool_use(Some("Six at once."), &calls),
            };
            let server = Server::start([turn, provider.answer("Done.")]).unwrap();
            let out = format!("parallel-{parallel}.jsonl");
            let mut extra = vec!["--json"];
            if parallel != "default" {
                extra.extend(["--parallel", parallel]);
            }
            let args = run_args(provider, &server, &out, &extra);
            let run = agentloop(
                scratch.dir(),
                &strs(&args),
                &[(provider.key_variable(), KEY)],
            );
            assert_eq!(
                run.code, 0,
                "{provider:?} --parallel {parallel}: {}",
                run.stderr
            );
            assert_verifies_as_a_loop(&scratch, &out);
            let bytes = scratch.read(&out);
            let events: Vec<String> = json_lines(&run.stdout)
                .iter()
                .skip(1) // the start event names the server's port
                .map(canonical)
                .collect();
            let bodies = server.requests().into_iter().map(|r| r.body).collect();
            seen.push((parallel.to_string(), bytes, bodies, events));
        }
        let (_, bytes, bodies, events) = &seen[0];
        assert_eq!(
            kinds(bytes),
            [
                "task",
                "assistant",
                "tool",
                "tool",
                "tool",
                "tool",
                "tool",
                "tool",
                "assistant",
                "stop"
            ]
        );
        let oks: Vec<String> = records(bytes)
            .iter()
            .filter(|r| member(r, "kind").as_str() == Some("tool"))
            .map(|r| canonical(member(member(r, "payload"), "ok")))
            .collect();
        assert_eq!(oks, ["true", "true", "false", "false", "false", "true"]);
        let counts: Vec<String> = json_lines(&events.join("\n"))
            .iter()
            .filter(|e| member(e, "kind").as_str() == Some("tool"))
            .map(|e| canonical(member(e, "tool_calls")))
            .collect();
        assert_eq!(counts, ["1", "2", "3", "4", "5", "6"]);
        for (parallel, other_bytes, other_bodies, other_events) in &seen[1..] {
            assert_eq!(
                String::from_utf8_lossy(other_bytes),
                String::from_utf8_lossy(bytes),
                "{provider:?}: --parallel {parallel} wrote other bytes than --parallel 1"
            );
            assert_eq!(other_bodies, bodies, "{provider:?} --parallel {parallel}");
            assert_eq!(other_events, events, "{provider:?} --parallel {parallel}");
        }
    }
}

/// `--parallel 0` (and what is not a count) is refused as bad usage naming the flag,
/// before anything is made.
#[test]
fn parallel_0_is_refused_naming_the_flag() {
    let scratch = Scratch::new("parallel-0");
    let server = Server::start([]).unwrap();
    for value in ["0", "many"] {
        let args = run_args(OpenAi, &server, "t.jsonl", &["--parallel", value]);
        let run = agentloop(scratch.dir(), &strs(&args), &[]);
        assert_eq!(run.code, 2, "{value}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("invalid value '{value}' for '--parallel <N>'"))
                && run.stderr.contains(
                    "give how many calls of a turn may run at once: a whole number of at \
                     least 1 (1 runs them one at a time)"
                ),
            "{value}: {}",
            run.stderr
        );
        assert!(!scratch.path("t.jsonl").exists());
    }
    assert!(server.requests().is_empty());
}

/// A 429 is retried (the wait set by --http-backoff-ms), and the run goes on.
#[test]
fn a_rate_limit_is_retried_and_the_run_goes_on() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("retry-{}", provider.name()));
        let server = Server::start([
            provider.rate_limited(),
            provider.add_call(),
            provider.rate_limited(),
            provider.answer("42"),
        ])
        .unwrap();
        let args = run_args(provider, &server, "t.jsonl", &["--http-backoff-ms", "1"]);
        let run = agentloop(scratch.dir(), &strs(&args), &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(server.requests().len(), 4);
        let bytes = scratch.read("t.jsonl");
        assert_eq!(
            kinds(&bytes),
            ["task", "assistant", "tool", "assistant", "stop"]
        );
        // A retried request is the same request.
        let requests = server.requests();
        assert_eq!(requests[0].body, requests[1].body);
        assert_eq!(requests[2].body, requests[3].body);
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
    }
}

/// Every try failing: the `stop` record is `model_error` with the last failure, the
/// exit status 4, the transcript sound; the tries are --http-tries.
#[test]
fn a_model_that_keeps_failing_stops_the_run_with_model_error_and_exit_4() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("model-error-{}", provider.name()));
        let server = Server::start(vec![provider.server_error(); 3]).unwrap();
        let args = run_args(
            provider,
            &server,
            "t.jsonl",
            &["--http-tries", "3", "--http-backoff-ms", "1"],
        );
        let run = agentloop(scratch.dir(), &strs(&args), &[]);
        assert_eq!(run.code, 4, "{}", run.stderr);
        assert_eq!(server.requests().len(), 3);
        let bytes = scratch.read("t.jsonl");
        assert_eq!(kinds(&bytes), ["task", "stop"]);
        let stop = last_payload(&bytes);
        assert_eq!(member(&stop, "reason").as_str(), Some("model_error"));
        let error = member(&stop, "error").as_str().unwrap();
        assert!(
            error.starts_with("the model call failed after 3 tries (the most allowed); the last: "),
            "{error}"
        );
        assert!(
            run.stdout.starts_with(&format!(
                "model_error: 0 turns, 0 tokens, 0 tool calls; error: {error}\n"
            )),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr.contains("seq 1 stop model_error: 0 turns"),
            "{}",
            run.stderr
        );
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
    }
}

/// A provider that echoes the key in an error: the recorded sentence has it redacted;
/// neither the transcript nor the command's output holds it.
#[test]
fn a_key_echoed_by_the_provider_is_redacted() {
    let scratch = Scratch::new("key-echoed");
    let body = canned::openai::error_body(
        &format!("Incorrect API key provided: {KEY}."),
        "invalid_request_error",
        Some("invalid_api_key"),
    );
    let server = Server::start([Exchange::new(401, body)]).unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &[]);
    let run = agentloop(scratch.dir(), &strs(&args), &[("OPENAI_API_KEY", KEY)]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let bytes = scratch.read("t.jsonl");
    let error = member(&last_payload(&bytes), "error")
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("[redacted]"), "{error}");
    for text in [
        String::from_utf8_lossy(&bytes).into_owned(),
        run.stdout,
        run.stderr,
    ] {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
}

/// Ctrl-C while the model's answer is awaited: the turn is abandoned, the run stops
/// with `cancelled` (exit 130) and a sound transcript; `--resume` finishes it, the
/// model shown the conversation as it was.
#[test]
fn sigint_during_a_slow_answer_cancels_and_resume_finishes_the_run() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("sigint-{}", provider.name()));
        // The second answer is slow: the interrupt ends the wait (the stand-in cuts the
        // delay short when it is dropped).
        let server = Server::start([
            provider.add_call(),
            provider.answer("too late").with_delay(SLOW),
        ])
        .unwrap();
        let args = run_args(provider, &server, "t.jsonl", &[]);
        let mut child = spawn(scratch.dir(), &strs(&args), &[]);
        wait_for_requests(&server, 2, &mut child);
        interrupt(&child);
        let run = finished(child.wait_with_output().unwrap());
        assert_eq!(run.code, 130, "{}", run.stderr);
        let bytes = scratch.read("t.jsonl");
        assert_eq!(kinds(&bytes), ["task", "assistant", "tool", "stop"]);
        assert_eq!(
            canonical(&last_payload(&bytes)),
            format!(
                r#"{{"reason":"cancelled","steps":1,"tokens":{},"unrun_calls":0}}"#,
                match provider {
                    OpenAi => 10,
                    Anthropic => 503,
                }
            )
        );
        assert!(
            run.stdout.starts_with("cancelled: 1 turn, "),
            "{}",
            run.stdout
        );
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
        drop(server);

        // --resume: the same task and budgets from the task record (none given here).
        let server = Server::start([provider.answer("2 + 40 = 42.")]).unwrap();
        let url = format!("{}/v1", server.url());
        let resume = agentloop(
            scratch.dir(),
            &[
                "run",
                "--resume",
                "--out",
                "t.jsonl",
                "--model",
                &provider.model(),
                "--base-url",
                &url,
                "--demo-tools",
            ],
            &[],
        );
        assert_eq!(resume.code, 0, "{}", resume.stderr);
        assert!(
            resume.stderr.contains("t.jsonl (resumed after 4 records)"),
            "{}",
            resume.stderr
        );
        assert!(
            resume.stderr.contains("seq 4 resume after cancelled"),
            "{}",
            resume.stderr
        );
        let bytes = scratch.read("t.jsonl");
        assert_eq!(
            kinds(&bytes),
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
        assert_eq!(
            member(&last_payload(&bytes), "reason").as_str(),
            Some("no_tool_calls")
        );
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
        // The model was shown the conversation before the stop: the task, the call and
        // its result.
        let export = agentloop(
            scratch.dir(),
            &["export", "--format", provider.name(), "t.jsonl"],
            &[],
        );
        let Value::Array(mut history) = json::parse(export.stdout.trim_end().as_bytes()).unwrap()
        else {
            panic!("{}", export.stdout)
        };
        history.pop();
        assert_eq!(
            canonical(&Value::Array(history)),
            canonical(&Value::Array(sent_messages(&server.requests()[0])))
        );
    }
}

/// Two Ctrl-Cs in a row end the run with 130 whatever the second finds (the stop
/// written or not), and the transcript left is one `--resume` continues. (That the
/// second ends the process at once, before the first's stop is written, needs a run
/// still busy after the first — a tool that blocks: `run_mcp.rs`
/// `a_second_sigint_during_a_tool_call_ends_at_once_and_resume_records_the_result_lost`.)
#[test]
fn a_second_sigint_ends_the_run_and_resume_continues_what_is_left() {
    let scratch = Scratch::new("sigint-twice");
    let server = Server::start([
        OpenAi.add_call(),
        OpenAi.answer("too late").with_delay(SLOW),
    ])
    .unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &[]);
    let mut child = spawn(scratch.dir(), &strs(&args), &[]);
    wait_for_requests(&server, 2, &mut child);
    interrupt(&child);
    interrupt(&child);
    let run = finished(child.wait_with_output().unwrap());
    assert_eq!(run.code, 130, "{}", run.stderr);
    drop(server);
    let server = Server::start([OpenAi.answer("42")]).unwrap();
    let url = format!("{}/v1", server.url());
    let resume = agentloop(
        scratch.dir(),
        &[
            "run",
            "--resume",
            "--out",
            "t.jsonl",
            "--model",
            "openai:test-model",
            "--base-url",
            &url,
            "--demo-tools",
        ],
        &[],
    );
    assert_eq!(resume.code, 0, "{}", resume.stderr);
    assert_eq!(
        kinds(&scratch.read("t.jsonl")).last().map(String::as_str),
        Some("stop")
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}

/// Budgets stop the run with exit 3, and a resumed run keeps the recorded budgets: a
/// flag saying otherwise is refused.
#[test]
fn a_budget_stop_exits_3_and_resume_refuses_other_budgets() {
    let scratch = Scratch::new("budget");
    let server = Server::start([OpenAi.add_call()]).unwrap();
    let mut args = run_args(OpenAi, &server, "t.jsonl", &[]);
    // run_args gives --max-steps 4: make it 1.
    let at = args.iter().position(|a| a == "4").unwrap();
    args[at] = String::from("1");
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(
        member(&last_payload(&bytes), "reason").as_str(),
        Some("step_budget")
    );

    let url = format!("{}/v1", server.url());
    let resume = agentloop(
        scratch.dir(),
        &[
            "run",
            "--resume",
            "--out",
            "t.jsonl",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--demo-tools",
            "--max-steps",
            "5",
        ],
        &[],
    );
    assert_eq!(resume.code, 2, "{}", resume.stderr);
    assert_eq!(
        resume.stderr,
        "agentloop: t.jsonl: --max-steps 5 differs from its task record, which has max_steps 1: a resumed run keeps the recorded task and budgets (leave the flag out); nothing was run\n"
    );
    let resume = agentloop(
        scratch.dir(),
        &[
            "run",
            "--resume",
            "--task",
            "other",
            "--out",
            "t.jsonl",
            "--model",
            "openai:m",
            "--base-url",
            &url,
        ],
        &[],
    );
    assert_eq!(resume.code, 2, "{}", resume.stderr);
    assert!(
        resume.stderr.contains(
            "the task \"other\" differs from its task record, which has the task \"add 2 and 40\""
        ),
        "{}",
        resume.stderr
    );
    assert_eq!(scratch.read("t.jsonl"), bytes, "a refusal changed the file");
}

/// `--checkpoint` writes the transcript's checkpoint, which `verify --checkpoint`
/// accepts.
#[test]
fn the_checkpoint_asked_for_is_written_and_holds() {
    let scratch = Scratch::new("checkpoint");
    let server = Server::start([OpenAi.answer("hello")]).unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &["--checkpoint", "cp.txt"]);
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .ends_with("t.jsonl: checkpoint written to cp.txt\n"),
        "{}",
        run.stdout
    );
    let made = agentloop(scratch.dir(), &["checkpoint", "t.jsonl"], &[]);
    assert_eq!(scratch.read("cp.txt"), made.raw_stdout);
    let verified = agentloop(
        scratch.dir(),
        &["verify", "--checkpoint", "cp.txt", "t.jsonl"],
        &[],
    );
    assert_eq!(verified.code, 0, "{}", verified.stderr);
}

/// Refusals before anything is run: an --out that holds bytes (left untouched), a
/// --resume with nothing to resume and no task (no file made), a model spelled wrong,
/// no key for a remote provider, a limit for a tool not offered.
#[test]
fn refusals_say_what_was_wrong_and_run_nothing() {
    let scratch = Scratch::new("refusals");
    let server = Server::start([]).unwrap();
    let url = format!("{}/v1", server.url());
    scratch.write("t.jsonl", "not a transcript\n");
    let base = [
        "run",
        "--task",
        "t",
        "--model",
        "openai:m",
        "--base-url",
        &url,
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };

    let run = agentloop(scratch.dir(), &strs(&with(&["--out", "t.jsonl"])), &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "agentloop: t.jsonl already holds 17 bytes: --resume continues the transcript in it, or give another --out; nothing was run\n");
    assert_eq!(scratch.read("t.jsonl"), b"not a transcript\n");

    // --resume of a file that does not verify: refused, untouched.
    let run = agentloop(
        scratch.dir(),
        &strs(&with(&["--out", "t.jsonl", "--resume"])),
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("agentloop: t.jsonl line 1: "),
        "{}",
        run.stderr
    );
    assert_eq!(scratch.read("t.jsonl"), b"not a transcript\n");

    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--resume",
            "--model",
            "openai:m",
            "--base-url",
            &url,
            "--out",
            "new.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "agentloop: new.jsonl holds no records to resume, and no --task or --task-file was given to start a run; nothing was run\n");
    assert!(!scratch.path("new.jsonl").exists());

    for (model, says) in [
        (
            "gpt-4o",
            "give the provider and the model as openai:NAME or anthropic:NAME",
        ),
        (
            "gemini:pro",
            "'gemini' is not a provider: give openai:NAME or anthropic:NAME",
        ),
        ("openai:", "the model's name is missing after the provider"),
    ] {
        let run = agentloop(
            scratch.dir(),
            &["run", "--task", "t", "--model", model, "--out", "new.jsonl"],
            &[],
        );
        assert_eq!(run.code, 2, "{model}");
        assert!(run.stderr.contains(says), "{model}: {}", run.stderr);
        assert!(run.stderr.contains("--model"), "{}", run.stderr);
    }

    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "anthropic:m",
            "--out",
            "new.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "agentloop: the API key variable ANTHROPIC_API_KEY is not set, or is empty: set it, name another with --api-key-env VAR, or send no key with --api-key-env ''; nothing was run\n");
    let run = agentloop(
        scratch.dir(),
        &strs(&with(&[
            "--api-key-env",
            "MY_AGENTLOOP_KEY",
            "--out",
            "new.jsonl",
        ])),
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("MY_AGENTLOOP_KEY (--api-key-env) is not set"),
        "{}",
        run.stderr
    );

    let run = agentloop(
        scratch.dir(),
        &strs(&with(&["--tool-limit", "add=2", "--out", "new.jsonl"])),
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("agentloop: a limit is set for the tool \"add\" (by --tool-limit, or a resumed run's task record), but no tool of that name is offered; no tools are offered (--demo-tools offers add, echo, fail, greet)"), "{}", run.stderr);

    let run = agentloop(
        scratch.dir(),
        &strs(&with(&["--base-url", "ftp://x", "--out", "new.jsonl"])),
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!scratch.path("new.jsonl").exists());
    assert_eq!(server.requests().len(), 0, "a refused run asked the model");
}

/// `export`: a transcript that does not verify is refused (exit 1); one that is not a
/// run of the loop names the record (exit 2).
#[test]
fn export_refuses_what_it_cannot_export_naming_the_record() {
    let scratch = Scratch::new("export-refusals");
    let sample = common::sample_path();
    let sample = sample.to_str().unwrap();
    let run = agentloop(
        scratch.dir(),
        &["export", "--format", "openai", sample],
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .starts_with(&format!("agentloop: {sample} record 1: ")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with("; nothing was exported\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");

    scratch.write("tampered.jsonl", common::tampered_chain());
    let run = agentloop(
        scratch.dir(),
        &["export", "--format", "anthropic", "tampered.jsonl"],
        &[],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("agentloop: tampered.jsonl line 3: hash_mismatch"),
        "{}",
        run.stderr
    );

    let run = agentloop(
        scratch.dir(),
        &["export", "--format", "gemini", "tampered.jsonl"],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the formats are openai and anthropic"),
        "{}",
        run.stderr
    );
}

/// The README's run example: its command line, run against its script (served in
/// process here, by the binary there), prints exactly the lines the README shows.
#[test]
fn the_readme_run_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(common::workspace().join("README.md")).unwrap();
    let script_path = "docs/examples/standin-add.json";
    let script = std::fs::read_to_string(common::workspace().join(script_path)).unwrap();
    let exchanges = agentloop_standin::script::parse(&script).unwrap();
    let shown = [
        &format!("target/debug/agentloop-standin --exit-when-done {script_path} requests/ > url.txt &"),
        "target/debug/agentloop run --model openai:gpt-4.1-mini --base-url \"$(cat url.txt)/v1\" \\\n    --demo-tools --task \"add 2 and 40\" --max-steps 4 --out run.jsonl",
        "target/debug/agentloop export --format openai run.jsonl",
    ];
    for command in shown {
        assert!(
            readme.contains(command),
            "the README no longer shows: {command}"
        );
    }

    let scratch = Scratch::new("readme");
    let server = Server::start(exchanges).unwrap();
    let url = format!("{}/v1", server.url());
    let run = agentloop(
        scratch.dir(),
        &[
            "run",
            "--model",
            "openai:gpt-4.1-mini",
            "--base-url",
            &url,
            "--demo-tools",
            "--task",
            "add 2 and 40",
            "--max-steps",
            "4",
            "--out",
            "run.jsonl",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let output =
        format!("{}{}", run.stderr, run.stdout).replace(&server.url(), "http://127.0.0.1:PORT");
    let block = format!("```text\n{output}```");
    assert!(
        readme.contains(&block),
        "the README's output differs from:\n{block}"
    );
}
