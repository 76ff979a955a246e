//! The state machine driven by hand: feeding out of turn, cancelling, the conversation
//! a model is shown, determinism, and what the drivers refuse.

use super::Polls;
use crate::tools::ToolOptions;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::FeedErrorKind;
use crate::agent::{Agent, Need, RecordKind, StopReason};
use crate::demo;
use crate::driver::RunError;
use crate::jcs::to_vec;
use crate::model::{Message, ProviderReport, ToolCall};
use crate::sink::{RecordSink, SinkError};
use crate::tools::Manifest;
use crate::vocabulary::BudgetErrorKind;

fn agent(budgets: Budgets) -> Agent {
    Agent::new("the task", budgets, demo_tools().manifest().clone()).unwrap()
}

fn kinds(records: &[crate::agent::Record]) -> Vec<RecordKind> {
    records.iter().map(|r| r.kind).collect()
}

#[test]
fn feeding_out_of_turn_is_an_error_and_changes_nothing() {
    let mut a = agent(Budgets::default());
    assert_eq!(
        a.feed_reply(Ok(Reply::new("x"))),
        Err(FeedErrorKind::NotAwaitingReply.into())
    );
    assert_eq!(
        a.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::NotAwaitingToolResult.into())
    );
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    // Polling again without feeding asks for the same thing.
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    assert_eq!(
        a.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::NotAwaitingToolResult.into())
    );
    a.feed_reply(Ok(call("echo", r#"{"x":1}"#))).unwrap();
    let need = a.poll_one();
    let Need::ToolResults { calls: [asked, ..] } = need else {
        panic!("expected a tool call, got {need:?}");
    };
    let asked = asked.clone();
    assert_eq!(
        asked,
        ToolCall {
            id: "call_1_0".into(),
            name: "echo".into(),
            arguments: j(r#"{"x":1}"#)
        }
    );
    assert_eq!(
        a.feed_reply(Ok(Reply::new("x"))),
        Err(FeedErrorKind::NotAwaitingReply.into())
    );
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    // A result is fed by the id of the call asked for; another id changes nothing.
    assert_eq!(
        a.feed_tool_result("call_1_1", Ok(Value::Null)),
        Err(FeedErrorKind::NoSuchCall.into())
    );
    a.feed_tool_result("call_1_0", Ok(j(r#"{"x":1}"#))).unwrap();
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    a.feed_reply(Err(ModelError::new(""))).unwrap();
    let Need::Done(outcome) = a.poll_one() else {
        panic!("expected the end");
    };
    assert_eq!(outcome.reason, StopReason::ModelError);
    assert_eq!(
        outcome.error.as_deref(),
        Some("the model failed without saying why")
    );
    assert_eq!(
        a.feed_reply(Ok(Reply::new("x"))),
        Err(FeedErrorKind::Finished.into())
    );
    assert_eq!(
        a.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::Finished.into())
    );
    assert!(matches!(a.poll_one(), Need::Done(_)));
    a.cancel(); // no effect once stopped
    assert_eq!(a.outcome().unwrap().reason, StopReason::ModelError);
    let records = a.take_records();
    assert_eq!(
        kinds(&records),
        [
            RecordKind::Task,
            RecordKind::Assistant,
            RecordKind::Tool,
            RecordKind::Stop
        ]
    );
    assert_eq!(
        records.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert!(a.take_records().is_empty());
    assert_eq!(
        alloc::format!("{}", FeedErrorKind::NotAwaitingReply),
        "a model reply was fed, but none was asked for"
    );
}

#[test]
fn records_come_out_as_they_are_made() {
    let mut a = agent(Budgets::default());
    assert_eq!(kinds(&a.take_records()), [RecordKind::Task]);
    let _ = a.poll_one();
    assert!(a.take_records().is_empty());
    a.feed_reply(Ok(call("nope", "{}"))).unwrap();
    assert_eq!(kinds(&a.take_records()), [RecordKind::Assistant]);
    // The unknown tool is refused at the next poll, which stops there: the refusal is
    // taken before the loop asks for the next reply.
    assert_eq!(a.poll_one(), Need::TakeRecords);
    assert_eq!(kinds(&a.take_records()), [RecordKind::Tool]);
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    assert!(a.take_records().is_empty());
    assert_eq!(a.next_seq(), 3);
    assert_eq!((a.steps(), a.tool_calls()), (1, 1));
}

#[test]
fn the_counts_so_far_are_the_records_so_far() {
    let mut a = agent(Budgets::default());
    assert_eq!((a.steps(), a.tokens(), a.tool_calls()), (0, 0, 0));
    for (turn, tokens) in [(1, 3), (2, 7)] {
        let _ = a.poll_one();
        a.feed_reply(Ok(call("nope", "{}").with_output_tokens(tokens)))
            .unwrap();
        let _ = a.poll_one();
        assert_eq!(a.steps(), turn);
    }
    assert_eq!((a.tokens(), a.tool_calls()), (10, 2));
}

#[test]
fn cancel_abandons_an_outstanding_call() {
    let mut a = agent(Budgets::default());
    let _ = a.poll_one();
    let turn = Reply::new("")
        .with_call("echo", j("{}"))
        .with_call("echo", j("{}"));
    a.feed_reply(Ok(turn)).unwrap();
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    a.cancel();
    let Need::Done(outcome) = a.poll_one() else {
        panic!("expected the end");
    };
    assert_eq!(outcome.reason, StopReason::Cancelled);
    assert_eq!(outcome.unrun_calls, 2, "the abandoned call is unrun");
    assert_eq!(
        a.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::Finished.into())
    );
    let records = a.take_records();
    assert_eq!(
        kinds(&records),
        [RecordKind::Task, RecordKind::Assistant, RecordKind::Stop]
    );
    // Cancelling while a reply is outstanding: no assistant record.
    let mut a = agent(Budgets::default());
    let _ = a.poll_one();
    a.cancel();
    assert_eq!(a.outcome().unwrap().unrun_calls, 0);
    assert_eq!(
        kinds(&a.take_records()),
        [RecordKind::Task, RecordKind::Stop]
    );
}

#[test]
fn the_hook_is_asked_once_per_check_point() {
    let mut a = agent(Budgets::default());
    let mut asked = 0;
    let _ = a.poll_one_with(&mut || {
        asked += 1;
        false
    });
    let _ = a.poll_one_with(&mut || {
        asked += 1;
        false
    });
    assert_eq!(asked, 1, "waiting for a reply is not a check point");
    a.feed_reply(Ok(Reply::new("")
        .with_call("nope", j("{}"))
        .with_call("nope", j("{}"))
        .with_call("echo", j("{}"))))
        .unwrap();
    assert_eq!(
        kinds(&a.take_records()),
        [RecordKind::Task, RecordKind::Assistant]
    );
    // Before each of the three calls; each refusal ends its poll, so the hook is
    // never asked while a record waits to be taken.
    for (need_asked, records_before) in [(2, 1), (3, 2)] {
        let need = a.poll_one_with(&mut || {
            asked += 1;
            false
        });
        assert_eq!(need, Need::TakeRecords);
        assert_eq!((asked, a.tool_calls()), (need_asked, records_before));
        assert_eq!(kinds(&a.take_records()), [RecordKind::Tool]);
    }
    let need = a.poll_one_with(&mut || {
        asked += 1;
        false
    });
    assert!(matches!(need, Need::ToolResults { .. }), "{need:?}");
    assert_eq!(asked, 4);
    assert_eq!(a.tool_calls(), 2);
}

#[test]
fn the_model_sees_the_whole_conversation() {
    let mut a = agent(Budgets::default());
    let Need::ModelReply { messages, manifest } = a.poll_one() else {
        panic!("expected a reply request");
    };
    assert_eq!(
        messages,
        [Message::User {
            text: "the task".into()
        }]
    );
    let names: Vec<&str> = manifest.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "fail", "greet"]);
    a.feed_reply(Ok(Reply::new("trying")
        .with_call("nope", j("{}"))
        .with_call("echo", j(r#"{"k":"v"}"#))))
        .unwrap();
    assert_eq!(a.poll_one(), Need::TakeRecords);
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    a.feed_tool_result("call_1_1", Ok(j(r#"{"k":"v"}"#)))
        .unwrap();
    let Need::ModelReply { messages, .. } = a.poll_one() else {
        panic!("expected a reply request");
    };
    let calls = vec![
        ToolCall {
            id: "call_1_0".into(),
            name: "nope".into(),
            arguments: j("{}"),
        },
        ToolCall {
            id: "call_1_1".into(),
            name: "echo".into(),
            arguments: j(r#"{"k":"v"}"#),
        },
    ];
    assert_eq!(
        messages,
        [
            Message::User {
                text: "the task".into()
            },
            Message::Assistant {
                text: "trying".into(),
                tool_calls: calls,
            },
            Message::Tool {
                call_id: "call_1_0".into(),
                name: "nope".into(),
                result: Err("no tool named 'nope' (have: add, echo, fail, greet)".into()),
            },
            Message::Tool {
                call_id: "call_1_1".into(),
                name: "echo".into(),
                result: Ok(j(r#"{"k":"v"}"#)),
            },
        ]
    );
    assert_eq!(a.messages().len(), 4);
}

#[test]
fn the_task_record_states_the_budgets_in_force() {
    let budgets = Budgets {
        max_steps: Some(8),
        max_tokens: Some(1000),
        max_tool_calls: Some(20),
        max_total_tokens: Some(5000),
        stop_sentinel: Some("DONE".into()),
    };
    let mut tools = demo_tools();
    tools
        .register(counting("count").0, ToolOptions::new().limit(3))
        .unwrap();
    let mut a = Agent::new("add 2 and 40", budgets, tools.manifest().clone()).unwrap();
    let task = a.take_records().remove(0);
    assert_eq!(
        to_vec(&task.payload).unwrap(),
        br#"{"budgets":{"max_steps":8,"max_tokens":1000,"max_tool_calls":20,"max_total_tokens":5000,"stop_sentinel":"DONE","tool_limits":{"count":3}},"task":"add 2 and 40"}"#
    );
}

#[test]
fn budgets_that_cannot_be_applied_are_refused_before_anything_is_written() {
    let empty = Budgets {
        stop_sentinel: Some("".into()),
        ..Budgets::default()
    };
    assert_eq!(
        Agent::new("t", empty.clone(), Default::default()).unwrap_err(),
        BudgetErrorKind::EmptySentinel.into()
    );
    let mut out = Vec::new();
    let err = crate::driver::run(
        "t",
        empty,
        &mut Scripted::new([]),
        &mut demo_tools(),
        &mut || false,
        &mut out,
        crate::driver::RunOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        RunError::Budgets(BudgetErrorKind::EmptySentinel.into())
    );
    assert!(out.is_empty());
}

#[test]
fn limits_and_token_counts_may_reach_what_a_transcript_can_record() {
    use crate::anchor::MAX_SEQ;
    for limit in [MAX_SEQ, MAX_SEQ + 1] {
        let budgets = [
            (
                "max_steps",
                Budgets {
                    max_steps: Some(limit),
                    ..Budgets::default()
                },
            ),
            (
                "max_tokens",
                Budgets {
                    max_tokens: Some(limit),
                    ..Budgets::default()
                },
            ),
            (
                "max_tool_calls",
                Budgets {
                    max_tool_calls: Some(limit),
                    ..Budgets::default()
                },
            ),
            (
                "max_total_tokens",
                Budgets {
                    max_total_tokens: Some(limit),
                    ..Budgets::default()
                },
            ),
        ];
        for (name, budgets) in budgets {
            let want = if limit > MAX_SEQ {
                Err(BudgetErrorKind::TooLarge(name).into())
            } else {
                Ok(())
            };
            assert_eq!(budgets.check(), want, "{name} {limit}");
        }
        let reply = Reply::new("").with_output_tokens(limit);
        let checked = crate::agent::checks::reply(&reply);
        if limit > MAX_SEQ {
            assert_eq!(
                checked.unwrap_err(),
                "the model reported 9007199254740992 output tokens, more than 2^53-1"
            );
        } else {
            assert_eq!(checked, Ok(MAX_SEQ));
        }
        // Input and cached input tokens the provider reported: the same bound.
        for (what, report) in [
            (
                "input",
                ProviderReport {
                    input_tokens: Some(limit),
                    ..ProviderReport::default()
                },
            ),
            (
                "cached input",
                ProviderReport {
                    cached_input_tokens: Some(limit),
                    ..ProviderReport::default()
                },
            ),
        ] {
            let reply = Reply::new("abcdefgh").with_provider(report);
            let checked = crate::agent::checks::reply(&reply);
            if limit > MAX_SEQ {
                assert_eq!(
                    checked.unwrap_err(),
                    format!("the model reported 9007199254740992 {what} tokens, more than 2^53-1")
                );
            } else {
                assert_eq!(checked, Ok(2), "{what}");
            }
        }
    }
}

#[test]
fn cached_input_tokens_are_at_most_the_input_tokens() {
    let reply = |input, cached| {
        let report = ProviderReport {
            input_tokens: input,
            cached_input_tokens: cached,
            ..ProviderReport::default()
        };
        crate::agent::checks::reply(&Reply::new("abcd").with_provider(report))
    };
    assert_eq!(reply(Some(10), Some(10)), Ok(1));
    assert_eq!(reply(None, Some(10)), Ok(1), "nothing to compare with");
    assert_eq!(
        reply(Some(10), Some(11)).unwrap_err(),
        "the model reported 11 cached input tokens, more than its 10 input tokens"
    );
    // Fed to the loop: a model_error, no assistant record.
    let mut a = Agent::new("t", Budgets::default(), Manifest::new()).unwrap();
    a.take_records();
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    let report = ProviderReport {
        input_tokens: Some(1),
        cached_input_tokens: Some(2),
        ..ProviderReport::default()
    };
    a.feed_reply(Ok(Reply::new("x").with_provider(report)))
        .unwrap();
    let Need::Done(outcome) = a.poll_one() else {
        panic!("the run goes on")
    };
    assert_eq!(outcome.reason, StopReason::ModelError);
    assert_eq!(
        outcome.error.as_deref(),
        Some("the model reported 2 cached input tokens, more than its 1 input tokens")
    );
    let kinds: Vec<_> = a.take_records().iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RecordKind::Stop]);
}

/// A sink that takes `room` lines, then refuses.
struct Limited {
    room: usize,
    lines: Vec<u8>,
}

impl RecordSink for Limited {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        if self.room == 0 {
            return Err(SinkError::Full);
        }
        self.room -= 1;
        self.lines.extend_from_slice(line);
        Ok(())
    }
}

#[test]
fn a_failing_sink_stops_the_run_with_the_lines_so_far() {
    let mut sink = Limited {
        room: 2,
        lines: Vec::new(),
    };
    let err = crate::driver::run(
        "t",
        Budgets::default(),
        &mut Scripted::new([call("echo", "{}"), Reply::new("done")]),
        &mut demo_tools(),
        &mut || false,
        &mut sink,
        crate::driver::RunOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err, RunError::Sink(SinkError::Full));
    let report = verify::verify_bytes(&sink.lines, &Options::default());
    assert!(report.ok());
    assert_eq!(report.count, 2);
}

#[test]
fn identical_runs_give_byte_identical_transcripts() {
    let once = || {
        let replies = vec![
            Ok(call("multiply", "{}")),
            Ok(Reply::new("é")
                .with_call("greet", j(r#"{"name":"ada"}"#))
                .with_call("fail", j("{}"))),
            Ok(Reply::new("done")),
        ];
        run_with(Budgets::default(), replies, &mut demo_tools(), &mut || {
            false
        })
        .transcript
    };
    let first = once();
    assert!(!first.is_empty());
    assert_eq!(first, once());
    for scenario in demo::scenarios() {
        let (a, _) = scenario.run().unwrap();
        let (b, _) = scenario.run().unwrap();
        assert_eq!(a, b, "{}", scenario.file_name);
    }
}

#[test]
fn the_demo_transcripts_bear_out_their_claims() {
    for scenario in demo::scenarios() {
        let (transcript, outcome) = scenario.run().unwrap();
        assert!(verify::verify_bytes(&transcript, &Options::default()).ok());
        assert_eq!(outcome.reason, scenario.expect.reason);
        let lines = transcript.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines, scenario.expect.kinds.len(), "{}", scenario.file_name);
        for claim in scenario.check(&transcript) {
            assert!(
                claim.held,
                "{}: {} (found {})",
                scenario.file_name, claim.what, claim.found
            );
        }
    }
}

#[test]
fn the_claims_catch_a_wrong_transcript() {
    // Negative control: the answer transcript does not bear out the recover claims.
    let (answer, _) = demo::answer().run().unwrap();
    let claims = demo::recover().check(&answer);
    assert!(claims.iter().any(|c| !c.held));
    let (budget, _) = demo::budget().run().unwrap();
    // Drop the stop record: the stop claim fails.
    let cut = &budget[..budget[..budget.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1];
    let claims = demo::budget().check(cut);
    assert!(claims
        .iter()
        .any(|c| !c.held && c.what.starts_with("stop:")));
    let claims = demo::budget().check(b"not json\n");
    assert_eq!(claims.len(), 1);
    assert!(!claims[0].held);
}

#[cfg(feature = "std")]
#[test]
fn a_run_into_a_file_sink_verifies_from_disk() {
    let path = std::env::temp_dir().join(alloc::format!(
        "agentloop-core-run-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let mut sink = crate::sink::FileSink::append_to(&path).unwrap();
    let scenario = demo::recover();
    let outcome = crate::driver::run(
        scenario.task,
        scenario.budgets.clone(),
        &mut Scripted::new(scenario.replies.clone()),
        &mut demo_tools(),
        &mut || false,
        &mut sink,
        crate::driver::RunOptions::default(),
    )
    .unwrap();
    drop(sink);
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    let report = verify::verify_file(&path, &Options::default(), &verify::Parallel::default());
    assert!(report.ok(), "{:?}", report.faults);
    assert_eq!(report.count, 11);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes, scenario.run().unwrap().0);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_record_kind_displays_as_its_kind_member() {
    let kinds = [
        RecordKind::Task,
        RecordKind::Assistant,
        RecordKind::Tool,
        RecordKind::Stop,
        RecordKind::Resume,
    ];
    let shown: Vec<alloc::string::String> = kinds.iter().map(|k| alloc::format!("{k}")).collect();
    assert_eq!(shown, ["task", "assistant", "tool", "stop", "resume"]);
}
