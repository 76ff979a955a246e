//! A tool's `outputSchema` against the fake server's `output` tools: a successful
//! call's `structuredContent` must match it (docs/mcp.md, "Output schemas").

use crate::common;

use std::collections::BTreeMap;

use agentloop_core::tools::Toolbox;
use agentloop_mcp::{register_tools, McpOptions, McpServer};
use common::{fake, json, options, python, text};

/// The fake server's `output` tools, registered; the skipped ones' sentences.
fn output_tools(python: &str, era: &str, options: &McpOptions) -> (Toolbox, Vec<String>) {
    let server: McpServer = fake(python, &["--tools", "output", "--era", era], options).unwrap();
    let mut toolbox = Toolbox::new();
    let registration = register_tools(&[server], &mut toolbox, &BTreeMap::new()).unwrap();
    let skipped = registration.skipped.iter().map(|s| s.to_string()).collect();
    (toolbox, skipped)
}

/// The sentence a call fails with.
fn failure(toolbox: &Toolbox, name: &str, arguments: &str) -> String {
    let error = toolbox.call(name, &json(arguments)).unwrap_err();
    String::from(error.message())
}

#[test]
fn a_conforming_result_is_recorded_as_it_always_was_in_both_eras() {
    let Some(python) = python() else { return };
    for era in ["handshake", "modern"] {
        let (toolbox, _) = output_tools(python, era, &options());
        let value = toolbox.call("typed", &json(r#"{"structured":{"n":1}}"#));
        assert_eq!(
            text(&value.unwrap()),
            r#"{"content":[{"text":"{\"n\": 1}","type":"text"}],"structuredContent":{"n":1}}"#,
            "{era}"
        );
        let list = toolbox.call("typed_list", &json(r#"{"structured":["a","b"]}"#));
        assert!(list.is_ok(), "{era}: {list:?}");
        // `"outputSchema": null` is no schema: nothing is checked.
        let free = toolbox.call("typed_null", &json("{}"));
        assert!(free.is_ok(), "{era}: {free:?}");
    }
}

#[test]
fn a_result_that_breaks_the_schema_or_has_no_structured_content_fails_the_call() {
    let Some(python) = python() else { return };
    for era in ["handshake", "modern"] {
        let (toolbox, _) = output_tools(python, era, &options());
        assert_eq!(
            failure(&toolbox, "typed", r#"{"structured":{"n":"one","m":[]}}"#),
            "its structuredContent does not match its outputSchema: \
             $.structuredContent.n: expected type integer, got string",
            "{era}"
        );
        assert_eq!(
            failure(&toolbox, "typed", r#"{"structured":[1]}"#),
            "its structuredContent does not match its outputSchema: \
             $.structuredContent: expected type object, got array",
            "{era}"
        );
        assert_eq!(
            failure(&toolbox, "typed", "{}"),
            "the tool has an outputSchema but its result has no structuredContent",
            "{era}"
        );
        assert_eq!(
            failure(&toolbox, "typed_list", r#"{"structured":["a",2]}"#),
            "its structuredContent does not match its outputSchema: \
             $.structuredContent[1]: expected type string, got integer",
            "{era}"
        );
    }
}

#[test]
fn an_error_result_is_not_checked_against_the_schema() {
    let Some(python) = python() else { return };
    let (toolbox, _) = output_tools(python, "handshake", &options());
    assert_eq!(
        failure(&toolbox, "typed", r#"{"error":true}"#),
        "the server reported an error: null"
    );
    assert_eq!(
        failure(
            &toolbox,
            "typed",
            r#"{"error":true,"structured":{"n":"x"}}"#
        ),
        r#"the server reported an error: {"n": "x"}"#
    );
}

#[test]
fn the_schemas_own_dialect_is_used_and_one_that_cannot_be_honoured_skips_the_tool() {
    let Some(python) = python() else { return };
    let (toolbox, skipped) = output_tools(python, "handshake", &options());
    // draft-07's `dependencies`: "a" needs "b".
    assert!(toolbox
        .call("typed_07", &json(r#"{"structured":{"a":1,"b":2}}"#))
        .is_ok());
    assert_eq!(
        failure(&toolbox, "typed_07", r#"{"structured":{"a":1}}"#),
        "its structuredContent does not match its outputSchema: \
         $.structuredContent: missing property 'b', required when 'a' is present"
    );
    assert_eq!(
        skipped,
        [
            "MCP server 0: tool 'bad_output' skipped: its outputSchema is refused: schema \
             refused at /type: keyword 'type': 'dict' is not a JSON Schema type name (the \
             names are null, boolean, object, array, number, string, integer)",
            "MCP server 0: tool 'draft_04_output' skipped: its outputSchema is refused: schema \
             refused at /$schema: keyword '$schema' names \
             'http://json-schema.org/draft-04/schema#', which is not a supported draft (draft \
             2020-12, draft 2019-09 or draft-07, e.g. https://json-schema.org/draft/2020-12/schema): \
             reading a schema by another draft's rules could change what it means",
        ]
    );
    assert_eq!(toolbox.manifest().len(), 4);
}

#[test]
fn a_mismatch_sentence_is_cut_to_the_limit() {
    let Some(python) = python() else { return };
    let options = McpOptions {
        max_error_bytes: 60,
        ..options()
    };
    let (toolbox, _) = output_tools(python, "handshake", &options);
    let items = vec!["1"; 50].join(",");
    let sentence = failure(
        &toolbox,
        "typed_list",
        &format!(r#"{{"structured":[{items}]}}"#),
    );
    assert!(
        sentence.starts_with("its structuredContent does not match"),
        "{sentence}"
    );
    assert!(sentence.ends_with(" bytes in all)"), "{sentence}");
    assert!(sentence.len() < 100, "{sentence}");
}
