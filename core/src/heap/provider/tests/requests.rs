//! Requests: exact bodies, the pairing rules on every conversation the loop shows its
//! model (demo runs, resumes), the same history as the transcript export, refusals.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{json, text};
use crate::agent::Budgets;
use crate::demo;
use crate::driver;
use crate::export::tests::{check_anthropic, check_openai};
use crate::export::{self, parse_records};
use crate::json::{Object, Value};
use crate::model::{Message, Model, ModelError, Reply, Scripted, ToolCall};
use crate::provider::{
    anthropic, check_conversation, openai, Provider, RequestErrorKind, RequestOptions,
};
use crate::tools::ToolSpec;

fn user(text: &str) -> Message {
    Message::User { text: text.into() }
}

fn assistant(text: &str, calls: &[(&str, &str, Value)]) -> Message {
    Message::Assistant {
        text: text.into(),
        tool_calls: calls
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: String::from(*id),
                name: String::from(*name),
                arguments: arguments.clone(),
            })
            .collect(),
    }
}

fn tool(id: &str, name: &str, result: Result<Value, &str>) -> Message {
    Message::Tool {
        call_id: id.into(),
        name: name.into(),
        result: result.map_err(String::from),
    }
}

/// Two turns of two calls each: one call that failed, one the loop left unrun (shown,
/// after a `resume`, with its "not run" result).
fn several() -> Vec<Message> {
    alloc::vec![
        user("add 2 and 40, then greet ada"),
        assistant(
            "Two calls at once.",
            &[
                ("call_1_0", "add", json(r#"{"a":2,"b":40}"#)),
                ("call_1_1", "greet", json(r#"{"name":"ada"}"#)),
            ],
        ),
        tool("call_1_0", "add", Ok(json(r#"{"sum":42}"#))),
        tool(
            "call_1_1",
            "greet",
            Err("tool 'greet' failed: no greeting today")
        ),
        assistant(
            "",
            &[
                ("call_4_0", "add", json(r#"{"a":1,"b":1}"#)),
                ("call_4_1", "echo", json(r#"{"x":1}"#)),
            ],
        ),
        tool("call_4_0", "add", Ok(json(r#"{"sum":2}"#))),
        tool(
            "call_4_1",
            "echo",
            Err("not run: the loop stopped (tool_budget)")
        ),
    ]
}

fn add_spec() -> ToolSpec {
    ToolSpec::new("add", "Adds.", json(r#"{"type":"object"}"#))
}

fn options(model: &str, extra: &str) -> RequestOptions {
    let mut options = RequestOptions::new(model);
    options.max_output_tokens = Some(256);
    options.system = Some(String::from("Use the tools."));
    options.extra = match json(extra) {
        Value::Object(o) => o,
        _ => panic!("extra is not an object"),
    };
    options
}

/// The `messages` member of a request body.
fn messages_of(body: &[u8]) -> Value {
    json(core::str::from_utf8(body).unwrap())
        .as_object()
        .and_then(|o| o.get("messages"))
        .cloned()
        .unwrap()
}

#[test]
fn openai_request_with_several_calls_a_failure_and_an_unrun_call() {
    let options = options(
        "gpt-4.1",
        r#"{"temperature":0,"tool_choice":"auto","parallel_tool_calls":true}"#,
    );
    let body = openai::request(&several(), &[add_spec()], &options).unwrap();
    assert_eq!(
        text(body.clone()),
        concat!(
            r#"{"max_completion_tokens":256,"messages":["#,
            r#"{"content":"Use the tools.","role":"system"},"#,
            r#"{"content":"add 2 and 40, then greet ada","role":"user"},"#,
            r#"{"content":"Two calls at once.","role":"assistant","tool_calls":["#,
            r#"{"function":{"arguments":"{\"a\":2,\"b\":40}","name":"add"},"id":"call_1_0","type":"function"},"#,
            r#"{"function":{"arguments":"{\"name\":\"ada\"}","name":"greet"},"id":"call_1_1","type":"function"}]},"#,
            r#"{"content":"{\"sum\":42}","role":"tool","tool_call_id":"call_1_0"},"#,
            r#"{"content":"tool 'greet' failed: no greeting today","role":"tool","tool_call_id":"call_1_1"},"#,
            r#"{"content":null,"role":"assistant","tool_calls":["#,
            r#"{"function":{"arguments":"{\"a\":1,\"b\":1}","name":"add"},"id":"call_4_0","type":"function"},"#,
            r#"{"function":{"arguments":"{\"x\":1}","name":"echo"},"id":"call_4_1","type":"function"}]},"#,
            r#"{"content":"{\"sum\":2}","role":"tool","tool_call_id":"call_4_0"},"#,
            r#"{"content":"not run: the loop stopped (tool_budget)","role":"tool","tool_call_id":"call_4_1"}],"#,
            r#""model":"gpt-4.1","parallel_tool_calls":true,"temperature":0,"tool_choice":"auto","#,
            r#""tools":[{"function":{"description":"Adds.","name":"add","parameters":{"type":"object"}},"type":"function"}]}"#
        )
    );
    check_openai(&messages_of(&body)).unwrap();
}

#[test]
fn anthropic_request_with_several_calls_a_failure_and_an_unrun_call() {
    let options = options(
        "claude-sonnet-4-5",
        r#"{"temperature":0,"tool_choice":{"type":"auto"}}"#,
    );
    let body = anthropic::request(&several(), &[add_spec()], &options).unwrap();
    assert_eq!(
        text(body.clone()),
        concat!(
            r#"{"max_tokens":256,"messages":["#,
            r#"{"content":[{"text":"add 2 and 40, then greet ada","type":"text"}],"role":"user"},"#,
            r#"{"content":[{"text":"Two calls at once.","type":"text"},"#,
            r#"{"id":"call_1_0","input":{"a":2,"b":40},"name":"add","type":"tool_use"},"#,
            r#"{"id":"call_1_1","input":{"name":"ada"},"name":"greet","type":"tool_use"}],"role":"assistant"},"#,
            r#"{"content":[{"content":"{\"sum\":42}","tool_use_id":"call_1_0","type":"tool_result"},"#,
            r#"{"content":"tool 'greet' failed: no greeting today","is_error":true,"tool_use_id":"call_1_1","type":"tool_result"}],"role":"user"},"#,
            r#"{"content":[{"id":"call_4_0","input":{"a":1,"b":1},"name":"add","type":"tool_use"},"#,
            r#"{"id":"call_4_1","input":{"x":1},"name":"echo","type":"tool_use"}],"role":"assistant"},"#,
            r#"{"content":[{"content":"{\"sum\":2}","tool_use_id":"call_4_0","type":"tool_result"},"#,
            r#"{"content":"not run: the loop stopped (tool_budget)","is_error":true,"tool_use_id":"call_4_1","type":"tool_result"}],"role":"user"}],"#,
            r#""model":"claude-sonnet-4-5","system":"Use the tools.","temperature":0,"tool_choice":{"type":"auto"},"#,
            r#""tools":[{"description":"Adds.","input_schema":{"type":"object"},"name":"add"}]}"#
        )
    );
    check_anthropic(&messages_of(&body)).unwrap();
}

#[test]
fn bare_requests_leave_out_what_is_not_set() {
    let conversation = [user("hi")];
    let mut options = RequestOptions::new("m");
    assert_eq!(
        text(openai::request(&conversation, &[], &options).unwrap()),
        r#"{"messages":[{"content":"hi","role":"user"}],"model":"m"}"#
    );
    options.max_output_tokens = Some(1);
    assert_eq!(
        text(anthropic::request(&conversation, &[], &options).unwrap()),
        r#"{"max_tokens":1,"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"model":"m"}"#
    );
    // An older OpenAI-compatible server's max_tokens goes in extra, as given.
    let mut options = RequestOptions::new("m");
    options.extra.insert("max_tokens", Value::Number(64.0));
    assert_eq!(
        text(openai::request(&conversation, &[], &options).unwrap()),
        r#"{"max_tokens":64,"messages":[{"content":"hi","role":"user"}],"model":"m"}"#
    );
    // The largest count is exact.
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(crate::anchor::MAX_SEQ);
    assert_eq!(
        text(openai::request(&conversation, &[], &options).unwrap()),
        r#"{"max_completion_tokens":9007199254740991,"messages":[{"content":"hi","role":"user"}],"model":"m"}"#
    );
}

#[test]
fn made_up_names_and_arguments_that_are_not_an_object() {
    let conversation = [
        user("t"),
        assistant(
            "",
            &[
                ("call_1_0", "my tool", Value::from("{bad")),
                ("call_1_1", "add", json("[1,2]")),
            ],
        ),
        tool(
            "call_1_0",
            "my tool",
            Err("no tool named 'my tool' (have: add)"),
        ),
        tool(
            "call_1_1",
            "add",
            Err("invalid arguments: $.add: expected type object, got array"),
        ),
    ];
    let calls = |provider: Provider| {
        let Value::Array(messages) = provider.messages(&conversation) else {
            panic!("not an array")
        };
        let Some(Value::Object(turn)) = messages.get(1) else {
            panic!("no turn")
        };
        let key = if provider == Provider::OpenAi {
            "tool_calls"
        } else {
            "content"
        };
        text(crate::jcs::to_vec(turn.get(key).unwrap()).unwrap())
    };
    assert_eq!(
        calls(Provider::OpenAi),
        concat!(
            r#"[{"function":{"arguments":"\"{bad\"","name":"my_tool-ba077b4202dcd661"},"id":"call_1_0","type":"function"},"#,
            r#"{"function":{"arguments":"[1,2]","name":"add"},"id":"call_1_1","type":"function"}]"#
        )
    );
    assert_eq!(
        calls(Provider::Anthropic),
        concat!(
            r#"[{"id":"call_1_0","input":{"arguments":"{bad"},"name":"my_tool-ba077b4202dcd661","type":"tool_use"},"#,
            r#"{"id":"call_1_1","input":{"arguments":[1,2]},"name":"add","type":"tool_use"}]"#
        )
    );
    check_anthropic(&Provider::Anthropic.messages(&conversation)).unwrap();
}

/// A model that records what it is shown and answers from a script.
struct Capture {
    script: Scripted,
    seen: Vec<Vec<Message>>,
}

impl Model for Capture {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        self.seen.push(messages.to_vec());
        self.script.reply(messages, manifest)
    }
}

/// The records of `transcript` before its `n`th (0-based) `assistant` record.
fn before_turn(transcript: &[u8], n: usize) -> Vec<Value> {
    let records = parse_records(transcript).unwrap();
    let kind = |r: &Value| r.as_object().and_then(|o| o.get("kind")).cloned();
    let at = records
        .iter()
        .enumerate()
        .filter(|(_, r)| kind(r) == Some(Value::from("assistant")))
        .nth(n)
        .map(|(i, _)| i)
        .unwrap();
    records[..at].to_vec()
}

/// Checks every conversation `capture` was shown: both requests build and obey the
/// pairing rules, their `messages` and `tools` are the codec's and the export's, and
/// the export of the records written before that turn is the same history.
fn check_turns(capture: &Capture, transcript: &[u8], first_turn: usize) {
    let manifest = demo::toolbox().unwrap().manifest().specs().to_vec();
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(100);
    for (k, seen) in capture.seen.iter().enumerate() {
        let records = before_turn(transcript, first_turn + k);
        let body = openai::request(seen, &manifest, &options).unwrap();
        let history = messages_of(&body);
        check_openai(&history).unwrap_or_else(|e| panic!("turn {k}: {e}"));
        assert_eq!(
            history,
            export::history(Provider::OpenAi, &records).unwrap(),
            "turn {k}"
        );
        let sent = json(core::str::from_utf8(&body).unwrap());
        assert_eq!(
            sent.as_object().unwrap().get("tools"),
            Some(&Provider::OpenAi.tools(&manifest))
        );

        let body = anthropic::request(seen, &manifest, &options).unwrap();
        let history = messages_of(&body);
        check_anthropic(&history).unwrap_or_else(|e| panic!("turn {k}: {e}"));
        assert_eq!(
            history,
            export::history(Provider::Anthropic, &records).unwrap(),
            "turn {k}"
        );
        let sent = json(core::str::from_utf8(&body).unwrap());
        assert_eq!(
            sent.as_object().unwrap().get("tools"),
            Some(&Provider::Anthropic.tools(&manifest))
        );
    }
}

fn run(scenario: &demo::Scenario) -> (Vec<u8>, Capture) {
    let mut capture = Capture {
        script: Scripted::new(scenario.replies.iter().cloned()),
        seen: Vec::new(),
    };
    let mut transcript = Vec::new();
    driver::run(
        scenario.task,
        scenario.budgets.clone(),
        &mut capture,
        &mut demo::toolbox().unwrap(),
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    (transcript, capture)
}

/// Resumes `transcript` with one more reply; the capture and the whole transcript.
fn resume(scenario: &demo::Scenario, transcript: &[u8], reply: Reply) -> (Vec<u8>, Capture) {
    let mut capture = Capture {
        script: Scripted::new([reply]),
        seen: Vec::new(),
    };
    let mut more = Vec::new();
    driver::testing::resume(
        transcript,
        scenario.budgets.clone(),
        &mut capture,
        &mut demo::toolbox().unwrap(),
        &mut || false,
        &mut more,
    )
    .unwrap();
    let mut whole = transcript.to_vec();
    whole.extend_from_slice(&more);
    (whole, capture)
}

#[test]
fn every_turn_of_the_demo_runs_sends_a_paired_history_equal_to_the_export() {
    for scenario in demo::scenarios() {
        let (transcript, capture) = run(&scenario);
        assert_eq!(
            capture.seen.len(),
            scenario.replies.len(),
            "{}",
            scenario.file_name
        );
        check_turns(&capture, &transcript, 0);
    }
}

#[test]
fn a_run_resumed_after_unrun_calls_sends_their_not_run_results() {
    let scenario = demo::budget();
    let (transcript, _) = run(&scenario);
    let (whole, capture) = resume(&scenario, &transcript, Reply::new("It is 42."));
    assert_eq!(capture.seen.len(), 1);
    check_turns(&capture, &whole, scenario.replies.len());
    let body = anthropic::request(&capture.seen[0], &[], &{
        let mut o = RequestOptions::new("m");
        o.max_output_tokens = Some(1);
        o
    })
    .unwrap();
    let not_run = r#"{"content":"not run: the loop stopped (token_budget)","is_error":true,"tool_use_id":"call_7_0","type":"tool_result"},{"content":"not run: the loop stopped (token_budget)","is_error":true,"tool_use_id":"call_7_1","type":"tool_result"}"#;
    assert!(text(body).contains(not_run));
}

#[test]
fn a_run_resumed_after_its_answer_ends_on_the_assistant_which_only_anthropic_refuses() {
    let scenario = demo::answer();
    let (transcript, _) = run(&scenario);
    let (_, capture) = resume(&scenario, &transcript, Reply::new("Still 42."));
    let seen = &capture.seen[0];
    assert!(matches!(seen.last(), Some(Message::Assistant { .. })));
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(10);
    // OpenAI answers a trailing assistant message with a new one.
    let body = openai::request(seen, &[], &options).unwrap();
    check_openai(&messages_of(&body)).unwrap();
    // Anthropic would continue it as a prefill: refused, naming the message.
    let error = anthropic::request(seen, &[], &options).unwrap_err();
    assert_eq!(
        error.0,
        RequestErrorKind::BadConversation {
            index: 3,
            what: "the conversation ends with an assistant message, which Anthropic would continue (a prefill) instead of answering",
        }
    );
    assert_eq!(
        format!("{error}"),
        "message 3 of the conversation cannot be sent: the conversation ends with an assistant message, which Anthropic would continue (a prefill) instead of answering"
    );
    // The history (a record, not a request) still gives it.
    let Value::Array(history) = anthropic::messages(seen) else {
        panic!()
    };
    assert_eq!(history.len(), 4);
}

/// A model that sends each request through a codec and answers from canned HTTP
/// responses: the HTTP model without the HTTP.
struct Canned {
    provider: Provider,
    options: RequestOptions,
    answers: VecDeque<(u16, String)>,
    requests: Vec<String>,
}

impl Model for Canned {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let body = self
            .provider
            .request(messages, manifest, &self.options)
            .map_err(|e| ModelError::new(format!("{e}")))?;
        self.requests.push(text(body));
        let (status, body) = self.answers.pop_front().expect("an answer left");
        self.provider.parse(status, body.as_bytes(), None)
    }
}

fn canned_run(provider: Provider, answers: &[(u16, &str)]) -> (Canned, Vec<Value>) {
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(100);
    let mut model = Canned {
        provider,
        options,
        answers: answers
            .iter()
            .map(|(s, b)| (*s, String::from(*b)))
            .collect(),
        requests: Vec::new(),
    };
    let mut transcript = Vec::new();
    driver::run(
        "add 2 and 40",
        Budgets::default(),
        &mut model,
        &mut demo::toolbox().unwrap(),
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    (model, parse_records(&transcript).unwrap())
}

fn payload<'a>(record: &'a Value, key: &str) -> &'a Value {
    record
        .as_object()
        .and_then(|r| r.get("payload"))
        .and_then(Value::as_object)
        .and_then(|p| p.get(key))
        .unwrap()
}

#[test]
fn openai_calls_go_back_under_the_loop_ids_and_bad_arguments_fail_as_data() {
    let calls = r#"{"id":"chatcmpl-1","model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"add","arguments":"{\"a\": 2, \"b\":"}},{"id":"call_def456","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":40}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":30,"total_tokens":80}}"#;
    let answer = r#"{"id":"chatcmpl-2","model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":90,"completion_tokens":2,"total_tokens":92}}"#;
    let (model, records) = canned_run(Provider::OpenAi, &[(200, calls), (200, answer)]);
    // The bad arguments are recorded as the string the model sent, and fail as data.
    let recorded = payload(&records[1], "tool_calls");
    assert_eq!(
        text(crate::jcs::to_vec(recorded).unwrap()),
        r#"[{"arguments":"{\"a\": 2, \"b\":","id":"call_1_0","name":"add"},{"arguments":{"a":2,"b":40},"id":"call_1_1","name":"add"}]"#
    );
    assert_eq!(
        payload(&records[2], "error"),
        &Value::from("invalid arguments: $.add: expected type object, got string")
    );
    // The reported output tokens are what the turns count.
    assert_eq!(payload(&records[1], "tokens"), &Value::Number(30.0));
    assert_eq!(payload(&records[4], "tokens"), &Value::Number(2.0));
    // The second request sends the loop's ids, never the provider's.
    let second = &model.requests[1];
    assert!(!second.contains("call_abc123") && !second.contains("call_def456"));
    let history = json(second)
        .as_object()
        .unwrap()
        .get("messages")
        .cloned()
        .unwrap();
    assert_eq!(
        text(crate::jcs::to_vec(&history).unwrap()),
        concat!(
            r#"[{"content":"add 2 and 40","role":"user"},"#,
            r#"{"content":null,"role":"assistant","tool_calls":["#,
            r#"{"function":{"arguments":"\"{\\\"a\\\": 2, \\\"b\\\":\"","name":"add"},"id":"call_1_0","type":"function"},"#,
            r#"{"function":{"arguments":"{\"a\":2,\"b\":40}","name":"add"},"id":"call_1_1","type":"function"}]},"#,
            r#"{"content":"invalid arguments: $.add: expected type object, got string","role":"tool","tool_call_id":"call_1_0"},"#,
            r#"{"content":"{\"sum\":42}","role":"tool","tool_call_id":"call_1_1"}]"#
        )
    );
}

#[test]
fn anthropic_calls_go_back_under_the_loop_ids_and_an_overload_stops_the_run() {
    let calls = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Adding."},{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"add","input":{"a":2,"b":40}}],"stop_reason":"tool_use","usage":{"input_tokens":40,"output_tokens":12}}"#;
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let (model, records) = canned_run(Provider::Anthropic, &[(200, calls), (529, overloaded)]);
    assert_eq!(payload(&records[1], "tokens"), &Value::Number(12.0));
    assert!(!model.requests[1].contains("toolu_"));
    assert!(model.requests[1].contains(r#""tool_use_id":"call_1_0""#));
    let stop = records.last().unwrap();
    assert_eq!(payload(stop, "reason"), &Value::from("model_error"));
    assert_eq!(
        payload(stop, "error"),
        &Value::from("the provider answered HTTP 529 (overloaded_error): Overloaded")
    );
}

#[test]
fn options_are_refused_before_anything_is_encoded() {
    let conversation = [user("t")];
    let base = || {
        let mut o = RequestOptions::new("m");
        o.max_output_tokens = Some(10);
        o
    };
    let with_extra = |key: &str| {
        let mut o = base();
        o.extra.insert(key, Value::Bool(true));
        o
    };
    let nan_manifest = [ToolSpec::new("add", "", Value::Number(f64::NAN))];
    type Case = (
        Provider,
        RequestOptions,
        &'static [ToolSpec],
        RequestErrorKind,
    );
    let mut cases: Vec<Case> = alloc::vec![
        (
            Provider::OpenAi,
            RequestOptions::new(""),
            &[],
            RequestErrorKind::NoModel
        ),
        (
            Provider::Anthropic,
            RequestOptions::new(""),
            &[],
            RequestErrorKind::NoModel
        ),
        (
            Provider::Anthropic,
            RequestOptions::new("m"),
            &[],
            RequestErrorKind::NoMaxOutputTokens
        ),
    ];
    for n in [0, crate::anchor::MAX_SEQ + 1] {
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            let mut o = base();
            o.max_output_tokens = Some(n);
            cases.push((
                provider,
                o,
                &[],
                RequestErrorKind::BadOption("max_output_tokens", "an integer from 1 to 2^53-1"),
            ));
        }
    }
    for key in [
        "max_completion_tokens",
        "messages",
        "model",
        "system",
        "tools",
    ] {
        cases.push((
            Provider::OpenAi,
            with_extra(key),
            &[],
            RequestErrorKind::Reserved(key.into()),
        ));
    }
    for key in ["max_tokens", "messages", "model", "system", "tools"] {
        cases.push((
            Provider::Anthropic,
            with_extra(key),
            &[],
            RequestErrorKind::Reserved(key.into()),
        ));
    }
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let mut o = base();
        o.extra.insert("temperature", Value::Number(f64::NAN));
        cases.push((
            provider,
            o,
            &[],
            RequestErrorKind::Unencodable("the extra options"),
        ));
    }
    for (provider, options, manifest, want) in cases {
        assert_eq!(
            provider.request(&conversation, manifest, &options),
            Err(want.clone().into()),
            "{provider} {options:?}"
        );
    }
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        assert_eq!(
            provider.request(&conversation, &nan_manifest, &base()),
            Err(RequestErrorKind::Unencodable("the tool manifest").into())
        );
    }
    // What each says.
    let sentences = [
        (RequestErrorKind::NotAnObject, "the request options are not a JSON object"),
        (
            RequestErrorKind::NoModel,
            "the request options name no model (\"model\" is missing or empty)",
        ),
        (
            RequestErrorKind::NoMaxOutputTokens,
            "Anthropic requires max_tokens: set max_output_tokens in the request options",
        ),
        (
            RequestErrorKind::BadOption("system", "a string"),
            "the request option system must be a string",
        ),
        (
            RequestErrorKind::Reserved(String::from("tools\n")),
            "the request option tools\\n is one the codec writes itself (from the model, system, max_output_tokens, the conversation or the manifest)",
        ),
        (
            RequestErrorKind::Unencodable("the tool manifest"),
            "a NaN or an infinite number in the tool manifest has no JSON encoding",
        ),
    ];
    for (error, sentence) in sentences {
        assert_eq!(format!("{error}"), sentence);
    }
}

#[test]
fn options_from_json() {
    let options = RequestOptions::from_json(&json(
        r#"{"model":"gpt-4.1","max_output_tokens":100,"system":"Be brief.","temperature":0.2,"tool_choice":"required"}"#,
    ))
    .unwrap();
    assert_eq!(options.model, "gpt-4.1");
    assert_eq!(options.max_output_tokens, Some(100));
    assert_eq!(options.system.as_deref(), Some("Be brief."));
    let mut extra = Object::new();
    extra.insert("temperature", Value::Number(0.2));
    extra.insert("tool_choice", Value::from("required"));
    assert_eq!(options.extra, extra);
    let refused = [
        ("[]", RequestErrorKind::NotAnObject),
        (
            r#"{"model":1}"#,
            RequestErrorKind::BadOption("model", "a string"),
        ),
        (
            r#"{"system":null}"#,
            RequestErrorKind::BadOption("system", "a string"),
        ),
    ];
    for (text, want) in refused {
        assert_eq!(
            RequestOptions::from_json(&json(text)),
            Err(want.into()),
            "{text}"
        );
    }
    for n in ["0", "1.5", "-1", "9007199254740992", "\"5\""] {
        assert_eq!(
            RequestOptions::from_json(&json(&format!(r#"{{"max_output_tokens":{n}}}"#))),
            Err(
                RequestErrorKind::BadOption("max_output_tokens", "an integer from 1 to 2^53-1")
                    .into()
            ),
            "{n}"
        );
    }
}

#[test]
fn conversations_that_break_the_pairing_rules_are_refused() {
    let call = |id: &str| assistant("", &[(id, "add", json("{}"))]);
    let answer = |id: &str| tool(id, "add", Ok(Value::Null));
    let cases: Vec<(Vec<Message>, usize, &str)> = alloc::vec![
        (alloc::vec![], 0, "the first message is not the user's task"),
        (alloc::vec![assistant("hi", &[])], 0, "the first message is not the user's task"),
        (
            alloc::vec![user("t"), call("a"), call("b")],
            2,
            "a call of the assistant message before has no result",
        ),
        (
            alloc::vec![user("t"), call("a"), user("more")],
            2,
            "a call of the assistant message before has no result",
        ),
        (
            alloc::vec![user("t"), call("a")],
            1,
            "the conversation ends with a call that has no result",
        ),
        (
            alloc::vec![user("t"), answer("a")],
            1,
            "a tool result answers no call still owed one",
        ),
        (
            alloc::vec![user("t"), call("a"), answer("a"), answer("a")],
            3,
            "a tool result answers no call still owed one",
        ),
        (
            alloc::vec![user("t"), call("a"), answer("b")],
            2,
            "a tool result does not answer the next unanswered call (its id and name)",
        ),
        (
            alloc::vec![user("t"), call("a"), tool("a", "echo", Ok(Value::Null))],
            2,
            "a tool result does not answer the next unanswered call (its id and name)",
        ),
        (
            alloc::vec![
                user("t"),
                assistant("", &[("a", "add", json("{}")), ("b", "add", json("{}"))]),
                answer("b"),
                answer("a"),
            ],
            2,
            "a tool result does not answer the next unanswered call (its id and name)",
        ),
        (
            alloc::vec![user("t"), call("a"), answer("a"), call("a"), answer("a")],
            3,
            "a call id is empty, repeats an earlier id, or holds a character other than A-Z a-z 0-9 _ -",
        ),
        (
            alloc::vec![user("t"), call("a.b"), answer("a.b")],
            1,
            "a call id is empty, repeats an earlier id, or holds a character other than A-Z a-z 0-9 _ -",
        ),
        (
            alloc::vec![user("t"), call(""), answer("")],
            1,
            "a call id is empty, repeats an earlier id, or holds a character other than A-Z a-z 0-9 _ -",
        ),
        (
            alloc::vec![
                user("t"),
                assistant("", &[("a", "add", Value::Number(f64::INFINITY))]),
                answer("a"),
            ],
            1,
            "a call's arguments have no canonical JSON encoding",
        ),
        (
            alloc::vec![
                user("t"),
                call("a"),
                tool("a", "add", Ok(Value::Array(alloc::vec![Value::Number(f64::NAN)]))),
            ],
            2,
            "a tool result has no canonical JSON encoding",
        ),
    ];
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(1);
    for (conversation, index, what) in cases {
        let want = RequestErrorKind::BadConversation { index, what };
        assert_eq!(
            check_conversation(&conversation),
            Err(want.clone().into()),
            "{conversation:?}"
        );
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            assert_eq!(
                provider.request(&conversation, &[], &options),
                Err(want.clone().into())
            );
        }
    }
    // Allowed: a later user message where nothing is owed, an `Err` for any call.
    let fine = [user("t"), call("a"), answer("a"), user("and now?")];
    assert_eq!(check_conversation(&fine), Ok(()));
    assert!(openai::request(&fine, &[], &options).is_ok());
    let Value::Array(history) = anthropic::messages(&fine) else {
        panic!()
    };
    // The user's text follows the result in the one user message.
    assert_eq!(
        text(crate::jcs::to_vec(&history[2]).unwrap()),
        r#"{"content":[{"content":"null","tool_use_id":"a","type":"tool_result"},{"text":"and now?","type":"text"}],"role":"user"}"#
    );
    check_anthropic(&Value::Array(history)).unwrap();
}

#[test]
fn a_blank_task_is_no_text_block_and_anthropic_refuses_it() {
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(1);
    let refused = Err(RequestErrorKind::BadConversation {
        index: 0,
        what: "the task is empty or only white space, and Anthropic takes no such text",
    }
    .into());
    for task in ["", " ", "\n\n", "\t \r\n", "\u{a0}\u{3000}\u{2028}"] {
        let conversation = [user(task), assistant("hello", &[])];
        assert_eq!(
            anthropic::request(&conversation[..1], &[], &options),
            refused,
            "{task:?}"
        );
        assert_eq!(anthropic::request(&conversation, &[], &options), refused);
        // The history leaves the blank block out; OpenAI takes the user message as is.
        assert_eq!(
            text(crate::jcs::to_vec(&anthropic::messages(&conversation)).unwrap()),
            r#"[{"content":[{"text":"hello","type":"text"}],"role":"assistant"}]"#
        );
        assert_eq!(
            text(openai::request(&conversation[..1], &[], &options).unwrap()),
            format!(
                r#"{{"max_completion_tokens":1,"messages":[{{"content":{},"role":"user"}}],"model":"m"}}"#,
                text(crate::jcs::to_vec(&Value::from(task)).unwrap())
            )
        );
    }
    // A character Unicode does not count as white space is text.
    assert!(anthropic::request(&[user("\u{200b}")], &[], &options).is_ok());
}

/// Claude may answer `"\n\n"` before a `tool_use`: the next request must not send that
/// text back, as the API refuses a text block with no character other than white space
/// ("text content blocks must contain non-whitespace text"). Left out as empty text is;
/// OpenAI takes such content, and gets it as it was said.
#[test]
fn white_space_text_is_left_out_of_anthropic_requests_as_empty_text_is() {
    let add = json(r#"{"a":2,"b":40}"#);
    let conversation = [
        user("add 2 and 40"),
        assistant("\n\n", &[("call_1_0", "add", add.clone())]),
        tool("call_1_0", "add", Ok(json(r#"{"sum":42}"#))),
    ];
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(1);
    let body = anthropic::request(&conversation, &[], &options).unwrap();
    assert_eq!(
        text(body),
        concat!(
            r#"{"max_tokens":1,"messages":["#,
            r#"{"content":[{"text":"add 2 and 40","type":"text"}],"role":"user"},"#,
            r#"{"content":[{"id":"call_1_0","input":{"a":2,"b":40},"name":"add","type":"tool_use"}],"role":"assistant"},"#,
            r#"{"content":[{"content":"{\"sum\":42}","tool_use_id":"call_1_0","type":"tool_result"}],"role":"user"}],"#,
            r#""model":"m"}"#
        )
    );
    let history = anthropic::messages(&conversation);
    check_anthropic(&history).unwrap();
    let openai_body = text(openai::request(&conversation, &[], &options).unwrap());
    assert!(
        openai_body.contains(r#"{"content":"\n\n","role":"assistant","tool_calls":"#),
        "{openai_body}"
    );
    // Every kind of white space, and a turn of white space with no calls: as for "".
    for blank in [
        " ",
        "\t",
        "\r\n",
        "\u{85}\u{a0}\u{1680}\u{2000}\u{200a}\u{2029}\u{202f}\u{205f}\u{3000}",
    ] {
        for calls in [&[("call_1_0", "add", add.clone())][..], &[]] {
            let with = |text: &str| {
                let mut turn = alloc::vec![user("t"), assistant(text, calls)];
                if !calls.is_empty() {
                    turn.push(tool("call_1_0", "add", Ok(Value::Null)));
                }
                anthropic::messages(&turn)
            };
            assert_eq!(with(blank), with(""), "{blank:?}");
        }
    }
    // Text around white space is kept whole, white space and all.
    let kept = anthropic::messages(&[user(" t "), assistant("\n\nok\n", &[])]);
    assert_eq!(
        text(crate::jcs::to_vec(&kept).unwrap()),
        r#"[{"content":[{"text":" t ","type":"text"}],"role":"user"},{"content":[{"text":"\n\nok\n","type":"text"}],"role":"assistant"}]"#
    );
}

#[test]
fn the_provider_picks_the_codec() {
    assert_eq!(Provider::from_name("openai"), Some(Provider::OpenAi));
    assert_eq!(Provider::from_name("anthropic"), Some(Provider::Anthropic));
    assert_eq!(Provider::from_name("OpenAI"), None);
    assert_eq!(format!("{}", Provider::Anthropic), "anthropic");
    let conversation = several();
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(5);
    assert_eq!(
        Provider::OpenAi.request(&conversation, &[], &options),
        openai::request(&conversation, &[], &options)
    );
    assert_eq!(
        Provider::Anthropic.request(&conversation, &[], &options),
        anthropic::request(&conversation, &[], &options)
    );
    assert_ne!(
        Provider::OpenAi.request(&conversation, &[], &options),
        Provider::Anthropic.request(&conversation, &[], &options)
    );
    assert_eq!(
        Provider::OpenAi.messages(&conversation),
        openai::messages(&conversation, None)
    );
    let body =
        br#"{"content":[{"type":"text","text":"a"}],"choices":[{"message":{"content":"b"}}]}"#;
    assert_eq!(
        Provider::Anthropic.parse(200, body, None).unwrap().text,
        "a"
    );
    assert_eq!(Provider::OpenAi.parse(200, body, None).unwrap().text, "b");
}
