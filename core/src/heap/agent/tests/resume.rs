//! Resuming: a run killed after any record, resumed, writes what the uninterrupted run
//! writes — except for the calls of a tool that is not idempotent that may have been
//! running (every call of the cut turn with no record yet), which get exactly one
//! "result lost" record each and are not run again.

use super::Polls;
use crate::tools::ToolOptions;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::agent::ResumeErrorKind;
use crate::agent::{recorded_budgets, result_lost_sentence, Agent, Need, StopReason};
use crate::audit::verify_loop_bytes;
use crate::driver::OpenErrorKind;
use crate::driver::{self, ReplayReport};
use crate::export::{history, parse_records};
use crate::model::{Message, Model, ProviderReport};
use crate::provider::Provider;
use crate::sink::{RecordSink, SinkError};
use crate::tools::{ToolError, ToolSpec as Spec};

/// Answers turn t (the number of assistant messages it is shown) with `replies[t]`,
/// whatever else it is shown; keeps every conversation it was shown.
#[derive(Clone)]
struct ByTurn {
    replies: Vec<Reply>,
    shown: Vec<Vec<Message>>,
}

impl ByTurn {
    fn new(replies: &[Reply]) -> ByTurn {
        ByTurn {
            replies: replies.to_vec(),
            shown: Vec::new(),
        }
    }
}

impl Model for ByTurn {
    fn reply(&mut self, messages: &[Message], _: &[Spec]) -> Result<Reply, ModelError> {
        self.shown.push(messages.to_vec());
        let turn = messages.iter().filter(|m| m.role() == "assistant").count();
        self.replies
            .get(turn)
            .cloned()
            .ok_or_else(|| ModelError::new(format!("no reply for turn {turn}")))
    }
}

/// A tool that counts every time it is run, with the idempotency the test gives it.
struct Counted {
    inner: Box<dyn Tool>,
    runs: Arc<Cell<u32>>,
    idempotent: bool,
}

impl Tool for Counted {
    fn spec(&self) -> Spec {
        self.inner.spec()
    }

    fn call(&self, arguments: &Value) -> Result<Value, ToolError> {
        self.runs.set(self.runs.get() + 1);
        self.inner.call(arguments)
    }

    fn idempotent(&self) -> bool {
        self.idempotent
    }
}

/// `send {to}` → `{"sent": to}`: stands for a tool with an effect (an invoice sent).
fn send() -> impl Tool {
    let spec = Spec::new(
        "send",
        "sends an invoice",
        j(r#"{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}"#),
    );
    FnTool::new(spec, |a: &Value| {
        let mut out = Object::new();
        out.insert("sent", a.as_object().unwrap().get("to").unwrap().clone());
        Ok(Value::Object(out))
    })
}

/// One scripted run to cut after every record (the invoices last).
struct Case {
    task: &'static str,
    budgets: Budgets,
    replies: Vec<Reply>,
    /// The demo tools, or `send` (limited to 3 runs).
    invoice: bool,
}

impl Case {
    /// The tools, each counting its runs into one counter, all with `idempotent`.
    fn toolbox(&self, idempotent: bool) -> (Toolbox, Arc<Cell<u32>>) {
        let runs = Arc::new(Cell::new(0));
        let mut toolbox = Toolbox::new();
        let wrap = |inner: Box<dyn Tool>| Counted {
            inner,
            runs: runs.clone(),
            idempotent,
        };
        if self.invoice {
            toolbox
                .register(wrap(Box::new(send())), ToolOptions::new().limit(3))
                .unwrap();
        } else {
            let tools: [Box<dyn Tool>; 4] = [
                Box::new(crate::demo::Add),
                Box::new(crate::demo::Echo),
                Box::new(crate::demo::Fail),
                Box::new(crate::demo::Greet),
            ];
            for tool in tools {
                toolbox.register(wrap(tool), ToolOptions::new()).unwrap();
            }
        }
        (toolbox, runs)
    }
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = crate::demo::scenarios()
        .into_iter()
        .map(|s| Case {
            task: s.task,
            budgets: s.budgets,
            replies: s.replies,
            invoice: false,
        })
        .collect();
    // demo-budget's turns with provider reports: the input tokens take the sum of
    // tokens in and out over max_total_tokens at the third turn (its call not run),
    // where max_tokens alone would not stop the run at all.
    let budget = crate::demo::budget();
    let reported = |i: usize, reply: Reply| {
        let report = ProviderReport {
            model: Some("stand-in-1".into()),
            response_id: Some(format!("resp_{i}")),
            input_tokens: Some(100 * (i as u64 + 1)),
            cached_input_tokens: (i > 0).then_some(50),
            ..ProviderReport::default()
        };
        reply.with_provider(report)
    };
    cases.push(Case {
        task: budget.task,
        budgets: Budgets {
            max_total_tokens: Some(620),
            ..Budgets::default()
        },
        replies: budget
            .replies
            .into_iter()
            .enumerate()
            .map(|(i, r)| reported(i, r))
            .collect(),
        invoice: false,
    });
    let to = |who: &str| j(&format!(r#"{{"to":"{who}"}}"#));
    cases.push(Case {
        task: "send the four invoices",
        budgets: Budgets {
            max_tool_calls: Some(4),
            ..Budgets::default()
        },
        replies: vec![
            Reply::new("Two first.")
                .with_call("send", to("a"))
                .with_call("send", to("b")),
            // The second call is over the tool's limit of 3: a refusal, never run.
            Reply::new("Two more.")
                .with_call("send", to("c"))
                .with_call("send", to("d")),
            // Four tool records: the budget is spent.
            Reply::new("And the last.").with_call("send", to("e")),
        ],
        invoice: true,
    });
    cases
}

/// Lines as the sink got them, and the tools' run count when each was written.
struct Lines {
    lines: Vec<Vec<u8>>,
    runs_at: Vec<u32>,
    runs: Arc<Cell<u32>>,
}

impl RecordSink for Lines {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        self.lines.push(line.to_vec());
        self.runs_at.push(self.runs.get());
        Ok(())
    }
}

/// `(kind, payload)` of each record of a transcript.
fn contents(bytes: &[u8]) -> Vec<(String, Value)> {
    parse_records(bytes)
        .unwrap()
        .iter()
        .map(|r| {
            let r = r.as_object().unwrap();
            let kind = String::from(r.get("kind").unwrap().as_str().unwrap());
            (kind, r.get("payload").unwrap().clone())
        })
        .collect()
}

/// The transcript of these records, chained from seq 0.
fn chained(records: &[(String, Value)]) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut bytes = Vec::new();
    for (kind, payload) in records {
        bytes.extend_from_slice(chain.append(kind, payload).unwrap());
    }
    bytes
}

/// Whether a `tool` record holds what a tool returned (ok, or the tool's own failure),
/// rather than a refusal of the loop: the call passed its checks and ran.
fn ran(kind: &str, payload: &Value) -> bool {
    let payload = payload.as_object().unwrap();
    kind == "tool"
        && match payload.get("ok") {
            Some(Value::Bool(true)) => true,
            _ => {
                let error = payload.get("error").unwrap().as_str().unwrap();
                error.starts_with("tool '") && error.contains("' failed")
            }
        }
}

fn loop_ok(bytes: &[u8]) {
    let report = verify_loop_bytes(bytes, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
    let records = parse_records(bytes).unwrap();
    history(Provider::OpenAi, &records).unwrap();
}

/// The result-lost record in place of the `tool` record `payload` of a call that ran.
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

/// Kills the run of `case` after each record k and resumes it; see the module doc.
fn cut_everywhere(case: &Case, idempotent: bool) -> usize {
    let (mut toolbox, runs) = case.toolbox(idempotent);
    let mut model = ByTurn::new(&case.replies);
    let mut full = Lines {
        lines: Vec::new(),
        runs_at: Vec::new(),
        runs: runs.clone(),
    };
    let budgets = case.budgets.clone();
    driver::run(
        case.task,
        budgets.clone(),
        &mut model,
        &mut toolbox,
        &mut || false,
        &mut full,
        driver::RunOptions::default(),
    )
    .unwrap();
    let total = runs.get();
    let whole = full.lines.concat();
    let records = contents(&whole);
    let n = records.len();
    let mut lost_cuts = 0;
    for k in 1..n {
        let prefix = full.lines[..k].concat();
        let (mut toolbox, runs) = case.toolbox(idempotent);
        let mut resumed_model = ByTurn::new(&case.replies);
        let mut out = prefix.clone();
        let outcome = driver::testing::resume(
            &prefix,
            budgets.clone(),
            &mut resumed_model,
            &mut toolbox,
            &mut || false,
            &mut out,
        )
        .unwrap();
        let what = format!("{} cut after record {k}", case.task);
        // Every call of the cut turn with no record that ran may have been running
        // (the calls of a turn may run together): each gets a result-lost record in
        // its place and is not run again; refusals stay, and nothing else changes.
        let mut expected = records.clone();
        let mut last = k;
        let mut lost = 0;
        for j in (k..n).take_while(|&j| records[j].0 == "tool") {
            last = j;
            if !idempotent && ran(&records[j].0, &records[j].1) {
                expected[j].1 = lost_record(&records[j].1);
                lost += 1;
            }
        }
        if lost > 0 {
            lost_cuts += 1;
            assert_ne!(out, whole, "{what}");
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                String::from_utf8(chained(&expected)).unwrap(),
                "{what}"
            );
            assert_eq!(
                runs.get(),
                total - full.runs_at[last],
                "{what}: re-ran a call"
            );
        } else {
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                String::from_utf8(whole.clone()).unwrap(),
                "{what}"
            );
            assert_eq!(runs.get(), total - full.runs_at[k - 1], "{what}");
            // The model was shown what it was shown in the uninterrupted run.
            let later = &model.shown[model.shown.len() - resumed_model.shown.len()..];
            assert_eq!(resumed_model.shown, later, "{what}");
        }
        let stop = contents(&out).last().unwrap().1.clone();
        assert_eq!(
            stop.as_object().unwrap().get("reason").unwrap().as_str(),
            Some(outcome.reason.as_str())
        );
        loop_ok(&out);
    }
    // Nothing written: nothing to resume.
    let (mut toolbox, _) = case.toolbox(idempotent);
    let empty = driver::testing::resume(
        b"",
        budgets,
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut Vec::new(),
    );
    assert_eq!(
        empty,
        Err(OpenErrorKind::Resume(ResumeErrorKind::Empty.into()).into())
    );
    lost_cuts
}

#[test]
fn a_run_killed_after_any_record_resumes_to_the_same_file() {
    for case in cases() {
        assert_eq!(cut_everywhere(&case, true), 0);
    }
}

#[test]
fn a_call_in_flight_of_a_tool_that_is_not_idempotent_is_recorded_lost_not_run_again() {
    // demo-answer: add; demo-recover: fail and add (the two refusals never ran);
    // demo-budget: greet, echo, add; demo-budget with reports: greet, echo (add is left
    // unrun by max_total_tokens); invoices: a, b, c (d was refused by the limit).
    let lost: Vec<usize> = cases().iter().map(|c| cut_everywhere(c, false)).collect();
    assert_eq!(lost, [1, 2, 3, 2, 3]);
}

#[test]
fn the_case_with_provider_reports_stops_on_the_total_at_its_third_turn() {
    // So cutting it everywhere resumes runs whose input tokens decide the stop: a
    // resume that lost them would take a fourth turn.
    let case = &cases()[3];
    let (mut toolbox, runs) = case.toolbox(true);
    let mut out = Vec::new();
    let outcome = driver::run(
        case.task,
        case.budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut out,
        driver::RunOptions::default(),
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::TokenBudget);
    // 12 + 12 + 10 tokens out, 100 + 200 + 300 in: 634 > 620.
    assert_eq!(
        (outcome.steps, outcome.tokens, outcome.unrun_calls),
        (3, 34, 1)
    );
    assert_eq!(runs.get(), 2);
}

#[test]
fn the_result_lost_sentence() {
    assert_eq!(
        result_lost_sentence("send"),
        "result lost: the run was interrupted while tool 'send' was running; it may or may \
         not have taken effect, and it is not run again"
    );
}

#[test]
fn the_agent_names_every_unrecorded_call_of_the_turn_in_flight() {
    let case = cases().pop().unwrap();
    let (mut toolbox, _) = case.toolbox(false);
    let mut full = Vec::new();
    let budgets = case.budgets.clone();
    driver::run(
        case.task,
        budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut full,
        driver::RunOptions::default(),
    )
    .unwrap();
    // task, assistant (send a, send b): killed while `send a` ran — or while both ran,
    // if the calls ran together; the transcript does not say which.
    let records = parse_records(&full).unwrap();
    let mut agent =
        Agent::resume(budgets.clone(), toolbox.manifest().clone(), &records[..2]).unwrap();
    assert_eq!(agent.in_flight_calls(), ["call_1_0", "call_1_1"]);
    assert_eq!(
        (agent.steps(), agent.tool_calls(), agent.next_seq()),
        (1, 0, 2)
    );
    assert!(agent.take_records().is_empty());
    // Neither is run again, and no cancellation is asked for them: a record each.
    let mut asked = 0;
    let mut lost = Vec::new();
    for in_flight in [Some("call_1_1"), None] {
        let need = agent.poll_one_with(&mut || {
            asked += 1;
            false
        });
        assert_eq!((need, asked), (Need::TakeRecords, 0));
        assert_eq!(
            agent.in_flight_calls().first().map(String::as_str),
            in_flight
        );
        lost.extend(agent.take_records());
    }
    let ids: Vec<&str> = lost
        .iter()
        .map(|r| {
            let p = r.payload.as_object().unwrap();
            assert_eq!(
                p.get("error"),
                Some(&Value::from(result_lost_sentence("send")))
            );
            p.get("id").unwrap().as_str().unwrap()
        })
        .collect();
    assert_eq!(ids, ["call_1_0", "call_1_1"]);
    assert_eq!(agent.tool_calls(), 2);
    // The turn is over: the next check point is before the next turn, and asks.
    let need = agent.poll_one_with(&mut || {
        asked += 1;
        false
    });
    assert!(matches!(need, Need::ModelReply { .. }), "{need:?}");
    assert_eq!(asked, 1);

    // Declared idempotent, both are run again, each after its check point.
    let (idem, _) = case.toolbox(true);
    let mut agent = Agent::resume(budgets, idem.manifest().clone(), &records[..2]).unwrap();
    assert_eq!(agent.in_flight_calls(), ["call_1_0", "call_1_1"]);
    let need = agent.poll_one_with(&mut || {
        asked += 1;
        false
    });
    let Need::ToolResults { calls: [call, ..] } = need else {
        panic!("{need:?}")
    };
    let call = call.clone();
    assert_eq!((call.id.as_str(), asked), ("call_1_0", 2));
    assert_eq!(agent.in_flight_calls(), ["call_1_1"]);
}

/// A run ending with `reason`, its budgets, and a model and cancel hook to resume it.
fn stopped(reason: StopReason) -> (Budgets, Vec<u8>) {
    let echo = || call("echo", r#"{"x":1}"#);
    let (budgets, replies, cancel): (Budgets, Vec<Result<Reply, ModelError>>, bool) = match reason {
        StopReason::NoToolCalls => (
            Budgets::default(),
            vec![Ok(echo()), Ok(Reply::new("ok"))],
            false,
        ),
        StopReason::Sentinel => (
            Budgets {
                stop_sentinel: Some("DONE".into()),
                ..Budgets::default()
            },
            vec![Ok(Reply::new("DONE").with_call("echo", j("{}")))],
            false,
        ),
        StopReason::StepBudget => (
            Budgets {
                max_steps: Some(1),
                ..Budgets::default()
            },
            vec![Ok(echo())],
            false,
        ),
        StopReason::TokenBudget => (
            Budgets {
                max_tokens: Some(1),
                ..Budgets::default()
            },
            vec![Ok(
                Reply::new("a long enough text").with_call("echo", j("{}"))
            )],
            false,
        ),
        StopReason::ModelError => (
            Budgets::default(),
            vec![
                Ok(echo()),
                Err(ModelError::new("the provider returned HTTP 503")),
            ],
            false,
        ),
        StopReason::ToolBudget => (
            Budgets {
                max_tool_calls: Some(1),
                ..Budgets::default()
            },
            vec![Ok(echo().with_call("echo", j("{}")))],
            false,
        ),
        StopReason::Cancelled => (Budgets::default(), vec![Ok(echo())], true),
    };
    let r = run_with(budgets.clone(), replies, &mut demo_tools(), &mut || cancel);
    assert_eq!(r.outcome.reason, reason);
    (budgets, r.transcript)
}

#[test]
fn a_run_resumed_after_each_stop_reason_writes_resume_and_counts_on() {
    for reason in StopReason::ALL {
        let (budgets, before) = stopped(reason);
        let n = contents(&before).len();
        let old_stop = contents(&before).last().unwrap().1.clone();
        let old = |key: &str| num(old_stop.as_object().unwrap(), key);
        let mut model = ByTurn::new(&[]);
        // Whatever turn it is, the model answers without tools.
        model.replies = vec![Reply::new("all done"); 8];
        let mut out = before.clone();
        let outcome = driver::testing::resume(
            &before,
            budgets.clone(),
            &mut model,
            &mut demo_tools(),
            &mut || false,
            &mut out,
        )
        .unwrap();
        assert!(out.starts_with(&before));
        let after = contents(&out);
        assert_eq!(after[n].0, "resume", "{reason}");
        assert_eq!(
            after[n].1,
            j(&format!(r#"{{"after":"{}"}}"#, reason.as_str()))
        );
        if reason == StopReason::StepBudget {
            // The budget is cumulative: spent before, spent now; the model is not asked.
            assert_eq!(outcome.reason, StopReason::StepBudget);
            assert!(model.shown.is_empty());
            assert_eq!(after.len(), n + 2);
        } else {
            assert_eq!(outcome.reason, StopReason::NoToolCalls, "{reason}");
            assert_eq!(outcome.steps, old("steps") + 1);
            assert_eq!(outcome.tokens, old("tokens") + 2);
            // Every call the stop left unrun is shown with its not-run result.
            let shown = &model.shown[0];
            let Some(Message::Assistant { tool_calls, .. }) =
                shown.iter().rev().find(|m| m.role() == "assistant")
            else {
                assert_eq!(reason, StopReason::Cancelled);
                continue;
            };
            let answers = shown.iter().filter(|m| m.role() == "tool").count();
            let all_calls: usize = shown
                .iter()
                .map(|m| match m {
                    Message::Assistant { tool_calls, .. } => tool_calls.len(),
                    _ => 0,
                })
                .sum();
            assert_eq!(answers, all_calls, "{reason}");
            if old("unrun_calls") > 0 {
                let last = tool_calls.last().unwrap();
                let not_run = format!("not run: the loop stopped ({reason})");
                assert!(shown.contains(&Message::Tool {
                    call_id: last.id.clone(),
                    name: last.name.clone(),
                    result: Err(not_run),
                }));
            }
        }
        loop_ok(&out);
        // And again: a resumed transcript resumes.
        let mut again = out.clone();
        driver::testing::resume(
            &out,
            budgets,
            &mut model,
            &mut demo_tools(),
            &mut || false,
            &mut again,
        )
        .unwrap();
        assert_eq!(contents(&again)[after.len()].0, "resume");
        loop_ok(&again);
    }
}

#[test]
fn a_crash_after_the_resume_record_goes_on_after_it() {
    let (budgets, before) = stopped(StopReason::Cancelled);
    let mut out = before.clone();
    let mut model = ByTurn::new(&[Reply::new("done")]);
    driver::testing::resume(
        &before,
        budgets.clone(),
        &mut model.clone(),
        &mut demo_tools(),
        &mut || false,
        &mut out,
    )
    .unwrap();
    // Cut right after the resume record, resume again: the same file.
    let lines: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
    let cut = lines[..contents(&before).len() + 1].concat();
    let mut again = cut.clone();
    driver::testing::resume(
        &cut,
        budgets,
        &mut model,
        &mut demo_tools(),
        &mut || false,
        &mut again,
    )
    .unwrap();
    assert_eq!(again, out);
}

#[test]
fn a_transcript_that_is_not_this_runs_is_refused() {
    let case = &cases()[1];
    let (mut toolbox, _) = case.toolbox(true);
    let budgets = case.budgets.clone();
    let mut full = Vec::new();
    driver::run(
        case.task,
        budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut full,
        driver::RunOptions::default(),
    )
    .unwrap();
    let records = parse_records(&full).unwrap();
    let manifest = toolbox.manifest().clone();
    // Other budgets: the task record says which were in force.
    let other = Budgets {
        max_steps: Some(9),
        ..Budgets::default()
    };
    let Err(ResumeErrorKind::Task(d)) =
        Agent::resume(other, manifest.clone(), &records[..3]).map_err(|e| e.0)
    else {
        panic!("other budgets accepted")
    };
    assert_eq!((d.index, d.seq), (0, Some(0)));
    assert!(d.expected.contains(r#""max_steps":8"#), "{d}");
    assert!(d.found.contains(r#""max_steps":9"#), "{d}");
    // Other tools: the refusal of `multiply` names the tools there are.
    let mut fewer = Toolbox::new();
    fewer
        .register(crate::demo::Add, ToolOptions::new())
        .unwrap();
    let Err(ResumeErrorKind::Diverged(d)) =
        Agent::resume(budgets.clone(), fewer.manifest().clone(), &records[..3]).map_err(|e| e.0)
    else {
        panic!("other tools accepted")
    };
    assert_eq!((d.index, d.seq), (2, Some(2)));
    assert!(d.found.contains("(have: add)"), "{d}");
    // Not a run: a tool record before any assistant record.
    let mut swapped = records[..3].to_vec();
    swapped.swap(1, 2);
    let Err(ResumeErrorKind::Malformed(finding)) =
        Agent::resume(budgets.clone(), manifest.clone(), &swapped).map_err(|e| e.0)
    else {
        panic!("a malformed run accepted")
    };
    assert_eq!(finding.index, 1);
    assert_eq!(
        format!("{}", ResumeErrorKind::Malformed(finding)),
        "the transcript is not a well-formed run of the loop: record 1: a tool record \
         answering no call: no assistant record comes before it"
    );
    // A torn last line is a chain fault: repair first.
    let torn = &full[..full.len() - 1];
    let err = driver::testing::resume(
        torn,
        budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut Vec::new(),
    )
    .unwrap_err();
    let OpenErrorKind::Transcript(fault) = err.0 else {
        panic!("{err:?}")
    };
    assert_eq!(fault.kind, crate::fault_kind::FaultKind::TornTail);
    // A rewritten record is not continued.
    let mut edited = full.clone();
    let at = edited.windows(2).position(|w| w == b"42").unwrap();
    edited[at] = b'7';
    let err = driver::testing::resume(
        &edited,
        budgets,
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(
        matches!(err.0, OpenErrorKind::Transcript(ref f) if f.kind == crate::fault_kind::FaultKind::HashMismatch),
        "{err}"
    );
}

/// A tool that returns how many times it has run: not a function of its arguments.
fn ticker(start: u32) -> impl Tool {
    let mut n = start;
    FnTool::from_mut(
        Spec::new("tick", "counts", j(r#"{"type":"object"}"#)),
        move |_: &Value| {
            n += 1;
            let mut out = Object::new();
            out.insert("n", Value::Number(f64::from(n)));
            Ok(Value::Object(out))
        },
    )
}

#[test]
fn replay_of_the_demo_runs_finds_no_difference() {
    for scenario in crate::demo::scenarios() {
        let (bytes, _) = scenario.run().unwrap();
        let report = driver::replay(&bytes, &mut demo_tools()).unwrap();
        assert_eq!(
            report,
            ReplayReport {
                records: contents(&bytes).len() as u64,
                difference: None
            }
        );
        assert!(report.same());
    }
    // Other call limits than the task record states: the task record differs.
    let (bytes, _) = crate::demo::answer().run().unwrap();
    let mut limited = Toolbox::new();
    limited
        .register(crate::demo::Add, ToolOptions::new().limit(1))
        .unwrap();
    let d = driver::replay(&bytes, &mut limited)
        .unwrap()
        .difference
        .unwrap();
    assert_eq!(d.index, 0);
    assert!(d.found.contains(r#""tool_limits":{"add":1}"#), "{d}");
}

#[test]
fn replay_names_the_first_record_a_nondeterministic_tool_changes() {
    let mut tools = Toolbox::new();
    tools.register(ticker(0), ToolOptions::new()).unwrap();
    let replies = vec![call("tick", "{}"), call("tick", "{}"), Reply::new("done")];
    let r = run(Budgets::default(), replies, &mut tools);
    // The same tool, in the same state: the same records.
    let mut same = Toolbox::new();
    same.register(ticker(0), ToolOptions::new()).unwrap();
    assert!(driver::replay(&r.transcript, &mut same).unwrap().same());
    // One that has run once already: `{"n":2}` where `{"n":1}` was, at seq 2.
    let mut moved = Toolbox::new();
    moved.register(ticker(1), ToolOptions::new()).unwrap();
    let report = driver::replay(&r.transcript, &mut moved).unwrap();
    let d = report.difference.unwrap();
    assert_eq!((d.index, d.seq), (2, Some(2)));
    assert_eq!(
        d.expected,
        r#"{"kind":"tool","payload":{"id":"call_1_0","name":"tick","ok":true,"value":{"n":1}},"seq":2}"#
    );
    assert_eq!(
        d.found,
        r#"writes {"kind":"tool","payload":{"id":"call_1_0","name":"tick","ok":true,"value":{"n":2}},"seq":2}"#
    );
    assert_eq!(report.records, 7);
}

#[test]
fn replay_takes_a_lost_result_as_recorded_and_runs_the_rest() {
    let case = cases().pop().unwrap();
    let (mut toolbox, _) = case.toolbox(false);
    let budgets = case.budgets.clone();
    let mut full = Vec::new();
    driver::run(
        case.task,
        budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut full,
        driver::RunOptions::default(),
    )
    .unwrap();
    let lines: Vec<&[u8]> = full.split_inclusive(|&b| b == b'\n').collect();
    let cut = lines[..2].concat();
    let mut resumed = cut.clone();
    driver::testing::resume(
        &cut,
        budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut toolbox,
        &mut || false,
        &mut resumed,
    )
    .unwrap();
    let (mut fresh, runs) = case.toolbox(false);
    let report = driver::replay(&resumed, &mut fresh).unwrap();
    assert!(report.same(), "{:?}", report.difference);
    // c ran again; a and b (lost: the turn's unrecorded calls) and d (over the limit)
    // did not.
    assert_eq!(runs.get(), 1);
    // Declared idempotent, the tool would have been run for a: a difference there.
    let (mut idem, _) = case.toolbox(true);
    let report = driver::replay(&resumed, &mut idem).unwrap();
    assert_eq!(report.difference.unwrap().index, 2);
}

#[test]
fn recorded_budgets_read_back_what_the_task_record_states() {
    for scenario in crate::demo::scenarios() {
        let (bytes, _) = scenario.run().unwrap();
        let records = parse_records(&bytes).unwrap();
        assert_eq!(recorded_budgets(&records[0]), Some(scenario.budgets));
        assert_eq!(recorded_budgets(&records[1]), None);
    }
    let sentinel = Budgets {
        max_tool_calls: Some(0),
        max_total_tokens: Some(9),
        stop_sentinel: Some("DONE".into()),
        ..Budgets::default()
    };
    let r = run(
        sentinel.clone(),
        vec![Reply::new("DONE")],
        &mut demo_tools(),
    );
    let records = parse_records(&r.transcript).unwrap();
    assert_eq!(recorded_budgets(&records[0]), Some(sentinel));
    let bad = j(r#"{"kind":"task","payload":{"task":"t","budgets":{"max_steps":1.5}}}"#);
    assert_eq!(recorded_budgets(&bad), None);
    let bad = j(r#"{"kind":"task","payload":{"task":"t","budgets":{"max_total_tokens":-1}}}"#);
    assert_eq!(recorded_budgets(&bad), None);
}

#[test]
fn a_transcript_on_an_anchored_chain_resumes_on_it() {
    let anchor = Anchor {
        seq0: 7,
        prev0: crate::hash::Hash([0xab; 32]),
    };
    let case = &cases()[0];
    let mut full = Vec::new();
    driver::testing::run_on(
        &mut Chain::from_anchor(anchor),
        case.task,
        case.budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut demo_tools(),
        &mut || false,
        &mut full,
    )
    .unwrap();
    let lines: Vec<&[u8]> = full.split_inclusive(|&b| b == b'\n').collect();
    let cut = lines[..3].concat();
    let mut out = cut.clone();
    driver::testing::resume_at(
        anchor,
        &cut,
        case.budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut demo_tools(),
        &mut || false,
        &mut out,
        driver::RunOptions::default(),
    )
    .unwrap();
    assert_eq!(out, full);
    // Read from (0, zeros), its chain does not verify: refused, nothing written.
    let mut nothing = Vec::new();
    let err = driver::testing::resume(
        &cut,
        case.budgets.clone(),
        &mut ByTurn::new(&case.replies),
        &mut demo_tools(),
        &mut || false,
        &mut nothing,
    )
    .unwrap_err();
    assert!(matches!(err.0, OpenErrorKind::Transcript(_)), "{err}");
    assert!(nothing.is_empty());
}
