//! Every stop reason, and every precedence rule between them.

use crate::tools::ToolOptions;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::StopReason;

fn echo_forever(n: usize) -> Vec<Reply> {
    (0..n).map(|_| call("echo", r#"{"x":1}"#)).collect()
}

#[test]
fn no_tool_calls_is_the_ordinary_end() {
    let r = run(
        Budgets::default(),
        vec![call("add", r#"{"a":2,"b":40}"#), Reply::new("42")],
        &mut demo_tools(),
    );
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    assert_eq!(text(r.stop(), "reason"), "no_tool_calls");
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls), (2, 0));
    assert!(!r.stop().contains_key("error"));
    assert_eq!(r.stop().len(), 4);
}

#[test]
fn step_budget_is_checked_before_each_turn() {
    let mut tools = demo_tools();
    let budgets = Budgets {
        max_steps: Some(2),
        ..Budgets::default()
    };
    let r = run(budgets, echo_forever(5), &mut tools);
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "tool", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::StepBudget);
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls), (2, 0));
}

#[test]
fn step_budget_zero_takes_no_turn() {
    let budgets = Budgets {
        max_steps: Some(0),
        ..Budgets::default()
    };
    let r = run(budgets, echo_forever(1), &mut demo_tools());
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::StepBudget);
    assert_eq!(r.outcome.steps, 0);
}

#[test]
fn cancelled_comes_before_step_budget() {
    let budgets = Budgets {
        max_steps: Some(0),
        ..Budgets::default()
    };
    let r = run_with(budgets, vec![], &mut demo_tools(), &mut || true);
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::Cancelled);
}

#[test]
fn cancelled_before_a_turn() {
    // Check points: before turn 1 (1), before its call (2), before turn 2 (3).
    let mut asked = 0;
    let mut cancel = || {
        asked += 1;
        asked == 3
    };
    let replies = echo_forever(3).into_iter().map(Ok).collect();
    let r = run_with(Budgets::default(), replies, &mut demo_tools(), &mut cancel);
    assert_eq!(r.kinds(), ["task", "assistant", "tool", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::Cancelled);
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls), (1, 0));
    assert_eq!(asked, 3);
}

#[test]
fn cancelled_before_a_tool_call_leaves_the_rest_unrun() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    // Check points: before the turn (1), before call 0 (2), before call 1 (3).
    let mut asked = 0;
    let mut cancel = || {
        asked += 1;
        asked == 3
    };
    let turn = Reply::new("")
        .with_call("count", j("{}"))
        .with_call("count", j("{}"))
        .with_call("count", j("{}"));
    let r = run_with(Budgets::default(), vec![Ok(turn)], &mut tools, &mut cancel);
    assert_eq!(r.kinds(), ["task", "assistant", "tool", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::Cancelled);
    assert_eq!(r.outcome.unrun_calls, 2);
    assert_eq!(runs.get(), 1);
    assert_eq!(asked, 3);
}

#[test]
fn token_budget_records_the_turn_and_runs_none_of_its_calls() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    let budgets = Budgets {
        max_tokens: Some(5),
        ..Budgets::default()
    };
    let first = Reply::new("abcdefghijklmnop").with_call("count", j("{}")); // 4 tokens
    let second = Reply::new("abcdefgh") // 2 tokens: 6 > 5
        .with_call("count", j("{}"))
        .with_call("count", j("{}"));
    let r = run(budgets, vec![first, second], &mut tools);
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
    assert_eq!((r.outcome.tokens, r.outcome.unrun_calls), (6, 2));
    assert_eq!(runs.get(), 1, "the over-budget turn's calls never ran");
    assert_eq!(num(r.at(3), "tokens"), 2);
}

#[test]
fn token_budget_is_exceeded_only_above_the_limit() {
    let budgets = Budgets {
        max_tokens: Some(4),
        ..Budgets::default()
    };
    let r = run(
        budgets,
        vec![
            Reply::new("abcdefghijklmnop").with_call("echo", j("{}")),
            Reply::new("done"),
        ],
        &mut demo_tools(),
    );
    // 4 tokens is not over a budget of 4; the second turn (1 token) is, but it has no
    // calls, and no_tool_calls comes first.
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    assert_eq!(r.outcome.tokens, 5);
}

#[test]
fn no_tool_calls_comes_before_token_budget() {
    let budgets = Budgets {
        max_tokens: Some(1),
        ..Budgets::default()
    };
    let r = run(
        budgets,
        vec![Reply::new("a long answer, well over")],
        &mut demo_tools(),
    );
    assert_eq!(r.kinds(), ["task", "assistant", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

fn sentinel(word: &str) -> Budgets {
    Budgets {
        stop_sentinel: Some(word.into()),
        ..Budgets::default()
    }
}

#[test]
fn sentinel_with_a_tool_call_stops_and_never_runs_the_tool() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    let turn = Reply::new("all DONE here").with_call("count", j("{}"));
    let r = run(sentinel("DONE"), vec![turn], &mut tools);
    assert_eq!(r.kinds(), ["task", "assistant", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::Sentinel);
    assert_eq!(r.outcome.unrun_calls, 1);
    assert_eq!(runs.get(), 0);
}

#[test]
fn sentinel_comes_before_no_tool_calls_and_token_budget() {
    let r = run(
        sentinel("DONE"),
        vec![Reply::new("DONE")],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.reason, StopReason::Sentinel);
    let budgets = Budgets {
        max_tokens: Some(0),
        ..sentinel("DONE")
    };
    let turn = Reply::new("DONE").with_call("echo", j("{}"));
    let r = run(budgets, vec![turn], &mut demo_tools());
    assert_eq!(r.outcome.reason, StopReason::Sentinel);
    // Without the sentinel the same turn is over the budget.
    let budgets = Budgets {
        max_tokens: Some(0),
        ..Budgets::default()
    };
    let turn = Reply::new("DONE").with_call("echo", j("{}"));
    let r = run(budgets, vec![turn], &mut demo_tools());
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
}

#[test]
fn sentinel_must_be_in_the_text_not_the_arguments() {
    let turn = Reply::new("not yet").with_call("echo", j(r#"{"say":"DONE"}"#));
    let r = run(
        sentinel("DONE"),
        vec![turn, Reply::new("ok")],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

#[test]
fn model_error_writes_no_assistant_record() {
    let replies = vec![
        Ok(call("echo", "{}")),
        Err(ModelError::new("the provider returned HTTP 503")),
    ];
    let r = run_with(Budgets::default(), replies, &mut demo_tools(), &mut || {
        false
    });
    assert_eq!(r.kinds(), ["task", "assistant", "tool", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ModelError);
    assert_eq!(text(r.stop(), "error"), "the provider returned HTTP 503");
    assert_eq!(
        r.outcome.error.as_deref(),
        Some("the provider returned HTTP 503")
    );
    assert_eq!((r.outcome.steps, r.outcome.unrun_calls), (1, 0));
}

#[test]
fn a_reply_that_cannot_be_recorded_is_a_model_error() {
    let bad = Reply::new("").with_call("echo", Value::Number(f64::NAN));
    let r = run(Budgets::default(), vec![bad], &mut demo_tools());
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ModelError);
    assert!(text(r.stop(), "error").contains("no canonical encoding"));
    // A scripted model that runs out fails too.
    let r = run(Budgets::default(), vec![], &mut demo_tools());
    assert_eq!(r.outcome.reason, StopReason::ModelError);
}

#[test]
fn tool_budget_leaves_the_turns_remaining_calls_unrun() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new()).unwrap();
    let budgets = Budgets {
        max_tool_calls: Some(2),
        ..Budgets::default()
    };
    let turn = (0..4).fold(Reply::new(""), |r, _| r.with_call("count", j("{}")));
    let r = run(budgets, vec![turn], &mut tools);
    assert_eq!(r.kinds(), ["task", "assistant", "tool", "tool", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ToolBudget);
    assert_eq!(r.outcome.unrun_calls, 2);
    assert_eq!(runs.get(), 2);
}

#[test]
fn refused_calls_count_against_the_tool_budget() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new().limit(1)).unwrap();
    let budgets = Budgets {
        max_tool_calls: Some(3),
        ..Budgets::default()
    };
    let turn = Reply::new("")
        .with_call("count", j("{}")) // runs
        .with_call("nope", j("{}")) // unknown: refused, counts
        .with_call("count", j("{}")) // over its limit: refused, counts
        .with_call("count", j("{}")); // budget spent
    let r = run(budgets, vec![turn], &mut tools);
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "tool", "tool", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::ToolBudget);
    assert_eq!((r.outcome.unrun_calls, r.outcome.tool_calls), (1, 3));
    assert_eq!(runs.get(), 1);
}

#[test]
fn tool_budget_comes_before_the_unknown_tool_check() {
    let budgets = Budgets {
        max_tool_calls: Some(0),
        ..Budgets::default()
    };
    let r = run(budgets, vec![call("nope", "{}")], &mut demo_tools());
    assert_eq!(r.kinds(), ["task", "assistant", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ToolBudget);
    assert_eq!(r.outcome.unrun_calls, 1);
}

#[test]
fn cancelled_comes_before_tool_budget() {
    let budgets = Budgets {
        max_tool_calls: Some(0),
        ..Budgets::default()
    };
    let mut asked = 0;
    let mut cancel = || {
        asked += 1;
        asked == 2 // the check point before call 0
    };
    let r = run_with(
        budgets,
        vec![Ok(call("echo", "{}"))],
        &mut demo_tools(),
        &mut cancel,
    );
    assert_eq!(r.outcome.reason, StopReason::Cancelled);
    assert_eq!(r.outcome.unrun_calls, 1);
}

#[test]
fn a_spent_tool_budget_still_lets_the_model_answer() {
    // The budget is checked before each call, not before a turn: a turn that asks for
    // nothing ends the run normally; one that asks for a call stops on tool_budget.
    let budgets = Budgets {
        max_tool_calls: Some(1),
        ..Budgets::default()
    };
    let r = run(
        budgets.clone(),
        vec![call("echo", "{}"), Reply::new("done")],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    let r = run(
        budgets,
        vec![call("echo", "{}"), call("echo", "{}")],
        &mut demo_tools(),
    );
    assert_eq!(
        r.kinds(),
        ["task", "assistant", "tool", "assistant", "stop"]
    );
    assert_eq!(r.outcome.reason, StopReason::ToolBudget);
    assert_eq!(r.outcome.unrun_calls, 1);
}

#[test]
fn every_stop_reason_is_reached() {
    // A summary guard: each reason above has its own test; this one fails if a reason
    // is added without one reachable here.
    let mut seen = Vec::new();
    let cases: Vec<(Budgets, Vec<Reply>, bool)> = vec![
        (Budgets::default(), vec![Reply::new("x")], false),
        (sentinel("x"), vec![Reply::new("x")], false),
        (
            Budgets {
                max_steps: Some(0),
                ..Budgets::default()
            },
            vec![],
            false,
        ),
        (
            Budgets {
                max_tokens: Some(0),
                ..Budgets::default()
            },
            vec![call("echo", "{}")],
            false,
        ),
        (Budgets::default(), vec![], false),
        (
            Budgets {
                max_tool_calls: Some(0),
                ..Budgets::default()
            },
            vec![call("echo", "{}")],
            false,
        ),
        (Budgets::default(), vec![], true),
    ];
    for (budgets, replies, cancel) in cases {
        let replies = replies.into_iter().map(Ok).collect();
        let r = run_with(budgets, replies, &mut demo_tools(), &mut || cancel);
        seen.push(r.outcome.reason);
    }
    assert_eq!(seen, StopReason::ALL);
}
