//! Each call's checks and their sentences; ids; token counting; tool results.

use crate::tools::ToolOptions;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::StopReason;
use crate::json::MAX_DEPTH;

#[test]
fn unknown_tool_names_the_tools_sorted_and_the_loop_goes_on() {
    let r = run(
        Budgets::default(),
        vec![call("multiply", r#"{"a":2,"b":40}"#), Reply::new("ok")],
        &mut demo_tools(),
    );
    assert_eq!(
        r.errors(),
        ["no tool named 'multiply' (have: add, echo, fail, greet)"]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    let r = run(
        Budgets::default(),
        vec![call("x", "{}"), Reply::new("ok")],
        &mut Toolbox::new(),
    );
    assert_eq!(r.errors(), ["no tool named 'x' (no tools are registered)"]);
}

#[test]
fn schema_violation_is_recorded_with_its_path_and_the_tool_never_runs() {
    let r = run(
        Budgets::default(),
        vec![call("add", r#"{"a":"2","b":40}"#), Reply::new("ok")],
        &mut demo_tools(),
    );
    assert_eq!(
        r.errors(),
        ["invalid arguments: $.add.a: expected type integer, got string"]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

#[test]
fn a_failing_tool_is_data_and_the_loop_goes_on() {
    let r = run(
        Budgets::default(),
        vec![
            call("fail", "{}"),
            call("add", r#"{"a":2,"b":40}"#),
            Reply::new("42"),
        ],
        &mut demo_tools(),
    );
    assert_eq!(
        r.tools(),
        [
            (
                false,
                Value::from("tool 'fail' failed: the tool is broken on purpose")
            ),
            (true, j(r#"{"sum":42}"#)),
        ]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

#[cfg(feature = "std")]
#[test]
fn a_panicking_tool_is_caught_and_recorded() {
    let mut tools = Toolbox::new();
    let spec = ToolSpec::new("boom", "panics", j(r#"{"type":"object"}"#));
    tools
        .register(
            FnTool::new(
                spec,
                |_: &Value| -> Result<Value, crate::tools::ToolError> { panic!("kaboom") },
            ),
            ToolOptions::new(),
        )
        .unwrap();
    let r = run(
        Budgets::default(),
        vec![call("boom", "{}"), Reply::new("survived")],
        &mut tools,
    );
    assert_eq!(r.errors(), ["tool 'boom' failed: panicked: kaboom"]);
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

#[test]
fn per_tool_limit_refuses_the_call_and_the_loop_goes_on() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new().limit(2)).unwrap();
    let (once, once_runs) = counting("once");
    tools.register(once, ToolOptions::new().limit(1)).unwrap();
    let turn = Reply::new("")
        .with_call("count", j("{}"))
        .with_call("count", j("{}"))
        .with_call("count", j("{}"))
        .with_call("once", j("{}"))
        .with_call("once", j("{}"));
    let r = run(
        Budgets::default(),
        vec![turn, call("count", "{}"), Reply::new("done")],
        &mut tools,
    );
    assert_eq!(
        r.errors(),
        [
            "tool 'count' reached its limit of 2 calls",
            "tool 'once' reached its limit of 1 call",
            "tool 'count' reached its limit of 2 calls",
        ]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
    assert_eq!((runs.get(), once_runs.get()), (2, 1));
    // The limits in force are in the task record.
    let budgets = r.at(0).get("budgets").unwrap();
    assert_eq!(budgets, &j(r#"{"tool_limits":{"count":2,"once":1}}"#));
}

#[test]
fn limit_comes_before_schema() {
    let mut tools = Toolbox::new();
    tools
        .register(crate::demo::Add, ToolOptions::new().limit(1))
        .unwrap();
    let turn = Reply::new("")
        .with_call("add", j(r#"{"a":1,"b":2}"#))
        .with_call("add", j(r#"{"a":"bad"}"#));
    let r = run(
        Budgets::default(),
        vec![turn, Reply::new("done")],
        &mut tools,
    );
    assert_eq!(r.errors(), ["tool 'add' reached its limit of 1 call"]);
}

#[test]
fn unknown_comes_before_limit_and_a_refusal_does_not_use_up_the_limit() {
    let (tool, runs) = counting("count");
    let mut tools = Toolbox::new();
    tools.register(tool, ToolOptions::new().limit(1)).unwrap();
    let turn = Reply::new("")
        .with_call("counts", j("{}"))
        .with_call("count", j("{}"));
    let r = run(
        Budgets::default(),
        vec![turn, Reply::new("done")],
        &mut tools,
    );
    assert_eq!(r.errors(), ["no tool named 'counts' (have: count)"]);
    assert_eq!(runs.get(), 1);
}

#[test]
fn call_ids_derive_from_the_assistant_seq_and_position() {
    let turn = Reply::new("")
        .with_call("echo", j(r#"{"i":0}"#))
        .with_call("echo", j(r#"{"i":1}"#));
    let r = run(
        Budgets::default(),
        vec![turn, call("echo", "{}"), Reply::new("done")],
        &mut demo_tools(),
    );
    let ids = |seq: u64| -> Vec<String> {
        match r.at(seq).get("tool_calls") {
            Some(Value::Array(calls)) => calls
                .iter()
                .map(|c| String::from(c.as_object().unwrap().get("id").unwrap().as_str().unwrap()))
                .collect(),
            _ => panic!("no tool_calls at {seq}"),
        }
    };
    assert_eq!(ids(1), ["call_1_0", "call_1_1"]);
    assert_eq!(text(r.at(2), "id"), "call_1_0");
    assert_eq!(text(r.at(3), "id"), "call_1_1");
    assert_eq!(ids(4), ["call_4_0"]);
    assert_eq!(text(r.at(5), "id"), "call_4_0");
    assert_eq!(ids(6), Vec::<String>::new());
}

#[test]
fn an_anchored_chain_numbers_ids_from_its_seqs() {
    let mut chain = Chain::new();
    chain.append_json("note", b"{}").unwrap();
    chain.append_json("note", b"{}").unwrap();
    let r = run_on(
        &mut chain,
        Budgets::default(),
        vec![Ok(call("echo", "{}")), Ok(Reply::new("done"))],
        &mut demo_tools(),
        &mut || false,
    );
    assert_eq!(r.records[0].0, 2);
    assert_eq!(text(r.at(4), "id"), "call_3_0");
}

#[test]
fn reported_output_tokens_replace_the_estimate() {
    let long = "x".repeat(400); // estimate: 100
    let r = run(
        Budgets::default(),
        vec![
            Reply::new(long.as_str())
                .with_call("echo", j("{}"))
                .with_output_tokens(3),
            Reply::new(long.as_str()),
        ],
        &mut demo_tools(),
    );
    assert_eq!(num(r.at(1), "tokens"), 3);
    assert_eq!(num(r.at(3), "tokens"), 100);
    assert_eq!(r.outcome.tokens, 103);
    // Reported tokens drive the budget too.
    let budgets = Budgets {
        max_tokens: Some(10),
        ..Budgets::default()
    };
    let r = run(
        budgets,
        vec![Reply::new("hi")
            .with_call("echo", j("{}"))
            .with_output_tokens(11)],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.reason, StopReason::TokenBudget);
}

#[test]
fn the_estimate_counts_unicode_scalar_values() {
    // 12 scalar values, 24 bytes: 3 tokens, not 6.
    let r = run(
        Budgets::default(),
        vec![Reply::new("éééééééééééé")],
        &mut demo_tools(),
    );
    assert_eq!(num(r.at(1), "tokens"), 3);
    // An empty text still counts one.
    let r = run(Budgets::default(), vec![Reply::new("")], &mut demo_tools());
    assert_eq!(num(r.at(1), "tokens"), 1);
}

fn returning(value: Value) -> Toolbox {
    let mut tools = Toolbox::new();
    let spec = ToolSpec::new("give", "returns a fixed value", j(r#"{"type":"object"}"#));
    tools
        .register(
            FnTool::new(spec, move |_: &Value| Ok(value.clone())),
            ToolOptions::new(),
        )
        .unwrap();
    tools
}

#[test]
fn a_result_with_no_canonical_encoding_is_refused_and_the_loop_goes_on() {
    let mut tools = returning(Value::Array(vec![Value::Number(f64::NAN)]));
    let r = run(
        Budgets::default(),
        vec![call("give", "{}"), Reply::new("done")],
        &mut tools,
    );
    assert_eq!(
        r.errors(),
        ["tool 'give' returned a value with no canonical encoding"]
    );
    assert_eq!(r.outcome.reason, StopReason::NoToolCalls);
}

fn nested(levels: usize) -> Value {
    (0..levels).fold(Value::Null, |v, _| Value::Array(vec![v]))
}

#[test]
fn a_result_too_deep_for_a_record_is_refused_and_the_deepest_allowed_verifies() {
    let r = run(
        Budgets::default(),
        vec![call("give", "{}"), Reply::new("done")],
        &mut returning(nested(MAX_DEPTH - 1)),
    );
    assert!(r.errors().is_empty());
    let r = run(
        Budgets::default(),
        vec![call("give", "{}"), Reply::new("done")],
        &mut returning(nested(MAX_DEPTH)),
    );
    assert_eq!(
        r.errors(),
        ["tool 'give' returned a value nested deeper than 127 levels, which a record cannot hold"]
    );
}

#[test]
fn arguments_too_deep_for_a_record_are_a_model_error() {
    // run() verifies every transcript, so the deepest accepted arguments verify.
    let ok = Reply::new("").with_call("echo", nested(MAX_DEPTH - 3));
    let r = run(
        Budgets::default(),
        vec![ok, Reply::new("done")],
        &mut demo_tools(),
    );
    assert_eq!(r.outcome.steps, 2);
    let deep = Reply::new("").with_call("echo", nested(MAX_DEPTH - 2));
    let r = run(Budgets::default(), vec![deep], &mut demo_tools());
    assert_eq!(r.kinds(), ["task", "stop"]);
    assert_eq!(r.outcome.reason, StopReason::ModelError);
    assert_eq!(
        text(r.stop(), "error"),
        "the model's reply cannot be recorded: the arguments of call 0 ('echo') are nested \
         deeper than 125 levels"
    );
}

#[test]
fn several_violations_are_joined_and_odd_names_are_bracket_quoted() {
    let r = run(
        Budgets::default(),
        vec![call("add", r#"{"a":"2","b":true}"#), Reply::new("ok")],
        &mut demo_tools(),
    );
    assert_eq!(
        r.errors(),
        [
            "invalid arguments: $.add.a: expected type integer, got string; \
          $.add.b: expected type integer, got boolean"
        ]
    );
    let mut tools = Toolbox::new();
    let schema = j(r#"{"type":"object","properties":{"city":{"type":"string"}}}"#);
    let spec = ToolSpec::new("get-weather", "weather", schema);
    tools
        .register(
            FnTool::new(spec, |_: &Value| Ok(Value::Null)),
            ToolOptions::new(),
        )
        .unwrap();
    let r = run(
        Budgets::default(),
        vec![call("get-weather", r#"{"city":1}"#), Reply::new("ok")],
        &mut tools,
    );
    assert_eq!(
        r.errors(),
        ["invalid arguments: $['get-weather'].city: expected type string, got integer"]
    );
}

#[test]
fn a_long_list_of_violations_is_cut() {
    let mut tools = Toolbox::new();
    let schema =
        j(r#"{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}"#);
    let spec = ToolSpec::new("list", "strings", schema);
    tools
        .register(
            FnTool::new(spec, |_: &Value| Ok(Value::Null)),
            ToolOptions::new(),
        )
        .unwrap();
    let items: Vec<String> = (0..25).map(|i| alloc::format!("{i}")).collect();
    let r = run(
        Budgets::default(),
        vec![
            call("list", &alloc::format!(r#"{{"l":[{}]}}"#, items.join(","))),
            Reply::new("ok"),
        ],
        &mut tools,
    );
    let error = &r.errors()[0];
    assert!(error.starts_with("invalid arguments: $.list.l[0]: expected type string, got "));
    assert_eq!(
        error.matches("; ").count(),
        crate::schema::Violation::MAX_LISTED
    );
    assert!(error.ends_with("; and 15 more"), "{error}");
}

#[test]
fn a_schema_outside_the_subset_is_refused_at_registration() {
    let mut tools = Toolbox::new();
    let schema = j(r#"{"type":"object","properties":{"a":{"type":"dict"}}}"#);
    let spec = ToolSpec::new("bad", "bad schema", schema);
    let err = tools
        .register(
            FnTool::new(spec, |_: &Value| Ok(Value::Null)),
            ToolOptions::new(),
        )
        .unwrap_err();
    assert!(
        matches!(err.0, crate::tools::RegisterErrorKind::Schema { ref tool, .. } if tool == "bad")
    );
    assert!(tools.manifest().is_empty());
}
