//! `agentloop replay`: the demo transcripts replay to the same records; a transcript
//! whose tool result was changed (and re-chained, so it verifies) is named at the
//! changed record; what cannot be replayed is refused with exit 2.

use crate::common;

use agentloop_core::chain::Chain;
use agentloop_core::demo;
use agentloop_core::export::parse_records;
use agentloop_core::json::Value;

use common::{assert_fails, spec_chain, Scratch};

/// The transcript of `scenario` with the value of its record `at` replaced by `value`,
/// re-chained from seq 0.
fn edited(scenario: demo::Scenario, at: usize, value: &str) -> Vec<u8> {
    let (bytes, _) = scenario.run().unwrap();
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for (index, record) in parse_records(&bytes).unwrap().iter().enumerate() {
        let record = record.as_object().unwrap();
        let kind = record.get("kind").unwrap().as_str().unwrap();
        let mut payload = record.get("payload").unwrap().as_object().unwrap().clone();
        if index == at {
            let value = agentloop_core::json::parse(value.as_bytes()).unwrap();
            payload.insert("value", value);
        }
        out.extend_from_slice(chain.append(kind, &Value::Object(payload)).unwrap());
    }
    out
}

#[test]
fn demo_transcripts_replay_to_the_same_records() {
    let scratch = Scratch::new("same");
    assert_eq!(scratch.run(&["demo"]).code, 0);
    for (file, records) in [
        ("demo-answer.jsonl", 5),
        ("demo-recover.jsonl", 11),
        ("demo-budget.jsonl", 9),
    ] {
        let run = scratch.run(&["replay", file]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            run.stdout,
            format!("{file}: same, {records} records replayed with the demo tools\n")
        );
    }
    let stdin = scratch.read("demo-answer.jsonl");
    let run = scratch.run_stdin(&["replay", "-"], &stdin);
    assert_eq!(
        run.stdout,
        "<stdin>: same, 5 records replayed with the demo tools\n"
    );
}

#[test]
fn a_changed_tool_result_is_named_at_its_record() {
    let scratch = Scratch::new("changed");
    // demo-answer's record 2 is the add tool's result, {"sum":42}.
    scratch.write("t.jsonl", edited(demo::answer(), 2, r#"{"sum":43}"#));
    let run = scratch.run(&["replay", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "t.jsonl: line 3: record 2 (seq 2) differs: the transcript has \
         {\"kind\":\"tool\",\"payload\":{\"id\":\"call_1_0\",\"name\":\"add\",\"ok\":true,\
         \"value\":{\"sum\":43}},\"seq\":2}, the loop writes \
         {\"kind\":\"tool\",\"payload\":{\"id\":\"call_1_0\",\"name\":\"add\",\"ok\":true,\
         \"value\":{\"sum\":42}},\"seq\":2}\n"
    );
}

#[test]
fn what_cannot_be_replayed_is_refused() {
    let scratch = Scratch::new("refused");
    // Verifies, but is not a run of the loop (the SPEC chain's task has no budgets).
    scratch.write("spec.jsonl", spec_chain());
    let run = scratch.run(&["replay", "spec.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: spec.jsonl: cannot replay it: the transcript is not a well-formed run \
         of the loop: record 0: task payload: missing 'budgets'\n",
    );
    // Does not verify: exit 1, as verify.
    scratch.write("torn.jsonl", &spec_chain().as_bytes()[..10]);
    let run = scratch.run(&["replay", "torn.jsonl"]);
    assert_fails(&run, 1, "agentloop: torn.jsonl line 1: torn_tail");
    let run = scratch.run(&["replay", "missing.jsonl"]);
    assert_fails(&run, 2, "agentloop: missing.jsonl: cannot read it");
    assert_eq!(run.stdout, "");
}

/// The record string the tester forged: a line of its own and a terminal escape (and a
/// C1 control, which canonical JSON leaves as it is).
const FORGED: &str = "\nagentloop: FORGED LINE\n\u{1b}[31m\u{9b}";

#[test]
fn record_strings_in_replay_messages_cannot_forge_lines_or_send_escapes() {
    let scratch = Scratch::new("forged");
    // A difference quoting the record: the tool result changed to the forged string.
    let forged =
        String::from_utf8(agentloop_core::jcs::to_vec(&Value::from(FORGED)).unwrap()).unwrap();
    scratch.write("t.jsonl", edited(demo::answer(), 2, &forged));
    let run = scratch.run(&["replay", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(!run.raw_stdout.contains(&0x1b));
    assert!(!run.stdout.contains('\u{9b}'), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r#""value":"\nagentloop: FORGED LINE\n\u001b[31m\u009b""#),
        "{}",
        run.stdout
    );
    // A refusal quoting the record: a record of a kind the loop does not write.
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    let (answer, _) = demo::answer().run().unwrap();
    let first = parse_records(&answer).unwrap().remove(0);
    let first = first.as_object().unwrap();
    bytes.extend_from_slice(chain.append("task", first.get("payload").unwrap()).unwrap());
    bytes.extend_from_slice(chain.append(FORGED, &Value::Null).unwrap());
    scratch.write("k.jsonl", bytes);
    let run = scratch.run(&["replay", "k.jsonl"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(!run.raw_stderr.contains(&0x1b));
    assert!(!run.stderr.contains('\u{9b}'), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(r"'\nagentloop: FORGED LINE\n\u001b[31m\u009b' record"),
        "{}",
        run.stderr
    );
}
