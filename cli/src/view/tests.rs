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
