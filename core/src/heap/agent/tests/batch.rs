//! A turn's calls handed out all at once ([`Agent::set_parallel`]) and their results fed
//! by id in any order: the same bytes as the one-at-a-time path, records in call order,
//! and a crash at any record of a batched turn resumes with no effect twice.

use super::Polls;
use crate::heap::test_cells::RefCell;
use crate::tools::ToolOptions;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::{result_lost_sentence, Agent, FeedErrorKind, Need, Record, StopReason};
use crate::audit::verify_loop_bytes;
use crate::export::parse_records;
use crate::jcs::to_vec;
use crate::model::{Message, Model, ToolCall};
use crate::tools::ToolError;

/// Invocations per `name(arguments)`, shared by the tools of a toolbox.
type Invocations = Arc<RefCell<BTreeMap<String, u32>>>;

/// A tool that counts its invocations by arguments, then runs `inner`.
struct Counted {
    inner: Box<dyn Tool>,
    seen: Invocations,
    idempotent: bool,
}

impl Tool for Counted {
    fn spec(&self) -> ToolSpec {
        self.inner.spec()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        let key = key(&self.inner.spec().name, arguments);
        *self.seen.borrow_mut().entry(key).or_insert(0) += 1;
        self.inner.call(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

fn key(name: &str, arguments: &Value) -> String {
    format!(
        "{name}{}",
        String::from_utf8(to_vec(arguments).unwrap()).unwrap()
    )
}

/// `send {to}` → `{"sent": to}`: a tool with an effect (not idempotent).
fn send() -> Box<dyn Tool> {
    let spec = ToolSpec::new(
        "send",
        "sends an invoice",
        j(r#"{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}"#),
    );
    Box::new(FnTool::new(spec, |a: &Value| {
        let mut out = Object::new();
        out.insert("sent", a.as_object().unwrap().get("to").unwrap().clone());
        Ok(Value::Object(out))
    }))
}

/// The demo tools (idempotent; `greet` limited to 1 run) and `send` (limited to 3),
/// counting their invocations.
fn toolbox() -> (Toolbox, Invocations) {
    let seen: Invocations = Arc::default();
    let mut toolbox = Toolbox::new();
    let tools: [(Box<dyn Tool>, Option<u64>, bool); 5] = [
        (Box::new(crate::demo::Add), None, true),
        (Box::new(crate::demo::Echo), None, true),
        (Box::new(crate::demo::Fail), None, true),
        (Box::new(crate::demo::Greet), Some(1), true),
        (send(), Some(3), false),
    ];
    for (inner, limit, idempotent) in tools {
        let counted = Counted {
            inner,
            seen: seen.clone(),
            idempotent,
        };
        toolbox
            .register(counted, ToolOptions::new().limit(limit))
            .unwrap();
    }
    (toolbox, seen)
}

/// A turn of 8 calls with refusals mixed in (unknown tool, schema, greet's limit),
/// a tool that fails, then a turn whose second call is over send's limit, then the
/// answer.
fn replies() -> Vec<Reply> {
    vec![
        Reply::new("Eight at once.")
            .with_call("add", j(r#"{"a":1,"b":2}"#))
            .with_call("nosuch", j("{}"))
            .with_call("send", j(r#"{"to":"a"}"#))
            .with_call("add", j(r#"{"a":"x","b":1}"#))
            .with_call("fail", j(r#"{"n":4}"#))
            .with_call("greet", j(r#"{"name":"ann"}"#))
            .with_call("send", j(r#"{"to":"b"}"#))
            .with_call("greet", j(r#"{"name":"bob"}"#)),
        Reply::new("Two more.")
            .with_call("send", j(r#"{"to":"c"}"#))
            .with_call("send", j(r#"{"to":"d"}"#)),
        Reply::new("Done."),
    ]
}

/// Answers turn t (the number of assistant messages it is shown) with `replies[t]`.
struct ByTurn(Vec<Reply>);

impl Model for ByTurn {
    fn reply(&mut self, messages: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
        let turn = messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        self.0
            .get(turn)
            .cloned()
            .ok_or_else(|| ModelError::new(format!("no reply for turn {turn}")))
    }
}

/// The sequential run: `driver::run`, one call at a time.
fn sequential(budgets: &Budgets) -> Vec<u8> {
    let (mut tools, _) = toolbox();
    let mut out = Vec::new();
    driver::run(
        "the task",
        budgets.clone(),
        &mut ByTurn(replies()),
        &mut tools,
        &mut || false,
        &mut out,
        driver::RunOptions::default(),
    )
    .unwrap();
    out
}

/// A permutation of `0..n`: 0 in call order, 1 reversed, else shuffled by `seed`.
fn order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    match seed {
        0 => {}
        1 => order.reverse(),
        _ => {
            let mut state = seed;
            for i in (1..n).rev() {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                order.swap(i, (state >> 33) as usize % (i + 1));
            }
        }
    }
    order
}

/// Why a batched drive ended early.
#[derive(Debug)]
struct Crashed;

/// Drives `agent` taking each turn's calls at once: runs every call handed out (in
/// call order), then feeds the results in the order `seed` gives; appends each record
/// to `chain` and `out` after every poll and feed, and stops (`Crashed`) once `out`
/// holds `keep` lines. Checks the at-most-once order: the calls are handed out only
/// when no record is pending.
fn drive_batched(
    agent: &mut Agent,
    chain: &mut Chain,
    tools: &mut Toolbox,
    seed: u64,
    keep: usize,
    out: &mut Vec<u8>,
) -> Result<Outcome, Crashed> {
    let mut model = ByTurn(replies());
    let mut lines = out.iter().filter(|&&b| b == b'\n').count();
    let mut write = |agent: &mut Agent, out: &mut Vec<u8>| -> Result<(), Crashed> {
        for record in agent.take_records() {
            if lines == keep {
                return Err(Crashed);
            }
            out.extend_from_slice(chain.append(record.kind.as_str(), &record.payload).unwrap());
            lines += 1;
        }
        Ok(())
    };
    loop {
        write(agent, out)?;
        let calls: Vec<ToolCall> = match agent.poll_all() {
            Need::ModelReply { messages, manifest } => {
                let reply = model.reply(messages, manifest);
                agent.feed_reply(reply).unwrap();
                continue;
            }
            Need::ToolResults { calls } => calls.to_vec(),
            Need::TakeRecords => continue,
            Need::Done(outcome) => {
                write(agent, out)?;
                return Ok(outcome);
            }
        };
        assert!(agent.take_records().is_empty(), "a record was pending");
        let results: Vec<_> = calls
            .iter()
            .map(|c| tools.call(&c.name, &c.arguments))
            .collect();
        for i in order(calls.len(), seed) {
            agent
                .feed_tool_result(&calls[i].id, results[i].clone())
                .unwrap();
            write(agent, out)?;
        }
    }
}

fn batched(budgets: &Budgets, seed: u64) -> (Vec<u8>, Outcome) {
    let (mut tools, _) = toolbox();
    let mut agent = Agent::new("the task", budgets.clone(), tools.manifest().clone()).unwrap();
    let mut out = Vec::new();
    let outcome = drive_batched(
        &mut agent,
        &mut Chain::new(),
        &mut tools,
        seed,
        usize::MAX,
        &mut out,
    )
    .unwrap();
    (out, outcome)
}

fn budgets_cases() -> [Budgets; 3] {
    [
        Budgets::default(),
        // The budget runs out inside the batch: calls 0–4 are recorded, then the stop.
        Budgets {
            max_tool_calls: Some(5),
            ..Budgets::default()
        },
        // ... inside the second turn.
        Budgets {
            max_tool_calls: Some(9),
            ..Budgets::default()
        },
    ]
}

#[test]
fn a_batched_turn_writes_the_bytes_of_the_one_at_a_time_run_in_any_feed_order() {
    for budgets in budgets_cases() {
        let want = sequential(&budgets);
        for seed in 0..12 {
            let (got, _) = batched(&budgets, seed);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(want.clone()).unwrap(),
                "{budgets:?}, feed order {seed}"
            );
        }
        let report = verify_loop_bytes(&want, &verify::Options::default());
        assert!(report.ok(), "{:?}", report.faults);
    }
    // What the turn holds: every kind of refusal, and the budget cut.
    let (bytes, outcome) = batched(&Budgets::default(), 1);
    let errors: Vec<String> = parse_records(&bytes)
        .unwrap()
        .iter()
        .filter_map(|r| {
            let p = r.as_object()?.get("payload")?.as_object()?;
            Some(String::from(p.get("error")?.as_str()?))
        })
        .collect();
    assert_eq!(errors.len(), 5, "{errors:?}");
    assert!(
        errors[0].starts_with("no tool named 'nosuch'"),
        "{errors:?}"
    );
    assert!(errors[1].starts_with("invalid arguments: "), "{errors:?}");
    assert_eq!(
        errors[2],
        "tool 'fail' failed: the tool is broken on purpose"
    );
    assert_eq!(errors[3], "tool 'greet' reached its limit of 1 call");
    assert_eq!(errors[4], "tool 'send' reached its limit of 3 calls");
    assert_eq!(
        (outcome.reason, outcome.tool_calls),
        (StopReason::NoToolCalls, 10)
    );
    let (_, cut) = batched(&budgets_cases()[1], 1);
    assert_eq!(
        (cut.reason, cut.tool_calls, cut.unrun_calls),
        (StopReason::ToolBudget, 5, 3)
    );
}

/// An agent whose first turn (the 8 calls) has just been recorded.
fn at_the_batch() -> Agent {
    let (tools, _) = toolbox();
    let mut agent = Agent::new("the task", Budgets::default(), tools.manifest().clone()).unwrap();
    assert!(matches!(agent.poll_all(), Need::ModelReply { .. }));
    agent.feed_reply(Ok(replies().remove(0))).unwrap();
    agent.take_records();
    agent
}

fn ids(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let p = r.payload.as_object().unwrap();
            String::from(p.get("id").unwrap().as_str().unwrap())
        })
        .collect()
}

#[test]
fn records_come_in_call_order_whatever_order_results_are_fed_in() {
    let mut agent = at_the_batch();
    let mut asked = 0;
    let need = agent.poll_all_with(&mut || {
        asked += 1;
        false
    });
    // Call 0 runs: nothing is written before the calls are handed out.
    let Need::ToolResults { calls } = need else {
        panic!("{need:?}")
    };
    let handed: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(
        handed,
        ["call_1_0", "call_1_2", "call_1_4", "call_1_5", "call_1_6"]
    );
    assert_eq!(
        asked, 8,
        "cancel is asked at each call's check point, in call order"
    );
    assert!(agent.take_records().is_empty());
    // Call 6 first: it waits for 0–5.
    agent.feed_tool_result("call_1_6", Ok(Value::Null)).unwrap();
    assert!(agent.take_records().is_empty());
    // Call 2: still waits for 0.
    agent.feed_tool_result("call_1_2", Ok(Value::Null)).unwrap();
    assert!(agent.take_records().is_empty());
    // Polling again gives the calls still waiting, and asks nothing.
    let Need::ToolResults { calls } = agent.poll_all_with(&mut || {
        asked += 1;
        false
    }) else {
        panic!()
    };
    let waiting: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(waiting, ["call_1_0", "call_1_4", "call_1_5"]);
    assert_eq!(asked, 8);
    let read: Vec<String> = agent.waiting_calls().iter().map(|c| c.id.clone()).collect();
    assert_eq!(read, waiting);
    // Call 0: 0, the refusal of 1, 2 and the refusal of 3; 4 is awaited.
    agent.feed_tool_result("call_1_0", Ok(Value::Null)).unwrap();
    assert_eq!(
        ids(&agent.take_records()),
        ["call_1_0", "call_1_1", "call_1_2", "call_1_3"]
    );
    assert_eq!(agent.tool_calls(), 4);
    // The one-at-a-time calls work on a batch too: the first call waiting.
    let Need::ToolResults { calls: [call, ..] } = agent.poll_one() else {
        panic!()
    };
    let call = call.clone();
    assert_eq!(call.id, "call_1_4");
    agent
        .feed_tool_result(&call.id, Err(ToolError::new("no")))
        .unwrap();
    assert_eq!(ids(&agent.take_records()), ["call_1_4"]);
    agent.feed_tool_result("call_1_5", Ok(Value::Null)).unwrap();
    // 5, 6 (fed first) and the refusal of 7 (greet's limit, counting call 5).
    let last = agent.take_records();
    assert_eq!(ids(&last), ["call_1_5", "call_1_6", "call_1_7"]);
    let error = last[2].payload.as_object().unwrap().get("error").unwrap();
    assert_eq!(
        error.as_str(),
        Some("tool 'greet' reached its limit of 1 call")
    );
    // The turn is over: the next poll asks the model.
    assert!(agent.waiting_calls().is_empty());
    assert!(matches!(agent.poll_all(), Need::ModelReply { .. }));
}

#[test]
fn refusals_before_the_first_call_that_runs_are_written_before_it_is_handed_out() {
    let (tools, _) = toolbox();
    let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
    agent.poll_all();
    let reply = Reply::new("")
        .with_call("nosuch", j("{}"))
        .with_call("greet", j("{}"))
        .with_call("echo", j("{}"));
    agent.feed_reply(Ok(reply)).unwrap();
    agent.take_records();
    // Each refusal is written at its check point, which ends the poll.
    assert_eq!(agent.poll_all(), Need::TakeRecords);
    assert_eq!(ids(&agent.take_records()), ["call_1_0"]);
    assert_eq!(agent.poll_all(), Need::TakeRecords);
    assert_eq!(ids(&agent.take_records()), ["call_1_1"]);
    let Need::ToolResults { calls } = agent.poll_all() else {
        panic!()
    };
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "call_1_2");
}

#[test]
fn feeding_a_batch_out_of_turn_is_an_error_and_changes_nothing() {
    let mut agent = at_the_batch();
    assert_eq!(
        agent.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::NotAwaitingToolResult.into()),
        "before the poll that hands the calls out"
    );
    agent.poll_all();
    // A refused call, an unknown id: not waiting.
    for id in ["call_1_1", "call_9_9", ""] {
        assert_eq!(
            agent.feed_tool_result(id, Ok(Value::Null)),
            Err(FeedErrorKind::NoSuchCall.into())
        );
    }
    agent.feed_tool_result("call_1_2", Ok(Value::Null)).unwrap();
    assert_eq!(
        agent.feed_tool_result("call_1_2", Ok(Value::Null)),
        Err(FeedErrorKind::NoSuchCall.into()),
        "fed twice"
    );
    assert!(agent.take_records().is_empty());
    assert_eq!(
        agent.feed_reply(Ok(Reply::new("x"))),
        Err(FeedErrorKind::NotAwaitingReply.into())
    );
    assert_eq!(
        alloc::format!("{}", FeedErrorKind::NoSuchCall),
        "a tool result was fed for a call id that is not waiting for one (unknown, or fed \
         already)"
    );
    // Cancelled mid-batch with call 2 fed: calls 0–2 are recorded (0 waiting: its
    // result is lost), and the refusal of 3 decided with the batch; four are unrun.
    agent.cancel();
    let mut records = agent.take_records();
    let stop = records.pop().unwrap();
    assert_eq!(
        ids(&records),
        ["call_1_0", "call_1_1", "call_1_2", "call_1_3"]
    );
    assert_eq!(
        stop.payload.as_object().unwrap().get("unrun_calls"),
        Some(&Value::Number(4.0))
    );
    assert_eq!(
        agent.feed_tool_result("call_1_0", Ok(Value::Null)),
        Err(FeedErrorKind::Finished.into())
    );
}

/// The record of each call of `records`: its id, and its result (`value` or `error`).
fn results(records: &[Record]) -> Vec<(String, Value)> {
    records
        .iter()
        .map(|r| {
            let p = r.payload.as_object().unwrap();
            let result = p.get("value").or_else(|| p.get("error")).unwrap().clone();
            (String::from(p.get("id").unwrap().as_str().unwrap()), result)
        })
        .collect()
}

#[test]
fn a_cancellation_mid_batch_keeps_every_result_fed_and_loses_none_silently() {
    let mut transcript = Vec::new();
    let mut chain = Chain::new();
    let mut agent = at_the_batch();
    // The first turn's records, re-made: `at_the_batch` took them.
    let (tools, _) = toolbox();
    let mut fresh = Agent::new("the task", Budgets::default(), tools.manifest().clone()).unwrap();
    fresh.poll_all();
    fresh.feed_reply(Ok(replies().remove(0))).unwrap();
    for record in fresh.take_records() {
        transcript.extend_from_slice(chain.append(record.kind.as_str(), &record.payload).unwrap());
    }
    let Need::ToolResults { calls } = agent.poll_all() else {
        panic!()
    };
    assert_eq!(calls.len(), 5);
    // Call 6 (the last handed out) ran and was fed; 0, 2, 4 and 5 were handed out and
    // are still running when the host cancels.
    agent
        .feed_tool_result("call_1_6", Ok(Value::from("six")))
        .unwrap();
    agent.cancel();
    let all = agent.take_records();
    let (stop, records) = all.split_last().unwrap();
    let lost = |name: &str| Value::from(result_lost_sentence(name));
    let got = results(records);
    let names: Vec<&str> = records
        .iter()
        .map(|r| {
            r.payload
                .as_object()
                .unwrap()
                .get("name")
                .unwrap()
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        got.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        [
            "call_1_0", "call_1_1", "call_1_2", "call_1_3", "call_1_4", "call_1_5", "call_1_6",
            "call_1_7"
        ]
    );
    for at in [0, 2, 4, 5] {
        assert_eq!(got[at].1, lost(names[at]), "call {at}");
    }
    assert_eq!(got[6].1, Value::from("six"));
    // Call 7 was refused with the batch (greet's limit): written as the batch would.
    assert_eq!(
        got[7].1,
        Value::from("tool 'greet' reached its limit of 1 call")
    );
    let stop = stop.payload.as_object().unwrap();
    assert_eq!(stop.get("reason"), Some(&Value::from("cancelled")));
    assert_eq!(stop.get("unrun_calls"), Some(&Value::Number(0.0)));
    assert!(agent.waiting_calls().is_empty());
    // The transcript is a well-formed run.
    for record in &all {
        transcript.extend_from_slice(chain.append(record.kind.as_str(), &record.payload).unwrap());
    }
    let report = verify_loop_bytes(&transcript, &crate::verify::Options::default());
    assert!(report.ok(), "{report:?}");
}

#[test]
fn a_cancellation_mid_batch_with_only_the_first_calls_fed_abandons_the_rest() {
    let mut agent = at_the_batch();
    agent.poll_all();
    agent.feed_tool_result("call_1_0", Ok(Value::Null)).unwrap();
    assert_eq!(ids(&agent.take_records()), ["call_1_0", "call_1_1"]);
    agent.cancel();
    let records = agent.take_records();
    assert_eq!(records.len(), 1, "only the stop record");
    assert_eq!(
        records[0].payload.as_object().unwrap().get("unrun_calls"),
        Some(&Value::Number(6.0))
    );
}

#[test]
fn a_cancellation_before_the_batch_leaves_every_call_unrun_as_one_at_a_time_does() {
    let mut agent = at_the_batch();
    let Need::Done(outcome) = ({
        let need = agent.poll_all_with(&mut || true);
        let Need::Done(o) = need else {
            panic!("{need:?}")
        };
        Need::Done(o)
    }) else {
        unreachable!()
    };
    assert_eq!(
        (outcome.reason, outcome.unrun_calls, outcome.tool_calls),
        (StopReason::Cancelled, 8, 0)
    );
    let mut one = at_the_batch();
    let Need::Done(same) = one.poll_one_with(&mut || true) else {
        panic!()
    };
    assert_eq!(same, outcome);
    assert_eq!(one.take_records(), agent.take_records());
}

/// The record in place of a `tool` record of a call that ran and whose result was lost.
fn lost_record(payload: &Value) -> Value {
    let p = payload.as_object().unwrap();
    let name = p.get("name").unwrap().as_str().unwrap();
    let mut lost = Object::new();
    lost.insert("error", Value::from(result_lost_sentence(name)));
    lost.insert("id", p.get("id").unwrap().clone());
    lost.insert("name", Value::from(name));
    lost.insert("ok", Value::Bool(false));
    Value::Object(lost)
}

#[test]
fn a_crash_at_any_record_of_a_batched_turn_resumes_with_no_effect_twice() {
    let budgets = Budgets::default();
    let whole = sequential(&budgets);
    let records = parse_records(&whole).unwrap();
    let n = records.len();
    let part = |r: &Value, key: &str| r.as_object().unwrap().get(key).unwrap().clone();
    for keep in 1..n {
        for batched_resume in [false, true] {
            let what = format!("cut after {keep} records, resumed batched: {batched_resume}");
            // The crashed run: every call of a batch was started before its first
            // result was fed.
            let (mut tools, seen) = toolbox();
            let mut agent =
                Agent::new("the task", budgets.clone(), tools.manifest().clone()).unwrap();
            let mut file = Vec::new();
            let crashed = drive_batched(
                &mut agent,
                &mut Chain::new(),
                &mut tools,
                1,
                keep,
                &mut file,
            );
            assert!(crashed.is_err(), "{what}");
            // The new process, with the same tools counting into the same map.
            let (mut tools, seen_after) = toolbox();
            let before = seen.borrow().clone();
            *seen_after.borrow_mut() = before.clone();
            let cut = parse_records(&file).unwrap();
            let mut out = file.clone();
            if batched_resume {
                let mut agent =
                    Agent::resume(budgets.clone(), tools.manifest().clone(), &cut).unwrap();
                let mut chain = Chain::new();
                for line in file.split_inclusive(|&b| b == b'\n') {
                    let record =
                        crate::json::parse_record_line(line.strip_suffix(b"\n").unwrap()).unwrap();
                    chain
                        .append(
                            part(&record, "kind").as_str().unwrap(),
                            &part(&record, "payload"),
                        )
                        .unwrap();
                }
                drive_batched(&mut agent, &mut chain, &mut tools, 2, usize::MAX, &mut out).unwrap();
            } else {
                driver::testing::resume(
                    &file,
                    budgets.clone(),
                    &mut ByTurn(replies()),
                    &mut tools,
                    &mut || false,
                    &mut out,
                )
                .unwrap();
            }
            // No call of `send` ran twice; every call ran at most twice (idempotent
            // ones whose record was not written ran again).
            let seen = seen_after.borrow();
            for (call, times) in seen.iter() {
                let most = if call.starts_with("send") { 1 } else { 2 };
                assert!(*times <= most, "{what}: {call} ran {times} times");
            }
            // The file: the uninterrupted one, but each call of the cut turn with no
            // record that ran and is not idempotent has its result lost.
            let mut expected = Vec::new();
            let mut chain = Chain::new();
            let mut in_cut_turn = true;
            for (i, record) in records.iter().enumerate() {
                let kind = part(record, "kind");
                let kind = kind.as_str().unwrap();
                let mut payload = part(record, "payload");
                in_cut_turn &= i < keep || kind == "tool";
                let p = payload.as_object().unwrap();
                let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
                let ran_send = name == "send" && p.get("ok") == Some(&Value::Bool(true));
                if i >= keep && in_cut_turn && ran_send {
                    payload = lost_record(&payload);
                }
                expected.extend_from_slice(chain.append(kind, &payload).unwrap());
            }
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                String::from_utf8(expected).unwrap(),
                "{what}"
            );
            let report = verify_loop_bytes(&out, &verify::Options::default());
            assert!(report.ok(), "{what}: {:?}", report.faults);
            // An idempotent call whose record was cut ran (again); a recorded one did
            // not run again.
            let mut keys = BTreeMap::new();
            for record in &records {
                if let Some(Value::Array(calls)) = part(record, "payload")
                    .as_object()
                    .unwrap()
                    .get("tool_calls")
                {
                    for c in calls {
                        let c = c.as_object().unwrap();
                        let name = c.get("name").unwrap().as_str().unwrap();
                        let id = String::from(c.get("id").unwrap().as_str().unwrap());
                        keys.insert(id, key(name, c.get("arguments").unwrap()));
                    }
                }
            }
            for (i, record) in records.iter().enumerate() {
                let p = part(record, "payload");
                let p = p.as_object().unwrap();
                let error = p.get("error").and_then(Value::as_str).unwrap_or_default();
                let ran = p.get("ok") == Some(&Value::Bool(true)) || error.contains("' failed");
                let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
                if part(record, "kind").as_str() != Some("tool") || !ran || name == "send" {
                    continue;
                }
                let k = &keys[p.get("id").unwrap().as_str().unwrap()];
                let earlier = before.get(k).copied().unwrap_or(0);
                let total = seen.get(k).copied().unwrap_or(0);
                let want = if i < keep { 1 } else { earlier + 1 };
                assert_eq!(total, want, "{what}: {k}");
            }
        }
    }
}

/// The driver's parallel path (threads: std only).
#[cfg(feature = "std")]
mod threads {
    use super::*;
    use crate::driver::RunOptions;
    use crate::sink::{RecordSink, SinkError};

    use std::sync::{Arc, Condvar, Mutex};

    type Seen = Arc<Mutex<BTreeMap<String, u32>>>;

    fn count(seen: &Seen, name: &str, arguments: &Value) {
        *seen
            .lock()
            .unwrap()
            .entry(key(name, arguments))
            .or_insert(0) += 1;
    }

    /// The tools of [`toolbox`], the demo ones shared (run on any thread), `send` not
    /// (it stays on the driver's thread); all counting into one map.
    fn mixed() -> (Toolbox, Seen) {
        let seen: Seen = Arc::default();
        let mut toolbox = Toolbox::new();
        let demo: [(Box<dyn Tool + Send + Sync>, Option<u64>); 4] = [
            (Box::new(crate::demo::Add), None),
            (Box::new(crate::demo::Echo), None),
            (Box::new(crate::demo::Fail), None),
            (Box::new(crate::demo::Greet), Some(1)),
        ];
        for (tool, limit) in demo {
            let spec = tool.spec();
            let name = spec.name.clone();
            let tool = Mutex::new(tool);
            let seen = seen.clone();
            let shared = FnTool::new(spec, move |a: &Value| {
                count(&seen, &name, a);
                tool.lock().unwrap().call(a)
            })
            .idempotent();
            toolbox
                .register(shared, ToolOptions::new().limit(limit).concurrent())
                .unwrap();
        }
        let inner = RefCell::new(send());
        let counter = seen.clone();
        let spec = inner.borrow().spec();
        let send = FnTool::new(spec, move |a: &Value| {
            count(&counter, "send", a);
            inner.borrow_mut().call(a)
        });
        toolbox.register(send, ToolOptions::new().limit(3)).unwrap();
        (toolbox, seen)
    }

    fn run(budgets: &Budgets, parallel: usize, sink: &mut dyn RecordSink) -> Seen {
        let (mut tools, seen) = mixed();
        let _ = driver::run(
            "the task",
            budgets.clone(),
            &mut ByTurn(replies()),
            &mut tools,
            &mut || false,
            sink,
            RunOptions { parallel },
        );
        seen
    }

    #[test]
    fn a_parallel_run_writes_the_bytes_of_the_sequential_run() {
        for budgets in budgets_cases() {
            let want = sequential(&budgets);
            for parallel in [0, 1, 2, 3, 8, 64] {
                let mut got = Vec::new();
                run(&budgets, parallel, &mut got);
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    String::from_utf8(want.clone()).unwrap(),
                    "{budgets:?}, parallel {parallel}"
                );
            }
        }
        // The demo scenarios, with the demo toolbox (its tools shared).
        for scenario in crate::demo::scenarios() {
            let (want, _) = scenario.run().unwrap();
            let mut got = Vec::new();
            driver::run(
                scenario.task,
                scenario.budgets.clone(),
                &mut crate::model::Scripted::new(scenario.replies.clone()),
                &mut crate::demo::toolbox().unwrap(),
                &mut || false,
                &mut got,
                RunOptions { parallel: 8 },
            )
            .unwrap();
            assert_eq!(got, want, "{}", scenario.file_name);
        }
    }

    /// (calls inside now, the most inside at once), and its condition.
    type Inside = Arc<(Mutex<(usize, usize)>, Condvar)>;

    /// A tool that waits until `want` calls are inside it at once (or 20 s pass, so a
    /// broken driver fails rather than hangs), and records the most it saw.
    fn rendezvous(
        want: usize,
    ) -> (
        FnTool<impl Fn(&Value) -> Result<Value, ToolError> + Send + Sync>,
        Inside,
    ) {
        let state = Arc::new((Mutex::new((0usize, 0usize)), Condvar::new()));
        let inside = state.clone();
        let spec = ToolSpec::new("meet", "waits for the others", j(r#"{"type":"object"}"#));
        let tool = FnTool::new(spec, move |_: &Value| {
            let (lock, arrived) = &*inside;
            let mut guard = lock.lock().unwrap();
            guard.0 += 1;
            guard.1 = guard.1.max(guard.0);
            arrived.notify_all();
            let (mut guard, _) = arrived
                .wait_timeout_while(guard, std::time::Duration::from_secs(20), |g| g.1 < want)
                .unwrap();
            guard.0 -= 1;
            Ok(Value::Null)
        });
        (tool, state)
    }

    #[test]
    fn the_calls_to_concurrent_tools_run_together_on_up_to_parallel_threads() {
        for (parallel, want) in [(4, 4), (3, 3), (1, 1)] {
            let (tool, state) = rendezvous(want);
            let mut tools = Toolbox::new();
            tools
                .register(tool, ToolOptions::new().concurrent())
                .unwrap();
            let mut reply = Reply::new("");
            for _ in 0..6 {
                reply = reply.with_call("meet", j("{}"));
            }
            let mut out = Vec::new();
            driver::run(
                "meet",
                Budgets::default(),
                &mut crate::model::Scripted::new([reply, Reply::new("met")]),
                &mut tools,
                &mut || false,
                &mut out,
                RunOptions { parallel },
            )
            .unwrap();
            let most = state.0.lock().unwrap().1;
            assert_eq!(most, want, "parallel {parallel}");
            assert_eq!(
                parse_records(&out).unwrap().len(),
                10,
                "task, assistant, 6 tools, assistant, stop"
            );
        }
    }

    /// A tool registered without `concurrent` (a C callback, a handle bound to one
    /// thread) runs on the driver's thread, one call at a time, however parallel the
    /// run; one registered with it runs on the workers.
    #[test]
    fn only_a_tool_registered_as_concurrent_leaves_the_drivers_thread() {
        type Threads = Arc<Mutex<Vec<std::thread::ThreadId>>>;
        let on = |threads: &Threads, name: &str| {
            let threads = threads.clone();
            let spec = ToolSpec::new(name, "notes its thread", j(r#"{"type":"object"}"#));
            FnTool::new(spec, move |_: &Value| {
                threads.lock().unwrap().push(std::thread::current().id());
                Ok(Value::Null)
            })
        };
        let (pinned, free): (Threads, Threads) = (Arc::default(), Arc::default());
        let mut tools = Toolbox::new();
        tools
            .register(on(&pinned, "pinned"), ToolOptions::new())
            .unwrap();
        let options = ToolOptions::new().concurrent();
        tools.register(on(&free, "free"), options).unwrap();
        let mut reply = Reply::new("");
        for _ in 0..4 {
            reply = reply
                .with_call("free", j("{}"))
                .with_call("pinned", j("{}"));
        }
        let mut out = Vec::new();
        driver::run(
            "threads",
            Budgets::default(),
            &mut crate::model::Scripted::new([reply, Reply::new("done")]),
            &mut tools,
            &mut || false,
            &mut out,
            RunOptions { parallel: 8 },
        )
        .unwrap();
        let here = std::thread::current().id();
        let pinned = pinned.lock().unwrap();
        assert_eq!(pinned.len(), 4);
        assert!(pinned.iter().all(|t| *t == here), "{pinned:?}");
        let free = free.lock().unwrap();
        assert_eq!(free.len(), 4);
        assert!(free.iter().all(|t| *t != here), "{free:?}");
    }

    /// A sink that takes `keep` lines, then refuses: the process died there.
    struct Dying {
        file: Vec<u8>,
        keep: usize,
    }

    impl RecordSink for Dying {
        fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
            if self.file.iter().filter(|&&b| b == b'\n').count() == self.keep {
                return Err(SinkError::Refused);
            }
            self.file.extend_from_slice(line);
            Ok(())
        }
    }

    #[test]
    fn a_parallel_run_killed_after_any_record_resumes_with_no_effect_twice() {
        let budgets = Budgets::default();
        let n = parse_records(&sequential(&budgets)).unwrap().len();
        for keep in 1..n {
            let mut dying = Dying {
                file: Vec::new(),
                keep,
            };
            let seen = run(&budgets, 8, &mut dying);
            let (mut tools, seen_after) = mixed();
            *seen_after.lock().unwrap() = seen.lock().unwrap().clone();
            let mut out = dying.file.clone();
            driver::testing::resume_at(
                crate::Anchor::GENESIS,
                &dying.file,
                budgets.clone(),
                &mut ByTurn(replies()),
                &mut tools,
                &mut || false,
                &mut out,
                RunOptions { parallel: 8 },
            )
            .unwrap();
            for (call, times) in seen_after.lock().unwrap().iter() {
                let most = if call.starts_with("send") { 1 } else { 2 };
                assert!(*times <= most, "cut at {keep}: {call} ran {times} times");
            }
            let report = verify_loop_bytes(&out, &verify::Options::default());
            assert!(report.ok(), "cut at {keep}: {:?}", report.faults);
            // Resumed one at a time, the same file.
            let (mut tools, _) = mixed();
            let mut again = dying.file.clone();
            driver::testing::resume(
                &dying.file,
                budgets.clone(),
                &mut ByTurn(replies()),
                &mut tools,
                &mut || false,
                &mut again,
            )
            .unwrap();
            assert_eq!(again, out, "cut at {keep}");
        }
    }
}
