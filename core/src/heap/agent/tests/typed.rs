//! The serde helpers of the sans-I/O loop: a host reads a call's arguments as a type
//! (`ToolCall::arguments_as`), feeds a typed result (`Agent::feed_tool_output`, `_for`)
//! and reads records' payloads as types (`Record::payload_as`).

use super::Polls;
use alloc::string::ToString;
use alloc::vec;

use super::*;
use crate::agent::{Agent, Need, Record};
use crate::tools::{Manifest, ToolError};

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Add {
    a: f64,
    b: f64,
}

#[derive(serde::Serialize)]
struct Sum {
    sum: f64,
}

/// The `tool` record's payload, as a host reads it.
#[derive(serde::Deserialize, Debug, PartialEq)]
struct ToolRecord {
    name: String,
    ok: bool,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    error: Option<String>,
}

fn agent() -> Agent {
    let mut manifest = Manifest::new();
    let schema = r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},
                     "required":["a","b"]}"#;
    manifest
        .register(ToolSpec::new("add", "adds", j(schema)), None)
        .unwrap();
    Agent::new("add things", Budgets::default(), manifest).unwrap()
}

fn tool_records(records: &[Record]) -> Vec<ToolRecord> {
    records
        .iter()
        .filter(|r| r.kind == crate::agent::RecordKind::Tool)
        .map(|r| r.payload_as().unwrap())
        .collect()
}

#[test]
fn a_host_runs_calls_with_typed_arguments_and_results() {
    let mut agent = agent();
    let mut records = agent.take_records();
    assert!(matches!(agent.poll_one(), Need::ModelReply { .. }));
    agent
        .feed_reply(Ok(Reply::new("")
            .with_call("add", j(r#"{"a":2,"b":40}"#))
            .with_call("add", j(r#"{"a":1,"b":1}"#))))
        .unwrap();
    records.extend(agent.take_records());
    let mut fed = 0;
    loop {
        match agent.poll_one() {
            Need::ToolResults { calls: [call, ..] } => {
                let call = call.clone();
                let add: Add = call.arguments_as().unwrap();
                let result = if fed == 0 {
                    Ok(Sum { sum: add.a + add.b })
                } else {
                    // A result with no JSON encoding is the tool's failure, saying why.
                    Ok(Sum { sum: f64::NAN })
                };
                fed += 1;
                agent.feed_tool_output(&call.id, result).unwrap();
            }
            Need::ToolResults { .. } => unreachable!("calls are handed out with one"),
            Need::TakeRecords => {}
            Need::ModelReply { .. } => agent.feed_reply(Ok(Reply::new("42"))).unwrap(),
            Need::Done(_) => break,
        }
        records.extend(agent.take_records());
    }
    records.extend(agent.take_records());
    assert_eq!(
        tool_records(&records),
        vec![
            ToolRecord {
                name: "add".into(),
                ok: true,
                value: Some(j(r#"{"sum":42}"#)),
                error: None,
            },
            ToolRecord {
                name: "add".into(),
                ok: false,
                value: None,
                error: Some(
                    "tool 'add' failed: its result cannot be written as JSON: NaN and \
                     infinite numbers have no JSON encoding at $.sum"
                        .into()
                ),
            },
        ]
    );
    // The records are those a chain accepts, as ever.
    let mut chain = Chain::new();
    for record in &records {
        chain.append(record.kind.as_str(), &record.payload).unwrap();
    }
}

#[test]
fn typed_results_are_fed_by_call_id_in_a_batch() {
    let mut agent = agent();
    let mut records = agent.take_records();
    assert!(matches!(agent.poll_all(), Need::ModelReply { .. }));
    agent
        .feed_reply(Ok(Reply::new("")
            .with_call("add", j(r#"{"a":2,"b":40}"#))
            .with_call("add", j(r#"{"a":1,"b":1}"#))))
        .unwrap();
    records.extend(agent.take_records());
    let Need::ToolResults { calls } = agent.poll_all() else {
        panic!("expected the batch");
    };
    let calls = calls.to_vec();
    // Fed in reverse order; recorded in call order. The second fails by the host's word.
    agent
        .feed_tool_output::<Sum>(&calls[1].id, Err(ToolError::new("busy")))
        .unwrap();
    let add: Add = calls[0].arguments_as().unwrap();
    agent
        .feed_tool_output(&calls[0].id, Ok(Sum { sum: add.a + add.b }))
        .unwrap();
    records.extend(agent.take_records());
    let tools = tool_records(&records);
    assert_eq!(tools[0].value, Some(j(r#"{"sum":42}"#)));
    assert_eq!(tools[1].error.as_deref(), Some("tool 'add' failed: busy"));
    // Arguments that do not fit the type say where.
    let wrong = crate::model::ToolCall {
        id: "x".into(),
        name: "add".into(),
        arguments: j(r#"{"a":"2","b":40}"#),
    };
    assert_eq!(
        wrong.arguments_as::<Add>().unwrap_err().to_string(),
        "invalid type: string \"2\", expected f64 at $.a"
    );
}
