//! Records too large for one line ([`MAX_LINE_BYTES`]): a reply, a tool's result, a
//! call's name and a model's error sentence. Each run still ends with its `stop`
//! record and verifies (checked by [`run_with`]); the lengths in the sentences are
//! those of the lines that would have been written, found from a small run of the same
//! shape plus the bytes added.

use super::Polls;
use crate::tools::ToolOptions;
use alloc::format;
use alloc::vec;

use super::*;
use crate::agent::{Agent, Need, StopReason};
use crate::model::Message;
use crate::tools::ToolError;
use crate::verify::MAX_LINE_BYTES;

/// The length of line `index` of a transcript, without its newline.
fn line_len(run: &Run, index: usize) -> usize {
    run.transcript
        .split(|&b| b == b'\n')
        .nth(index)
        .unwrap()
        .len()
}

/// `{"text": "a" × len}`.
fn text_arguments(len: usize) -> Value {
    let mut arguments = Object::new();
    arguments.insert("text", Value::from("a".repeat(len).as_str()));
    Value::Object(arguments)
}

/// A reply with no text, one call and a reported token count (so its `tokens` is the
/// same whatever its size).
fn one_call(name: &str, arguments: Value) -> Reply {
    Reply::new("")
        .with_call(name, arguments)
        .with_output_tokens(1)
}

/// A tool `big` whose result is a string of `len` bytes.
fn big(len: usize) -> Toolbox {
    let spec = ToolSpec::new("big", "a large result", j(r#"{"type":"object"}"#));
    let mut tools = Toolbox::new();
    tools
        .register(
            FnTool::new(spec, move |_: &Value| {
                Ok(Value::from("b".repeat(len).as_str()))
            }),
            ToolOptions::new(),
        )
        .unwrap();
    tools
}

fn reply_too_large(len: usize) -> String {
    format!("the model's reply is too large for one record ({len} bytes, the limit is {MAX_LINE_BYTES})")
}

fn result_too_large(name: &str, len: usize) -> String {
    format!(
        "the result of tool '{name}' is too large for one record ({len} bytes, the limit is \
         {MAX_LINE_BYTES})"
    )
}

/// A reply at the limit is recorded; one byte more is not: the run stops with
/// `model_error` saying how long the record would have been, and no `assistant` record.
#[test]
fn a_reply_one_byte_past_the_line_limit_is_a_model_error_and_one_at_it_is_recorded() {
    let answer = |len: usize| vec![Reply::new("a".repeat(len)).with_output_tokens(1)];
    let small = run(Budgets::default(), answer(0), &mut demo_tools());
    let fits = MAX_LINE_BYTES - line_len(&small, 1);

    let at = run(Budgets::default(), answer(fits), &mut demo_tools());
    assert_eq!(at.kinds(), ["task", "assistant", "stop"]);
    assert_eq!(line_len(&at, 1), MAX_LINE_BYTES);
    assert_eq!(at.outcome.reason, StopReason::NoToolCalls);

    let past = run(Budgets::default(), answer(fits + 1), &mut demo_tools());
    assert_eq!(past.kinds(), ["task", "stop"]);
    assert_eq!(past.outcome.reason, StopReason::ModelError);
    assert_eq!((past.outcome.steps, past.outcome.tokens), (0, 0));
    assert_eq!(
        text(past.stop(), "error"),
        reply_too_large(MAX_LINE_BYTES + 1)
    );
    assert_eq!(
        past.outcome.error.as_deref(),
        Some(reply_too_large(MAX_LINE_BYTES + 1).as_str())
    );
}

/// Issue 28's case: tool arguments larger than a record (a provider may send up to
/// 64 MiB). The turn is not recorded and no tool runs.
#[test]
fn tool_arguments_too_large_for_one_record_stop_the_run_with_model_error() {
    let small = run(
        Budgets::default(),
        vec![one_call("echo", text_arguments(0)), Reply::new("done")],
        &mut demo_tools(),
    );
    let huge = 2 * MAX_LINE_BYTES;
    let r = run(
        Budgets::default(),
        vec![one_call("echo", text_arguments(huge)), Reply::new("done")],
        &mut demo_tools(),
    );
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ModelError);
    assert_eq!(
        text(r.stop(), "error"),
        reply_too_large(line_len(&small, 1) + huge)
    );
    assert_eq!((r.outcome.tool_calls, r.outcome.unrun_calls), (0, 0));
}

/// A result whose `tool` record would pass the limit is recorded as `ok:false` saying
/// so (the call counts as run), the model is shown the same, and the run goes on.
#[test]
fn a_result_too_large_for_one_record_is_recorded_as_ok_false_and_the_run_goes_on() {
    let replies = || vec![one_call("big", j("{}")), Reply::new("done")];
    let small = run(Budgets::default(), replies(), &mut big(0));
    let r = run(Budgets::default(), replies(), &mut big(MAX_LINE_BYTES));
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    let sentence = result_too_large("big", line_len(&small, 2) + MAX_LINE_BYTES);
    assert_eq!(r.tools(), [(false, Value::from(sentence.as_str()))]);
    assert!(line_len(&r, 2) < 400, "{}", line_len(&r, 2));
}

/// The same through a batch fed by id: the record and what the model is shown.
#[test]
fn a_result_too_large_for_one_record_fed_by_id_is_recorded_and_shown_as_ok_false() {
    let tools = big(0);
    let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
    assert!(matches!(agent.poll_all(), Need::ModelReply { .. }));
    agent.feed_reply(Ok(one_call("big", j("{}")))).unwrap();
    let Need::ToolResults { calls } = agent.poll_all() else {
        panic!("no batch");
    };
    let id = calls[0].id.clone();
    agent.take_records();
    let value = Value::from("b".repeat(MAX_LINE_BYTES).as_str());
    agent.feed_tool_result(&id, Ok(value)).unwrap();
    let records = agent.take_records();
    assert_eq!(records.len(), 1);
    let payload = records[0].payload.as_object().unwrap();
    let error = payload.get("error").unwrap().as_str().unwrap();
    assert!(
        error.starts_with("the result of tool 'big' is too large for one record ("),
        "{error}"
    );
    assert_eq!(payload.get("ok"), Some(&Value::Bool(false)));
    let Some(Message::Tool { result, .. }) = agent.messages().last() else {
        panic!("no tool message");
    };
    assert_eq!(result.as_ref().err().map(String::as_str), Some(error));
}

/// A call name too long for the record of its result, even holding only the short
/// "too large" sentence: the reply cannot be recorded. A name half as long fits, but
/// not with the unknown-tool sentence that repeats it: that refusal is recorded as too
/// large (the name cut in the sentence), and the run goes on.
#[test]
fn call_names_too_long_for_the_record_of_their_result() {
    let named = |name: &str| vec![one_call(name, j("{}")), Reply::new("done")];
    let small = run(Budgets::default(), named("n"), &mut demo_tools());
    // The longest name whose `assistant` record fits.
    let longest = MAX_LINE_BYTES - line_len(&small, 1) + 1;
    let r = run(
        Budgets::default(),
        named(&"n".repeat(longest)),
        &mut demo_tools(),
    );
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(
        text(r.stop(), "error"),
        format!(
            "the model's reply cannot be recorded: the name of call 0 ('{}…') is {longest} \
             bytes, too long for the record of its result (the limit is {MAX_LINE_BYTES})",
            "n".repeat(64)
        )
    );

    let half = MAX_LINE_BYTES / 2 + 1;
    let r = run(
        Budgets::default(),
        named(&"n".repeat(half)),
        &mut demo_tools(),
    );
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    let sentence = r.errors().pop().unwrap();
    let shown = format!("{}…", "n".repeat(64));
    assert!(
        sentence.starts_with(&format!(
            "the result of tool '{shown}' is too large for one record ("
        )),
        "{sentence}"
    );
}

/// A model's error sentence too long for the `stop` record is cut to fit, saying how
/// long it was; the outcome holds the sentence recorded.
#[test]
fn a_model_error_too_long_for_the_stop_record_is_cut_to_fit() {
    let long = "e".repeat(MAX_LINE_BYTES + 10);
    let r = run_with(
        Budgets::default(),
        vec![Err(ModelError::new(long.as_str()))],
        &mut demo_tools(),
        &mut || false,
    );
    assert_eq!(r.kinds(), ["task", "stop"]);
    let error = text(r.stop(), "error");
    let note = format!("… (cut: {} bytes in all)", long.len());
    assert!(error.ends_with(&note), "{}", &error[error.len() - 80..]);
    assert!(long.starts_with(&error[..error.len() - note.len()]));
    assert_eq!(r.outcome.error.as_deref(), Some(error.as_str()));
    assert_eq!(line_len(&r, 1), MAX_LINE_BYTES);
}

/// A tool that fails with a sentence too long for its record: `ok:false` saying the
/// result is too large, as for a value.
#[test]
fn a_tool_failure_too_long_for_one_record_is_recorded_as_too_large() {
    let spec = ToolSpec::new("loud", "fails at length", j(r#"{"type":"object"}"#));
    let mut tools = Toolbox::new();
    tools
        .register(
            FnTool::new(spec, |_: &Value| {
                Err(ToolError::new("x".repeat(MAX_LINE_BYTES)))
            }),
            ToolOptions::new(),
        )
        .unwrap();
    let r = run(
        Budgets::default(),
        vec![one_call("loud", j("{}")), Reply::new("done")],
        &mut tools,
    );
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    let sentence = r.errors().pop().unwrap();
    assert!(
        sentence.starts_with("the result of tool 'loud' is too large for one record ("),
        "{sentence}"
    );
}
