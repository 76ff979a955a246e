//! The budget of a tool set's compiled schemas (issue 28, item 2): the tool whose
//! schema would pass it is refused, naming it and the budget; the tools before stay.

use alloc::format;
use alloc::string::{String, ToString};

use super::*;
use crate::json::{parse, Value};
use crate::schema::MAX_SCHEMA_COMPILED_BYTES;

/// A tool whose schema's one pattern compiles to about 5 MB of automaton (`a{100000}`
/// and a literal of its own).
fn heavy(i: usize) -> ToolSpec {
    let schema = format!(
        r#"{{"type":"object","properties":{{"s":{{"type":"string","pattern":"a{{100000}}{i}"}}}}}}"#
    );
    ToolSpec::new(format!("t{i}"), "d", parse(schema.as_bytes()).unwrap())
}

#[test]
fn the_tool_that_passes_the_budget_of_its_tool_set_is_refused_naming_it() {
    let mut tools = Toolbox::new();
    let mut i = 0;
    let error = loop {
        let tool = FnTool::new(heavy(i), |a: &Value| Ok(a.clone()));
        match tools.register(tool, ToolOptions::new()) {
            Ok(()) => i += 1,
            Err(error) => break error,
        }
        assert!(i < 20, "no tool refused");
    };
    // Each schema fits its own budget; together they pass the tool set's.
    assert!(
        i >= MAX_TOOLBOX_COMPILED_BYTES / MAX_SCHEMA_COMPILED_BYTES,
        "{i}"
    );
    let spent = tools.manifest().compiled_bytes();
    assert!(spent <= MAX_TOOLBOX_COMPILED_BYTES);
    assert_eq!(
        error.0,
        RegisterErrorKind::ToolSetBudget {
            tool: format!("t{i}"),
            pointer: String::from("/properties/s/pattern"),
            spent,
            budget: MAX_TOOLBOX_COMPILED_BYTES,
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "tool 't{i}': schema refused at /properties/s/pattern: its patterns would bring \
             the automata of the patterns of the tools registered together past their \
             budget of 67108864 bytes ({spent} bytes taken by the tools registered before \
             it)"
        )
    );
    assert_eq!(tools.manifest().len(), i);
    // The tools registered before it are kept and used; a light one still fits.
    let light = ToolSpec::new("light", "d", parse(br#"{"type":"object"}"#).unwrap());
    tools
        .register(
            FnTool::new(light, |a: &Value| Ok(a.clone())),
            ToolOptions::new(),
        )
        .unwrap();
    // Alone, the refused tool's schema compiles: only the tool set's budget is passed.
    assert!(heavy(i).check().is_ok());
}

#[test]
fn a_schema_past_its_own_budget_is_refused_as_its_schema() {
    let schema = format!(
        r#"{{"type":"object","properties":{{{}}}}}"#,
        (0..4)
            .map(|i| format!(r#""p{i}":{{"pattern":"a{{100000}}{i}"}}"#))
            .collect::<alloc::vec::Vec<_>>()
            .join(",")
    );
    let mut m = Manifest::new();
    let spec = ToolSpec::new("t", "d", parse(schema.as_bytes()).unwrap());
    let Err(error) = m.register(spec, None) else {
        panic!("registered");
    };
    let RegisterErrorKind::Schema { tool, error } = error.0 else {
        panic!("{error}");
    };
    assert_eq!(tool, "t");
    assert!(error
        .over_budget()
        .is_some_and(|o| o.budget == MAX_SCHEMA_COMPILED_BYTES));
    assert!(m.is_empty());
    assert_eq!(m.compiled_bytes(), 0);
}
