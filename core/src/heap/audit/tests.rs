//! The audit over demo transcripts and tampered copies that were re-chained (so the
//! chain itself verifies and only the loop audit can object).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::*;
use crate::agent::Budgets;
use crate::chain::Chain;
use crate::demo;
use crate::driver;
use crate::export::parse_records;
use crate::json::{parse, Object};
use crate::model::{Reply, Scripted};
use crate::vocabulary::call_id;

type Records = Vec<(String, Value)>;

/// `(kind, payload)` of each record of a transcript.
fn split(bytes: &[u8]) -> Records {
    parse_records(bytes)
        .unwrap()
        .into_iter()
        .map(|r| {
            let o = r.as_object().unwrap();
            let kind = o.get("kind").unwrap().as_str().unwrap().to_string();
            (kind, o.get("payload").unwrap().clone())
        })
        .collect()
}

pub(super) fn demo_records(scenario: demo::Scenario) -> Records {
    split(&scenario.run().unwrap().0)
}

/// A fresh chain over the records: every hash, prev and seq is right.
fn rechain(records: &Records) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for (kind, payload) in records {
        bytes.extend_from_slice(chain.append(kind, payload).unwrap());
    }
    bytes
}

/// The faults of a re-chained transcript, all of which must be `loop_malformed`:
/// `(index, line, detail)`.
pub(super) fn findings(records: &Records) -> Vec<(u64, Option<u64>, String)> {
    let report = verify_loop_bytes(&rechain(records), &Options::default());
    report
        .faults
        .iter()
        .map(|f| {
            assert_eq!(f.kind, FaultKind::LoopMalformed, "{f}");
            (f.index.unwrap(), f.line, f.detail.to_string())
        })
        .collect()
}

/// Asserts exactly one finding, at `index`, whose detail contains `part`.
#[track_caller]
fn expect_one(records: &Records, index: u64, part: &str) {
    let found = findings(records);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, index, "{found:#?}");
    assert!(found[0].2.contains(part), "{:?} lacks {part:?}", found[0].2);
}

/// Call ids renumbered from the records' new positions (after an insertion or a
/// removal), so that a test breaks only the rule it means to.
fn renumber(mut records: Records) -> Records {
    let mut map = alloc::collections::BTreeMap::new();
    for (seq, (kind, payload)) in records.iter_mut().enumerate() {
        if kind != "assistant" {
            continue;
        }
        if let Some(Value::Array(calls)) = payload
            .as_object()
            .and_then(|o| o.get("tool_calls"))
            .cloned()
        {
            let calls: Vec<Value> = calls
                .into_iter()
                .enumerate()
                .map(|(i, mut call)| {
                    if let Value::Object(c) = &mut call {
                        let new = call_id(seq as u64, i);
                        if let Some(Value::String(old)) = c.insert("id", Value::from(new.as_str()))
                        {
                            map.insert(old, new);
                        }
                    }
                    call
                })
                .collect();
            if let Value::Object(o) = payload {
                o.insert("tool_calls", Value::Array(calls));
            }
        }
    }
    for (kind, payload) in records.iter_mut() {
        if let (true, Value::Object(o)) = (kind == "tool", payload) {
            if let Some(new) = o
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| map.get(id))
            {
                let new = new.clone();
                o.insert("id", Value::from(new));
            }
        }
    }
    records
}

pub(super) fn payload_mut(records: &mut Records, index: usize) -> &mut Object {
    match &mut records[index].1 {
        Value::Object(o) => o,
        _ => panic!("not an object"),
    }
}

pub(super) fn json(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

/// A run whose one turn asks for `add` and `greet`, both run.
fn two_calls() -> Records {
    let reply = Reply::new("both")
        .with_call("add", json(r#"{"a":2,"b":40}"#))
        .with_call("greet", json(r#"{"name":"ada"}"#));
    let mut tools = demo::toolbox().unwrap();
    let mut model = Scripted::new([reply, Reply::new("done")]);
    let mut bytes = Vec::new();
    driver::run(
        "t",
        Budgets::default(),
        &mut model,
        &mut tools,
        &mut || false,
        &mut bytes,
        driver::RunOptions::default(),
    )
    .unwrap();
    split(&bytes)
}

#[test]
fn demo_transcripts_are_well_formed_runs() {
    for scenario in demo::scenarios() {
        let (bytes, _) = scenario.run().unwrap();
        let report = verify_loop_bytes(&bytes, &Options::default());
        assert!(report.ok(), "{}: {:?}", scenario.file_name, report.faults);
        let records = parse_records(&bytes).unwrap();
        assert!(audit_records(&records).ok());
    }
    let records = two_calls();
    assert!(findings(&records).is_empty());
}

#[test]
fn task_first_stop_last() {
    let answer = demo_records(demo::answer());
    // task assistant tool assistant stop

    let mut r = answer.clone();
    r.remove(0);
    let r = renumber(r);
    expect_one(
        &r,
        0,
        "expected a task record first, found an 'assistant' record",
    );

    let mut r = answer.clone();
    r.insert(3, answer[0].clone());
    let r = renumber(r);
    expect_one(&r, 3, "a second task record");

    let mut r = answer.clone();
    r.pop();
    let found = findings(&r);
    assert_eq!(
        found,
        [(
            4,
            None,
            String::from("the transcript ends without a stop record (the last record is an 'assistant' record)")
        )]
    );

    let mut r = answer.clone();
    r.push(answer[3].clone());
    let found = findings(&r);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!((found[0].0, found[1].0), (5, 6));
    assert!(found[0].2.contains("an assistant record after the stop record at index 4; only a resume record may follow a stop"));
    assert!(found[1].2.contains("ends without a stop record"));

    let mut r = answer.clone();
    r.insert(2, (String::from("note"), json("{}")));
    expect_one(&r, 2, "a 'note' record, which the loop does not write");

    let found = findings(&Vec::new());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, 0);
    assert_eq!(found[0].1, None);
    assert!(found[0].2.contains("no records"));
}

#[test]
fn resume_continues_a_stopped_run() {
    let mut r = demo_records(demo::answer());
    // steps 2 tokens 4 so far (1 + 3); add a resumed turn of 1 token.
    let stop = r[4].1.clone();
    assert_eq!(
        stop,
        json(r#"{"reason":"no_tool_calls","steps":2,"tokens":4,"unrun_calls":0}"#)
    );
    r.push((String::from("resume"), json(r#"{"after":"no_tool_calls"}"#)));
    r.push((
        String::from("assistant"),
        json(r#"{"text":"more","tokens":1,"tool_calls":[]}"#),
    ));
    r.push((
        String::from("stop"),
        json(r#"{"reason":"no_tool_calls","steps":3,"tokens":5,"unrun_calls":0}"#),
    ));
    assert!(findings(&r).is_empty(), "{:#?}", findings(&r));

    let mut wrong = r.clone();
    wrong[5].1 = json(r#"{"after":"sentinel"}"#);
    expect_one(
        &wrong,
        5,
        "after must name the reason of the stop record at index 4 (no_tool_calls)",
    );

    // Counts are cumulative: a stop that restarts them is wrong.
    let mut restarted = r.clone();
    restarted[7].1 = json(r#"{"reason":"no_tool_calls","steps":1,"tokens":1,"unrun_calls":0}"#);
    let found = findings(&restarted);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].2.contains("steps is 1, but the records give 3"));
    assert!(found[1].2.contains("tokens is 1, but the records give 5"));

    let mut early = demo_records(demo::answer());
    early.insert(2, (String::from("resume"), json(r#"{"after":"x"}"#)));
    expect_one(
        &early,
        2,
        "a resume record that does not follow a stop record",
    );
}

#[test]
fn assistant_payloads() {
    let answer = demo_records(demo::answer());

    let mut r = answer.clone();
    payload_mut(&mut r, 1).insert("text", Value::Number(1.0));
    expect_one(&r, 1, "text must be a string, found the number 1");

    let mut r = answer.clone();
    payload_mut(&mut r, 1).remove("text");
    // Absent is reported once, as missing (not also as the wrong type).
    expect_one(&r, 1, "assistant payload: missing 'text'");

    let mut r = answer.clone();
    payload_mut(&mut r, 3).remove("tokens");
    expect_one(&r, 3, "assistant payload: missing 'tokens'");

    for bad in ["-1", "1.5", "\"3\""] {
        let mut r = answer.clone();
        payload_mut(&mut r, 3).insert("tokens", json(bad));
        // Reported once: the stop's sum is not checked against an unknown total.
        expect_one(&r, 3, "tokens must be an integer from 0 to 2^53-1");
    }

    let mut r = answer.clone();
    payload_mut(&mut r, 1).insert("extra", Value::Null);
    expect_one(&r, 1, "unexpected 'extra', which the loop does not write");

    let mut r = answer.clone();
    payload_mut(&mut r, 3).insert("tool_calls", json("{}"));
    expect_one(&r, 3, "tool_calls must be an array, found an object");

    // The call at seq 1 must be call_1_0; the tool record follows the renamed call.
    let mut r = answer.clone();
    let renamed = json(r#"[{"arguments":{"a":2,"b":40},"id":"call_7_0","name":"add"}]"#);
    payload_mut(&mut r, 1).insert("tool_calls", renamed);
    payload_mut(&mut r, 2).insert("id", Value::from("call_7_0"));
    expect_one(&r, 1, "call 0: id is \"call_7_0\", expected \"call_1_0\"");

    let mut r = answer.clone();
    let no_args = json(r#"[{"id":"call_1_0","name":"add"}]"#);
    payload_mut(&mut r, 1).insert("tool_calls", no_args);
    expect_one(&r, 1, "assistant payload: call 0: missing 'arguments'");
}

#[test]
fn the_provider_member_has_the_reported_members_of_their_types() {
    let answer = demo_records(demo::answer());
    let with = |provider: &str| {
        let mut r = answer.clone();
        payload_mut(&mut r, 1).insert("provider", json(provider));
        r
    };
    // What the loop writes: any non-empty subset, up to 2^53-1, cached at most input.
    for good in [
        r#"{"cached_input_tokens":5,"finish_reason":"tool_calls","input_tokens":9007199254740991,"model":"m","response_id":"r"}"#,
        r#"{"model":""}"#,
        r#"{"input_tokens":0}"#,
        r#"{"cached_input_tokens":7}"#,
        r#"{"cached_input_tokens":7,"input_tokens":7}"#,
        r#"{"request_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","response_sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}"#,
    ] {
        assert_eq!(findings(&with(good)), [], "{good}");
    }
    let bad = [
        (r#"{"model":"m","usage":{}}"#, "assistant payload: provider: unexpected 'usage', which the loop does not write"),
        (r#"{"output_tokens":3}"#, "unexpected 'output_tokens'"),
        (r#"{"model":1}"#, "provider: model must be a string, found the number 1"),
        (r#"{"response_id":null}"#, "provider: response_id must be a string, found null"),
        (r#"{"finish_reason":["stop"]}"#, "provider: finish_reason must be a string, found an array"),
        (r#"{"input_tokens":-1}"#, "provider: input_tokens must be an integer from 0 to 2^53-1, found the number -1"),
        (r#"{"input_tokens":1.5}"#, "provider: input_tokens must be an integer from 0 to 2^53-1, found the number 1.5"),
        (r#"{"input_tokens":"9"}"#, "provider: input_tokens must be an integer from 0 to 2^53-1, found \"9\""),
        (r#"{"cached_input_tokens":9007199254740992}"#, "provider: cached_input_tokens must be an integer from 0 to 2^53-1, found the number 9007199254740992"),
        (r#"{"cached_input_tokens":8,"input_tokens":7}"#, "provider: cached_input_tokens is 8, more than input_tokens 7"),
        (r#"{"request_sha256":"44136FA355B3678A1146AD16F7E8649E94FB4FC21FE77E8310C060F61CAAFF8A"}"#, "provider: request_sha256 must be a SHA-256 (64 lowercase hex digits), found \"44136FA355B3678A1146AD16F7E8649E94FB4FC21FE77E8310C060F61CAAFF8A\""),
        (r#"{"response_sha256":"e3b0"}"#, "provider: response_sha256 must be a SHA-256 (64 lowercase hex digits), found \"e3b0\""),
        (r#"{"response_sha256":7}"#, "provider: response_sha256 must be a SHA-256 (64 lowercase hex digits), found the number 7"),
        ("{}", "provider is empty; the loop leaves it out when nothing was reported"),
        ("null", "assistant payload: provider must be an object, found null"),
        (r#""m""#, "assistant payload: provider must be an object, found \"m\""),
    ];
    for (provider, part) in bad {
        expect_one(&with(provider), 1, part);
    }
}

#[test]
fn tool_records_answer_the_calls_in_order() {
    let two = two_calls();
    // task, assistant(add, greet), tool add, tool greet, assistant, stop

    let mut r = two.clone();
    r.swap(2, 3);
    let found = findings(&r);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, 2);
    assert!(found[0].2.contains(
        "expected the tool record for call_1_0 'add' (call 0 of the assistant record at index 1), found id \"call_1_1\" and name \"greet\""
    ));
    assert_eq!(found[1].0, 3);
    assert!(found[1].2.contains("a tool record answering no call"));

    let mut r = two.clone();
    payload_mut(&mut r, 3).insert("name", Value::from("add"));
    expect_one(&r, 3, "found id \"call_1_1\" and name \"add\"");

    let mut r = two.clone();
    r.insert(4, r[3].clone());
    expect_one(&r, 4, "a tool record answering no call: the assistant record at index 1 has 2 calls, all answered");

    let mut r = two.clone();
    r.insert(1, r[2].clone());
    let r = renumber(r);
    expect_one(
        &r,
        1,
        "a tool record answering no call: no assistant record comes before it",
    );

    // A missing tool record: the next turn starts with a call owed.
    let mut r = two.clone();
    r.remove(3);
    expect_one(&r, 3, "a new turn, but 1 call of the assistant record at index 1 has no tool record (next: call_1_1 'greet')");

    let mut r = two.clone();
    payload_mut(&mut r, 2).insert("ok", Value::from("yes"));
    expect_one(&r, 2, "ok must be a boolean, found \"yes\"");

    let mut r = two.clone();
    payload_mut(&mut r, 2).insert("error", Value::from("x"));
    expect_one(&r, 2, "an ok:true record has a value and no error");

    let mut r = two.clone();
    payload_mut(&mut r, 2).insert("ok", Value::Bool(false));
    expect_one(
        &r,
        2,
        "an ok:false record has an error string and no value, found error none and a value",
    );
}

#[test]
fn stop_counts_match_the_records() {
    let budget = demo_records(demo::budget());
    // 9 records; stop at 8: token_budget, steps 4, tokens 49, unrun_calls 2.
    let stop_at = 8;
    let set = |key: &str, value: Value| {
        let mut r = budget.clone();
        payload_mut(&mut r, stop_at).insert(key, value);
        r
    };
    expect_one(
        &set("steps", Value::Number(3.0)),
        8,
        "steps is 3, but the records give 4 (assistant records)",
    );
    expect_one(
        &set("tokens", Value::Number(40.0)),
        8,
        "tokens is 40, but the records give 49 (the sum of the assistant records' tokens)",
    );
    expect_one(
        &set("unrun_calls", Value::Number(0.0)),
        8,
        "unrun_calls is 0, but the records give 2 (calls of the last turn with no tool record)",
    );
    expect_one(&set("reason", Value::from("done")), 8, "reason must be one of no_tool_calls, sentinel, step_budget, token_budget, model_error, tool_budget, cancelled, found \"done\"");
    expect_one(
        &set("error", Value::from("x")),
        8,
        "error is present, but the reason is token_budget; only model_error carries one",
    );
    expect_one(
        &set("reason", Value::from("model_error")),
        8,
        "reason model_error needs an error sentence (a string), found none",
    );
    expect_one(
        &set("steps", Value::Number(-4.0)),
        8,
        "steps must be an integer from 0 to 2^53-1, found the number -4",
    );

    // Running one of the unrun calls makes unrun_calls 1 wrong... by one.
    let mut r = budget.clone();
    r.insert(
        8,
        (
            String::from("tool"),
            json(r#"{"id":"call_7_0","name":"add","ok":true,"value":{"sum":42}}"#),
        ),
    );
    expect_one(&r, 9, "unrun_calls is 2, but the records give 1");

    // A model error: no assistant record, the error sentence.
    let mut tools = demo::toolbox().unwrap();
    let mut bytes = Vec::new();
    driver::run(
        "t",
        Budgets::default(),
        &mut Scripted::new([]),
        &mut tools,
        &mut || false,
        &mut bytes,
        driver::RunOptions::default(),
    )
    .unwrap();
    let report = verify_loop_bytes(&bytes, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
}

#[test]
fn faults_merge_in_record_order_and_respect_the_cap() {
    // Not re-chained: the rewritten stop is a hash_mismatch, then its loop finding.
    let (bytes, _) = demo::answer().run().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let tampered = text.replace("\"steps\":2", "\"steps\":9");
    let report = verify_loop_bytes(tampered.as_bytes(), &Options::default());
    let kinds: Vec<(Option<u64>, Option<u64>, FaultKind)> = report
        .faults
        .iter()
        .map(|f| (f.index, f.line, f.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(4), Some(5), FaultKind::HashMismatch),
            (Some(4), Some(5), FaultKind::LoopMalformed)
        ]
    );

    // Many findings, few kept.
    let mut r = demo_records(demo::answer());
    for _ in 0..20 {
        r.insert(1, (String::from("note"), json("{}")));
    }
    let r = renumber(r);
    let options = Options {
        max_faults: 5,
        ..Options::default()
    };
    let report = verify_loop_bytes(&rechain(&r), &options);
    assert_eq!(report.faults.len(), 5);
    assert_eq!(report.faults_omitted, 15);
    assert!(!report.ok());
}

#[cfg(feature = "std")]
#[test]
fn reader_agrees_with_bytes() {
    let mut r = two_calls();
    r.swap(2, 3);
    r.pop();
    let bytes = rechain(&r);
    let mut torn = bytes.clone();
    torn.extend_from_slice(b"{\"partial");
    for input in [bytes, torn] {
        let want = verify_loop_bytes(&input, &Options::default());
        // One byte at a time, to cross every chunk boundary.
        let reader = std::io::BufReader::with_capacity(1, &input[..]);
        assert_eq!(
            crate::audit::verify_loop_reader(reader, &Options::default()),
            want
        );
        assert!(!want.ok());
    }
    let missing = crate::audit::verify_loop_file(
        std::path::Path::new("/nonexistent/agentloop.jsonl"),
        &Options::default(),
    );
    assert_eq!(missing.faults[0].kind, FaultKind::Unreadable);
    let _ = format!("{missing:?}");
}

// ---------------------------------------------------------------------------------
// The state machine fed directly (no chain), one rule at a time.

/// `{"kind": kind, "payload": payload}` as a record value (the audit reads no other
/// member but `seq`).
fn record(kind: &str, payload: &str) -> Value {
    json(&format!(r#"{{"kind":"{kind}","payload":{payload}}}"#))
}

/// The details the audit finds in `records`, in order.
fn details(records: &[Value]) -> Vec<(u64, String)> {
    audit_records(records)
        .findings
        .into_iter()
        .map(|f| (f.index, f.detail))
        .collect()
}

const TASK: &str = r#"{"budgets":{},"task":"t"}"#;
const STOP: &str = r#"{"reason":"no_tool_calls","steps":0,"tokens":0,"unrun_calls":0}"#;

#[test]
fn a_report_is_ok_only_without_findings_or_omissions() {
    let finding = LoopFinding {
        index: 0,
        detail: String::from("x"),
    };
    let cases = [
        (Vec::new(), 0, true),
        (alloc::vec![finding.clone()], 0, false),
        (Vec::new(), 1, false),
        (alloc::vec![finding], 1, false),
    ];
    for (findings, omitted, ok) in cases {
        let report = LoopReport {
            count: 1,
            findings,
            omitted,
        };
        assert_eq!(report.ok(), ok, "{report:?}");
    }
    let run = [record("task", TASK), record("stop", STOP)];
    assert!(audit_records(&run).ok());
    assert!(!audit_records(&run[..1]).ok());
}

#[test]
fn the_end_of_a_transcript_names_what_it_lacks() {
    assert_eq!(
        details(&[]),
        [(
            0,
            String::from("the transcript has no records; a run has a task record first and a stop record last")
        )]
    );
    // Records that could not be read still count: the finding is about index 2.
    let mut audit = LoopAudit::new();
    audit.push_unreadable();
    audit.push_line(b"{not json");
    let report = audit.finish();
    assert_eq!(report.count, 2);
    assert_eq!(
        report.findings,
        [LoopFinding {
            index: 2,
            detail: String::from(
                "no record could be read; a run has a task record first and a stop record last"
            ),
        }]
    );
    assert_eq!(
        details(&[record("task", TASK)]),
        [(
            1,
            String::from(
                "the transcript ends without a stop record (the last record is a 'task' record)"
            )
        )]
    );
}

#[test]
fn a_line_is_read_one_level_deeper_than_a_payload_may_nest() {
    // The record's object and its payload's object around a budget nested so that the
    // line is exactly one level deeper than MAX_DEPTH.
    let inner = crate::json::RECORD_MAX_DEPTH - 3;
    let line = format!(
        r#"{{"kind":"task","payload":{{"budgets":{{"x":{}{}}},"task":"t"}}}}"#,
        "[".repeat(inner),
        "]".repeat(inner)
    );
    let mut audit = LoopAudit::new();
    audit.push_line(line.as_bytes());
    // Read as a task record: the only finding is the missing stop.
    let report = audit.finish();
    assert_eq!(report.count, 1);
    assert_eq!(report.findings.len(), 1);
    assert!(
        report.findings[0]
            .detail
            .contains("the last record is a 'task' record"),
        "{:?}",
        report.findings
    );
}

#[test]
fn a_payload_must_be_an_object_for_the_loop_kinds_only() {
    assert_eq!(
        details(&[record("task", "1"), record("stop", STOP)]),
        [(
            0,
            String::from("a task payload must be an object, found the number 1")
        )]
    );
    // A kind the loop does not write is reported as such, whatever its payload.
    assert_eq!(
        details(&[record("task", TASK), record("note", "1"), record("stop", STOP)]),
        [(
            1,
            String::from(
                "a 'note' record, which the loop does not write (task, assistant, tool, stop, resume, setup)"
            )
        )]
    );
}

#[test]
fn task_payloads_are_checked() {
    assert_eq!(
        details(&[
            record("task", r#"{"budgets":[],"task":1}"#),
            record("stop", STOP)
        ]),
        [
            (
                0,
                String::from("task payload: task must be a string, found the number 1")
            ),
            (
                0,
                String::from("task payload: budgets must be an object, found an array")
            ),
        ]
    );
    assert_eq!(
        details(&[record("task", r#"{"x":1}"#), record("stop", STOP)]),
        [
            (0, String::from("task payload: missing 'budgets', 'task'")),
            (
                0,
                String::from("task payload: unexpected 'x', which the loop does not write")
            ),
        ]
    );
}

#[test]
fn a_missing_call_id_is_reported_once_and_a_wrong_one_as_its_type() {
    let turn = |call: &str| {
        [
            record("task", TASK),
            record(
                "assistant",
                &format!(r#"{{"text":"","tokens":0,"tool_calls":[{call}]}}"#),
            ),
            record(
                "stop",
                r#"{"reason":"cancelled","steps":1,"tokens":0,"unrun_calls":1}"#,
            ),
        ]
    };
    assert_eq!(
        details(&turn(r#"{"arguments":{},"name":"x"}"#)),
        [(1, String::from("assistant payload: call 0: missing 'id'"))]
    );
    assert_eq!(
        details(&turn(r#"{"arguments":{},"id":7,"name":"x"}"#)),
        [(
            1,
            String::from("assistant payload: call 0: id must be a string, found the number 7")
        )]
    );
}

#[test]
fn an_ok_false_result_has_an_error_string_and_no_value() {
    let run = |result: &str| {
        [
            record("task", TASK),
            record(
                "assistant",
                r#"{"text":"","tokens":0,"tool_calls":[{"arguments":{},"id":"call_1_0","name":"x"}]}"#,
            ),
            record("tool", result),
            record(
                "stop",
                r#"{"reason":"cancelled","steps":1,"tokens":0,"unrun_calls":0}"#,
            ),
        ]
    };
    assert!(details(&run(
        r#"{"error":"e","id":"call_1_0","name":"x","ok":false}"#
    ))
    .is_empty());
    let sentence = "tool payload: an ok:false record has an error string and no value, found error";
    assert_eq!(
        details(&run(
            r#"{"error":"e","id":"call_1_0","name":"x","ok":false,"value":1}"#
        )),
        [(2, format!("{sentence} \"e\" and a value"))]
    );
    assert_eq!(
        details(&run(r#"{"error":2,"id":"call_1_0","name":"x","ok":false}"#)),
        [(2, format!("{sentence} the number 2"))]
    );
}

#[test]
fn a_missing_stop_or_resume_member_is_reported_once() {
    assert_eq!(
        details(&[
            record("task", TASK),
            record(
                "stop",
                r#"{"reason":"cancelled","tokens":0,"unrun_calls":0}"#
            )
        ]),
        [(1, String::from("stop payload: missing 'steps'"))]
    );
    assert_eq!(
        details(&[
            record("task", TASK),
            record(
                "stop",
                r#"{"reason":"cancelled","steps":0,"tokens":0,"unrun_calls":0}"#
            ),
            record("resume", "{}"),
            record(
                "stop",
                r#"{"reason":"cancelled","steps":0,"tokens":0,"unrun_calls":0}"#
            ),
        ]),
        [(2, String::from("resume payload: missing 'after'"))]
    );
}

#[test]
fn the_audit_keeps_at_most_its_limit_of_findings_and_counts_the_rest() {
    let notes: Vec<Value> = (0..4).map(|_| record("note", "{}")).collect();
    for max in 0..6 {
        let mut audit = LoopAudit::with_max_findings(max);
        for note in &notes {
            audit.push_record(note);
        }
        // 4 notes: the first also lacks the task; then the missing stop: 6 findings.
        let report = audit.finish();
        assert_eq!(report.findings.len(), max, "max {max}");
        assert_eq!(report.omitted, (6 - max) as u64, "max {max}");
    }
}

#[test]
fn merging_counts_the_findings_past_the_limit() {
    // One chain fault (the rewritten stop) and its loop finding, with room for one.
    let (bytes, _) = demo::answer().run().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let tampered = text.replace("\"steps\":2", "\"steps\":9");
    let options = Options {
        max_faults: 1,
        ..Options::default()
    };
    let report = verify_loop_bytes(tampered.as_bytes(), &options);
    assert_eq!(report.faults.len(), 1);
    assert_eq!(report.faults[0].kind, FaultKind::HashMismatch);
    assert_eq!(report.faults_omitted, 1);
}

#[test]
fn long_names_are_cut_at_70_characters() {
    let long = "n".repeat(71);
    let short = "n".repeat(70);
    for (kind, shown) in [(&long, format!("{short}…")), (&short, short.clone())] {
        let found = details(&[
            record("task", TASK),
            record(kind, "{}"),
            record("stop", STOP),
        ]);
        assert_eq!(
            found,
            [(
                1,
                format!(
                    "a '{shown}' record, which the loop does not write (task, assistant, tool, stop, resume, setup)"
                )
            )]
        );
    }
}
