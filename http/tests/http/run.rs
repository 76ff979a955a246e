//! Whole runs of the loop (`agentloop_core::driver`) with an HTTP model against the
//! stand-in: the transcript verifies, passes the loop audit, holds no key, and is
//! byte-identical when the run is made again; a run whose model calls all fail
//! records the sentence in its `stop`.

use crate::common;

use agentloop_core::agent::{Budgets, StopReason};
use agentloop_core::audit::verify_loop_bytes;
use agentloop_core::json::Value;
use agentloop_core::provider::Provider;
use agentloop_core::verify::Options;
use agentloop_core::{demo, driver};
use agentloop_standin::{canned, Exchange, Request, Server};
use common::{config, model, secs, KEY};

/// The script of a run that adds 2 and 40: one call, then the answer.
fn script(provider: Provider) -> Vec<Exchange> {
    match provider {
        Provider::OpenAi => vec![
            canned::openai::rate_limited(1),
            canned::openai::tool_calls(&[("add", "{\"a\":2,\"b\":40}")]),
            canned::openai::text("2 + 40 = 42."),
        ],
        Provider::Anthropic => vec![
            canned::anthropic::overloaded(),
            canned::anthropic::tool_use(Some("Adding."), &[("add", "{\"a\":2,\"b\":40}")]),
            canned::anthropic::text("2 + 40 = 42."),
        ],
    }
}

/// Runs "add 2 and 40" against a new stand-in: the transcript, the outcome, the
/// requests the stand-in got and the waits.
fn run(
    provider: Provider,
    script: Vec<Exchange>,
) -> (
    Vec<u8>,
    agentloop_core::agent::Outcome,
    Vec<Request>,
    Vec<std::time::Duration>,
) {
    let server = Server::start(script).unwrap();
    let (mut model, sleep) = model(provider, &server, config());
    let mut tools = demo::toolbox().unwrap();
    let mut transcript = Vec::new();
    let budgets = Budgets {
        max_steps: Some(4),
        ..Budgets::default()
    };
    let outcome = driver::run(
        "add 2 and 40",
        budgets,
        &mut model,
        &mut tools,
        &mut || false,
        &mut transcript,
        driver::RunOptions::default(),
    )
    .unwrap();
    (transcript, outcome, server.requests(), sleep.waits())
}

fn records(transcript: &[u8]) -> Vec<Value> {
    transcript
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| agentloop_core::json::parse(line).unwrap())
        .collect()
}

fn kind(record: &Value) -> &str {
    record
        .as_object()
        .unwrap()
        .get("kind")
        .unwrap()
        .as_str()
        .unwrap()
}

#[test]
fn a_run_verifies_passes_the_audit_and_is_the_same_when_made_again() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let (first, outcome, requests, waits) = run(provider, script(provider));
        assert_eq!(outcome.reason, StopReason::NoToolCalls, "{provider}");
        assert_eq!(outcome.tool_calls, 1);
        // One retry (the rate limit or the overload), then two turns.
        assert_eq!(requests.len(), 3);
        assert_eq!(waits.len(), 1);

        let report = verify_loop_bytes(&first, &Options::default());
        assert!(report.ok(), "{provider}: {:?}", report.faults);
        let kinds: Vec<String> = records(&first)
            .iter()
            .map(|r| kind(r).to_string())
            .collect();
        assert_eq!(
            kinds,
            ["task", "assistant", "tool", "assistant", "stop"],
            "{provider}"
        );
        let text = String::from_utf8(first.clone()).unwrap();
        assert!(!text.contains(KEY));
        assert!(text.contains("{\"sum\":42}"), "{text}");

        // The second turn's request carries the call and its result back.
        let second_turn = requests[2].body_text().unwrap();
        assert!(second_turn.contains("call_1_0"), "{second_turn}");
        // The tool's result, as the string both providers take it in.
        assert!(second_turn.contains(r#""{\"sum\":42}""#), "{second_turn}");

        let (again, _, requests_again, waits_again) = run(provider, script(provider));
        assert_eq!(
            first, again,
            "{provider}: the transcript differs between two runs"
        );
        let bodies =
            |requests: &[Request]| requests.iter().map(|r| r.body.clone()).collect::<Vec<_>>();
        assert_eq!(bodies(&requests), bodies(&requests_again));
        assert_eq!(waits, waits_again);
    }
}

#[test]
fn a_run_whose_model_calls_all_fail_records_the_last_failure_in_its_stop() {
    let overloaded = canned::anthropic::overloaded();
    let (transcript, outcome, requests, waits) =
        run(Provider::Anthropic, vec![overloaded.clone(); 4]);
    let codec = Provider::Anthropic
        .parse(529, &overloaded.body, None)
        .unwrap_err();
    let sentence = format!(
        "the model call failed after 4 tries (the most allowed); the last: {}",
        codec.message()
    );
    assert_eq!(outcome.reason, StopReason::ModelError);
    assert_eq!(outcome.error.as_deref(), Some(sentence.as_str()));
    assert_eq!(requests.len(), 4);
    assert_eq!(waits, [secs(0.5), secs(1.0), secs(2.0)]);

    let records = records(&transcript);
    let last = records.last().unwrap();
    assert_eq!(kind(last), "stop");
    let payload = last
        .as_object()
        .unwrap()
        .get("payload")
        .unwrap()
        .as_object()
        .unwrap();
    assert_eq!(
        payload.get("reason").and_then(Value::as_str),
        Some("model_error")
    );
    assert_eq!(
        payload.get("error").and_then(Value::as_str),
        Some(sentence.as_str())
    );
    let report = verify_loop_bytes(&transcript, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
}
