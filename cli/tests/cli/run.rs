//! `agentloop run` and `agentloop export` against the loopback stand-in provider
//! (`agentloop-standin`, in process): scripted runs for both providers that verify,
//! pass the loop audit, export exactly what was sent, and are the same bytes when made
//! again; retries, a model that keeps failing, Ctrl-C and `--resume`, refusals, and an
//! API key that never reaches a transcript or a message.

use crate::common;

use agentloop_core::json::{self, Value};
use agentloop_standin::{canned, Exchange, Server};
use common::runs::*;
use common::{json_lines, member, workspace, Run, Scratch};
use std::fs;

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
        // The same but for where the requests went (the stand-in's port).
        assert_eq!(
            but_the_endpoint(&transcripts[0]),
            but_the_endpoint(&transcripts[1]),
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
                .map(|event| {
                    // A record's hash follows the task record's, whose setup names the port.
                    let Value::Object(mut event) = event.clone() else {
                        panic!("an event that is not an object")
                    };
                    event.remove("hash");
                    event.remove("head");
                    canonical(&Value::Object(event))
                })
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
            // The same but for the stand-in's port, which the setup's endpoint names.
            assert_eq!(
                but_the_endpoint(other_bytes),
                but_the_endpoint(bytes),
                "{provider:?}: --parallel {parallel} wrote other records than --parallel 1"
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

/// What a run that ended on a provider's error left for a key to leak into: the
/// transcript `out` (whose recorded error must say `[redacted]`) and the run's stdout
/// and stderr.
#[track_caller]
fn redacted_outputs(scratch: &Scratch, out: &str, run: Run) -> [String; 3] {
    let bytes = scratch.read(out);
    let error = member(&last_payload(&bytes), "error")
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("[redacted]"), "{error}");
    [
        String::from_utf8_lossy(&bytes).into_owned(),
        run.stdout,
        run.stderr,
    ]
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
    for text in redacted_outputs(&scratch, "t.jsonl", run) {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
}

/// The red team's case: a 164-character key echoed where the provider's text is cut —
/// 127 characters into it at the 1000-character cut of a JSON message, 95 at the
/// 200-character cut of a body that is not JSON — left that much of the key in the
/// `stop` record and the output. No run of 8 of its characters is left now.
#[test]
fn a_long_key_echoed_where_the_text_is_cut_leaves_no_part_of_it() {
    let key = concat!(
        "sk-ant-api03-",
        "HvIimtLOIodwaNNJZK19ImMMBaPEGa5Us0IL57ghsuqzRnO6rcIMA7xSorQFhi",
        "66RuHka4KMXECbw1zfXKYzQ19Y4gqqLOLTxlMvsia8BOMD69UWrsw5ZGf03Juf",
        "hNiyckbKqaPd36SdOP9CAbarjQc",
    );
    assert_eq!(key.len(), 164);
    let leaks = |text: &str| {
        key.as_bytes()
            .windows(8)
            .any(|run| text.contains(std::str::from_utf8(run).unwrap()))
    };
    let message = format!("{}{key}", "x".repeat(1000 - 127));
    let page = format!("Unauthorized: {}{key} end", "y".repeat(105 - 14));
    let scratch = Scratch::new("long-key-echoed");
    for provider in [OpenAi, Anthropic] {
        let json = match provider {
            OpenAi => canned::openai::error_body(&message, "invalid_request_error", None),
            Anthropic => canned::anthropic::error_body("authentication_error", &message),
        };
        for (i, body) in [json, page.clone()].into_iter().enumerate() {
            let out = format!("{}-{i}.jsonl", provider.name());
            let server = Server::start([Exchange::new(401, body)]).unwrap();
            let args = run_args(provider, &server, &out, &[]);
            let run = agentloop(
                scratch.dir(),
                &strs(&args),
                &[(provider.key_variable(), key)],
            );
            assert_eq!(run.code, 4, "{}", run.stderr);
            for text in redacted_outputs(&scratch, &out, run) {
                assert!(!leaks(&text), "part of the key leaked: {text}");
            }
        }
    }
}

/// A task that is empty or only white space asks nothing (and Anthropic refuses it):
/// refused before anything is written or asked, for `--task` and `--task-file`,
/// whatever the provider.
#[test]
fn a_blank_task_is_refused_before_anything_is_written() {
    let scratch = Scratch::new("blank-task");
    scratch.write("blank.txt", " \n\t\u{3000}\n");
    let server = Server::start([]).unwrap();
    for provider in [OpenAi, Anthropic] {
        for (flag, value, name) in [
            ("--task", "", "--task"),
            ("--task", "   ", "--task"),
            ("--task", "\n\n", "--task"),
            ("--task-file", "blank.txt", "blank.txt"),
        ] {
            let run = agentloop(
                scratch.dir(),
                &[
                    "run",
                    flag,
                    value,
                    "--model",
                    &provider.model(),
                    "--base-url",
                    &format!("{}/v1", server.url()),
                    "--out",
                    "t.jsonl",
                ],
                &[(provider.key_variable(), KEY)],
            );
            assert_eq!(run.code, 2, "{flag} {value:?}: {}", run.stderr);
            assert_eq!(
                run.stderr,
                format!(
                    "agentloop: {name}: the task is empty or only white space: it asks the \
                     model nothing (and Anthropic refuses text without a character other than \
                     white space); nothing was run\n"
                )
            );
            assert!(!scratch.path("t.jsonl").exists());
        }
    }
    assert_eq!(server.requests().len(), 0, "a refused run asked the model");
}

/// Claude may answer `"\n\n"` before a `tool_use`; sending that text back made the
/// API refuse the next request (400 `text content blocks must contain non-whitespace
/// text`), so the run died on its next turn. The text is recorded as said and left out
/// of the requests, as empty text is; the run ends as the model chose.
#[test]
fn white_space_text_before_a_call_is_recorded_but_not_sent_back() {
    let scratch = Scratch::new("white-space-text");
    let server = Server::start([
        canned::anthropic::tool_use(Some("\n\n"), &[("add", r#"{"a":2,"b":40}"#)]),
        Anthropic.answer("42."),
    ])
    .unwrap();
    let args = run_args(Anthropic, &server, "t.jsonl", &[]);
    let run = agentloop(scratch.dir(), &strs(&args), &[("ANTHROPIC_API_KEY", KEY)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(
        kinds(&bytes),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    let turn = &records(&bytes)[1];
    assert_eq!(
        member(member(turn, "payload"), "text").as_str(),
        Some("\n\n")
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for message in sent_messages(&requests[1]) {
        let Value::Array(blocks) = member(&message, "content") else {
            panic!("{message:?}")
        };
        assert!(!blocks.is_empty());
        for block in blocks {
            if member(block, "type").as_str() == Some("text") {
                let text = member(block, "text").as_str().unwrap();
                assert!(!text.trim().is_empty(), "a white-space text block was sent");
            }
        }
    }
    // The export is what was sent, white space left out the same way.
    let export = agentloop(
        scratch.dir(),
        &["export", "--format", "anthropic", "t.jsonl"],
        &[],
    );
    assert_eq!(export.code, 0, "{}", export.stderr);
    assert!(
        !export.stdout.contains(r#""text":"\n\n""#),
        "{}",
        export.stdout
    );
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
        let resume = run_resume(&scratch, &provider.model(), &server, &["--demo-tools"]);
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
    let resume = run_resume(&scratch, "openai:test-model", &server, &["--demo-tools"]);
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

    let resume = run_resume(
        &scratch,
        "openai:m",
        &server,
        &["--demo-tools", "--max-steps", "5"],
    );
    assert_eq!(resume.code, 2, "{}", resume.stderr);
    assert_eq!(
        resume.stderr,
        "agentloop: t.jsonl: --max-steps 5 differs from its task record, which has max_steps 1: a resumed run keeps the recorded task and budgets (leave the flag out); nothing was run\n"
    );
    let resume = run_resume(&scratch, "openai:m", &server, &["--task", "other"]);
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
        &strs(&resume_args("openai:m", &server, "new.jsonl", &[])),
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

/// The names of the files in `scratch`, sorted.
fn files(scratch: &Scratch) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scratch.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Two files of a run that are one file — by any name: the same, a hard link, a
/// symbolic link, dangling or not — are refused before anything starts (exit 2,
/// naming both): nothing written (the transcript the same bytes, or still absent), no
/// MCP server started (its command, `touch started`, would leave a file).
#[test]
fn two_files_of_a_run_that_are_one_file_are_refused_before_anything_starts() {
    let scratch = Scratch::new("one-file-twice");
    let server = Server::start([]).unwrap();
    let url = format!("{}/v1", server.url());
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--model", "openai:m", "--base-url", &url];
        if !extra.contains(&"--task-file") {
            args.extend(["--task", "t"]);
        }
        args.extend(extra);
        agentloop(scratch.dir(), &args, &[])
    };
    let refused = |extra: &[&str], says: &str| {
        let before = files(&scratch);
        let transcript = std::fs::read(scratch.path("t.jsonl")).ok();
        let refused = run(extra);
        assert_eq!(refused.code, 2, "{extra:?}: {}", refused.stderr);
        assert_eq!(refused.stderr, format!("agentloop: {says}\n"), "{extra:?}");
        assert_eq!(files(&scratch), before, "{extra:?}");
        assert_eq!(std::fs::read(scratch.path("t.jsonl")).ok(), transcript);
    };
    let mcp = ["--mcp", "touch started"];
    let both = "are one file: the run writes each for its own purpose, and one would spoil the \
                other; give each its own path; nothing was run";

    // A new run: the transcript is yet to be created.
    refused(
        &[&mcp[..], &["--out", "t.jsonl", "--mcp-log", "./t.jsonl"]].concat(),
        &format!("--out t.jsonl and --mcp-log ./t.jsonl {both}"),
    );
    refused(
        &[
            &mcp[..],
            &["--out", "t.jsonl", "--mcp-log", "t.jsonl.tools.json"],
        ]
        .concat(),
        &format!("t.jsonl.tools.json (--out's tool map) and --mcp-log t.jsonl.tools.json {both}"),
    );
    std::os::unix::fs::symlink("t.jsonl.tools.json", scratch.path("map-link")).unwrap();
    refused(
        &[&mcp[..], &["--out", "t.jsonl", "--mcp-log", "map-link"]].concat(),
        &format!("t.jsonl.tools.json (--out's tool map) and --mcp-log map-link {both}"),
    );
    refused(
        &["--out", "t.jsonl", "--checkpoint", "./t.jsonl"],
        &format!("--out t.jsonl and --checkpoint ./t.jsonl {both}"),
    );

    // A transcript to resume, and names for it.
    scratch.write("t.jsonl", common::spec_chain());
    std::fs::hard_link(scratch.path("t.jsonl"), scratch.path("hard.jsonl")).unwrap();
    std::os::unix::fs::symlink("t.jsonl", scratch.path("soft.jsonl")).unwrap();
    for log in ["t.jsonl", "hard.jsonl", "soft.jsonl"] {
        refused(
            &[
                &mcp[..],
                &["--resume", "--out", "t.jsonl", "--mcp-log", log],
            ]
            .concat(),
            &format!("--out t.jsonl and --mcp-log {log} {both}"),
        );
    }
    // The MCP servers' log by default, named as the checkpoint.
    refused(
        &[
            &mcp[..],
            &[
                "--out",
                "t.jsonl",
                "--resume",
                "--checkpoint",
                "t.jsonl.mcp.log",
            ],
        ]
        .concat(),
        &format!(
            "t.jsonl.mcp.log (the MCP servers' log by default) and --checkpoint t.jsonl.mcp.log \
             {both}"
        ),
    );

    // What the run reads is not written over.
    scratch.write("task.txt", "the task");
    let task = ["--task-file", "task.txt"];
    refused(
        &[
            &mcp[..],
            &task,
            &["--out", "new.jsonl", "--mcp-log", "task.txt"],
        ]
        .concat(),
        "--mcp-log task.txt is --task-file task.txt, which the run reads: writing it would \
         destroy it; give another path; nothing was run",
    );
    assert_eq!(scratch.read("task.txt"), b"the task");
    scratch.write("k.key", "not a key");
    refused(
        &[
            "--out",
            "new.jsonl",
            "--checkpoint",
            "k.key",
            "--sign-key",
            "./k.key",
        ],
        "--checkpoint k.key is --sign-key ./k.key, which the run reads: writing it would \
         destroy it; give another path; nothing was run",
    );
    assert!(!scratch.path("started").exists());
    assert_eq!(server.requests().len(), 0, "a refused run asked the model");
}

/// A `--base-url` with a user and password (`http://agent:PASSWORD@host/v1`): sent as
/// HTTP Basic authorization (beside Anthropic's key), and never shown — not in the
/// start line, the `--json` start event, an error sentence or the transcript; beside an
/// OpenAI key, which takes the same header, it is refused.
#[test]
fn a_password_in_the_base_url_is_sent_as_basic_auth_and_never_shown() {
    const PASSWORD: &str = "pw-9d1e0c";
    let scratch = Scratch::new("userinfo");
    let key = [(Anthropic.key_variable(), KEY)];
    for (out, json) in [("t.jsonl", false), ("j.jsonl", true)] {
        let server = Server::start([Anthropic.answer("hi")]).unwrap();
        let base = server
            .url()
            .replace("://", &format!("://agent:{PASSWORD}@"));
        let mut args = vec![
            "run".to_string(),
            "--task".into(),
            "t".into(),
            "--model".into(),
            Anthropic.model(),
            "--base-url".into(),
            format!("{base}/v1"),
            "--out".into(),
            out.into(),
        ];
        if json {
            args.push("--json".into());
        }
        let run = agentloop(scratch.dir(), &strs(&args), &key);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let shown = format!("{}/v1/messages", server.url());
        if json {
            let start = &json_lines(&run.stdout)[0];
            assert_eq!(member(start, "url").as_str(), Some(shown.as_str()));
        } else {
            let first = run.stderr.lines().next().unwrap();
            assert!(
                first.starts_with(&format!("run: {} at {shown}; ", Anthropic.model())),
                "{first}"
            );
        }
        for text in [&run.stdout, &run.stderr] {
            assert!(!text.contains(PASSWORD), "{text}");
        }
        assert!(!String::from_utf8_lossy(&scratch.read(out)).contains(PASSWORD));
        let requests = server.requests();
        assert_eq!(
            requests[0].header("authorization"),
            Some("Basic YWdlbnQ6cHctOWQxZTBj"),
            "agent:{PASSWORD} in base64"
        );
        assert_eq!(requests[0].header("x-api-key"), Some(KEY));
    }

    // A URL refused for what it is: named without its user and password.
    let refused = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &format!("http://agent:{PASSWORD}@127.0.0.1:9/v1?x=1"),
            "--out",
            "new.jsonl",
        ],
        &[],
    );
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "agentloop: --base-url: the base URL \"http://127.0.0.1:9/v1?x=1\" has a query (the \
         endpoint's path is added after it)\n"
    );
    // Beside an OpenAI key: refused, without the password.
    let refused = agentloop(
        scratch.dir(),
        &[
            "run",
            "--task",
            "t",
            "--model",
            "openai:m",
            "--base-url",
            &format!("http://agent:{PASSWORD}@127.0.0.1:9/v1"),
            "--out",
            "new.jsonl",
        ],
        &[(OpenAi.key_variable(), KEY)],
    );
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "agentloop: --base-url: the base URL \"http://127.0.0.1:9/v1\" has a user and password, \
         sent as HTTP Basic authorization, and the OpenAI key goes in the same Authorization \
         header: give one of them (send no key, or take the user and password out of the \
         URL); --api-key-env '' sends no key; nothing was run\n"
    );
    assert!(!scratch.path("new.jsonl").exists());
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
        run.stderr
            .contains("the formats are openai, anthropic and otlp"),
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
    // The head changes with the port, which the task record's setup holds.
    let head = output.split("head ").nth(1).unwrap().trim_end();
    assert_eq!(head.len(), 64, "{output}");
    let output = output.replace(head, "HEAD");
    let block = format!("```text\n{output}```");
    assert!(
        readme.contains(&block),
        "the README's output differs from:\n{block}"
    );
}

/// Model text, a tool name and the output file's name with bidi controls: the start
/// line, the progress lines and `show` print them as escapes, never raw (the
/// transcript keeps what the model said).
#[test]
fn bidi_controls_from_the_model_are_escaped_in_progress_and_show() {
    let scratch = Scratch::new("bidi-progress");
    let server = Server::start([
        canned::anthropic::tool_use(Some("look\u{202e} here"), &[("ad\u{202e}d", "{}")]),
        Anthropic.answer("fin\u{2067}al\u{1b}[2J"),
    ])
    .unwrap();
    let out = "t\u{202e}lnosj.jsonl";
    let args = run_args(Anthropic, &server, out, &[]);
    let run = agentloop(scratch.dir(), &strs(&args), &[("ANTHROPIC_API_KEY", KEY)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let show = agentloop(scratch.dir(), &["show", out], &[]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    for text in [&run.stdout, &run.stderr, &show.stdout, &show.stderr] {
        assert!(
            !text.contains(['\u{202e}', '\u{2067}', '\u{1b}']),
            "{text:?}"
        );
    }
    for expected in [
        r"t\u202elnosj.jsonl (new)",
        r#"calls "ad\u202ed""#,
        r#"failed: "no tool named 'ad\u202ed'"#,
        r#"answer "fin\u2067al\u001b[2J""#,
    ] {
        assert!(run.stderr.contains(expected), "{expected}: {}", run.stderr);
    }
    for expected in [r#"text="look\u202e here""#, r#"add\u202ed"#] {
        let expected = expected.replace("add", "ad");
        assert!(
            show.stdout.contains(&expected),
            "{expected}: {}",
            show.stdout
        );
    }
    let bytes = String::from_utf8(scratch.read(out)).unwrap();
    assert!(bytes.contains("look\u{202e} here"), "{bytes}");
}

/// `FILE.tools.json` (format 1's side file) is a whole document like any other: a
/// resumed format-1 run reads it to the 16 MiB bound and refuses it past that, before
/// anything runs — here one without end (`/dev/zero`), under an address-space cap the
/// old reader, which grew until memory ran out, would pass.
#[test]
fn a_tools_map_without_end_is_refused_at_the_bound() {
    let scratch = Scratch::new("tools-map-bound");
    let server = Server::start([OpenAi.answer("42")]).unwrap();
    let fixture = workspace().join("tests/fixtures/format1/add.jsonl");
    scratch.write("t.jsonl", fs::read(fixture).unwrap());
    let before = scratch.read("t.jsonl");
    std::os::unix::fs::symlink("/dev/zero", scratch.path("t.jsonl.tools.json")).unwrap();
    let resume = resume_args("openai:test-model", &server, "t.jsonl", &["--demo-tools"]);
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_agentloop"))
        .args(resume)
        .current_dir(scratch.dir())
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    let run = finished(output);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "agentloop: t.jsonl.tools.json: cannot read it: it is longer than the limit of \
         16777216 bytes (16 MiB); nothing was run\n"
    );
    assert_eq!(scratch.read("t.jsonl"), before);
    assert!(server.requests().is_empty());
}
