//! A setup changed between turns ([`Agent::change_setup`]): refused inside a turn, after
//! the run stopped and with other tools than the manifest's; recorded as a `setup`
//! record before the request that offers its tools, after which a removed tool's call
//! is refused as unknown and an added one runs; the audit, resuming and rebuilding the
//! requests all follow it.

use super::Polls;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::*;
use crate::agent::SetupErrorKind;
use crate::agent::{Agent, Need, Record};
use crate::export::{check_requests, rebuild_requests};
use crate::model::ProviderReport;
use crate::provider::{Provider, RequestOptions};
use crate::tools::Manifest;
use crate::vocabulary::{ModelName, OfferedTool, Setup, SetupPayload, SetupReason};

/// A manifest of tools taking any object, by name.
fn manifest(names: &[&str]) -> Manifest {
    let mut manifest = Manifest::new();
    for name in names {
        let spec = ToolSpec::new(*name, "a tool", j(r#"{"type":"object"}"#));
        manifest.register(spec, None).unwrap();
    }
    manifest
}

/// The setup offering `manifest`'s tools, with a model (so requests can be rebuilt).
fn setup_of(manifest: &Manifest) -> Setup {
    Setup {
        model: Some(ModelName {
            provider: "openai".into(),
            name: "m".into(),
        }),
        tools: OfferedTool::from_manifest(manifest),
        ..Setup::default()
    }
}

fn started() -> Agent {
    let first = manifest(&["echo", "gone"]);
    Agent::new("t", Budgets::default(), first.clone())
        .unwrap()
        .with_setup(setup_of(&first))
        .unwrap()
}

/// Feeds the turn the model is asked for, reporting the request body an HTTP model
/// would have sent.
fn answer(agent: &mut Agent, reply: Reply) {
    let Need::ModelReply { messages, manifest } = agent.poll_one() else {
        panic!("the model is not asked")
    };
    let body = Provider::OpenAi
        .request(messages, manifest, &RequestOptions::new("m"))
        .unwrap();
    let report = ProviderReport::default().with_request_body(&body);
    agent.feed_reply(Ok(reply.with_provider(report))).unwrap();
}

/// task, turn 1 (calls `gone`, ok), setup (`gone` removed, `added` added), turn 2
/// (calls `gone`: unknown), turn 3 (calls `added`: ok), turn 4, stop.
fn changed_run() -> Vec<Record> {
    let mut agent = started();
    let mut records = agent.take_records();
    answer(&mut agent, call("gone", "{}"));
    assert!(matches!(agent.poll_one(), Need::ToolResults { .. }));
    agent.feed_tool_result("call_1_0", Ok(j("1"))).unwrap();
    records.extend(agent.take_records());
    assert!(matches!(agent.poll_one(), Need::ModelReply { .. }));
    let second = manifest(&["echo", "added"]);
    agent
        .change_setup(second.clone(), setup_of(&second))
        .unwrap();
    records.extend(agent.take_records());
    answer(&mut agent, call("gone", "{}"));
    assert!(matches!(agent.poll_one(), Need::TakeRecords));
    records.extend(agent.take_records());
    answer(&mut agent, call("added", "{}"));
    assert!(matches!(agent.poll_one(), Need::ToolResults { .. }));
    agent.feed_tool_result("call_6_0", Ok(j("2"))).unwrap();
    answer(&mut agent, Reply::new("done"));
    assert!(matches!(agent.poll_one(), Need::Done(_)));
    records.extend(agent.take_records());
    records
}

/// The records as a chain writes them, and parsed back.
fn transcript(records: &[Record]) -> (Vec<u8>, Vec<Value>) {
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for record in records {
        bytes.extend_from_slice(chain.append(record.kind.as_str(), &record.payload).unwrap());
    }
    let parsed = crate::export::parse_records(&bytes).unwrap();
    (bytes, parsed)
}

#[test]
fn a_changed_setup_is_recorded_between_turns_and_its_tools_are_the_ones_checked() {
    let records = changed_run();
    let kinds: Vec<&str> = records.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "task",
            "assistant",
            "tool",
            "setup",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "stop"
        ]
    );
    let changed = SetupPayload::decode(&records[3].payload).unwrap();
    assert_eq!(changed.reason, SetupReason::ToolsChanged);
    assert_eq!(changed.setup, setup_of(&manifest(&["echo", "added"])));
    let refused = crate::vocabulary::ToolPayload::decode(&records[5].payload).unwrap();
    assert_eq!(
        refused.result,
        Err("no tool named 'gone' (have: added, echo)".to_string())
    );
    let ran = crate::vocabulary::ToolPayload::decode(&records[7].payload).unwrap();
    assert_eq!(ran.result, Ok(j("2")));

    let (bytes, parsed) = transcript(&records);
    let report = crate::audit::verify_loop_bytes(&bytes, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
    // Each turn's request offers the tools in force then, as the transcript says.
    let rebuilt = rebuild_requests(&parsed, None).unwrap();
    assert_eq!(check_requests(&rebuilt), Ok(4));
}

#[test]
fn a_run_cut_anywhere_resumes_with_the_setup_in_force_to_the_same_records() {
    let records = changed_run();
    let (_, parsed) = transcript(&records);
    for cut in 1..parsed.len() {
        let given = manifest(if cut > 3 {
            &["echo", "added"]
        } else {
            &["echo", "gone"]
        });
        let agent = Agent::resume(Budgets::default(), given, &parsed[..cut]);
        let mut agent = agent.unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        // What it writes next without a check point is what the run wrote there.
        let pending = agent.take_records();
        assert_eq!(
            pending[..],
            records[cut..cut + pending.len()],
            "cut at {cut}"
        );
        assert_eq!(
            agent.next_seq(),
            (cut + pending.len()) as u64,
            "cut at {cut}"
        );
    }
}

#[test]
fn an_edited_setup_record_is_not_what_the_requests_were_built_with() {
    let records = changed_run();
    let (_, mut parsed) = transcript(&records);
    let Value::Object(record) = &mut parsed[3] else {
        panic!()
    };
    let mut edited = SetupPayload::decode(record.get("payload").unwrap()).unwrap();
    edited.setup.tools[1].description = "another tool".into();
    record.insert("payload", edited.encode());
    let rebuilt = rebuild_requests(&parsed, None).unwrap();
    let refused = check_requests(&rebuilt).unwrap_err();
    assert!(refused.to_string().contains("seq 4"), "{refused}");
}

#[test]
fn a_setup_changes_only_when_the_model_is_about_to_be_asked_and_only_to_the_manifest_s() {
    let second = manifest(&["echo", "added"]);
    // Before the first poll: the check point before the turn is not passed.
    let mut agent = started();
    let refused = agent.change_setup(second.clone(), setup_of(&second));
    assert_eq!(refused, Err(SetupErrorKind::NotBetweenTurns.into()));
    // Inside a turn.
    answer(&mut agent, call("echo", "{}"));
    assert!(matches!(agent.poll_one(), Need::ToolResults { .. }));
    let refused = agent.change_setup(second.clone(), setup_of(&second));
    assert_eq!(refused, Err(SetupErrorKind::NotBetweenTurns.into()));
    // Other tools than the manifest's.
    agent.feed_tool_result("call_1_0", Ok(j("1"))).unwrap();
    assert!(matches!(agent.poll_one(), Need::ModelReply { .. }));
    let before = agent.take_records();
    let other = setup_of(&manifest(&["echo", "other"]));
    let refused = agent.change_setup(second.clone(), other).unwrap_err();
    assert!(matches!(refused.0, SetupErrorKind::Tools(_)), "{refused}");
    assert!(agent.take_records().is_empty(), "{before:?}");
    // A call limit the task record does not state.
    let mut limited = Manifest::new();
    for name in ["added", "echo"] {
        let spec = ToolSpec::new(name, "a tool", j(r#"{"type":"object"}"#));
        limited
            .register(spec, (name == "added").then_some(2))
            .unwrap();
    }
    let refused = agent.change_setup(limited.clone(), setup_of(&limited));
    assert_eq!(refused, Err(SetupErrorKind::Limit("added".into()).into()));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "the new tools give 'added' another call limit than the task record states; the \
         limits stay those recorded"
    );
    assert!(agent.take_records().is_empty());
    // After the run stopped.
    answer(&mut agent, Reply::new("done"));
    assert!(matches!(agent.poll_one(), Need::Done(_)));
    let refused = agent.change_setup(second.clone(), setup_of(&second));
    assert_eq!(refused, Err(SetupErrorKind::NotBetweenTurns.into()));
    assert_eq!(
        SetupErrorKind::NotBetweenTurns.to_string(),
        "the setup changes only between turns, when the agent is about to ask the model (its \
         poll needs a model reply); it is inside a turn or has stopped"
    );
}

#[test]
fn the_audit_takes_a_setup_record_between_turns_only_and_checks_later_calls_against_it() {
    let (_, parsed) = transcript(&changed_run());
    let findings = |records: &[Value]| -> Vec<alloc::string::String> {
        let report = crate::audit::audit_records(records);
        report
            .findings
            .into_iter()
            .map(|f| alloc::format!("{}: {}", f.index, f.detail))
            .collect()
    };
    assert_eq!(findings(&parsed), Vec::<alloc::string::String>::new());
    // Inside the first turn (before its tool record).
    let mut inside = parsed.clone();
    inside.swap(2, 3);
    assert_eq!(
        findings(&inside)[0],
        "2: a setup record inside the turn of the assistant record at index 1 (1 call left \
         with no tool record); the setup changes only between turns"
    );
    // After the stop.
    let mut after = parsed.clone();
    let setup = after.remove(3);
    after.push(setup);
    assert!(
        findings(&after).iter().any(|f| f.starts_with(
            "9: a setup record after the stop record at index 8; only a resume record may follow"
        )),
        "{:?}",
        findings(&after)
    );
    // Without it, the refusal of `gone` and the run of `added` disagree with the setup.
    let mut without = parsed.clone();
    without.remove(3);
    let found = findings(&without);
    assert!(
        found.iter().any(
            |f| f.starts_with("4: tool payload: the call to 'gone' must be")
                || f.starts_with("6: tool payload: the call to 'added' must be")
        ),
        "{found:?}"
    );
    // Its members and reason.
    let mut odd = parsed.clone();
    let Value::Object(record) = &mut odd[3] else {
        panic!()
    };
    let mut payload = record.get("payload").unwrap().as_object().unwrap().clone();
    payload.insert("reason", Value::from("whim"));
    payload.insert("extra", Value::Null);
    record.insert("payload", Value::Object(payload));
    assert_eq!(
        findings(&odd),
        [
            "3: setup payload: unexpected 'extra', which the loop does not write",
            "3: setup payload: reason must be tools_changed, found \"whim\""
        ]
    );
}
