//! What a reply records of its provider's report, and `max_total_tokens`: tokens in
//! and out, summed over turns.

use super::Polls;
use crate::tools::ToolOptions;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::{Agent, Need, StopReason};
use crate::audit::verify_loop_bytes;
use crate::demo;
use crate::driver;
use crate::export::parse_records;
use crate::model::ProviderReport;

/// A report of input tokens only.
fn input(tokens: u64) -> ProviderReport {
    ProviderReport {
        input_tokens: Some(tokens),
        ..ProviderReport::default()
    }
}

/// The payload bytes of each `assistant` record, as the transcript holds them.
fn assistant_payloads(transcript: &[u8]) -> Vec<String> {
    transcript
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = core::str::from_utf8(line).unwrap();
            let rest = line.split_once(r#""kind":"assistant","payload":"#)?.1;
            Some(String::from(rest.rsplit_once(r#","prev":"#).unwrap().0))
        })
        .collect()
}

fn loop_ok(transcript: &[u8]) {
    let report = verify_loop_bytes(transcript, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
}

#[test]
fn a_provider_report_is_recorded_member_by_member() {
    let full = ProviderReport {
        model: Some("gpt-4o-2024-08-06".into()),
        response_id: Some("chatcmpl-9".into()),
        finish_reason: Some("tool_calls".into()),
        input_tokens: Some(120),
        cached_input_tokens: Some(64),
        ..ProviderReport::default()
    };
    // Provider strings are any Rust string: quotes, backslashes, controls, DEL,
    // U+2028 and astral characters are recorded in canonical JSON like the text.
    let odd = ProviderReport {
        model: Some("m\"\\\n\u{7f}\u{2028}é😀".into()),
        finish_reason: Some("end_turn".into()),
        ..ProviderReport::default()
    };
    let replies = vec![
        Reply::new("look")
            .with_call("echo", j(r#"{"x":1}"#))
            .with_output_tokens(7)
            .with_provider(full),
        Reply::new("again").with_call("echo", j("{}")),
        Reply::new("done").with_provider(odd),
    ];
    let r = run(Budgets::default(), replies, &mut demo_tools());
    assert_eq!(
        assistant_payloads(&r.transcript),
        [
            r#"{"provider":{"cached_input_tokens":64,"finish_reason":"tool_calls","input_tokens":120,"model":"gpt-4o-2024-08-06","response_id":"chatcmpl-9"},"text":"look","tokens":7,"tool_calls":[{"arguments":{"x":1},"id":"call_1_0","name":"echo"}]}"#,
            r#"{"text":"again","tokens":1,"tool_calls":[{"arguments":{},"id":"call_3_0","name":"echo"}]}"#,
            "{\"provider\":{\"finish_reason\":\"end_turn\",\"model\":\"m\\\"\\\\\\n\u{7f}\u{2028}é😀\"},\"text\":\"done\",\"tokens\":1,\"tool_calls\":[]}",
        ]
    );
    // Output tokens stay in `tokens`; the stop record is as before.
    assert_eq!(r.outcome.tokens, 9);
    loop_ok(&r.transcript);
}

#[test]
fn an_empty_report_leaves_the_published_demo_bytes_unchanged() {
    for scenario in demo::scenarios() {
        let (published, _) = scenario.run().unwrap();
        let mut with_empty = scenario.clone();
        for reply in &mut with_empty.replies {
            *reply = reply.clone().with_provider(ProviderReport::default());
        }
        assert_eq!(
            with_empty.run().unwrap().0,
            published,
            "{}",
            scenario.file_name
        );
    }
}

#[test]
fn a_report_adds_the_provider_member_and_changes_nothing_else() {
    // Every demo turn with a report: taking `provider` out of each assistant payload
    // and chaining the records again gives the published demo file byte for byte.
    for scenario in demo::scenarios() {
        let (published, _) = scenario.run().unwrap();
        let mut reported = scenario.clone();
        for (i, reply) in reported.replies.iter_mut().enumerate() {
            let report = ProviderReport {
                model: Some(format!("model-{i}")),
                input_tokens: Some(1000),
                ..ProviderReport::default()
            };
            *reply = reply.clone().with_provider(report);
        }
        let (bytes, outcome) = reported.run().unwrap();
        loop_ok(&bytes);
        assert_ne!(bytes, published);
        let mut chain = Chain::new();
        let mut stripped = Vec::new();
        let mut members = 0;
        for record in parse_records(&bytes).unwrap() {
            let record = record.as_object().unwrap();
            let kind = record.get("kind").unwrap().as_str().unwrap();
            let mut payload = record.get("payload").unwrap().clone();
            if let Value::Object(p) = &mut payload {
                members += usize::from(p.remove("provider").is_some());
            }
            stripped.extend_from_slice(chain.append(kind, &payload).unwrap());
        }
        assert_eq!(members as u64, outcome.steps);
        assert_eq!(stripped, published, "{}", scenario.file_name);
    }
}

#[test]
fn a_report_that_cannot_be_recorded_is_a_model_error() {
    use crate::anchor::MAX_SEQ;
    let cases = [
        (
            input(MAX_SEQ + 1),
            "the model reported 9007199254740992 input tokens, more than 2^53-1",
        ),
        (
            ProviderReport {
                cached_input_tokens: Some(MAX_SEQ + 1),
                ..ProviderReport::default()
            },
            "the model reported 9007199254740992 cached input tokens, more than 2^53-1",
        ),
        (
            ProviderReport {
                input_tokens: Some(3),
                cached_input_tokens: Some(4),
                ..ProviderReport::default()
            },
            "the model reported 4 cached input tokens, more than its 3 input tokens",
        ),
    ];
    for (report, sentence) in cases {
        let bad = call("echo", "{}").with_provider(report);
        let r = run(Budgets::default(), vec![bad], &mut demo_tools());
        assert_eq!(r.kinds(), ["task", "stop"]);
        assert_eq!(r.outcome.reason, StopReason::ModelError);
        assert_eq!(text(r.stop(), "error"), sentence);
        loop_ok(&r.transcript);
    }
    // At the bound itself the reply is recorded.
    let most = call("echo", "{}").with_provider(input(MAX_SEQ));
    let r = run(
        Budgets::default(),
        vec![most, Reply::new("ok")],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    loop_ok(&r.transcript);
}

fn total(limit: u64) -> Budgets {
    Budgets {
        max_total_tokens: Some(limit),
        ..Budgets::default()
    }
}

/// Turns of 4 and 2 tokens out, each with a call (the second with two), then an
/// answer; `inputs` are the input tokens each of the first two reports, if any.
fn three_turns(inputs: [Option<u64>; 2]) -> Vec<Reply> {
    let report = |tokens: Option<u64>| ProviderReport {
        input_tokens: tokens,
        // Cached input tokens are part of the input: they add nothing more.
        cached_input_tokens: tokens.map(|t| t / 2),
        ..ProviderReport::default()
    };
    vec![
        Reply::new("abcdefghijklmnop") // 4 tokens
            .with_call("count", j("{}"))
            .with_provider(report(inputs[0])),
        Reply::new("abcdefgh") // 2 tokens
            .with_call("count", j("{}"))
            .with_call("count", j("{}"))
            .with_provider(report(inputs[1])),
        Reply::new("done"),
    ]
}

/// Runs `replies` with `budgets` and a `count` tool: the run and how often it ran.
fn counted(budgets: Budgets, replies: Vec<Reply>) -> (Run, u32) {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    let r = run(budgets, replies, &mut tools);
    loop_ok(&r.transcript);
    (r, runs.get())
}

#[test]
fn max_total_tokens_without_reported_input_counts_the_tokens_out() {
    // 4 + 2 = 6: reaching the limit goes on; the answer (1 token, 7 in all) has no
    // calls, so no_tool_calls comes first.
    let (r, runs) = counted(total(6), three_turns([None, None]));
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    assert_eq!((r.outcome.steps, r.outcome.tokens, runs), (3, 7, 3));
    // 6 > 5: the second turn is recorded, its two calls are not run.
    let (r, runs) = counted(total(5), three_turns([None, None]));
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls, runs), (2, 2, 1));
}

#[test]
fn max_total_tokens_counts_the_reported_input_tokens() {
    // 4 + 10 = 14, then 14 + 2 + 20 = 36.
    let reported = || three_turns([Some(10), Some(20)]);
    let (r, runs) = counted(total(36), reported());
    assert_eq!(
        r.outcome.reason,
        StopReason::NoToolCalls,
        "36 is not over 36"
    );
    assert_eq!(runs, 3);
    let (r, runs) = counted(total(35), reported());
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls, runs), (2, 2, 1));
    // The stop record's tokens are the tokens out, as for max_tokens.
    assert_eq!(num(r.stop(), "tokens"), 6);
    assert_eq!(r.stop().len(), 4);
    let (r, runs) = counted(total(13), reported());
    assert_eq!(r.kinds(), ["task", "assistant", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls, runs), (1, 1, 0));
    // max_tokens alone counts only the tokens out: 6 is not over 6.
    let budgets = Budgets {
        max_tokens: Some(6),
        ..Budgets::default()
    };
    let (r, runs) = counted(budgets, reported());
    assert_eq!((r.outcome.reason, runs), (StopReason::NoToolCalls, 3));
}

#[test]
fn either_token_budget_stops_the_run_and_the_sentinel_and_no_tool_calls_come_first() {
    let reported = || three_turns([Some(10), Some(20)]);
    for (max_tokens, max_total_tokens, steps) in [(5, 1000, 2), (1000, 35, 2), (3, 13, 1)] {
        let budgets = Budgets {
            max_tokens: Some(max_tokens),
            max_total_tokens: Some(max_total_tokens),
            ..Budgets::default()
        };
        let (r, _) = counted(budgets, reported());
        assert_eq!(r.outcome.reason, StopReason::TokenBudget);
        assert_eq!(r.outcome.steps, steps, "{max_tokens} {max_total_tokens}");
    }
    let answer = Reply::new("DONE").with_provider(input(100));
    let (r, _) = counted(total(1), vec![answer.clone()]);
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    let budgets = Budgets {
        stop_sentinel: Some("DONE".into()),
        ..total(1)
    };
    let (r, _) = counted(budgets, vec![answer.with_call("count", j("{}"))]);
    assert_eq!(r.outcome.reason, StopReason::Sentinel);
}

#[test]
fn the_agent_counts_the_total_turn_by_turn() {
    let mut a = Agent::new("t", total(1000), demo_tools().manifest().clone()).unwrap();
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    let first = Reply::new("abcdefgh") // 2 tokens
        .with_call("echo", j("{}"))
        .with_provider(input(40));
    a.feed_reply(Ok(first)).unwrap();
    assert_eq!((a.tokens(), a.total_tokens()), (2, 42));
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    a.feed_tool_result("call_1_0", Ok(j("{}"))).unwrap();
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    a.feed_reply(Ok(Reply::new("done").with_output_tokens(5)))
        .unwrap();
    assert_eq!((a.tokens(), a.total_tokens()), (7, 47));
}

#[test]
fn a_resumed_run_counts_the_input_tokens_recorded_before() {
    // Turns of 5 tokens out and 30 in: 35, 70, 105 > 100 at the third turn.
    let turn = || {
        Reply::new("abcdefghijklmnopqrst") // 5 tokens
            .with_call("echo", j("{}"))
            .with_provider(input(30))
    };
    let replies = || vec![turn(), turn(), turn(), turn(), turn()];
    let single = run(total(100), replies(), &mut demo_tools());
    assert_eq!(single.outcome.reason, StopReason::TokenBudget);
    assert_eq!(single.outcome.steps, 3);
    // Cancelled before the second turn (check points: turn 1, its call, turn 2).
    let mut asked = 0;
    let mut cancel = || {
        asked += 1;
        asked == 3
    };
    let first = run_with(
        total(100),
        replies().into_iter().map(Ok).collect(),
        &mut demo_tools(),
        &mut cancel,
    );
    assert_eq!(first.outcome.reason, StopReason::Cancelled);
    assert_eq!(first.outcome.steps, 1);
    // Resumed: 35 are counted already, so the run stops at its third turn in all,
    // as the single run did (counting 0 for the first turn would take a fourth).
    let mut out = first.transcript.clone();
    let outcome = driver::testing::resume(
        &first.transcript,
        total(100),
        &mut Scripted::new(replies()),
        &mut demo_tools(),
        &mut || false,
        &mut out,
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::TokenBudget);
    assert_eq!((outcome.steps, outcome.unrun_calls), (3, 1));
    loop_ok(&out);
    // The agent resumed from the records has the total the first run counted.
    let records = parse_records(&first.transcript).unwrap();
    let tools = demo_tools();
    let agent = Agent::resume(total(100), tools.manifest().clone(), &records).unwrap();
    assert_eq!((agent.tokens(), agent.total_tokens()), (5, 35));
}

/// A provider report that makes the `assistant` record too long for a line is the
/// turn's `model_error`, as a text that long is: no `assistant` record, and the run
/// ends with its `stop` record.
#[test]
fn a_report_too_long_for_a_record_line_is_a_model_error_like_a_long_text() {
    use crate::verify::MAX_LINE_BYTES;
    let long = ProviderReport {
        model: Some("m".repeat(MAX_LINE_BYTES)),
        ..ProviderReport::default()
    };
    let r = run(
        Budgets::default(),
        vec![Reply::new("x").with_provider(long)],
        &mut demo_tools(),
    );
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ModelError);
    let error = text(r.stop(), "error");
    assert!(
        error.starts_with("the model's reply is too large for one record ("),
        "{error}"
    );
}
