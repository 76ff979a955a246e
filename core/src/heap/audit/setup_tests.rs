//! The audit's reading of the setup (format 2): over the demo's recovering run with a
//! setup put in its task record, re-chained so that only the loop audit can object.

use alloc::string::String;
use alloc::vec::Vec;

use super::tests::{demo_records, findings, json, payload_mut};
use crate::demo;
use crate::vocabulary::{OfferedTool, Setup};

/// The demo tools as a setup offers them.
fn demo_setup() -> Setup {
    let manifest = demo::toolbox().unwrap().manifest().clone();
    Setup {
        tools: OfferedTool::from_manifest(&manifest),
        ..Setup::default()
    }
}

/// The recovering run (an unknown tool, a schema refusal, a failing tool) with `setup`
/// in its task record: the findings' details.
fn audited(setup: &Setup, limits: Option<&str>) -> Vec<String> {
    let mut records = demo_records(demo::recover());
    let task = payload_mut(&mut records, 0);
    task.insert("setup", setup.encode());
    if let Some(limits) = limits {
        let mut budgets = task.get("budgets").unwrap().as_object().unwrap().clone();
        budgets.insert("tool_limits", json(limits));
        task.insert("budgets", crate::json::Value::Object(budgets));
    }
    findings(&records).into_iter().map(|f| f.2).collect()
}

#[test]
fn the_recorded_refusals_agree_with_the_setup() {
    assert_eq!(audited(&demo_setup(), None), Vec::<String>::new());
}

#[test]
fn a_schema_refusal_the_recorded_schema_does_not_make_is_found() {
    let mut setup = demo_setup();
    let add = setup.tools.iter_mut().find(|t| t.name == "add").unwrap();
    add.schema = json(r#"{"type":"object"}"#);
    assert_eq!(
        audited(&setup, None),
        [
            "tool payload: the call to 'add' is recorded as refused by its schema, but the \
          schema the setup records accepts its arguments"
        ]
    );
}

#[test]
fn a_call_to_a_tool_the_setup_does_not_offer_must_be_the_unknown_tool_refusal() {
    let mut setup = demo_setup();
    setup.tools.retain(|t| t.name != "fail");
    let found = audited(&setup, None);
    assert_eq!(found.len(), 2, "{found:#?}");
    // The unknown-tool sentence names the tools offered: the recorded one names `fail`.
    assert!(
        found[0].starts_with("tool payload: the call to 'multiply' must be recorded as refused (the setup offers no tool of that name: \"no tool named 'multiply' (have: add, echo, greet)\")"),
        "{found:#?}"
    );
    assert!(
        found[1].starts_with("tool payload: the call to 'fail' must be recorded as refused"),
        "{found:#?}"
    );
}

#[test]
fn tool_limits_name_offered_tools_and_the_setup_decodes() {
    assert_eq!(
        audited(&demo_setup(), Some(r#"{"add":3,"mul":1}"#)),
        ["task payload: budgets.tool_limits names 'mul', which the setup does not offer"]
    );
    let mut records = demo_records(demo::recover());
    payload_mut(&mut records, 0).insert("setup", json(r#"{"tools":{}}"#));
    let found: Vec<String> = findings(&records).into_iter().map(|f| f.2).collect();
    assert_eq!(
        found,
        ["task payload: setup: the task payload's setup.tools must be an array"]
    );
}
