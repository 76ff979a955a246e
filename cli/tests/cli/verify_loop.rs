//! `agentloop verify --loop`: the demo transcripts are well-formed runs, and transcripts
//! that were tampered with and re-chained (so the chain itself verifies) are reported
//! as `loop_malformed` at the right record.

use crate::common;

use std::fs;

use agentloop_core::chain::Chain;
use agentloop_core::demo;
use agentloop_core::export::parse_records;
use agentloop_core::json::{self, Value};

use common::{member, num, sample_path, Scratch};

type Records = Vec<(String, Value)>;

fn demo_records(scenario: demo::Scenario) -> Records {
    let (bytes, _) = scenario.run().unwrap();
    parse_records(&bytes)
        .unwrap()
        .into_iter()
        .map(|r| {
            let o = r.as_object().unwrap();
            let kind = o.get("kind").unwrap().as_str().unwrap().to_owned();
            (kind, o.get("payload").unwrap().clone())
        })
        .collect()
}

/// The records on a fresh chain: the chain verifies whatever the records say.
fn rechain(records: &Records) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for (kind, payload) in records {
        bytes.extend_from_slice(chain.append(kind, payload).unwrap());
    }
    bytes
}

/// Sets `key` of the payload of record `index` to `value`.
fn set(records: &mut Records, index: usize, key: &str, value: Value) {
    match &mut records[index].1 {
        Value::Object(o) => {
            o.insert(key, value);
        }
        _ => panic!("payload {index} is not an object"),
    }
}

/// A copy of `records` changed by `change`.
fn edited(records: &Records, change: impl FnOnce(&mut Records)) -> Records {
    let mut copy = records.clone();
    change(&mut copy);
    copy
}

/// A copy of `records` with `key` of the payload of record `index` set to `value`.
fn with(records: &Records, index: usize, key: &str, value: Value) -> Records {
    edited(records, |r| set(r, index, key, value))
}

/// `verify --json --loop` on one transcript: the exit code and its faults as
/// `(index, line, kind, detail)`.
fn verify_loop_json(
    s: &Scratch,
    name: &str,
    bytes: &[u8],
) -> (i32, Vec<(Value, Value, String, String)>) {
    s.write(name, bytes);
    let run = s.run(&["verify", "--json", "--loop", name]);
    let report = json::parse(run.stdout.trim_end().as_bytes()).unwrap();
    let Value::Array(faults) = member(&report, "faults") else {
        panic!("no faults array: {}", run.stdout);
    };
    let faults = faults
        .iter()
        .map(|f| {
            (
                member(f, "index").clone(),
                member(f, "line").clone(),
                member(f, "kind").as_str().unwrap().to_owned(),
                member(f, "detail").as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (run.code, faults)
}

#[test]
fn demo_transcripts_pass_verify_loop() {
    let s = Scratch::new("demo");
    let run = s.run(&["demo"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let files = [
        "demo-answer.jsonl",
        "demo-recover.jsonl",
        "demo-budget.jsonl",
    ];
    let mut args = vec!["verify", "--loop"];
    args.extend(files);
    let run = s.run(&args);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.lines().count(), 3);
    assert!(run.stdout.lines().all(|l| l.contains(": ok, ")));
    assert!(run.stderr.is_empty());
    // From standard input too.
    let bytes = s.read("demo-recover.jsonl");
    let run = s.run_stdin(&["verify", "--loop", "-"], &bytes);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("<stdin>: ok, 11 records"));
}

#[test]
fn each_rule_is_reported_at_its_record() {
    let s = Scratch::new("rules");
    let answer = demo_records(demo::answer());
    // 0 task, 1 assistant (call_1_0 add), 2 tool, 3 assistant, 4 stop
    let budget = demo_records(demo::budget());
    // 0 task, 1 A, 2 T, 3 A, 4 T, 5 A, 6 T, 7 A (call_7_0, call_7_1), 8 stop token_budget

    let resume = (
        String::from("resume"),
        json::parse(br#"{"after":"no_tool_calls"}"#).unwrap(),
    );
    let id_c1 = |r: &mut Records| {
        set(
            r,
            1,
            "tool_calls",
            json::parse(br#"[{"arguments":{"a":2,"b":40},"id":"c1","name":"add"}]"#).unwrap(),
        );
        set(r, 2, "id", Value::from("c1"));
    };
    // (name, records, index of the fault, its line, part of its detail)
    let cases: [(&str, Records, u64, Option<u64>, &str); 13] = [
        (
            "stop-first",
            edited(&answer, |r| r.swap(0, 4)), // stop first, task last
            0,
            Some(1),
            "expected a task record first, found a 'stop' record",
        ),
        (
            "no-stop",
            edited(&answer, |r| drop(r.pop())),
            4,
            None,
            "the transcript ends without a stop record",
        ),
        (
            "tool-without-call",
            edited(&answer, |r| r.insert(4, answer[2].clone())),
            4,
            Some(5),
            "a tool record answering no call",
        ),
        (
            "tool-wrong-id",
            with(&answer, 2, "id", Value::from("call_1_1")),
            2,
            Some(3),
            "expected the tool record for call_1_0 'add'",
        ),
        (
            "bad-tokens",
            with(&answer, 3, "tokens", num(-3.0)),
            3,
            Some(4),
            "tokens must be an integer from 0 to 2^53-1",
        ),
        (
            "steps",
            with(&answer, 4, "steps", num(3.0)),
            4,
            Some(5),
            "steps is 3, but the records give 2",
        ),
        (
            "unrun",
            with(&budget, 8, "unrun_calls", num(1.0)),
            8,
            Some(9),
            "unrun_calls is 1, but the records give 2",
        ),
        (
            "tokens",
            with(&budget, 8, "tokens", num(48.0)),
            8,
            Some(9),
            "tokens is 48, but the records give 49",
        ),
        (
            "reason",
            with(&budget, 8, "reason", Value::from("out_of_time")),
            8,
            Some(9),
            "reason must be one of",
        ),
        (
            "model-error-without-error",
            with(&budget, 8, "reason", Value::from("model_error")),
            8,
            Some(9),
            "needs an error sentence",
        ),
        (
            "after-stop",
            edited(&answer, |r| r.push(answer[4].clone())),
            5,
            Some(6),
            "after the stop record at index 4",
        ),
        (
            "resume-without-end",
            edited(&answer, |r| r.push(resume.clone())),
            6,
            None,
            "the transcript ends without a stop record",
        ),
        (
            "call-id",
            edited(&answer, id_c1),
            1,
            Some(2),
            "id is \"c1\", expected \"call_1_0\"",
        ),
    ];

    for (name, records, index, line, part) in cases {
        let bytes = rechain(&records);
        // The chain alone verifies: only the loop audit objects.
        let plain = s.run_stdin(&["verify", "-"], &bytes);
        assert_eq!(plain.code, 0, "{name}: {}", plain.stderr);
        let (code, faults) = verify_loop_json(&s, &format!("{name}.jsonl"), &bytes);
        assert_eq!(code, 1, "{name}");
        // One finding each, except the swap, whose other records then break rules too.
        if name != "stop-first" {
            assert_eq!(faults.len(), 1, "{name}: {faults:#?}");
        }
        assert!(
            faults.iter().all(|f| f.2 == "loop_malformed"),
            "{name}: {faults:#?}"
        );
        let (i, l, _, detail) = &faults[0];
        assert_eq!(i, &Value::Number(index as f64), "{name}: {detail}");
        assert_eq!(
            l,
            &line.map_or(Value::Null, |l| Value::Number(l as f64)),
            "{name}"
        );
        assert!(detail.contains(part), "{name}: {detail:?} lacks {part:?}");
    }
}

#[test]
fn human_output_and_resumed_runs() {
    let s = Scratch::new("human");
    let mut r = demo_records(demo::answer());
    set(&mut r, 4, "tokens", Value::Number(5.0));
    s.write("bad.jsonl", rechain(&r));
    let run = s.run(&["verify", "--loop", "bad.jsonl"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "agentloop: bad.jsonl line 5: loop_malformed: stop payload: tokens is 5, but the records \
         give 4 (the sum of the assistant records' tokens)\n"
    );
    assert_eq!(run.stdout, "bad.jsonl: 1 fault in 5 records\n");

    // task … stop resume … stop, counts cumulative: a well-formed run.
    let mut r = demo_records(demo::answer());
    r.push((
        "resume".into(),
        json::parse(br#"{"after":"no_tool_calls"}"#).unwrap(),
    ));
    r.push((
        "assistant".into(),
        json::parse(br#"{"text":"again","tokens":1,"tool_calls":[]}"#).unwrap(),
    ));
    r.push((
        "stop".into(),
        json::parse(br#"{"reason":"no_tool_calls","steps":3,"tokens":5,"unrun_calls":0}"#).unwrap(),
    ));
    s.write("resumed.jsonl", rechain(&r));
    let run = s.run(&["verify", "--loop", "resumed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    // The SPEC's illustrative chain verifies, but is not a run of the loop.
    let sample = fs::read(sample_path()).unwrap();
    let plain = s.run_stdin(&["verify", "-"], &sample);
    assert_eq!(plain.code, 0);
    let run = s.run_stdin(&["verify", "--loop", "-"], &sample);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("line 2: loop_malformed: assistant payload: missing 'tokens'"),
        "{}",
        run.stderr
    );

    // Unreadable still wins: exit 2.
    let run = s.run(&["verify", "--loop", "missing.jsonl"]);
    assert_eq!(run.code, 2);
}

/// The record string the tester forged: a line of its own and a terminal escape.
const FORGED: &str = "\nagentloop: FORGED LINE\n\u{1b}[31m\u{9b}";

#[test]
fn record_strings_in_findings_cannot_forge_lines_or_send_escapes() {
    let s = Scratch::new("forged");
    let mut records = demo_records(demo::answer());
    // A record of a kind the loop does not write, and the same string as a tool call id
    // and name (a turn left unanswered).
    records.insert(1, (FORGED.to_owned(), json::parse(b"{}").unwrap()));
    s.write("t.jsonl", rechain(&records));
    let run = s.run(&["verify", "--loop", "t.jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let stderr = &run.raw_stderr;
    assert!(!stderr.contains(&0x1b), "{}", run.stderr);
    assert!(
        !run.stderr.contains('\u{9b}'),
        "a C1 control reached stderr: {}",
        run.stderr
    );
    for line in run.stderr.lines() {
        assert!(
            line.starts_with("agentloop: t.jsonl"),
            "forged line: {line:?}"
        );
    }
    assert!(
        run.stderr
            .contains(r"'\nagentloop: FORGED LINE\n\u001b[31m\u009b' record"),
        "{}",
        run.stderr
    );
    // --json escapes as JSON does, and says the same.
    let run = s.run(&["verify", "--loop", "--json", "t.jsonl"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(!run.raw_stdout.contains(&0x1b));
    // show quotes the kind, escaped.
    let run = s.run(&["show", "t.jsonl"]);
    assert_eq!(run.stdout.lines().count(), records.len(), "{}", run.stdout);
    assert!(!run.raw_stdout.contains(&0x1b));
    assert!(!run.stdout.contains('\u{9b}'), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r#"seq=1 "\nagentloop: FORGED LINE\n\u001b[31m\u009b" payload={}"#),
        "{}",
        run.stdout
    );
}
