use agentloop_core::verify::{verify_bytes, LineEvent, Options};

use super::*;

/// The page of `bytes`, as text.
fn page_of(bytes: &[u8]) -> String {
    let mut rows = Rows::default();
    agentloop_core::verify::for_each_line_in(bytes, 1 << 20, |event: LineEvent<'_>| {
        rows.push(event)
    });
    let report = verify_bytes(bytes, &Options::default());
    String::from_utf8(page("t.jsonl", "t.jsonl", rows, &report).unwrap()).unwrap()
}

/// The text of the data block.
fn data_block(page: &str) -> &str {
    let start = page
        .find(r#"<script type="application/json" id="data">"#)
        .unwrap();
    let rest = &page[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</script>").unwrap();
    &rest[open..close]
}

#[test]
fn script_safe_keeps_no_markup_and_the_same_string() {
    let json = br#"{"a":"</script><script>alert(1)</script><!-- & -->"}"#;
    let safe = script_safe(json);
    assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
    let parsed = agentloop_core::json::parse(safe.as_bytes()).unwrap();
    assert_eq!(
        parsed,
        agentloop_core::json::parse(json).unwrap(),
        "the escaped text is the same JSON"
    );
}

#[test]
fn a_hostile_payload_stays_inside_the_data_block() {
    let mut chain = agentloop_core::chain::Chain::new();
    let hostile = "</script><script>alert(1)</script><!--\u{0}\u{1b}[31m\u{7f}\u{202e}";
    let mut bytes = Vec::new();
    let payload = agentloop_core::json::Value::from(hostile);
    bytes.extend_from_slice(chain.append("</script>", &payload).unwrap());
    let page = page_of(&bytes);
    // Exactly the template's two script elements and its one data block: nothing from
    // the record closed or opened an element.
    assert_eq!(page.matches("<script").count(), 2);
    assert_eq!(page.matches("</script>").count(), 2);
    assert_eq!(page.matches("<!--").count(), 0);
    let data = data_block(&page);
    assert!(!data.contains('<'));
    let value = agentloop_core::json::parse(data.as_bytes()).unwrap();
    let text = String::from_utf8(agentloop_core::jcs::to_vec(&value).unwrap()).unwrap();
    assert!(text.contains(r#"\\u0000\\u001b[31m"#), "{text}");
    assert!(
        text.contains("</script><script>alert(1)"),
        "the string itself is kept"
    );
}

/// The rows of `bytes`, and its plot.
fn rows_of(bytes: &[u8]) -> (Vec<Value>, Value) {
    let mut rows = Rows::default();
    agentloop_core::verify::for_each_line_in(bytes, 1 << 20, |event| rows.push(event));
    rows.finish()
}

fn get<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.as_object().unwrap().get(key).unwrap_or(&Value::Null)
}

#[test]
fn the_budget_plot_counts_turns_tokens_and_calls() {
    let (bytes, _) = agentloop_core::demo::budget().run().unwrap();
    let (rows, plot) = rows_of(&bytes);
    assert_eq!(rows.len(), 9);
    let points = match get(&plot, "points") {
        Value::Array(points) => points.clone(),
        other => panic!("{other:?}"),
    };
    let last = agentloop_core::json::parse(b"[7,49,49,3]").unwrap();
    assert_eq!(points.len(), 4, "one point per turn");
    assert_eq!(points[3], last, "seq, tokens, total tokens, tool calls");
    let limits = agentloop_core::json::parse(br#"[["max_steps",10],["max_tokens",40]]"#).unwrap();
    assert_eq!(get(&plot, "limits"), &limits);
}

#[test]
fn what_does_not_decode_is_shown_as_written_with_the_reason() {
    let mut chain = agentloop_core::chain::Chain::new();
    let mut bytes = Vec::new();
    let odd = agentloop_core::json::parse(br#"{"x":1}"#).unwrap();
    bytes.extend_from_slice(chain.append("task", &odd).unwrap());
    bytes.extend_from_slice(chain.append("note", &odd).unwrap());
    bytes.extend_from_slice(b"not json\n");
    let (rows, _) = rows_of(&bytes);
    assert_eq!(get(&rows[0], "raw"), &Value::from(r#"{"x":1}"#));
    assert!(get(&rows[0], "why").as_str().unwrap().contains("task"));
    assert_eq!(get(&rows[0], "body"), &Value::Null);
    // Another kind: shown as written, with no complaint.
    assert_eq!(get(&rows[1], "raw"), &Value::from(r#"{"x":1}"#));
    assert_eq!(get(&rows[1], "why"), &Value::Null);
    assert_eq!(get(&rows[2], "seq"), &Value::Null);
    assert!(get(&rows[2], "why")
        .as_str()
        .unwrap()
        .starts_with("the line is not I-JSON (column 1)"));
}
