//! The codecs' request bodies, judged by the providers' own SDK types.
//!
//! Every body the OpenAI and Anthropic codecs build for the three demo runs, for a turn
//! with several calls cancelled after its first and then resumed (so the next request
//! holds one result and two "not run" results), for a model that made up a tool name
//! no provider accepts, with the caller's pass-through options, and for the exports of
//! each transcript, goes to `tests/oracle/provider_requests.py`, which validates it with
//! the SDKs' request parameter types (made strict: no undeclared member passes). Each
//! body is also checked here against the pairing rules both APIs enforce at run time,
//! which no type can express: every call answered exactly once, in the message right
//! after it, before the next turn; Anthropic roles alternate, starting with `user`;
//! results come first in their user message; no text block without a character other
//! than white space (Anthropic: "text content blocks must contain non-whitespace
//! text"), such as the `"\n\n"` Claude may say before a call.
//!
//! Negative controls: bodies broken on purpose (a made-up role, an undeclared member, a
//! tool block of the wrong type) must be refused by the oracle, so a lenient oracle
//! cannot pass the test unseen.
//!
//! Skipped when python3 lacks the `openai`, `anthropic` or `pydantic` modules, except
//! under `CI`, where that is a failure (`.ci/run` installs them).

use std::collections::BTreeSet;
use std::process::Command;

use agentloop_core::agent::Budgets;
use agentloop_core::anchor::Anchor;
use agentloop_core::demo;
use agentloop_core::driver;
use agentloop_core::export;
use agentloop_core::json::{self, Object, Value};
use agentloop_core::model::{Message, Model, ModelError, Reply, Scripted};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::tools::ToolSpec;
use agentloop_tests::{skip_or_fail, workspace_root, TempDir};

/// One body to judge.
struct Case {
    name: String,
    provider: Provider,
    body: Value,
}

/// A scripted model that also builds, at each turn, the request body each provider's
/// codec would send for what it is shown.
struct Recorder<'a> {
    label: &'a str,
    inner: Scripted,
    options: [(Provider, RequestOptions); 2],
    cases: &'a mut Vec<Case>,
}

impl Model for Recorder<'_> {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let turn = self.cases.len();
        for (provider, options) in &self.options {
            let bytes = provider
                .request(messages, manifest, options)
                .unwrap_or_else(|e| panic!("{}: the {provider} codec refused: {e}", self.label));
            let body = json::parse(&bytes).expect("a request body is JSON");
            self.cases.push(Case {
                name: format!("{}/{provider}/{turn}", self.label),
                provider: *provider,
                body,
            });
        }
        self.inner.reply(messages, manifest)
    }
}

fn object(members: &[(&str, Value)]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(*key, value.clone());
    }
    Value::Object(object)
}

fn text_json(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("a JSON literal in the test")
}

/// Plain options: a model, and Anthropic's required output bound.
fn plain() -> [(Provider, RequestOptions); 2] {
    let mut anthropic = RequestOptions::new("claude-sonnet-4-5");
    anthropic.max_output_tokens = Some(1024);
    [
        (Provider::OpenAi, RequestOptions::new("gpt-4o-mini")),
        (Provider::Anthropic, anthropic),
    ]
}

/// Options with a system prompt and pass-through members each provider documents.
fn tuned() -> [(Provider, RequestOptions); 2] {
    let [(_, mut openai), (_, mut anthropic)] = plain();
    openai.system = Some("You add numbers.".into());
    openai.max_output_tokens = Some(256);
    for (key, value) in [
        ("temperature", "0"),
        ("tool_choice", r#""auto""#),
        ("parallel_tool_calls", "true"),
        ("seed", "7"),
    ] {
        openai.extra.insert(key, text_json(value));
    }
    anthropic.system = Some("You add numbers.".into());
    // (The Anthropic SDK's request type no longer declares `temperature`.)
    for (key, value) in [
        ("stop_sequences", r#"["DONE"]"#),
        ("tool_choice", r#"{"type":"auto"}"#),
        ("metadata", r#"{"user_id":"tester"}"#),
    ] {
        anthropic.extra.insert(key, text_json(value));
    }
    [(Provider::OpenAi, openai), (Provider::Anthropic, anthropic)]
}

/// Runs `replies` on the demo tools; returns the transcript.
fn run(
    label: &str,
    task: &str,
    budgets: Budgets,
    replies: Vec<Reply>,
    options: [(Provider, RequestOptions); 2],
    cancel_at: Option<usize>,
    cases: &mut Vec<Case>,
) -> Vec<u8> {
    let mut toolbox = demo::toolbox().expect("the demo tools register");
    let mut model = Recorder {
        label,
        inner: Scripted::new(replies),
        options,
        cases,
    };
    let mut asked = 0;
    let mut cancel = || {
        asked += 1;
        Some(asked) == cancel_at
    };
    let mut transcript = Vec::new();
    driver::run(
        task,
        budgets,
        &mut model,
        &mut toolbox,
        &mut cancel,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    transcript
}

fn args(a: f64, b: f64) -> Value {
    object(&[("a", Value::Number(a)), ("b", Value::Number(b))])
}

/// Every body the codecs build for the runs, and the exports of their transcripts.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut transcripts = Vec::new();
    for scenario in demo::scenarios() {
        let label = scenario.file_name.trim_end_matches(".jsonl");
        let transcript = run(
            label,
            scenario.task,
            scenario.budgets.clone(),
            scenario.replies.clone(),
            plain(),
            None,
            &mut cases,
        );
        transcripts.push((label.to_string(), transcript));
    }

    // Three calls in one turn, cancelled before the second: one result, two unrun;
    // then resumed, so the next request shows the two "not run" results.
    let budgets = Budgets {
        max_steps: Some(5),
        ..Budgets::default()
    };
    let three = Reply::new("Three at once.")
        .with_call("add", args(1.0, 2.0))
        .with_call("echo", object(&[("text", Value::from("hi"))]))
        .with_call("greet", object(&[("name", Value::from("Ada"))]));
    // Asked before the turn (1), before call 0 (2), before call 1 (3): cancel there.
    let cancelled = run(
        "cancelled",
        "do three things",
        budgets.clone(),
        vec![three],
        tuned(),
        Some(3),
        &mut cases,
    );
    let mut toolbox = demo::toolbox().expect("the demo tools register");
    let mut model = Recorder {
        label: "resumed",
        inner: Scripted::new([Reply::new("Done, two were not run.")]),
        options: tuned(),
        cases: &mut cases,
    };
    let mut appended = Vec::new();
    let manifest = toolbox.manifest().clone();
    let (mut agent, mut chain) = driver::Resumable::read(Anchor::GENESIS, &cancelled)
        .and_then(|read| read.resume(budgets.clone(), manifest))
        .expect("the cancelled run opens");
    let io = driver::Io {
        log: &mut chain,
        model: &mut model,
        toolbox: &mut toolbox,
        cancel: &mut || false,
        records: &mut appended,
        changes: None,
    };
    driver::drive(&mut agent, io, driver::RunOptions::default())
        .expect("the cancelled run resumes");
    let mut resumed = cancelled.clone();
    resumed.extend_from_slice(&appended);
    transcripts.push(("cancelled".into(), cancelled));
    transcripts.push(("resumed".into(), resumed));

    // A made-up tool name no provider accepts, next to a failing call.
    let made_up = run(
        "made-up-name",
        "use a tool",
        budgets,
        vec![
            Reply::new("")
                .with_call("no such tool!", Value::Null)
                .with_call("fail", object(&[])),
            Reply::new("Gave up."),
        ],
        plain(),
        None,
        &mut cases,
    );
    transcripts.push(("made-up-name".into(), made_up));

    // White space before a call, as Claude may answer ("\n\n" then a tool_use), and a
    // turn of white space alone at the end.
    let white_space = run(
        "white-space",
        "add 2 and 40",
        Budgets::default(),
        vec![
            Reply::new("\n\n").with_call("add", args(2.0, 40.0)),
            Reply::new(" \n"),
        ],
        plain(),
        None,
        &mut cases,
    );
    transcripts.push(("white-space".into(), white_space));

    // The exports: the same codecs over records, sent with the plain options.
    for (label, transcript) in &transcripts {
        let records = export::parse_records(transcript).expect("the transcript parses");
        let openai = export::history(Provider::OpenAi, &records).expect("an OpenAI history");
        let anthropic =
            export::history(Provider::Anthropic, &records).expect("an Anthropic history");
        cases.push(Case {
            name: format!("export/{label}/openai"),
            provider: Provider::OpenAi,
            body: object(&[("model", Value::from("gpt-4o-mini")), ("messages", openai)]),
        });
        cases.push(Case {
            name: format!("export/{label}/anthropic"),
            provider: Provider::Anthropic,
            body: object(&[
                ("model", Value::from("claude-sonnet-4-5")),
                ("max_tokens", Value::Number(1024.0)),
                ("messages", anthropic),
            ]),
        });
    }
    cases
}

fn members<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    match value.as_object().and_then(|o| o.get(key)) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.as_object()?.get(key)?.as_str()
}

/// The pairing rules of OpenAI Chat Completions: each assistant message's tool calls
/// are answered by the `tool` messages right after it, each exactly once, and no `tool`
/// message answers anything else.
fn openai_pairing(body: &Value) -> Result<(), String> {
    let messages = members(body, "messages");
    let mut owed: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        match str_of(message, "role") {
            Some("tool") => {
                let id = str_of(message, "tool_call_id").unwrap_or_default();
                if owed.first().map(String::as_str) != Some(id) {
                    return Err(format!("message {i} answers {id:?}, expected {owed:?}"));
                }
                owed.remove(0);
            }
            role => {
                if !owed.is_empty() {
                    return Err(format!(
                        "message {i} ({role:?}) while {owed:?} are unanswered"
                    ));
                }
                if role == Some("assistant") {
                    for call in members(message, "tool_calls") {
                        owed.push(str_of(call, "id").unwrap_or_default().to_string());
                    }
                    let content = message.as_object().and_then(|o| o.get("content"));
                    let empty_text = matches!(content, Some(Value::String(s)) if s.is_empty());
                    if owed.is_empty() && (content.is_none() || content == Some(&Value::Null)) {
                        return Err(format!(
                            "message {i}: an assistant message with neither content nor calls"
                        ));
                    }
                    if empty_text && !owed.is_empty() {
                        return Err(format!(
                            "message {i}: empty text beside calls (null is what the API expects)"
                        ));
                    }
                }
            }
        }
    }
    if owed.is_empty() {
        Ok(())
    } else {
        Err(format!("the body ends with {owed:?} unanswered"))
    }
}

/// The pairing rules of Anthropic Messages: roles alternate starting with `user`; the
/// user message after an assistant message with `tool_use` blocks starts with exactly
/// one `tool_result` per block, in order; no text block is empty or only white space
/// (the API refuses it at run time, which its types do not say); ids are unique.
fn anthropic_pairing(body: &Value) -> Result<(), String> {
    let messages = members(body, "messages");
    let mut owed: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, message) in messages.iter().enumerate() {
        let role = str_of(message, "role").unwrap_or_default();
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        if role != expected {
            return Err(format!(
                "message {i} is {role:?}, expected {expected:?} (roles alternate)"
            ));
        }
        let blocks = members(message, "content");
        if blocks.is_empty() {
            return Err(format!("message {i} has no content blocks"));
        }
        let mut results_done = false;
        for (j, block) in blocks.iter().enumerate() {
            let kind = str_of(block, "type").unwrap_or_default();
            if kind == "text" && str_of(block, "text").is_none_or(|t| t.trim().is_empty()) {
                return Err(format!(
                    "message {i} block {j}: an empty or white-space text block"
                ));
            }
            if kind == "tool_use" {
                let id = str_of(block, "id").unwrap_or_default().to_string();
                if !seen.insert(id.clone()) {
                    return Err(format!("message {i}: the id {id:?} repeats"));
                }
                owed.push(id);
            }
            if kind == "tool_result" {
                if results_done || role != "user" {
                    return Err(format!(
                        "message {i} block {j}: a tool_result after other content"
                    ));
                }
                let id = str_of(block, "tool_use_id").unwrap_or_default();
                if owed.first().map(String::as_str) != Some(id) {
                    return Err(format!(
                        "message {i} block {j} answers {id:?}, expected {owed:?}"
                    ));
                }
                owed.remove(0);
            } else {
                results_done = true;
            }
        }
        if role == "user" && !owed.is_empty() {
            return Err(format!("message {i} leaves {owed:?} unanswered"));
        }
        if role == "assistant" && i + 1 == messages.len() && !owed.is_empty() {
            return Err(format!("the body ends with {owed:?} unanswered"));
        }
    }
    Ok(())
}

/// The oracle's verdict per case name, or None when it cannot run here.
fn judge(cases: &[Case]) -> Option<Vec<(String, bool, String)>> {
    let have = Command::new("python3")
        .args(["-c", "import openai, anthropic, pydantic"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have {
        return None;
    }
    let dir = TempDir::new("provider-requests");
    let path = dir.path().join("cases.json");
    let array = Value::Array(
        cases
            .iter()
            .map(|case| {
                object(&[
                    ("name", Value::from(case.name.as_str())),
                    ("provider", Value::from(case.provider.name())),
                    ("body", case.body.clone()),
                ])
            })
            .collect(),
    );
    std::fs::write(
        &path,
        agentloop_core::jcs::to_vec(&array).expect("encodable"),
    )
    .expect("write cases");
    let script = workspace_root().join("tests/oracle/provider_requests.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&path)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "the oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 verdicts");
    let verdicts: Vec<(String, bool, String)> = stdout
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, '\t');
            let name = parts.next().unwrap_or_default().to_string();
            let ok = parts.next() == Some("ok");
            let why = parts.next().unwrap_or_default().to_string();
            (name, ok, why)
        })
        .collect();
    assert_eq!(
        verdicts.len(),
        cases.len(),
        "one verdict per case:\n{stdout}"
    );
    Some(verdicts)
}

/// Broken copies of good bodies that the SDK types must refuse.
fn negative_controls(cases: &[Case]) -> Vec<Case> {
    let find = |provider: Provider| {
        cases
            .iter()
            .find(|c| c.provider == provider && c.name.starts_with("demo-recover/"))
            .expect("a demo-recover body")
    };
    let mutate = |case: &Case, label: &str, edit: &dyn Fn(&mut Object)| {
        let mut body = case.body.clone();
        if let Value::Object(object) = &mut body {
            edit(object);
        }
        Case {
            name: format!("control/{}/{label}", case.provider),
            provider: case.provider,
            body,
        }
    };
    let first_message = |object: &mut Object, key: &str, value: Value| {
        if let Some(Value::Array(mut messages)) = object.remove("messages") {
            if let Some(Value::Object(message)) = messages.first_mut() {
                message.insert(key, value);
            }
            object.insert("messages", Value::Array(messages));
        }
    };
    let openai = find(Provider::OpenAi);
    let anthropic = find(Provider::Anthropic);
    vec![
        mutate(openai, "role", &|o| {
            first_message(o, "role", Value::from("robot"))
        }),
        mutate(openai, "undeclared-member", &|o| {
            o.insert("tool_results", Value::Array(Vec::new()));
        }),
        mutate(openai, "message-member", &|o| {
            first_message(o, "tool_use_id", Value::from("x"))
        }),
        mutate(anthropic, "no-max-tokens", &|o| {
            o.remove("max_tokens");
        }),
        mutate(anthropic, "block-type", &|o| {
            first_message(o, "content", text_json(r#"[{"type":"txt","text":"x"}]"#))
        }),
        mutate(anthropic, "block-member", &|o| {
            first_message(
                o,
                "content",
                text_json(r#"[{"type":"text","text":"x","tool_call_id":"y"}]"#),
            )
        }),
    ]
}

#[test]
fn request_bodies_satisfy_the_providers_sdk_types_and_pairing_rules() {
    let cases = cases();
    // Three demos (2 + 5 + 4 turns), cancelled (1), resumed (1), made-up (2), white
    // space (2): 17 turns, two providers each; then 7 transcripts exported to each
    // provider.
    assert_eq!(
        cases.len(),
        17 * 2 + 7 * 2,
        "the corpus is what this test says"
    );
    for case in &cases {
        let rules = match case.provider {
            Provider::OpenAi => openai_pairing(&case.body),
            Provider::Anthropic => anthropic_pairing(&case.body),
        };
        if let Err(why) = rules {
            panic!("{}: {why}\n{:?}", case.name, case.body);
        }
    }
    let controls = negative_controls(&cases);
    let all: Vec<Case> = cases.into_iter().chain(controls).collect();
    let Some(verdicts) = judge(&all) else {
        skip_or_fail(
            "skipped: python3 lacks the openai/anthropic SDKs (pip install openai anthropic)",
        );
        return;
    };
    let mut wrong = Vec::new();
    for ((name, ok, why), case) in verdicts.iter().zip(&all) {
        assert_eq!(name, &case.name, "the oracle answers in order");
        let control = name.starts_with("control/");
        if *ok == control {
            wrong.push(format!(
                "{name}: {} — {why}\n  {}",
                if control {
                    "a broken body passed"
                } else {
                    "refused"
                },
                String::from_utf8_lossy(
                    &agentloop_core::jcs::to_vec(&case.body).unwrap_or_default()
                )
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} verdicts wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_pairing_checks_catch_what_they_claim() {
    // The rules above are the test's own code: each must fail on a body that breaks it.
    let openai = text_json(
        r#"{"messages":[{"role":"user","content":"t"},
        {"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
        {"role":"user","content":"too early"}]}"#,
    );
    assert!(openai_pairing(&openai).unwrap_err().contains("unanswered"));
    let twice = text_json(
        r#"{"messages":[{"role":"user","content":"t"},
        {"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"a","content":"1"}]}"#,
    );
    assert!(openai_pairing(&twice).unwrap_err().contains("answers"));
    let same_role = text_json(
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"t"}]},{"role":"user","content":[{"type":"text","text":"u"}]}]}"#,
    );
    assert!(anthropic_pairing(&same_role)
        .unwrap_err()
        .contains("alternate"));
    let late_result = text_json(
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"t"}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},
        {"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"a","content":"1"}]}]}"#,
    );
    assert!(anthropic_pairing(&late_result)
        .unwrap_err()
        .contains("after other content"));
    for text in ["", "\\n\\n", " \\t"] {
        let blank = text_json(&format!(
            r#"{{"messages":[{{"role":"user","content":[{{"type":"text","text":"{text}"}}]}}]}}"#
        ));
        assert!(anthropic_pairing(&blank)
            .unwrap_err()
            .contains("empty or white-space text"));
    }
}
