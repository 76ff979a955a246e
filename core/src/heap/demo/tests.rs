//! The demo scenarios as fixtures: their bytes are pinned, and they are found by name.

use alloc::format;
use alloc::string::String;

use super::*;
use crate::sink::SinkError;

/// The head (last record's hash) of each demo transcript. The demos are public
/// fixtures — the README shows them, `c-examples/loop.c` reproduces one byte for byte,
/// users diff their runs against them — so any change to their bytes (a budget, a
/// reply, a tool's sentence) must be made on purpose, here as well.
const HEADS: [(&str, &str); 3] = [
    (
        "demo-answer.jsonl",
        "4389688699ef1721fdf1e71d9bc8e9950044bbf8397a53ca924a4bb538ac4958",
    ),
    (
        "demo-recover.jsonl",
        "cd72b04a9c7b5bd032213a07a61063dadc432224de0fd3dec8bb8eff66dc1c93",
    ),
    (
        "demo-budget.jsonl",
        "41189f6bbabf2d12909c27928983972ee500de02c5b566a3fdb527906291108e",
    ),
];

#[test]
fn the_demo_transcripts_are_the_published_ones() {
    for (scenario, (file_name, head)) in scenarios().iter().zip(HEADS) {
        assert_eq!(scenario.file_name, file_name);
        let (bytes, _) = scenario.run().unwrap();
        let report = crate::verify::verify_bytes(&bytes, &Default::default());
        assert!(report.ok(), "{file_name}: {:?}", report.faults);
        let found = report.head.map(|h| format!("{h}"));
        assert_eq!(found.as_deref(), Some(head), "{file_name}");
    }
}

#[test]
fn a_scenario_is_found_by_its_file_name_only() {
    for (file_name, _) in HEADS {
        assert_eq!(scenario(file_name).map(|s| s.file_name), Some(file_name));
    }
    assert!(scenario("demo-other.jsonl").is_none());
    assert!(scenario("").is_none());
}

#[test]
fn demo_errors_read_as_sentences() {
    let register = DemoErrorKind::Register(
        crate::tools::RegisterErrorKind::Name {
            name: String::new(),
            error: crate::tools::NameError::Empty,
        }
        .into(),
    );
    assert_eq!(
        format!("{register}"),
        "a demo tool was refused: tool name '' is not provider-safe: it is empty \
         (providers accept ^[a-zA-Z0-9_-]{1,64}$)"
    );
    let run = DemoErrorKind::Run(RunError::Sink(SinkError::Full));
    let text: String = format!("{run}");
    assert!(text.starts_with("the demo run failed: "), "{text}");
    assert!(
        text.ends_with(&format!("{}", RunError::Sink(SinkError::Full))),
        "{text}"
    );
}

#[test]
fn claims_name_what_they_check_and_what_was_found() {
    let scenario = answer();
    let (bytes, _) = scenario.run().unwrap();
    let claims = check(&scenario, &bytes);
    assert!(
        claims.iter().all(|c| c.held && c.found.is_empty()),
        "{claims:?}"
    );
    let tool_claim = r#"seq=2 tool ok=true value={"sum":42}"#;
    assert!(claims.iter().any(|c| c.what == tool_claim), "{claims:?}");

    // The tool's result rewritten: that claim fails and shows the payload found.
    let tampered = String::from_utf8(bytes)
        .unwrap()
        .replace(r#""sum":42"#, r#""sum":43"#);
    let claims = check(&scenario, tampered.as_bytes());
    let failed: alloc::vec::Vec<&Claim> = claims.iter().filter(|c| !c.held).collect();
    assert_eq!(failed.len(), 1, "{claims:?}");
    assert_eq!(failed[0].what, tool_claim);
    assert_eq!(
        failed[0].found,
        r#"{"id":"call_1_0","name":"add","ok":true,"value":{"sum":43}}"#
    );
}

/// The claims of `scenario` that `transcript` does not bear out, each as its first
/// word or two (`stop:`, `call ids`, `seq=6`, `the turn`).
fn failed(scenario: &Scenario, transcript: &str) -> alloc::vec::Vec<String> {
    check(scenario, transcript.as_bytes())
        .into_iter()
        .filter(|c| !c.held)
        .map(|c| {
            let words: alloc::vec::Vec<&str> = c.what.splitn(3, ' ').take(2).collect();
            words.join(" ")
        })
        .collect()
}

/// The negative control of the claims: each tampered copy fails the claim it breaks.
#[test]
fn each_claim_fails_on_a_transcript_that_breaks_it() {
    let budget = budget();
    let text = String::from_utf8(budget.run().unwrap().0).unwrap();
    assert!(failed(&budget, &text).is_empty());
    let last_calls = r#""tool_calls":[{"arguments":{"a":40,"b":2},"id":"call_7_0","name":"add"},{"arguments":{"name":"ada"},"id":"call_7_1","name":"greet"}]"#;
    assert!(text.contains(last_calls));
    let cases: [(&str, &str, &str); 10] = [
        // Each of the stop record's four members alone.
        (
            r#""reason":"token_budget""#,
            r#""reason":"cancelled""#,
            "stop: reason",
        ),
        (r#""steps":4"#, r#""steps":5"#, "stop: reason"),
        (
            r#""tokens":49,"unrun"#,
            r#""tokens":48,"unrun"#,
            "stop: reason",
        ),
        (r#""unrun_calls":2"#, r#""unrun_calls":1"#, "stop: reason"),
        // A tool record answering another call.
        (
            r#""id":"call_3_0","name":"echo","ok""#,
            r#""id":"call_3_9","name":"echo","ok""#,
            "call ids",
        ),
        // The budget: crossed exactly, not crossed, crossed before the last turn.
        (r#""max_tokens":40"#, r#""max_tokens":49"#, "the turn"),
        (r#""max_tokens":40"#, r#""max_tokens":60"#, "the turn"),
        (r#""max_tokens":40"#, r#""max_tokens":30"#, "the turn"),
        // The over-budget turn asked for no calls.
        (last_calls, r#""tool_calls":[]"#, "the turn"),
        // The ok:true result's value.
        (
            r#""value":{"sum":42}"#,
            r#""value":{"sum":43}"#,
            "seq=6 tool",
        ),
    ];
    for (from, to, claim) in cases {
        let tampered = text.replacen(from, to, 1);
        assert_ne!(tampered, text, "{from}");
        let found = failed(&budget, &tampered);
        assert!(found.iter().any(|c| c == claim), "{from} → {to}: {found:?}");
    }

    // An ok:false result's error sentence.
    let recover = recover();
    let text = String::from_utf8(recover.run().unwrap().0).unwrap();
    assert!(failed(&recover, &text).is_empty());
    let tampered = text.replacen("the tool is broken on purpose", "the tool is fine", 1);
    assert_eq!(failed(&recover, &tampered), ["seq=6 tool"]);
}
