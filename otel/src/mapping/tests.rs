use agentloop_core::{demo, export, jcs};

use super::*;
use crate::file::file_trace;

fn spans(content: Content, scenario: demo::Scenario) -> (Vec<Value>, Vec<Value>) {
    let (bytes, _) = scenario.run().unwrap();
    let records = export::parse_records(&bytes).unwrap();
    let trace = file_trace(&records, content).unwrap();
    let get = |v: &Value, k: &str| v.as_object().unwrap().get(k).unwrap().clone();
    let resource_spans = match get(&trace, "resourceSpans") {
        Value::Array(a) => a[0].clone(),
        _ => unreachable!(),
    };
    let scope_spans = match get(&resource_spans, "scopeSpans") {
        Value::Array(a) => a[0].clone(),
        _ => unreachable!(),
    };
    match get(&scope_spans, "spans") {
        Value::Array(spans) => (spans, records),
        _ => unreachable!(),
    }
}

fn text(value: &Value, key: &str) -> String {
    let v = value.as_object().unwrap().get(key).unwrap();
    v.as_str().unwrap().to_owned()
}

fn names(spans: &[Value]) -> Vec<String> {
    spans.iter().map(|s| text(s, "name")).collect()
}

#[test]
fn a_run_is_one_agent_span_a_chat_span_per_turn_and_a_tool_span_per_call() {
    let (spans, records) = spans(Content::Omitted, demo::recover());
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| {
            r.as_object()
                .unwrap()
                .get("kind")
                .unwrap()
                .as_str()
                .unwrap()
        })
        .collect();
    let count = |k| kinds.iter().filter(|&&x| x == k).count();
    let named = |prefix: &str| {
        names(&spans)
            .iter()
            .filter(|n| n.starts_with(prefix))
            .count()
    };
    assert_eq!(named("invoke_agent"), 1);
    assert_eq!(named("chat"), count("assistant"));
    assert_eq!(named("execute_tool"), count("tool"));
    // The agent span is the root and comes last (its stop ends it); the others are its
    // children, all in one trace derived from record 0.
    let root = spans.last().unwrap();
    assert!(root.as_object().unwrap().get("parentSpanId").is_none());
    let first = text(&records[0], "hash");
    assert_eq!(text(root, "spanId"), first[..16]);
    for span in &spans {
        assert_eq!(text(span, "traceId"), first[..32]);
    }
    for span in &spans[..spans.len() - 1] {
        assert_eq!(text(span, "parentSpanId"), first[..16]);
    }
}

#[test]
fn the_same_records_give_the_same_bytes_and_no_content_unless_asked() {
    let trace = |content| {
        let (bytes, _) = demo::recover().run().unwrap();
        let records = export::parse_records(&bytes).unwrap();
        jcs::to_vec(&file_trace(&records, content).unwrap()).unwrap()
    };
    assert_eq!(trace(Content::Omitted), trace(Content::Omitted));
    let plain = String::from_utf8(trace(Content::Omitted)).unwrap();
    for opt_in in [
        INPUT_MESSAGES,
        OUTPUT_MESSAGES,
        TOOL_CALL_ARGUMENTS,
        TOOL_CALL_RESULT,
    ] {
        assert!(!plain.contains(opt_in), "{opt_in} without content");
    }
    assert!(
        !plain.contains("add 2 and 40"),
        "the task's text without content"
    );
    assert!(
        !plain.contains(r#""message""#),
        "an error sentence without content"
    );
    let full = String::from_utf8(trace(Content::Recorded)).unwrap();
    for opt_in in [
        INPUT_MESSAGES,
        OUTPUT_MESSAGES,
        TOOL_CALL_ARGUMENTS,
        TOOL_CALL_RESULT,
    ] {
        assert!(full.contains(opt_in), "{opt_in} with content");
    }
}

#[test]
fn a_failed_call_has_its_class_and_an_error_status() {
    let (spans, _) = spans(Content::Omitted, demo::recover());
    let failed: Vec<String> = spans
        .iter()
        .filter(|s| s.as_object().unwrap().get("status").is_some())
        .map(|s| String::from_utf8(jcs::to_vec(s).unwrap()).unwrap())
        .collect();
    assert!(!failed.is_empty());
    for span in &failed {
        assert!(span.contains(r#""key":"error.type""#), "{span}");
        assert!(span.contains(r#""status":{"code":2}"#), "{span}");
    }
    // The recover demo's failures: an unknown tool, a schema refusal, a tool's own.
    for class in ["unknown_tool", "invalid_arguments", "tool_error"] {
        let attribute = format!(r#""key":"error.type","value":{{"stringValue":"{class}"}}"#);
        assert!(
            failed.iter().any(|span| span.contains(&attribute)),
            "no span of class {class}"
        );
    }
}

#[test]
fn servers_from_endpoints() {
    assert_eq!(
        server("http://127.0.0.1:8080/v1"),
        Some(("127.0.0.1", 8080))
    );
    assert_eq!(
        server("https://api.openai.com/v1"),
        Some(("api.openai.com", 443))
    );
    assert_eq!(server("http://[::1]/v1"), Some(("[::1]", 80)));
    assert_eq!(server("http://[::1]:9/v1"), Some(("[::1]", 9)));
    assert_eq!(server("ftp://x/"), None);
}

#[test]
fn a_record_outside_a_run_or_of_another_kind_is_named() {
    let mut mapping = Mapping::new(Content::Omitted);
    let payload = Value::Null;
    let entry = Entry {
        seq: 3,
        hash: Hash::ZERO,
        kind: "stop",
        payload: &payload,
    };
    assert!(matches!(
        mapping.push(&entry, 0),
        Err(MapError::Payload { seq: 3, .. })
    ));
    let other = Entry {
        kind: "note",
        ..entry
    };
    let error = mapping.push(&other, 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "record at seq 3: kind \"note\" is not one the loop writes (task, assistant, tool, stop, resume, setup)"
    );
}
