//! Every request provable (issue 30 item 2): a run records the SHA-256 of each body
//! the provider received and answered with (checked against the stand-in's saved
//! bodies); `verify --requests` rebuilds each request from the transcript alone and
//! names the first turn of an edited copy whose request no longer matches; `export
//! --requests` prints the rebuilt bodies.

use crate::common;

use std::fs;

use agentloop_core::agent::{Agent, Budgets};
use agentloop_core::chain::Chain;
use agentloop_core::demo;
use agentloop_core::driver::{drive, Io, RunOptions};
use agentloop_core::json::{Object, Value};
use agentloop_core::provider::{self, RequestOptions};
use agentloop_core::vocabulary::{ModelName, OfferedTool, Setup};
use agentloop_core::Hash;
use agentloop_http::HttpModel;
use agentloop_standin::{read_requests, Exchange, Server};
use common::runs::*;
use common::{member, workspace, Scratch};

/// The digest member `key` of each `assistant` record's `provider`.
fn digests(bytes: &[u8], key: &str) -> Vec<Option<Hash>> {
    records(bytes)
        .iter()
        .filter(|r| member(r, "kind").as_str() == Some("assistant"))
        .map(|r| {
            let payload = member(r, "payload").as_object().unwrap();
            let provider = payload.get("provider")?.as_object()?;
            Hash::from_hex(provider.get(key)?.as_str()?.as_bytes())
        })
        .collect()
}

fn wire(provider: Provider) -> provider::Provider {
    match provider {
        OpenAi => provider::Provider::OpenAi,
        Anthropic => provider::Provider::Anthropic,
    }
}

/// The stand-in's script: a turn calling `add`, then the answer.
fn script(provider: Provider) -> [Exchange; 2] {
    [provider.add_call(), provider.answer("2 + 40 = 42.")]
}

#[test]
fn a_run_records_the_digests_of_the_bodies_the_provider_received_and_sent() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("requests-digests-{}", provider.name()));
        let script = script(provider);
        let server = Server::start_recording(script.clone(), &scratch.path("sent")).unwrap();
        let args = run_args(provider, &server, "t.jsonl", &[]);
        let run = agentloop(scratch.dir(), &strs(&args), &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let received = read_requests(&scratch.path("sent")).unwrap();
        assert_eq!(received.len(), 2, "{provider:?}");
        let transcript = scratch.read("t.jsonl");
        let sent: Vec<_> = received.iter().map(|r| Some(Hash::of(&r.body))).collect();
        assert_eq!(digests(&transcript, "request_sha256"), sent, "{provider:?}");
        let answered: Vec<_> = script.iter().map(|e| Some(Hash::of(&e.body))).collect();
        assert_eq!(
            digests(&transcript, "response_sha256"),
            answered,
            "{provider:?}"
        );
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
    }
}

/// A run with a setup (format 2) against the recording stand-in, through the library
/// (the HTTP model, the demo tools, `Agent::with_setup`): written to `t.jsonl`.
fn run_with_setup(scratch: &Scratch, provider: Provider) {
    let server = Server::start_recording(script(provider), &scratch.path("sent")).unwrap();
    let mut options = RequestOptions::new("test-model");
    options.system = Some("You are terse.".into());
    options.max_output_tokens = Some(256);
    let base_url = format!("{}/v1", server.url());
    let model = HttpModel::new(wire(provider), &base_url, options, None).unwrap();
    let mut toolbox = demo::toolbox().unwrap();
    let mut setup_options = Object::new();
    setup_options.insert("max_output_tokens", Value::Number(256.0));
    let setup = Setup {
        model: Some(ModelName {
            provider: provider.name().into(),
            name: "test-model".into(),
        }),
        endpoint: Some(base_url),
        system: Some("You are terse.".into()),
        options: setup_options,
        tools: OfferedTool::from_manifest(toolbox.manifest()),
        ..Setup::default()
    };
    let manifest = toolbox.manifest().clone();
    let mut agent = Agent::new("add 2 and 40", Budgets::default(), manifest)
        .unwrap()
        .with_setup(setup)
        .unwrap();
    let mut transcript = Vec::new();
    let io = Io {
        log: &mut Chain::new(),
        model: &mut { model },
        toolbox: &mut toolbox,
        cancel: &mut || false,
        records: &mut transcript,
        changes: None,
    };
    drive(&mut agent, io, RunOptions::default()).unwrap();
    scratch.write("t.jsonl", transcript);
}

#[test]
fn verify_requests_holds_for_a_run_and_export_prints_the_bodies_sent() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("requests-verify-{}", provider.name()));
        run_with_setup(&scratch, provider);
        let verified = scratch.run(&["verify", "--requests", "t.jsonl"]);
        assert_eq!(verified.code, 0, "{}{}", verified.stdout, verified.stderr);
        assert_eq!(
            verified.stdout,
            "t.jsonl: ok, 2 requests rebuilt from the transcript, each matching its request_sha256\n"
        );
        let exported = scratch.run(&["export", "--requests", "t.jsonl"]);
        assert_eq!(exported.code, 0, "{}", exported.stderr);
        let mut sent = Vec::new();
        for request in read_requests(&scratch.path("sent")).unwrap() {
            sent.extend_from_slice(&request.body);
            sent.push(b'\n');
        }
        assert_eq!(exported.raw_stdout, sent, "{provider:?}");
        assert_verifies_as_a_loop(&scratch, "t.jsonl");
    }
}

/// The records of `bytes`, `edit`ed, chained again from seq 0 (a forger's rewrite).
fn rechain(bytes: &[u8], edit: impl Fn(usize, &mut Object)) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for (index, record) in records(bytes).iter().enumerate() {
        let kind = member(record, "kind").as_str().unwrap();
        let mut payload = member(record, "payload").as_object().unwrap().clone();
        edit(index, &mut payload);
        out.extend_from_slice(chain.append(kind, &Value::Object(payload)).unwrap());
    }
    out
}

/// `object[key]`, an object, edited by `edit`.
fn edit_object(object: &mut Object, key: &str, edit: impl FnOnce(&mut Object)) {
    let Some(Value::Object(mut inner)) = object.remove(key) else {
        panic!("{key} is not an object")
    };
    edit(&mut inner);
    object.insert(key, Value::Object(inner));
}

/// The task record's setup, edited by `edit`.
fn edit_setup(bytes: &[u8], edit: impl Fn(&mut Object)) -> Vec<u8> {
    rechain(bytes, |index, payload| {
        if index == 0 {
            edit_object(payload, "setup", &edit);
        }
    })
}

#[test]
fn an_edited_copy_fails_naming_the_first_turn_whose_request_no_longer_matches() {
    for provider in [OpenAi, Anthropic] {
        let scratch = Scratch::new(&format!("requests-edited-{}", provider.name()));
        run_with_setup(&scratch, provider);
        let original = scratch.read("t.jsonl");
        // t.jsonl: task 0, assistant 1 (add), tool 2, assistant 3, stop 4.
        let system = edit_setup(&original, |setup| {
            setup.insert("system", Value::from("You are verbose."));
        });
        let described = edit_setup(&original, |setup| {
            let Some(Value::Array(mut tools)) = setup.remove("tools") else {
                panic!("no tools")
            };
            for tool in &mut tools {
                let Value::Object(tool) = tool else { panic!() };
                if tool.get("name").and_then(Value::as_str) == Some("add") {
                    tool.insert("description", Value::from("Adds, they say."));
                }
            }
            setup.insert("tools", Value::Array(tools));
        });
        let result = rechain(&original, |index, payload| {
            if index == 2 {
                payload.insert("value", Value::from("41"));
            }
        });
        for (name, bytes, seq) in [
            ("system.jsonl", system, 1),
            ("described.jsonl", described, 1),
            ("result.jsonl", result, 3),
        ] {
            scratch.write(name, bytes);
            assert_verifies_as_a_loop(&scratch, name);
            let checked = scratch.run(&["verify", "--requests", name]);
            assert_eq!(
                checked.code, 1,
                "{name}: {}{}",
                checked.stdout, checked.stderr
            );
            let said = format!(
                "{name}: the request of the turn at seq {seq} does not match its record: the \
                 assistant record holds request_sha256 "
            );
            assert!(checked.stdout.starts_with(&said), "{}", checked.stdout);
        }
    }
}

#[test]
fn a_turn_without_a_digest_and_a_format1_file_are_not_provable() {
    let scratch = Scratch::new("requests-unprovable");
    run_with_setup(&scratch, OpenAi);
    let bare = rechain(&scratch.read("t.jsonl"), |index, payload| {
        if index == 3 {
            payload.remove("provider");
        }
    });
    scratch.write("bare.jsonl", bare);
    let checked = scratch.run(&["verify", "--requests", "t.jsonl", "bare.jsonl"]);
    assert_eq!(checked.code, 1, "{}", checked.stderr);
    assert_eq!(
        checked.stdout,
        "t.jsonl: ok, 2 requests rebuilt from the transcript, each matching its request_sha256\n\
         bare.jsonl: the turn at seq 3 is not provable: its assistant record holds no request_sha256\n"
    );

    let fixture = workspace().join("tests/fixtures/format1/add.jsonl");
    scratch.write("add.jsonl", fs::read(fixture).unwrap());
    let checked = scratch.run(&["verify", "--requests", "add.jsonl"]);
    assert_eq!(checked.code, 1, "{}", checked.stderr);
    assert_eq!(
        checked.stdout,
        "add.jsonl: requests not provable: the task record states no setup (a format-1 \
         transcript), so no request can be rebuilt from the transcript alone\n"
    );
    let exported = scratch.run(&["export", "--requests", "add.jsonl"]);
    assert_eq!(exported.code, 1);
    assert_eq!(exported.stdout, "");
    assert!(
        exported
            .stderr
            .contains("add.jsonl: its requests cannot be rebuilt: the task record states no setup"),
        "{}",
        exported.stderr
    );
}
