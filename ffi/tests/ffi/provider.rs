//! Real models from C, called through the rlib as C would: the request bodies
//! `agentloop_agent_request` and `agentloop_reply_request` write are the Rust codec's
//! bytes, and a provider's answers fed with `agentloop_agent_feed_response` or parsed
//! with `agentloop_reply_parse` run the loop to the transcript the Rust driver writes
//! with the same codec — a tool call then a text answer ending with `no_tool_calls`, an
//! error answer ending with `model_error` and the codec's sentence. Bad provider
//! numbers, statuses, options, NULLs and calls in the wrong state are result codes.

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use std::collections::VecDeque;

use agentloop::*;
use agentloop_core::agent::{Agent, Budgets, Need};
use agentloop_core::driver;
use agentloop_core::export::{
    check_requests, parse_records, rebuild_requests, RequestMismatch, Requester,
};
use agentloop_core::json::{self, Value};
use agentloop_core::model::{Message, Model, ModelError, Reply};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::tools::{FnTool, Manifest, ToolError, ToolOptions, ToolSpec, Toolbox};
use agentloop_standin::{canned, Exchange};

const TASK: &str = "add 2 and 40";
const ADD_DESCRIPTION: &str = "Adds two integers a and b; returns {\"sum\": a + b}.";
const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;
const OPENAI: u32 = agentloop_provider::Openai as u32;
const ANTHROPIC: u32 = agentloop_provider::Anthropic as u32;

fn core_provider(provider: u32) -> Provider {
    match provider {
        OPENAI => Provider::OpenAi,
        ANTHROPIC => Provider::Anthropic,
        _ => unreachable!(),
    }
}

/// The options a host would pass for each provider.
fn options(provider: u32) -> &'static str {
    match provider {
        OPENAI => r#"{"model":"gpt-4.1","parallel_tool_calls":false,"temperature":0}"#,
        _ => {
            r#"{"max_output_tokens":1024,"model":"claude-sonnet-4-20250514","system":"Use the tools."}"#
        }
    }
}

/// An answer as the provider sends it: status and body.
type Answer = (u16, Vec<u8>);

fn answer(exchange: Exchange) -> Answer {
    (exchange.status, exchange.body)
}

/// A tool-call answer (add 2 and 40), in the provider's shape.
fn tool_call(provider: u32) -> Answer {
    let calls = [("add", r#"{"a":2,"b":40}"#)];
    answer(match provider {
        OPENAI => canned::openai::tool_calls(&calls),
        _ => canned::anthropic::tool_use(Some("Adding."), &calls),
    })
}

/// A text answer, in the provider's shape.
fn text(provider: u32) -> Answer {
    answer(match provider {
        OPENAI => canned::openai::text("2 + 40 = 42."),
        _ => canned::anthropic::text("2 + 40 = 42."),
    })
}

/// An error answer: 429 for OpenAI, 529 overloaded for Anthropic.
fn error(provider: u32) -> Answer {
    answer(match provider {
        OPENAI => canned::openai::rate_limited(3),
        _ => canned::anthropic::overloaded(),
    })
}

/// What the `add` tool gives for canonical arguments.
fn add(arguments: &[u8]) -> Vec<u8> {
    let value = json::parse(arguments).unwrap();
    let object = value.as_object().unwrap();
    let term = |key| object.get(key).and_then(Value::as_f64).unwrap();
    format!("{{\"sum\":{}}}", term("a") + term("b")).into_bytes()
}

fn add_spec() -> ToolSpec {
    ToolSpec::new(
        "add",
        ADD_DESCRIPTION,
        json::parse(ADD_SCHEMA.as_bytes()).unwrap(),
    )
}

/// Which bodies' SHA-256 a reply reports: none (a Rust host that parses and says
/// nothing), the response's (`agentloop_agent_feed_response`), or both the request's
/// and the response's (`agentloop_agent_feed_exchange`, the callback driver).
#[derive(Clone, Copy, PartialEq)]
enum Digests {
    None,
    Response,
    Both,
}

/// The Rust model the C runs are held to: the codec's request, then its parse.
struct Reference {
    provider: Provider,
    options: RequestOptions,
    answers: VecDeque<Answer>,
    bodies: Vec<Vec<u8>>,
    digests: Digests,
}

impl Model for Reference {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let request = self
            .provider
            .request(messages, manifest, &self.options)
            .unwrap();
        self.bodies.push(request.clone());
        let (status, body) = self.answers.pop_front().expect("an answer left");
        let reply = self.provider.parse(status, &body, None)?;
        let report = match self.digests {
            Digests::None => reply.provider.clone(),
            Digests::Response => reply.provider.clone().with_response_body(&body),
            Digests::Both => reply
                .provider
                .clone()
                .with_response_body(&body)
                .with_request_body(&request),
        };
        Ok(reply.with_provider(report))
    }
}

/// What a run wrote: the transcript, the request bodies, how it ended.
#[derive(Debug, PartialEq)]
struct Run {
    transcript: String,
    bodies: Vec<String>,
    reason: u32,
    error: String,
}

/// The Rust driver's run with the same codec and answers.
fn reference(provider: u32, answers: &[Answer], digests: Digests) -> Run {
    let options = json::parse(options(provider).as_bytes()).unwrap();
    let mut model = Reference {
        provider: core_provider(provider),
        options: RequestOptions::from_json(&options).unwrap(),
        answers: answers.iter().cloned().collect(),
        bodies: Vec::new(),
        digests,
    };
    let mut toolbox = Toolbox::new();
    toolbox
        .register(
            FnTool::new(add_spec(), |arguments: &Value| {
                let bytes = agentloop_core::jcs::to_vec(arguments).unwrap();
                Ok::<_, ToolError>(json::parse(&add(&bytes)).unwrap())
            }),
            ToolOptions::new(),
        )
        .unwrap();
    let mut transcript = Vec::new();
    let outcome = driver::run(
        TASK,
        Budgets::default(),
        &mut model,
        &mut toolbox,
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    assert!(model.answers.is_empty(), "every answer was used");
    Run {
        transcript: String::from_utf8(transcript).unwrap(),
        bodies: model
            .bodies
            .into_iter()
            .map(|b| String::from_utf8(b).unwrap())
            .collect(),
        reason: agentloop_stop::from_core(outcome.reason) as u32,
        error: outcome.error.clone().unwrap_or_default(),
    }
}

// ---- The poll API: agentloop_agent_request / agentloop_agent_feed_response. ----

struct CAgent(*mut agentloop_agent);

impl Drop for CAgent {
    fn drop(&mut self) {
        // SAFETY: a live agent, freed once.
        unsafe { agentloop_agent_free(self.0) };
    }
}

fn c_agent() -> CAgent {
    let mut agent = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r = unsafe { agentloop_agent_new(TASK.as_ptr(), TASK.len(), null(), 0, &mut agent) };
    assert_eq!(r, agentloop_result::Ok);
    let agent = CAgent(agent);
    let (name, description, schema) = ("add", ADD_DESCRIPTION, ADD_SCHEMA);
    // SAFETY: a live agent and valid byte inputs.
    let r = unsafe {
        agentloop_agent_add_tool(
            agent.0,
            name.as_ptr(),
            name.len(),
            description.as_ptr(),
            description.len(),
            schema.as_ptr(),
            schema.len(),
            0,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    agent
}

fn poll(agent: &CAgent) -> u32 {
    let mut need = 0;
    // SAFETY: a live agent and a valid out pointer.
    let r = unsafe { agentloop_agent_poll(agent.0, &mut need) };
    assert_eq!(r, agentloop_result::Ok);
    need
}

/// The size-query protocol over any output: ask with NULL, then with a buffer that size.
fn fetch(
    mut call: impl FnMut(*mut u8, usize, *mut usize) -> agentloop_result,
) -> Result<String, agentloop_result> {
    let mut len = usize::MAX;
    match call(null_mut(), 0, &mut len) {
        agentloop_result::Ok => {
            assert_eq!(len, 0);
            return Ok(String::new());
        }
        agentloop_result::InsufficientSize => {}
        other => return Err(other),
    }
    let mut buf = vec![0u8; len];
    let mut written = 0;
    assert_eq!(
        call(buf.as_mut_ptr(), buf.len(), &mut written),
        agentloop_result::Ok
    );
    assert_eq!(written, len);
    Ok(String::from_utf8(buf).unwrap())
}

fn request(agent: &CAgent, provider: u32, options: &[u8]) -> Result<String, agentloop_result> {
    fetch(|buf, cap, len| {
        // SAFETY: a live agent, valid options bytes, a buffer of cap bytes (or NULL).
        unsafe {
            agentloop_agent_request(
                agent.0,
                provider,
                options.as_ptr(),
                options.len(),
                buf,
                cap,
                len,
            )
        }
    })
}

fn request_error(agent: &CAgent) -> String {
    // SAFETY: a live agent and a buffer of cap bytes (or NULL).
    fetch(|buf, cap, len| unsafe { agentloop_agent_request_error(agent.0, buf, cap, len) }).unwrap()
}

fn feed_response(agent: &CAgent, provider: u32, status: u32, body: &[u8]) -> agentloop_result {
    feed_response_with(agent, provider, status, body, "")
}

/// As [`feed_response`], with the key the request was sent with ("": none).
fn feed_response_with(
    agent: &CAgent,
    provider: u32,
    status: u32,
    body: &[u8],
    secret: &str,
) -> agentloop_result {
    // SAFETY: a live agent, a valid body and secret.
    unsafe {
        agentloop_agent_feed_response(
            agent.0,
            provider,
            status,
            body.as_ptr(),
            body.len(),
            secret.as_ptr(),
            secret.len(),
        )
    }
}

/// `agentloop_agent_feed_exchange`: the answer, and the body the host says it sent.
fn feed_exchange(
    agent: &CAgent,
    provider: u32,
    sent: &[u8],
    status: u32,
    body: &[u8],
) -> agentloop_result {
    // SAFETY: a live agent, valid sent bytes and body; no secret.
    unsafe {
        agentloop_agent_feed_exchange(
            agent.0,
            provider,
            sent.as_ptr(),
            sent.len(),
            status,
            body.as_ptr(),
            body.len(),
            null(),
            0,
        )
    }
}

/// Takes every pending record into `chain`, appending the lines to `out`.
fn drain(agent: &CAgent, chain: *mut agentloop_chain, out: &mut String) {
    loop {
        let mut has = false;
        let line = fetch(|buf, cap, len| {
            // SAFETY: live objects, a buffer of cap bytes (or NULL), valid out pointers.
            unsafe { agentloop_agent_take_record(agent.0, chain, buf, cap, len, &mut has) }
        })
        .unwrap();
        if line.is_empty() {
            return;
        }
        out.push_str(&line);
    }
}

/// The run through the agent handle, as a C event loop drives it, each answer fed
/// with `agentloop_agent_feed_response`.
fn poll_run(provider: u32, answers: &[Answer]) -> Run {
    poll_run_sending(provider, answers, None)
}

/// As [`poll_run`]; with `sending`, each answer is fed with
/// `agentloop_agent_feed_exchange`, saying the host sent `sending(body)` for the
/// request body the agent wrote.
fn poll_run_sending(provider: u32, answers: &[Answer], sending: Option<fn(&str) -> String>) -> Run {
    let agent = c_agent();
    let mut chain = null_mut();
    // SAFETY: a valid out pointer.
    assert_eq!(
        unsafe { agentloop_chain_new(&mut chain) },
        agentloop_result::Ok
    );
    let mut answers = answers.iter();
    let (mut transcript, mut bodies) = (String::new(), Vec::new());
    loop {
        let need = poll(&agent);
        drain(&agent, chain, &mut transcript);
        match need {
            1 => {
                bodies.push(request(&agent, provider, options(provider).as_bytes()).unwrap());
                assert_eq!(request_error(&agent), "");
                let (status, body) = answers.next().expect("an answer left");
                let status = u32::from(*status);
                let fed = match sending {
                    None => feed_response(&agent, provider, status, body),
                    Some(sending) => {
                        let sent = sending(bodies.last().unwrap());
                        feed_exchange(&agent, provider, sent.as_bytes(), status, body)
                    }
                };
                assert_eq!(fed, agentloop_result::Ok);
            }
            2 => {
                let arguments = fetch(|buf, cap, len| {
                    // SAFETY: a live agent, a buffer of cap bytes (or NULL).
                    unsafe { agentloop_agent_call_arguments(agent.0, buf, cap, len) }
                })
                .unwrap();
                let value = add(arguments.as_bytes());
                // SAFETY: a live agent and a valid value.
                let r = unsafe {
                    agentloop_agent_feed_tool_result(agent.0, value.as_ptr(), value.len())
                };
                assert_eq!(r, agentloop_result::Ok);
            }
            3 => break,
            other => panic!("need {other}"),
        }
    }
    drain(&agent, chain, &mut transcript);
    assert!(answers.next().is_none(), "every answer was used");
    let mut reason = 0;
    // SAFETY: a live agent; the outputs not wanted are NULL.
    let r = unsafe {
        agentloop_agent_outcome(
            agent.0,
            &mut reason,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    // SAFETY: a live agent, a buffer of cap bytes (or NULL).
    let error =
        fetch(|buf, cap, len| unsafe { agentloop_agent_stop_error(agent.0, buf, cap, len) })
            .unwrap();
    // SAFETY: a live chain, freed once.
    unsafe { agentloop_chain_free(chain) };
    Run {
        transcript,
        bodies,
        reason,
        error,
    }
}

// ---- The callback driver: agentloop_reply_request / agentloop_reply_parse. ----

/// What the model callback does besides the ordinary request and parse.
#[derive(Clone, Copy, PartialEq)]
enum Twist {
    None,
    /// Asks for a request body with this provider number, and returns at once.
    RequestWith(u32),
    /// Asks for a request body with these options, and returns at once.
    Options(&'static [u8]),
    /// Parses the answer with this status instead.
    Status(u32),
    /// Parses the answer twice: first the error, then the scripted answer.
    RetryAfterError,
    /// Parses the answer with this key as the secret to redact.
    Secret(&'static str),
}

struct Host {
    provider: u32,
    answers: VecDeque<Answer>,
    bodies: Vec<String>,
    codes: Vec<agentloop_result>,
    twist: Twist,
}

unsafe extern "C" fn model_cb(
    userdata: *mut c_void,
    _messages: *const u8,
    _messages_len: usize,
    _manifest: *const u8,
    _manifest_len: usize,
    reply: *mut agentloop_reply,
) {
    // SAFETY: the test passes a live Host as userdata.
    let host = unsafe { &mut *userdata.cast::<Host>() };
    let (provider, options): (u32, &[u8]) = match host.twist {
        Twist::RequestWith(number) => (number, options(host.provider).as_bytes()),
        Twist::Options(options) => (host.provider, options),
        _ => (host.provider, options(host.provider).as_bytes()),
    };
    let body = fetch(|buf, cap, len| {
        // SAFETY: the reply of this callback, valid options, a buffer of cap bytes.
        unsafe {
            agentloop_reply_request(
                reply,
                provider,
                options.as_ptr(),
                options.len(),
                buf,
                cap,
                len,
            )
        }
    });
    match body {
        Ok(body) => host.bodies.push(body),
        Err(code) => {
            host.codes.push(code);
            return;
        }
    }
    let (status, body) = host.answers.pop_front().expect("an answer left");
    let secret = match host.twist {
        Twist::Secret(secret) => secret,
        _ => "",
    };
    let mut parse = |status: u32, body: &[u8]| {
        // SAFETY: the reply of this callback, a valid body and secret.
        let code = unsafe {
            agentloop_reply_parse(
                reply,
                host.provider,
                status,
                body.as_ptr(),
                body.len(),
                secret.as_ptr(),
                secret.len(),
            )
        };
        host.codes.push(code);
    };
    match host.twist {
        Twist::Status(status) => parse(status, &body),
        Twist::RetryAfterError => {
            let (error_status, error_body) = error(host.provider);
            parse(u32::from(error_status), &error_body);
            parse(u32::from(status), &body);
        }
        _ => parse(u32::from(status), &body),
    }
}

unsafe extern "C" fn add_cb(
    _userdata: *mut c_void,
    arguments: *const u8,
    len: usize,
    result: *mut agentloop_tool_result,
) {
    // SAFETY: the library passes len readable bytes.
    let value = add(unsafe { core::slice::from_raw_parts(arguments, len) });
    // SAFETY: the result of this callback and a valid value.
    unsafe { agentloop_tool_result_set_value(result, value.as_ptr(), value.len()) };
}

unsafe extern "C" fn collect_cb(userdata: *mut c_void, line: *const u8, len: usize) -> u32 {
    // SAFETY: the test passes a live String; the library passes len readable bytes.
    unsafe {
        (*userdata.cast::<String>())
            .push_str(std::str::from_utf8(core::slice::from_raw_parts(line, len)).unwrap())
    };
    0
}

/// The run through `agentloop_driver_run`, and the codes the reply functions returned.
fn callback_run(provider: u32, answers: &[Answer], twist: Twist) -> (Run, Vec<agentloop_result>) {
    let mut host = Host {
        provider,
        answers: answers.iter().cloned().collect(),
        bodies: Vec::new(),
        codes: Vec::new(),
        twist,
    };
    let tool = agentloop_tool {
        name: b"add".as_ptr(),
        name_len: 3,
        description: ADD_DESCRIPTION.as_ptr(),
        description_len: ADD_DESCRIPTION.len(),
        schema: ADD_SCHEMA.as_ptr(),
        schema_len: ADD_SCHEMA.len(),
        limit: 0,
        callback: Some(add_cb),
        userdata: null_mut(),
    };
    let mut transcript = String::new();
    let mut outcome = agentloop_outcome::default();
    // SAFETY: valid inputs, callbacks and userdata that outlive the call.
    let r = unsafe {
        agentloop_driver_run(
            TASK.as_ptr(),
            TASK.len(),
            null(),
            Some(model_cb),
            (&mut host as *mut Host).cast(),
            &tool,
            1,
            None,
            null_mut(),
            Some(collect_cb),
            (&mut transcript as *mut String).cast(),
            &mut outcome,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    let records = parse_records(transcript.as_bytes()).unwrap();
    let stop = records.last().unwrap().as_object().unwrap();
    let payload = stop.get("payload").unwrap().as_object().unwrap();
    let error = payload.get("error").and_then(Value::as_str).unwrap_or("");
    let run = Run {
        error: String::from(error),
        transcript,
        bodies: host.bodies,
        reason: outcome.reason,
    };
    (run, host.codes)
}

#[test]
fn a_tool_call_then_a_text_answer_runs_to_no_tool_calls_as_the_rust_codec_does() {
    for provider in [OPENAI, ANTHROPIC] {
        let answers = [tool_call(provider), text(provider)];
        let expected = reference(provider, &answers, Digests::None);
        assert_eq!(expected.reason, agentloop_stop::NoToolCalls as u32);
        assert_eq!(expected.bodies.len(), 2);
        // The second body holds the call and its result, under the loop's call id.
        assert!(
            expected.bodies[1].contains("call_1_0"),
            "{}",
            expected.bodies[1]
        );
        assert!(expected.bodies[1].contains("sum"), "{}", expected.bodies[1]);
        assert!(expected.transcript.contains(r#""value":{"sum":42}"#));
        assert!(expected.transcript.contains("2 + 40 = 42."));
        // What the provider reported is recorded: it must reach the loop from C too.
        let model = match provider {
            OPENAI => canned::openai::MODEL,
            _ => canned::anthropic::MODEL,
        };
        let reported = format!(r#""model":"{model}""#);
        assert_eq!(
            expected.transcript.matches(&reported).count(),
            2,
            "{reported}"
        );

        assert_eq!(
            poll_run(provider, &answers),
            reference(provider, &answers, Digests::Response),
            "provider {provider}: agent"
        );
        let (run, codes) = callback_run(provider, &answers, Twist::None);
        let expected = reference(provider, &answers, Digests::Both);
        assert_eq!(run, expected, "provider {provider}: agentloop_driver_run");
        assert_eq!(codes, [agentloop_result::Ok; 2]);
    }
}

#[test]
fn an_error_answer_ends_the_run_with_model_error_and_the_codecs_sentence() {
    for provider in [OPENAI, ANTHROPIC] {
        let (status, body) = error(provider);
        let sentence = core_provider(provider)
            .parse(status, &body, None)
            .unwrap_err();
        // The sentences docs/c-api.md shows.
        let shown = match provider {
            OPENAI => "the provider answered HTTP 429 (requests, rate_limit_exceeded): Rate limit reached for ",
            _ => "the provider answered HTTP 529 (overloaded_error): Overloaded",
        };
        assert!(sentence.message().starts_with(shown), "{sentence}");
        // After a turn, and at once.
        for answers in [
            vec![tool_call(provider), error(provider)],
            vec![error(provider)],
        ] {
            let expected = reference(provider, &answers, Digests::Response);
            assert_eq!(expected.reason, agentloop_stop::ModelError as u32);
            assert_eq!(expected.error, sentence.message());
            assert_eq!(
                poll_run(provider, &answers),
                expected,
                "provider {provider}: agent"
            );
            let (run, codes) = callback_run(provider, &answers, Twist::None);
            let expected = reference(provider, &answers, Digests::Both);
            assert_eq!(run, expected, "provider {provider}: agentloop_driver_run");
            assert!(
                codes.iter().all(|&c| c == agentloop_result::Ok),
                "{codes:?}"
            );
        }
    }
}

/// A provider that echoes the key where its text is cut (a 164-character key, the
/// 1000-character cut of a message 127 characters into it): given the key with the
/// answer, both C paths redact it before the cut, so no run of 8 of its characters
/// reaches the `stop` record. Without it the library cannot know the key.
#[test]
fn a_key_given_with_the_answer_is_redacted_before_the_text_is_cut() {
    const KEY: &str = concat!(
        "sk-ant-api03-",
        "HvIimtLOIodwaNNJZK19ImMMBaPEGa5Us0IL57ghsuqzRnO6rcIMA7xSorQFhi",
        "66RuHka4KMXECbw1zfXKYzQ19Y4gqqLOLTxlMvsia8BOMD69UWrsw5ZGf03Juf",
        "hNiyckbKqaPd36SdOP9CAbarjQc",
    );
    let leaks = |text: &str| {
        KEY.as_bytes()
            .windows(8)
            .any(|run| text.contains(std::str::from_utf8(run).unwrap()))
    };
    let message = format!("{}{KEY}", "x".repeat(1000 - 127));
    for provider in [OPENAI, ANTHROPIC] {
        let body = match provider {
            OPENAI => canned::openai::error_body(&message, "invalid_request_error", None),
            _ => canned::anthropic::error_body("authentication_error", &message),
        }
        .into_bytes();
        let redacted = core_provider(provider)
            .parse(401, &body, Some(KEY))
            .unwrap_err();
        assert!(redacted.message().ends_with("[redacted]"), "{redacted}");
        assert!(!leaks(redacted.message()), "{redacted}");
        // The poll API.
        let agent = c_agent();
        assert_eq!(poll(&agent), 1);
        assert_eq!(
            feed_response_with(&agent, provider, 401, &body, KEY),
            agentloop_result::Ok
        );
        assert_eq!(poll(&agent), 3);
        // SAFETY: a live agent, a buffer of cap bytes (or NULL).
        let error =
            fetch(|buf, cap, len| unsafe { agentloop_agent_stop_error(agent.0, buf, cap, len) })
                .unwrap();
        assert_eq!(error, redacted.message());
        // The callback driver.
        let (run, codes) = callback_run(provider, &[(401, body.clone())], Twist::Secret(KEY));
        assert_eq!(run.error, redacted.message());
        assert!(!leaks(&run.transcript));
        assert_eq!(codes, [agentloop_result::Ok]);
        // No key given: the error holds what the provider said, cut.
        let (run, _) = callback_run(provider, &[(401, body)], Twist::None);
        assert!(leaks(&run.error));
    }
}

#[test]
fn a_later_parse_replaces_an_error_answer_so_the_callback_can_retry() {
    for provider in [OPENAI, ANTHROPIC] {
        let answers = [tool_call(provider), text(provider)];
        let expected = reference(provider, &answers, Digests::Both);
        let (run, codes) = callback_run(provider, &answers, Twist::RetryAfterError);
        assert_eq!(run, expected, "provider {provider}");
        assert_eq!(codes, [agentloop_result::Ok; 4]);
    }
}

#[test]
fn the_callbacks_refused_request_or_answer_ends_the_run_saying_why() {
    let answers = [text(OPENAI)];
    let ended = |twist| {
        let (run, codes) = callback_run(OPENAI, &answers, twist);
        assert_eq!(run.reason, agentloop_stop::ModelError as u32);
        (run.error, codes)
    };
    let (error, codes) = ended(Twist::RequestWith(0));
    assert_eq!(codes, [agentloop_result::InvalidArgument]);
    assert_eq!(
        error,
        "the request body could not be built: provider 0 is not one this library knows \
         (AGENTLOOP_PROVIDER_OPENAI = 1, AGENTLOOP_PROVIDER_ANTHROPIC = 2)"
    );
    let (error, codes) = ended(Twist::Options(br#"{"temperature":0}"#));
    assert_eq!(codes, [agentloop_result::RequestRefused]);
    assert_eq!(
        error,
        "the request body could not be built: the request options name no model \
         (\"model\" is missing or empty)"
    );
    let (error, codes) = ended(Twist::Options(b"{\"model\":\"\xff\"}"));
    assert_eq!(codes, [agentloop_result::InvalidJson]);
    assert!(
        error.starts_with(
            "the request body could not be built: the request options are not JSON the \
             strict parser accepts: invalid UTF-8 at byte"
        ),
        "{error}"
    );
    for status in [0, 99, 1000, 65536 + 200] {
        let (error, codes) = ended(Twist::Status(status));
        assert_eq!(codes, [agentloop_result::InvalidArgument]);
        assert_eq!(
            error,
            format!(
                "the model callback's provider response was refused: HTTP status {status} \
                 is not a status from 100 to 999 (no answer to parse)"
            )
        );
    }
}

#[test]
fn the_agent_refuses_bad_numbers_options_nulls_and_the_wrong_state_with_codes() {
    let agent = c_agent();
    let good = options(OPENAI).as_bytes();
    // Before the first poll, and at a tool result: not waiting for a reply.
    assert_eq!(
        request(&agent, OPENAI, good),
        Err(agentloop_result::InvalidState)
    );
    assert_eq!(
        request_error(&agent),
        "the agent is not waiting for a model reply: poll until it asks for one"
    );
    let (status, body) = tool_call(OPENAI);
    assert_eq!(
        feed_response(&agent, OPENAI, u32::from(status), &body),
        agentloop_result::InvalidState
    );
    assert_eq!(poll(&agent), 1);

    let refused = |provider: u32, options: &[u8], code: agentloop_result| {
        assert_eq!(
            request(&agent, provider, options),
            Err(code),
            "{}",
            String::from_utf8_lossy(options)
        );
        request_error(&agent)
    };
    for number in [0, 3, u32::MAX] {
        let sentence = refused(number, good, agentloop_result::InvalidArgument);
        assert!(
            sentence.starts_with(&format!("provider {number} is not one")),
            "{sentence}"
        );
    }
    assert!(refused(OPENAI, b"", agentloop_result::InvalidJson)
        .starts_with("the request options are not JSON the strict parser accepts: unexpected end"));
    refused(
        OPENAI,
        b"{\"model\":\"gpt\xc3\"}",
        agentloop_result::InvalidJson,
    );
    refused(
        OPENAI,
        br#"{"model":"m","model":"n"}"#,
        agentloop_result::InvalidJson,
    );
    refused(
        OPENAI,
        br#"{"model":"m","temperature":1e400}"#,
        agentloop_result::NoCanonicalForm,
    );
    // What the codec refuses: the core's own sentence.
    for (provider, options) in [
        (OPENAI, &br#"["model"]"#[..]),
        (OPENAI, br#"{"temperature":0}"#),
        (OPENAI, br#"{"model":"m","max_output_tokens":0}"#),
        (OPENAI, br#"{"model":"m","messages":[]}"#),
        (ANTHROPIC, br#"{"model":"m"}"#),
    ] {
        let core = RequestOptions::from_json(&json::parse(options).unwrap())
            .and_then(|o| {
                core_provider(provider).request(
                    &[Message::User { text: TASK.into() }],
                    &[add_spec()],
                    &o,
                )
            })
            .unwrap_err();
        assert_eq!(
            refused(provider, options, agentloop_result::RequestRefused),
            core.to_string()
        );
    }
    // NULLs.
    let mut len = 0;
    // SAFETY: NULL agent: refused before any use.
    let r = unsafe {
        agentloop_agent_request(
            null_mut(),
            OPENAI,
            good.as_ptr(),
            good.len(),
            null_mut(),
            0,
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::NullParameter);
    // SAFETY: a live agent; NULL out_len is refused.
    let r = unsafe {
        agentloop_agent_request(
            agent.0,
            OPENAI,
            good.as_ptr(),
            good.len(),
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(r, agentloop_result::NullParameter);
    // SAFETY: a live agent; NULL options with a length are refused.
    let r = unsafe { agentloop_agent_request(agent.0, OPENAI, null(), 5, null_mut(), 0, &mut len) };
    assert_eq!(r, agentloop_result::NullParameter);
    // SAFETY: NULL agent / out_len: refused.
    unsafe {
        assert_eq!(
            agentloop_agent_request_error(null(), null_mut(), 0, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_request_error(agent.0, null_mut(), 0, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_response(null_mut(), OPENAI, 200, null(), 0, null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_agent_feed_response(agent.0, OPENAI, 200, null(), 3, null(), 0),
            agentloop_result::NullParameter
        );
    }
    // A buffer one byte short: nothing written, the needed length given, no refusal.
    let body = request(&agent, OPENAI, good).unwrap();
    let mut buf = vec![b'#'; body.len() - 1];
    let mut needed = 0;
    // SAFETY: a live agent, valid options, a buffer of buf.len() bytes.
    let r = unsafe {
        agentloop_agent_request(
            agent.0,
            OPENAI,
            good.as_ptr(),
            good.len(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut needed,
        )
    };
    assert_eq!(r, agentloop_result::InsufficientSize);
    assert_eq!(needed, body.len());
    assert!(buf.iter().all(|&b| b == b'#'));
    assert_eq!(request_error(&agent), "");

    // Answers refused: bad provider, status; the agent still waits.
    let (status, body) = text(OPENAI);
    for (provider, status) in [
        (0, 200),
        (3, 200),
        (OPENAI, 0),
        (OPENAI, 99),
        (OPENAI, 1000),
        (OPENAI, 65536 + 200),
    ] {
        assert_eq!(
            feed_response(&agent, provider, status, &body),
            agentloop_result::InvalidArgument
        );
    }
    assert_eq!(poll(&agent), 1);
    // Any bytes are an answer: a body that is not JSON ends the run as a model error.
    assert_eq!(
        feed_response(&agent, OPENAI, u32::from(status), b"\xff\x00 not json"),
        agentloop_result::Ok
    );
    assert_eq!(
        feed_response(&agent, OPENAI, u32::from(status), &body),
        agentloop_result::InvalidState
    );
    assert_eq!(
        request(&agent, OPENAI, good),
        Err(agentloop_result::InvalidState)
    );
    assert_eq!(poll(&agent), 3);
    // SAFETY: a live agent, a buffer of cap bytes (or NULL).
    let error =
        fetch(|buf, cap, len| unsafe { agentloop_agent_stop_error(agent.0, buf, cap, len) })
            .unwrap();
    assert_eq!(
        error,
        Provider::OpenAi
            .parse(200, b"\xff\x00 not json", None)
            .unwrap_err()
            .message()
    );
}

/// A run resumed after it ended with `no_tool_calls` ends on an assistant message,
/// which Anthropic would continue as a prefill: its codec refuses the conversation,
/// OpenAI's sends it; the sentence is the codec's.
#[test]
fn a_conversation_the_provider_cannot_take_is_refused_with_the_codecs_sentence() {
    let finished = reference(OPENAI, &[text(OPENAI)], Digests::None);
    let agent = c_agent();
    let (mut next, mut head) = (0u64, agentloop_hash::default());
    let transcript = finished.transcript.as_bytes();
    // SAFETY: a live agent, a valid transcript, valid out pointers.
    let r = unsafe {
        agentloop_agent_resume(
            agent.0,
            null(),
            transcript.as_ptr(),
            transcript.len(),
            &mut next,
            &mut head,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(poll(&agent), 1);

    let mut manifest = Manifest::new();
    manifest.register(add_spec(), None).unwrap();
    let records = parse_records(transcript).unwrap();
    let mut rust = Agent::resume(Budgets::default(), manifest, &records).unwrap();
    let _ = rust.take_records();
    let Need::ModelReply { messages, manifest } = rust.poll(&mut || false) else {
        panic!("the resumed Rust agent asks for a reply");
    };
    let anthropic = options(ANTHROPIC);
    let core = RequestOptions::from_json(&json::parse(anthropic.as_bytes()).unwrap()).unwrap();
    let refusal = Provider::Anthropic
        .request(messages, manifest, &core)
        .unwrap_err();
    assert!(
        refusal
            .to_string()
            .starts_with("message 1 of the conversation cannot be sent"),
        "{refusal}"
    );
    assert_eq!(
        request(&agent, ANTHROPIC, anthropic.as_bytes()),
        Err(agentloop_result::RequestRefused)
    );
    assert_eq!(request_error(&agent), refusal.to_string());

    let openai =
        RequestOptions::from_json(&json::parse(options(OPENAI).as_bytes()).unwrap()).unwrap();
    let body = Provider::OpenAi
        .request(messages, manifest, &openai)
        .unwrap();
    assert_eq!(
        request(&agent, OPENAI, options(OPENAI).as_bytes())
            .unwrap()
            .as_bytes(),
        body
    );
    assert_eq!(request_error(&agent), "");
}

/// `agentloop_agent_feed_exchange`: a host that says what it sent records both digests,
/// and the requests rebuilt from the transcript prove them; a host that sent other
/// bytes than the agent's body (another system prompt here) is caught at that turn.
#[test]
fn a_host_that_says_what_it_sent_is_proven_and_one_that_sent_something_else_is_caught() {
    fn honest(body: &str) -> String {
        String::from(body)
    }
    fn other(body: &str) -> String {
        body.replace("gpt-4.1", "gpt-4.1-mini")
            .replace("Use the tools.", "Ignore the tools.")
    }
    for provider in [OPENAI, ANTHROPIC] {
        let answers = [tool_call(provider), text(provider)];
        let run = poll_run_sending(provider, &answers, Some(honest));
        assert_eq!(
            run,
            reference(provider, &answers, Digests::Both),
            "provider {provider}"
        );
        let options = json::parse(options(provider).as_bytes()).unwrap();
        let mut manifest = Manifest::new();
        manifest.register(add_spec(), None).unwrap();
        let requester = Requester {
            provider: core_provider(provider),
            options: RequestOptions::from_json(&options).unwrap(),
            manifest,
        };
        let records = parse_records(run.transcript.as_bytes()).unwrap();
        let rebuilt = rebuild_requests(&records, Some(&requester)).unwrap();
        assert_eq!(check_requests(&rebuilt), Ok(2), "provider {provider}");

        let run = poll_run_sending(provider, &answers, Some(other));
        let records = parse_records(run.transcript.as_bytes()).unwrap();
        let rebuilt = rebuild_requests(&records, Some(&requester)).unwrap();
        let mismatch = check_requests(&rebuilt).unwrap_err();
        assert_eq!(mismatch.seq(), 1, "provider {provider}");
        assert!(
            matches!(mismatch, RequestMismatch::Differs { .. }),
            "{mismatch}"
        );
    }
}
