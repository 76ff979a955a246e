//! Each payload type's encode is the loop's bytes, its decode reads them back, and a
//! decode error names the member and what it must be.

use alloc::string::{String, ToString};

use super::*;
use crate::jcs::to_vec;
use crate::json::parse;
use crate::model::{ProviderReport, ToolCall};

fn text(value: &crate::json::Value) -> String {
    String::from_utf8(to_vec(value).unwrap()).unwrap()
}

#[test]
fn each_payload_round_trips_through_its_bytes() {
    let task = TaskPayload {
        task: "t".into(),
        budgets: Budgets {
            max_steps: Some(3),
            stop_sentinel: Some("DONE".into()),
            ..Budgets::default()
        },
        tool_limits: [("add".to_string(), 2)].into_iter().collect(),
        setup: None,
    };
    let bytes =
        r#"{"budgets":{"max_steps":3,"stop_sentinel":"DONE","tool_limits":{"add":2}},"task":"t"}"#;
    assert_eq!(text(&task.encode()), bytes);
    assert_eq!(
        TaskPayload::decode(&parse(bytes.as_bytes()).unwrap()),
        Ok(task)
    );

    let assistant = AssistantPayload {
        text: "".into(),
        tool_calls: alloc::vec![ToolCall {
            id: call_id(1, 0),
            name: "add".into(),
            arguments: parse(br#"{"a":2}"#).unwrap(),
        }],
        tokens: 1,
        provider: ProviderReport {
            input_tokens: Some(7),
            model: Some("m".into()),
            ..ProviderReport::default()
        },
    };
    let bytes = r#"{"provider":{"input_tokens":7,"model":"m"},"text":"","tokens":1,"tool_calls":[{"arguments":{"a":2},"id":"call_1_0","name":"add"}]}"#;
    assert_eq!(text(&assistant.encode()), bytes);
    assert_eq!(
        AssistantPayload::decode(&parse(bytes.as_bytes()).unwrap()),
        Ok(assistant)
    );

    for (result, bytes) in [
        (
            Ok(parse(b"42").unwrap()),
            r#"{"id":"c","name":"add","ok":true,"value":42}"#,
        ),
        (
            Err("no".into()),
            r#"{"error":"no","id":"c","name":"add","ok":false}"#,
        ),
    ] {
        let tool = ToolPayload {
            id: "c".into(),
            name: "add".into(),
            result,
        };
        assert_eq!(text(&tool.encode()), bytes);
        assert_eq!(
            ToolPayload::decode(&parse(bytes.as_bytes()).unwrap()),
            Ok(tool)
        );
    }

    let stop = StopPayload {
        reason: StopReason::ModelError,
        steps: 1,
        tokens: 2,
        unrun_calls: 0,
        error: Some("down".into()),
    };
    let bytes = r#"{"error":"down","reason":"model_error","steps":1,"tokens":2,"unrun_calls":0}"#;
    assert_eq!(text(&stop.encode()), bytes);
    assert_eq!(
        StopPayload::decode(&parse(bytes.as_bytes()).unwrap()),
        Ok(stop)
    );

    let resume = ResumePayload {
        after: StopReason::StepBudget,
        setup: None,
    };
    assert_eq!(text(&resume.encode()), r#"{"after":"step_budget"}"#);
    assert_eq!(ResumePayload::decode(&resume.encode()), Ok(resume));
    // A run that goes on with another setup states it.
    let changed = ResumePayload {
        after: StopReason::NoToolCalls,
        setup: Some(crate::vocabulary::Setup {
            system: Some("terse".into()),
            ..crate::vocabulary::Setup::default()
        }),
    };
    let bytes = r#"{"after":"no_tool_calls","setup":{"system":"terse","tools":[]}}"#;
    assert_eq!(text(&changed.encode()), bytes);
    assert_eq!(ResumePayload::decode(&changed.encode()), Ok(changed));
}

/// A decode, its payload type dropped.
type Decode = fn(&crate::json::Value) -> Result<(), PayloadError>;

#[test]
fn a_decode_error_names_the_member_and_what_it_must_be() {
    let refused = |decode: Decode, json: &str| {
        decode(&parse(json.as_bytes()).unwrap())
            .unwrap_err()
            .to_string()
    };
    let assistant = |v: &crate::json::Value| AssistantPayload::decode(v).map(drop);
    let tool = |v: &crate::json::Value| ToolPayload::decode(v).map(drop);
    let stop = |v: &crate::json::Value| StopPayload::decode(v).map(drop);
    let resume = |v: &crate::json::Value| ResumePayload::decode(v).map(drop);
    let cases: [(Decode, &str, &str); 8] = [
        (assistant, "[]", "the assistant payload must be an object"),
        (
            assistant,
            r#"{"text":"","tokens":1,"tool_calls":[{"arguments":1,"name":"x"}]}"#,
            "the assistant payload has no tool_calls[].id",
        ),
        (
            assistant,
            r#"{"provider":{"input_tokens":-1},"text":"","tokens":1,"tool_calls":[]}"#,
            "the assistant payload's provider.input_tokens must be a count (an integer from 0 to 2^53-1)",
        ),
        (
            assistant,
            r#"{"provider":{"request_sha256":"AB"},"text":"","tokens":1,"tool_calls":[]}"#,
            "the assistant payload's provider.request_sha256 must be a SHA-256 (64 lowercase hex digits)",
        ),
        (tool, r#"{"id":"c","name":"x","ok":1}"#, "the tool payload's ok must be a boolean"),
        (tool, r#"{"id":"c","name":"x","ok":true}"#, "the tool payload has no value"),
        (
            stop,
            r#"{"reason":"done","steps":0,"tokens":0,"unrun_calls":0}"#,
            "the stop payload's reason must be a stop reason (no_tool_calls, sentinel, \
             step_budget, token_budget, model_error, tool_budget or cancelled)",
        ),
        (resume, "{}", "the resume payload has no after"),
    ];
    for (decode, json, sentence) in cases {
        assert_eq!(refused(decode, json), sentence, "{json}");
    }
}

/// The request and response digests are written as 64 lowercase hex digits, after the
/// other provider members (name order), and read back.
#[test]
fn the_provider_digests_round_trip() {
    let report = ProviderReport::default()
        .with_request_body(b"{}")
        .with_response_body(b"");
    let assistant = AssistantPayload {
        text: "".into(),
        tool_calls: alloc::vec![],
        tokens: 0,
        provider: report,
    };
    let bytes = concat!(
        r#"{"provider":{"request_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","#,
        r#""response_sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},"#,
        r#""text":"","tokens":0,"tool_calls":[]}"#
    );
    assert_eq!(text(&assistant.encode()), bytes);
    assert_eq!(
        AssistantPayload::decode(&parse(bytes.as_bytes()).unwrap()),
        Ok(assistant)
    );
}

#[test]
fn kinds_round_trip_their_names() {
    for kind in RecordKind::ALL {
        assert_eq!(RecordKind::from_name(kind.as_str()), Some(kind));
    }
    assert_eq!(RecordKind::from_name("note"), None);
}
