//! What `run` shows: the lines and the events, record by record.

use super::*;
use agentloop_core::agent::RecordKind;
use agentloop_core::driver::Counts;
use agentloop_core::jcs;
use agentloop_core::json::parse;
use agentloop_core::Hash;

fn record(seq: u64, kind: RecordKind, payload: &str) -> Record {
    Record {
        seq,
        kind,
        payload: parse(payload.as_bytes()).unwrap(),
    }
}

fn counts(turn: u64, tokens: u64, total_tokens: u64, tool_calls: u64) -> Counts {
    Counts {
        steps: turn,
        tokens,
        total_tokens,
        tool_calls,
    }
}

fn text(value: &Value) -> String {
    String::from_utf8(jcs::to_vec(value).unwrap()).unwrap()
}

#[test]
fn lines_say_the_turn_the_call_the_result_and_the_tokens_against_the_budget() {
    let budgets = Budgets {
        max_tokens: Some(1000),
        max_total_tokens: Some(5000),
        max_tool_calls: Some(3),
        ..Budgets::default()
    };
    let cases = [
        (
            record(
                0,
                RecordKind::Task,
                r#"{"task":"add 2 and 40","budgets":{}}"#,
            ),
            counts(0, 0, 0, 0),
            "seq 0 task \"add 2 and 40\"",
        ),
        (
            record(
                1,
                RecordKind::Assistant,
                r#"{"text":"","tool_calls":[{"id":"call_1_0","name":"add","arguments":{}},{"id":"call_1_1","name":"a b","arguments":{}}],"tokens":10}"#,
            ),
            counts(1, 10, 29, 0),
            "seq 1 turn 1: calls add, \"a b\"; tokens 10/1000, total 29/5000",
        ),
        (
            record(
                2,
                RecordKind::Tool,
                r#"{"id":"call_1_0","name":"add","ok":true,"value":{"sum":42}}"#,
            ),
            counts(1, 10, 29, 1),
            "seq 2 turn 1: add ok; tool calls 1/3",
        ),
        (
            record(
                3,
                RecordKind::Tool,
                r#"{"id":"call_1_1","name":"fail","ok":false,"error":"broken\non purpose"}"#,
            ),
            counts(1, 10, 29, 2),
            "seq 3 turn 1: fail failed: \"broken\\non purpose\"; tool calls 2/3",
        ),
        (
            record(
                4,
                RecordKind::Assistant,
                r#"{"text":"42","tool_calls":[],"tokens":10}"#,
            ),
            counts(2, 20, 58, 2),
            "seq 4 turn 2: answer \"42\"; tokens 20/1000, total 58/5000",
        ),
        (
            record(
                5,
                RecordKind::Stop,
                r#"{"reason":"cancelled","steps":2,"tokens":20,"unrun_calls":1}"#,
            ),
            counts(2, 20, 58, 2),
            "seq 5 stop cancelled: 2 turns, 20 tokens, 2 tool calls, 1 call left unrun",
        ),
        (
            record(6, RecordKind::Resume, r#"{"after":"cancelled"}"#),
            counts(2, 20, 58, 2),
            "seq 6 resume after cancelled",
        ),
        (
            record(
                7,
                RecordKind::Stop,
                r#"{"reason":"model_error","steps":1,"tokens":1,"unrun_calls":0,"error":"HTTP 500"}"#,
            ),
            counts(1, 1, 1, 0),
            "seq 7 stop model_error: 1 turn, 1 token, 0 tool calls; error \"HTTP 500\"",
        ),
    ];
    for (record, counts, expected) in cases {
        assert_eq!(record_line(&record, counts, &budgets), expected);
    }
    // Without budgets: the counts alone.
    let turn = record(
        1,
        RecordKind::Assistant,
        r#"{"text":"hi","tool_calls":[],"tokens":1}"#,
    );
    assert_eq!(
        record_line(&turn, counts(1, 1, 20, 0), &Budgets::default()),
        "seq 1 turn 1: answer \"hi\"; tokens 1"
    );
}

#[test]
fn events_carry_the_record_its_hash_and_the_counts() {
    let appended = Appended {
        seq: 1,
        head: Hash::ZERO,
    };
    let turn = record(
        1,
        RecordKind::Assistant,
        r#"{"text":"x","tool_calls":[{"id":"call_1_0","name":"add","arguments":{"a":1}}],"tokens":3,"provider":{"input_tokens":9}}"#,
    );
    assert_eq!(
        text(&record_event(&turn, &appended, counts(1, 3, 12, 0))),
        format!(
            r#"{{"calls":[{{"id":"call_1_0","name":"add"}}],"event":"record","hash":"{}","kind":"assistant","seq":1,"text":"x","tokens":3,"tool_calls":0,"total_tokens":12,"turn":1}}"#,
            Hash::ZERO
        )
    );
    let tool = record(
        2,
        RecordKind::Tool,
        r#"{"id":"call_1_0","name":"fail","ok":false,"error":"no"}"#,
    );
    let event = text(&record_event(&tool, &appended, counts(1, 3, 12, 1)));
    assert!(
        event.contains(r#""error":"no","event":"record""#),
        "{event}"
    );
    assert!(
        event.contains(r#""id":"call_1_0""#) && event.contains(r#""ok":false"#),
        "{event}"
    );
    let stop = record(
        3,
        RecordKind::Stop,
        r#"{"reason":"no_tool_calls","steps":1,"tokens":3,"unrun_calls":0}"#,
    );
    let event = text(&record_event(&stop, &appended, counts(1, 3, 12, 1)));
    assert!(
        event.contains(r#""reason":"no_tool_calls""#) && event.contains(r#""unrun_calls":0"#),
        "{event}"
    );
    assert!(!event.contains("steps"), "{event}");

    let budgets = Budgets {
        max_steps: Some(4),
        stop_sentinel: Some(String::from("DONE")),
        ..Budgets::default()
    };
    let start = Start {
        file: "t.jsonl",
        model: String::from("openai:m"),
        url: "http://127.0.0.1:9/v1/chat/completions",
        tools: vec![String::from("add"), String::from("fs_read-1")],
        renamed: vec![(String::from("fs_read-1"), 1, String::from("fs.read"))],
        records: 0,
        budgets: &budgets,
    };
    assert_eq!(
        text(&start_event(&start)),
        r#"{"budgets":{"max_steps":4,"stop_sentinel":"DONE"},"event":"start","file":"t.jsonl","model":"openai:m","records":0,"renamed":[{"mcp_name":"fs.read","name":"fs_read-1","server":1}],"tools":["add","fs_read-1"],"url":"http://127.0.0.1:9/v1/chat/completions"}"#
    );
    assert_eq!(
        start_line(&start),
        "run: openai:m at http://127.0.0.1:9/v1/chat/completions; tools add, fs_read-1 (MCP server 1's \"fs.read\"); t.jsonl (new); budgets: max_steps 4, stop_sentinel \"DONE\""
    );
    let resumed = Start {
        tools: Vec::new(),
        renamed: Vec::new(),
        records: 5,
        budgets: &Budgets::default(),
        ..start
    };
    assert_eq!(
        start_line(&resumed),
        "run: openai:m at http://127.0.0.1:9/v1/chat/completions; no tools; t.jsonl (resumed after 5 records); no budgets"
    );
    let end = End {
        reason: "cancelled",
        exit: 130,
        count: 4,
        head: Hash::ZERO.to_string(),
        checkpoint: None,
    };
    assert_eq!(
        text(&end_event(&end)),
        format!(
            r#"{{"checkpoint":null,"count":4,"event":"end","exit":130,"head":"{}","reason":"cancelled","verified":true}}"#,
            Hash::ZERO
        )
    );
}
