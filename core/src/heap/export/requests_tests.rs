//! Tests of the request rebuild: runs whose model builds each body with the codec and
//! reports its digest (as an HTTP model does), rebuilt from their transcripts; edited
//! copies fail at the first turn whose request changed.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::requests::RequestsErrorKind;
use super::*;
use crate::agent::Agent;
use crate::chain::Chain;
use crate::demo;
use crate::driver::{drive, Io, RunOptions};
use crate::json::{Object, Value};
use crate::model::{Message, Model, ModelError, Reply, Scripted};
use crate::provider::{Provider, RequestOptions};
use crate::tools::ToolSpec;
use crate::vocabulary::{ModelName, OfferedTool, Setup};

/// A model that builds each request body as an HTTP model does, keeps it, and reports
/// its SHA-256 with the scripted reply.
struct Sending {
    provider: Provider,
    options: RequestOptions,
    script: Scripted,
    sent: Vec<Vec<u8>>,
}

impl Model for Sending {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let body = self
            .provider
            .request(messages, manifest, &self.options)
            .map_err(|e| ModelError::new(e.to_string()))?;
        let reply = self.script.reply(messages, manifest)?;
        let report = reply.provider.clone().with_request_body(&body);
        self.sent.push(body);
        Ok(reply.with_provider(report))
    }
}

fn options() -> RequestOptions {
    let mut options = RequestOptions::new("m-1");
    options.system = Some(String::from("You are terse."));
    options.max_output_tokens = Some(64);
    options
}

/// The demo's `recover` run (refusals, a failing tool, five turns) sent to `provider`,
/// with a setup when `with_setup`: the transcript and the bodies sent.
fn run(provider: Provider, with_setup: bool) -> (Vec<u8>, Vec<Vec<u8>>) {
    let scenario = demo::recover();
    let mut toolbox = demo::toolbox().unwrap();
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::new(scenario.task, scenario.budgets.clone(), manifest).unwrap();
    if with_setup {
        let mut setup_options = Object::new();
        setup_options.insert("max_output_tokens", Value::Number(64.0));
        let setup = Setup {
            model: Some(ModelName {
                provider: provider.name().into(),
                name: "m-1".into(),
            }),
            system: Some("You are terse.".into()),
            options: setup_options,
            tools: OfferedTool::from_manifest(toolbox.manifest()),
            ..Setup::default()
        };
        agent = agent.with_setup(setup).unwrap();
    }
    let mut model = Sending {
        provider,
        options: options(),
        script: Scripted::new(scenario.replies.iter().cloned()),
        sent: Vec::new(),
    };
    let mut transcript = Vec::new();
    let io = Io {
        log: &mut Chain::new(),
        model: &mut model,
        toolbox: &mut toolbox,
        cancel: &mut || false,
        records: &mut transcript,
        changes: None,
    };
    drive(&mut agent, io, RunOptions::default()).unwrap();
    (transcript, model.sent)
}

/// The records of `transcript`, edited by `edit`, chained again.
fn rechain(transcript: &[u8], edit: impl Fn(&mut Vec<Value>)) -> Vec<Value> {
    let mut records = parse_records(transcript).unwrap();
    edit(&mut records);
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for record in &records {
        let record = record.as_object().unwrap();
        let kind = record.get("kind").unwrap().as_str().unwrap();
        bytes.extend_from_slice(chain.append(kind, record.get("payload").unwrap()).unwrap());
    }
    parse_records(&bytes).unwrap()
}

/// Edits the object member `key` of `object` with `edit`.
fn edit(object: &mut Object, key: &str, edit: impl FnOnce(&mut Object)) {
    let Some(Value::Object(mut member)) = object.remove(key) else {
        panic!("no object {key}")
    };
    edit(&mut member);
    object.insert(key, Value::Object(member));
}

/// Edits the payload of record `index` with `f`.
fn payload(records: &mut [Value], index: usize, f: impl FnOnce(&mut Object)) {
    let Value::Object(record) = &mut records[index] else {
        panic!("record {index} is not an object")
    };
    edit(record, "payload", f);
}

/// Edits the setup of the task record with `f`.
fn setup(records: &mut [Value], f: impl FnOnce(&mut Object)) {
    payload(records, 0, |task| edit(task, "setup", f));
}

fn seqs_of(records: &[Value], kind: &str) -> Vec<u64> {
    records
        .iter()
        .filter(|r| r.as_object().unwrap().get("kind").unwrap().as_str() == Some(kind))
        .map(|r| r.as_object().unwrap().get("seq").unwrap().as_f64().unwrap() as u64)
        .collect()
}

#[test]
fn every_request_of_a_run_is_rebuilt_byte_for_byte_for_both_providers() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let (transcript, sent) = run(provider, true);
        let records = parse_records(&transcript).unwrap();
        let rebuilt = rebuild_requests(&records, None).unwrap();
        let bodies: Vec<Vec<u8>> = rebuilt.iter().map(|r| r.body.clone()).collect();
        assert_eq!(bodies, sent, "{provider}");
        assert_eq!(sent.len(), 5, "{provider}: the recover run has five turns");
        let seqs: Vec<u64> = rebuilt.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, seqs_of(&records, "assistant"), "{provider}");
        assert_eq!(check_requests(&rebuilt), Ok(5), "{provider}");
    }
}

#[test]
fn a_changed_system_prompt_fails_at_the_first_turn() {
    let (transcript, _) = run(Provider::OpenAi, true);
    let records = rechain(&transcript, |records| {
        setup(records, |setup| {
            setup.insert("system", Value::from("You are verbose."));
        })
    });
    let rebuilt = rebuild_requests(&records, None).unwrap();
    let mismatch = check_requests(&rebuilt).unwrap_err();
    assert_eq!(mismatch.seq(), 1);
    assert!(matches!(mismatch, RequestMismatch::Differs { .. }));
    let sentence = mismatch.to_string();
    assert!(
        sentence.starts_with("the request of the turn at seq 1 does not match its record"),
        "{sentence}"
    );
}

#[test]
fn a_changed_tool_description_or_result_fails_at_the_first_turn_it_reaches() {
    let (transcript, _) = run(Provider::Anthropic, true);
    let described = rechain(&transcript, |records| {
        setup(records, |setup| {
            let Some(Value::Array(mut tools)) = setup.remove("tools") else {
                panic!("no tools")
            };
            let Value::Object(tool) = &mut tools[0] else {
                panic!("a tool is not an object")
            };
            tool.insert("description", Value::from("something else"));
            setup.insert("tools", Value::Array(tools));
        })
    });
    let rebuilt = rebuild_requests(&described, None).unwrap();
    assert_eq!(check_requests(&rebuilt).unwrap_err().seq(), 1);

    // The first result a tool gave (not a refusal the loop writes itself) is shown
    // from the turn after it on.
    let original = parse_records(&transcript).unwrap();
    let ran = seqs_of(&original, "tool")
        .into_iter()
        .find(|&seq| {
            let record = original[seq as usize].as_object().unwrap();
            let tool = record.get("payload").unwrap().as_object().unwrap();
            tool.get("ok") == Some(&Value::Bool(true))
        })
        .unwrap();
    let next_turn = seqs_of(&original, "assistant")
        .into_iter()
        .find(|&seq| seq > ran)
        .unwrap();
    let edited = rechain(&transcript, |records| {
        payload(records, ran as usize, |tool| {
            tool.insert("value", Value::from("edited"));
        })
    });
    let rebuilt = rebuild_requests(&edited, None).unwrap();
    assert_eq!(check_requests(&rebuilt).unwrap_err().seq(), next_turn);
}

#[test]
fn a_changed_recorded_digest_fails_and_a_missing_one_is_not_provable() {
    let (transcript, _) = run(Provider::OpenAi, true);
    let records = parse_records(&transcript).unwrap();
    let third = seqs_of(&records, "assistant")[2];
    let edited = rechain(&transcript, |records| {
        // The digest was all the scripted model's report held.
        payload(records, third as usize, |turn| {
            turn.remove("provider");
        })
    });
    let rebuilt = rebuild_requests(&edited, None).unwrap();
    let mismatch = check_requests(&rebuilt).unwrap_err();
    assert_eq!(mismatch, RequestMismatch::NotRecorded { seq: third });
    assert_eq!(
        mismatch.to_string(),
        alloc::format!(
            "the turn at seq {third} is not provable: its assistant record holds no request_sha256"
        )
    );
}

#[test]
fn a_transcript_without_a_setup_needs_a_requester() {
    let (transcript, sent) = run(Provider::OpenAi, false);
    let records = parse_records(&transcript).unwrap();
    let error = rebuild_requests(&records, None).unwrap_err();
    assert_eq!(error.0, RequestsErrorKind::NoSetup);
    assert!(error.to_string().contains("format-1"), "{error}");
    let requester = Requester {
        provider: Provider::OpenAi,
        options: options(),
        manifest: demo::toolbox().unwrap().manifest().clone(),
    };
    let rebuilt = rebuild_requests(&records, Some(&requester)).unwrap();
    let bodies: Vec<Vec<u8>> = rebuilt.into_iter().map(|r| r.body).collect();
    assert_eq!(bodies, sent);
}

#[test]
fn a_setup_that_cannot_build_requests_is_refused_saying_why() {
    let (transcript, _) = run(Provider::OpenAi, true);
    let records = rechain(&transcript, |records| {
        setup(records, |setup| {
            edit(setup, "model", |model| {
                model.insert("provider", Value::from("gemini"));
            })
        })
    });
    let error = rebuild_requests(&records, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the setup's provider gemini is not openai or anthropic"
    );
}

/// A run cancelled before its second turn and resumed: the rebuild follows the `resume`
/// record as a resumed run does, and each turn's body is the one sent, before and after.
#[test]
fn a_resumed_run_is_rebuilt_across_its_resume_record() {
    let scenario = demo::answer();
    let mut toolbox = demo::toolbox().unwrap();
    let manifest = toolbox.manifest().clone();
    let mut model = Sending {
        provider: Provider::OpenAi,
        options: options(),
        script: Scripted::new(scenario.replies.iter().cloned()),
        sent: Vec::new(),
    };
    let mut agent = Agent::new(scenario.task, scenario.budgets.clone(), manifest.clone()).unwrap();
    let mut transcript = Vec::new();
    let mut chain = Chain::new();
    // Cancelled at the third check point: before turn 1, before the call, before turn 2.
    let mut asked = 0;
    let io = Io {
        log: &mut chain,
        model: &mut model,
        toolbox: &mut toolbox,
        cancel: &mut || {
            asked += 1;
            asked == 3
        },
        records: &mut transcript,
        changes: None,
    };
    drive(&mut agent, io, RunOptions::default()).unwrap();
    assert_eq!(model.sent.len(), 1);
    let records = parse_records(&transcript).unwrap();
    let mut resumed = Agent::resume(scenario.budgets.clone(), manifest.clone(), &records).unwrap();
    let io = Io {
        log: &mut chain,
        model: &mut model,
        toolbox: &mut toolbox,
        cancel: &mut || false,
        records: &mut transcript,
        changes: None,
    };
    drive(&mut resumed, io, RunOptions::default()).unwrap();
    let records = parse_records(&transcript).unwrap();
    assert_eq!(seqs_of(&records, "resume").len(), 1);
    let requester = Requester {
        provider: Provider::OpenAi,
        options: options(),
        manifest,
    };
    let rebuilt = rebuild_requests(&records, Some(&requester)).unwrap();
    let bodies: Vec<Vec<u8>> = rebuilt.iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies, model.sent);
    assert_eq!(check_requests(&rebuilt), Ok(2));
}
