//! Following a recording (`follow`, under `Agent::resume` and `driver::replay`): a run
//! cancelled while the model or a tool was asked resumes; and, fed records no audit has
//! seen, `follow` still names the first record the loop would not write and never runs
//! a tool for a call the recorded record does not answer.

use super::Polls;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::*;
use crate::agent::follow::{follow, Difference, Tools};
use crate::agent::{Agent, Need, Record, RecordKind};
use crate::jcs::to_vec;
use crate::model::{Message, ToolCall};
use crate::tools::ToolError;

fn agent() -> Agent {
    Agent::new(
        "the task",
        Budgets::default(),
        demo_tools().manifest().clone(),
    )
    .unwrap()
}

/// The records as a transcript holds them: `{"kind","payload","seq"}` objects.
fn recorded(records: &[Record]) -> Vec<Value> {
    records
        .iter()
        .map(|r| {
            let mut o = Object::new();
            o.insert("kind", Value::from(r.kind.as_str()));
            o.insert("payload", r.payload.clone());
            o.insert("seq", Value::Number(r.seq as f64));
            Value::Object(o)
        })
        .collect()
}

/// Sets the member at `path` (object keys, outermost first) of `record`.
fn set(record: &mut Value, path: &[&str], value: Value) {
    let Value::Object(o) = record else {
        panic!("not an object")
    };
    let (key, rest) = path.split_first().unwrap();
    let value = match rest {
        [] => value,
        _ => {
            let mut inner = o.get(key).unwrap().clone();
            set(&mut inner, rest, value);
            inner
        }
    };
    o.insert(*key, value);
}

/// One call of `echo`, its result, then a turn without calls: task, assistant, tool,
/// assistant, stop (seqs 0–4).
fn one_call_run() -> Vec<Value> {
    let mut a = agent();
    let _ = a.poll_one();
    a.feed_reply(Ok(call("echo", r#"{"x":1}"#))).unwrap();
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    a.feed_tool_result("call_1_0", Ok(j(r#"{"x":1}"#))).unwrap();
    let _ = a.poll_one();
    a.feed_reply(Ok(Reply::new("done"))).unwrap();
    assert!(matches!(a.poll_one(), Need::Done(_)));
    let records = recorded(&a.take_records());
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| {
            r.as_object()
                .unwrap()
                .get("kind")
                .unwrap()
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(kinds, ["task", "assistant", "tool", "assistant", "stop"]);
    records
}

/// Follows `records` with a fresh agent, running the tools through `run`.
fn follow_running(
    records: &[Value],
    run: &mut dyn FnMut(&ToolCall) -> Result<Value, ToolError>,
) -> Result<(), Difference> {
    follow(&mut agent(), records, Tools::Run(run))
}

/// Cancels `a`, resumes its records, and checks that the one record pending is the
/// `resume` after the cancellation, at `seq`.
fn cancelled_and_resumed(mut a: Agent, seq: u64) -> Agent {
    a.cancel();
    let records = recorded(&a.take_records());
    let manifest = demo_tools().manifest().clone();
    let mut resumed = Agent::resume(Budgets::default(), manifest, &records).unwrap();
    let next = resumed.take_records();
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].seq, next[0].kind), (seq, RecordKind::Resume));
    assert_eq!(next[0].payload, j(r#"{"after":"cancelled"}"#));
    resumed
}

#[test]
fn a_run_cancelled_while_the_model_was_asked_resumes_after_its_stop() {
    let mut a = agent();
    assert!(matches!(a.poll_one(), Need::ModelReply { .. }));
    let mut resumed = cancelled_and_resumed(a, 2);
    assert!(matches!(resumed.poll_one(), Need::ModelReply { .. }));
}

#[test]
fn a_run_cancelled_while_a_tool_was_asked_resumes_with_both_calls_unrun() {
    let mut a = agent();
    let _ = a.poll_one();
    let turn = call("echo", "{}").with_call("echo", j(r#"{"y":2}"#));
    a.feed_reply(Ok(turn)).unwrap();
    assert!(matches!(a.poll_one(), Need::ToolResults { .. }));
    let mut resumed = cancelled_and_resumed(a, 3);
    // The model is shown both calls answered "not run", as the stop left them.
    let Need::ModelReply { messages, .. } = resumed.poll_one() else {
        panic!("the resumed run does not ask the model");
    };
    let not_run: Vec<&Message> = messages.iter().filter(|m| m.role() == "tool").collect();
    assert_eq!(not_run.len(), 2);
    for message in not_run {
        let Message::Tool { result, .. } = message else {
            unreachable!()
        };
        assert_eq!(
            result,
            &Err(String::from("not run: the loop stopped (cancelled)"))
        );
    }
    assert!(resumed.outcome().is_none());
}

#[test]
fn a_tool_record_that_does_not_answer_the_call_is_the_difference_and_nothing_runs() {
    let good = one_call_run();
    let mut runs = 0;
    let mut run = |_: &ToolCall| -> Result<Value, ToolError> {
        runs += 1;
        Ok(j(r#"{"x":1}"#))
    };
    assert_eq!(follow_running(&good, &mut run), Ok(()));
    assert_eq!(runs, 1);
    // Another id, the same name; the same id, another name.
    for (key, other) in [("id", "call_9_0"), ("name", "add")] {
        let mut records = good.clone();
        set(&mut records[2], &["payload", key], Value::from(other));
        let mut runs = 0;
        let mut run = |_: &ToolCall| -> Result<Value, ToolError> {
            runs += 1;
            Ok(j(r#"{"x":1}"#))
        };
        let d = follow_running(&records, &mut run).unwrap_err();
        assert_eq!(
            runs, 0,
            "a tool ran for a record answering another call ({key})"
        );
        let expected = String::from_utf8(to_vec(&records[2]).unwrap()).unwrap();
        assert_eq!(
            d,
            Difference {
                index: 2,
                seq: Some(2),
                expected: expected.clone(),
                found: String::from("runs call call_1_0 'echo' here"),
            }
        );
        assert_eq!(
            d.to_string(),
            format!(
                "record 2 (seq 2) differs: the transcript has {expected}, the loop runs call \
                 call_1_0 'echo' here"
            )
        );
        // Following the recorded results instead: the same difference.
        assert_eq!(follow(&mut agent(), &records, Tools::Recorded), Err(d));
    }
}

#[test]
fn a_record_after_the_stop_that_is_not_a_resume_is_the_difference() {
    let mut records = one_call_run();
    let mut again = records[3].clone();
    set(&mut again, &["seq"], Value::Number(5.0));
    records.push(again);
    let d = follow(&mut agent(), &records, Tools::Recorded).unwrap_err();
    assert_eq!((d.index, d.seq), (5, Some(5)));
    assert_eq!(d.found, "has stopped and writes nothing more");
}

#[test]
fn a_difference_at_a_record_without_a_readable_seq_names_its_index_only() {
    let mut records = one_call_run();
    set(&mut records[1], &["seq"], Value::from("1"));
    let d = follow(&mut agent(), &records, Tools::Recorded).unwrap_err();
    assert_eq!((d.index, d.seq), (1, None));
    assert_eq!(d.expected, "a record that cannot be read");
    assert!(
        d.to_string().starts_with(
            "record 1 differs: the transcript has a record that cannot be read, the loop writes {"
        ),
        "{d}"
    );
    assert!(d.found.starts_with(r#"writes {"kind":"assistant","#), "{d}");
}

#[test]
fn where_the_loop_asks_the_model_only_an_assistant_record_or_a_model_error_stop_follows() {
    let run = one_call_run();
    // The tool record right after the task: the loop asks the model there.
    let records = [run[0].clone(), run[2].clone()];
    let d = follow(&mut agent(), &records, Tools::Recorded).unwrap_err();
    assert_eq!((d.index, d.seq), (1, Some(2)));
    assert_eq!(d.found, "asks the model for a turn here");
    // A model_error stop there is the model's failure, fed as such.
    let mut a = agent();
    let _ = a.poll_one();
    a.feed_reply(Err(ModelError::new("HTTP 503"))).unwrap();
    let failed = recorded(&a.take_records());
    let mut following = agent();
    assert_eq!(follow(&mut following, &failed, Tools::Recorded), Ok(()));
    assert_eq!(
        following.outcome().map(|o| o.reason),
        Some(crate::agent::StopReason::ModelError)
    );
}
