//! The driver: errors, records handed over with their counts, a turn abandoned when
//! the run is cancelled while it is awaited.

use super::*;
use crate::tools::ToolOptions;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::testing::resume;

use crate::agent::SetupErrorKind;
use crate::agent::{Record, StopReason};
use crate::audit::verify_loop_bytes;
use crate::demo;
use crate::json::{parse, Value};
use crate::model::{Message, ModelError, Reply, Scripted};
use crate::tools::ToolSpec;
use crate::verify;
use crate::vocabulary::BudgetErrorKind;

#[test]
fn run_errors_name_the_step_that_failed_and_why() {
    assert_eq!(
        RunError::Sink(SinkError::Full).to_string(),
        "a record could not be written: the record sink is full"
    );
    let budgets = RunError::Budgets(BudgetErrorKind::EmptySentinel.into()).to_string();
    assert!(
        budgets.starts_with("the budgets were refused: "),
        "{budgets}"
    );
}

fn j(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

/// A turn of three calls (one of them failing), then the answer.
fn replies() -> Vec<Reply> {
    vec![
        Reply::new("three at once")
            .with_call("add", j(r#"{"a":2,"b":40}"#))
            .with_call("echo", j(r#"{"text":"hi"}"#))
            .with_call("fail", j(r#"{"n":1}"#)),
        Reply::new("42"),
    ]
}

/// Every record handed over: its seq and kind, its line, the counts as of it.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    seen: Vec<(u64, String, Counts)>,
}

impl OnRecord for Kept {
    fn on_record(
        &mut self,
        record: &Record,
        logged: &Logged<'_>,
        counts: Counts,
    ) -> Result<(), SinkError> {
        assert_eq!(logged.seq, record.seq);
        self.bytes.extend_from_slice(logged.line);
        self.seen
            .push((record.seq, record.kind.as_str().to_string(), counts));
        Ok(())
    }
}

/// The counts the tests expect: (steps, tool_calls) per record.
fn steps_and_tools(kept: &Kept) -> Vec<(&str, u64, u64)> {
    kept.seen
        .iter()
        .map(|(_, kind, c)| (kind.as_str(), c.steps, c.tool_calls))
        .collect()
}

/// [`drive`] hands over every record in order, each line the one [`run`] writes and
/// each with the counts as of it — also when a batch's three `tool` records come out
/// together (they would all show three calls if the agent's counts were taken as
/// they are after the batch).
#[test]
fn each_record_is_handed_over_with_its_line_and_the_counts_as_of_it() {
    let mut expected = Vec::new();
    run(
        "t",
        Budgets::default(),
        &mut Scripted::new(replies()),
        &mut demo::toolbox().unwrap(),
        &mut || false,
        &mut expected,
        RunOptions::default(),
    )
    .unwrap();
    for parallel in [1, 8] {
        let mut tools = demo::toolbox().unwrap();
        let mut agent =
            Agent::with_first_seq(0, "t", Budgets::default(), tools.manifest().clone()).unwrap();
        let mut kept = Kept::default();
        let outcome = drive(
            &mut agent,
            Io {
                log: &mut Chain::new(),
                model: &mut Scripted::new(replies()),
                toolbox: &mut tools,
                cancel: &mut || false,
                records: &mut kept,
                changes: None,
            },
            RunOptions { parallel },
        )
        .unwrap();
        assert_eq!(outcome.reason, StopReason::NoToolCalls);
        assert_eq!(kept.bytes, expected, "parallel {parallel}");
        let seqs: Vec<u64> = kept.seen.iter().map(|(seq, _, _)| *seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            steps_and_tools(&kept),
            [
                ("task", 0, 0),
                ("assistant", 1, 0),
                ("tool", 1, 1),
                ("tool", 1, 2),
                ("tool", 1, 3),
                ("assistant", 2, 3),
                ("stop", 2, 3),
            ],
            "parallel {parallel}"
        );
        let tokens: Vec<u64> = kept.seen.iter().map(|(_, _, c)| c.tokens).collect();
        assert_eq!(tokens[0], 0);
        assert!(tokens[1] > 0 && tokens[1] < tokens[5], "{tokens:?}");
    }
}

/// A records side that refuses record 2 stops the run there: that turn's calls are
/// not run (the model was asked once), whatever `parallel` is.
#[test]
fn a_record_that_is_refused_stops_the_run_before_anything_else_is_called() {
    struct Refuses(usize);
    impl OnRecord for Refuses {
        fn on_record(
            &mut self,
            record: &Record,
            _: &Logged<'_>,
            _: Counts,
        ) -> Result<(), SinkError> {
            self.0 += 1;
            match record.seq {
                2 => Err(SinkError::Refused),
                _ => Ok(()),
            }
        }
    }
    for parallel in [1, 8] {
        let ran = alloc::sync::Arc::new(crate::heap::test_cells::Cell::new(0));
        let mut tools = Toolbox::new();
        let spec = ToolSpec::new("add", "adds", j(r#"{"type":"object"}"#));
        let counter = alloc::sync::Arc::clone(&ran);
        tools
            .register(
                crate::tools::FnTool::new(spec, move |_: &Value| {
                    counter.set(counter.get() + 1);
                    Ok(Value::Null)
                }),
                ToolOptions::new(),
            )
            .unwrap();
        let mut agent =
            Agent::with_first_seq(0, "t", Budgets::default(), tools.manifest().clone()).unwrap();
        let mut refuses = Refuses(0);
        let error = drive(
            &mut agent,
            Io {
                log: &mut Chain::new(),
                model: &mut Scripted::new([
                    Reply::new("").with_call("add", j("{}")),
                    Reply::new("").with_call("add", j("{}")),
                ]),
                toolbox: &mut tools,
                cancel: &mut || false,
                records: &mut refuses,
                changes: None,
            },
            RunOptions { parallel },
        )
        .unwrap_err();
        assert_eq!(error, RunError::Sink(SinkError::Refused));
        // Records 0 and 1 taken, 2 (the first call's result) refused: one call ran.
        assert_eq!((refuses.0, ran.get()), (3, 1), "parallel {parallel}");
    }
}

/// The default [`Model::reply_unless_cancelled`] asks [`Model::reply`] and never
/// `cancel`.
#[test]
fn a_model_that_does_not_wait_never_abandons_a_turn() {
    let mut model = Scripted::new([Reply::new("hello")]);
    let mut asked = 0;
    let answer = model.reply_unless_cancelled(&[], &[], &mut || {
        asked += 1;
        true
    });
    assert_eq!(answer, Answer::Reply(Ok(Reply::new("hello"))));
    assert_eq!(asked, 0);
}

/// The run is cancelled while the model's second turn is awaited: the model, which
/// waits until `cancel` says so (it never answers otherwise), abandons the turn; the
/// run stops as cancelled with no record of that turn, the transcript passes the loop
/// audit, and [`resume`] finishes it. No clock: the flag is set by another thread
/// once the model says it is waiting, and the model waits on `cancel` alone.
#[cfg(feature = "std")]
#[test]
fn a_turn_being_awaited_is_abandoned_when_the_run_is_cancelled() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::sync::Arc;

    /// Answers the first turn; at the second, says it waits, then waits for `cancel`.
    struct Waits {
        turns: usize,
        waiting: mpsc::Sender<()>,
    }

    impl Model for Waits {
        fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
            Err(ModelError::new(
                "the driver must ask through reply_unless_cancelled",
            ))
        }

        fn reply_unless_cancelled(
            &mut self,
            messages: &[Message],
            manifest: &[ToolSpec],
            cancel: &mut dyn FnMut() -> bool,
        ) -> Answer {
            self.turns += 1;
            if self.turns == 1 {
                return Answer::Reply(Scripted::new(replies()).reply(messages, manifest));
            }
            let _ = self.waiting.send(());
            while !cancel() {
                std::thread::yield_now();
            }
            Answer::Abandoned
        }
    }

    for parallel in [1, 8] {
        let flag = Arc::new(AtomicBool::new(false));
        let (waiting, waited) = mpsc::channel();
        let setter = {
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || {
                if waited.recv().is_ok() {
                    flag.store(true, Ordering::SeqCst);
                }
            })
        };
        let mut transcript = Vec::new();
        let outcome = run(
            "t",
            Budgets::default(),
            &mut Waits { turns: 0, waiting },
            &mut demo::toolbox().unwrap(),
            &mut || flag.load(Ordering::SeqCst),
            &mut transcript,
            RunOptions { parallel },
        )
        .unwrap();
        setter.join().unwrap();
        assert_eq!(outcome.reason, StopReason::Cancelled, "parallel {parallel}");
        assert_eq!(
            (outcome.steps, outcome.tool_calls, outcome.unrun_calls),
            (1, 3, 0)
        );
        let kinds: Vec<String> = crate::export::parse_records(&transcript)
            .unwrap()
            .iter()
            .map(|r| {
                let kind = r.as_object().unwrap().get("kind").unwrap();
                kind.as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(kinds, ["task", "assistant", "tool", "tool", "tool", "stop"]);
        let report = verify_loop_bytes(&transcript, &verify::Options::default());
        assert!(report.ok(), "{:?}", report.faults);

        // Resumed, the turn is asked for again and the run ends as the model says.
        let mut resumed = transcript.clone();
        let outcome = super::testing::resume_at(
            crate::Anchor::GENESIS,
            &transcript,
            Budgets::default(),
            &mut Scripted::new([Reply::new("42")]),
            &mut demo::toolbox().unwrap(),
            &mut || false,
            &mut resumed,
            RunOptions { parallel },
        )
        .unwrap();
        assert_eq!(outcome.reason, StopReason::NoToolCalls);
        let report = verify_loop_bytes(&resumed, &verify::Options::default());
        assert!(report.ok(), "{:?}", report.faults);
    }
}

/// A cancellation during a batch: whenever `cancel` first says `true` (at its n-th
/// ask), the transcript is the one-at-a-time run's — the calls started before it
/// finish and are recorded, no other call starts (every call that ran is recorded),
/// and the rest are unrun — whatever `parallel` is.
#[cfg(feature = "std")]
#[test]
fn a_cancellation_during_a_batch_stops_it_as_one_at_a_time_does() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let reply = || {
        let mut reply = Reply::new("four at once");
        for n in 0..4 {
            reply = reply.with_call("count", j(&alloc::format!(r#"{{"n":{n}}}"#)));
        }
        vec![reply, Reply::new("done")]
    };
    let run_cancelled_at = |parallel: usize, at: usize| {
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&ran);
        let mut tools = Toolbox::new();
        let spec = ToolSpec::new("count", "counts", j(r#"{"type":"object"}"#));
        tools
            .register(
                crate::tools::FnTool::new(spec, move |a: &Value| {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Ok(a.clone())
                }),
                ToolOptions::new().concurrent(),
            )
            .unwrap();
        let mut asked = 0;
        let mut transcript = Vec::new();
        let outcome = run(
            "t",
            Budgets::default(),
            &mut Scripted::new(reply()),
            &mut tools,
            &mut || {
                asked += 1;
                asked >= at
            },
            &mut transcript,
            RunOptions { parallel },
        )
        .unwrap();
        (transcript, outcome, ran.load(Ordering::SeqCst))
    };
    for at in 1..=7 {
        let (want, outcome, ran) = run_cancelled_at(1, at);
        assert_eq!(ran as u64, outcome.tool_calls, "cancelled at ask {at}");
        for parallel in [2, 3, 8] {
            let (got, outcome, ran) = run_cancelled_at(parallel, at);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(want.clone()).unwrap(),
                "parallel {parallel}, cancelled at ask {at}"
            );
            // Every call that ran is recorded.
            assert_eq!(
                ran as u64, outcome.tool_calls,
                "parallel {parallel}, at {at}"
            );
        }
        if at == 3 {
            // Before the second call: the first ran, three are unrun.
            assert_eq!(
                (outcome.reason, outcome.tool_calls, outcome.unrun_calls),
                (StopReason::Cancelled, 1, 3)
            );
        }
    }
}

/// Records too large for one line ([`verify::MAX_LINE_BYTES`]) end a run the same way
/// whatever `parallel` is: two results too large become `ok:false` records, a reply too
/// large stops the run with `model_error`. The transcript passes the loop audit; a
/// replay runs the tool again with no difference; a resume follows the records and
/// goes on after the `stop`.
#[test]
fn records_too_large_for_a_line_end_the_run_the_same_whatever_parallel_is() {
    let big = || Value::from("b".repeat(verify::MAX_LINE_BYTES).as_str());
    let tools = || {
        let mut tools = Toolbox::new();
        let spec = ToolSpec::new("big", "a large result", j(r#"{"type":"object"}"#));
        tools
            .register(
                crate::tools::FnTool::new(spec, move |_: &Value| Ok(big())),
                ToolOptions::new(),
            )
            .unwrap();
        tools
    };
    let replies = || {
        let mut arguments = crate::json::Object::new();
        arguments.insert("s", big());
        vec![
            Reply::new("two")
                .with_call("big", j("{}"))
                .with_call("big", j("{}")),
            Reply::new("").with_call("big", Value::Object(arguments)),
        ]
    };
    let mut first: Option<Vec<u8>> = None;
    for parallel in [1, 8] {
        let mut transcript = Vec::new();
        let outcome = run(
            "t",
            Budgets::default(),
            &mut Scripted::new(replies()),
            &mut tools(),
            &mut || false,
            &mut transcript,
            RunOptions { parallel },
        )
        .unwrap();
        assert_eq!(
            (outcome.reason, outcome.steps, outcome.tool_calls),
            (StopReason::ModelError, 1, 2)
        );
        let error = outcome.error.unwrap();
        assert!(
            error.starts_with("the model's reply is too large for one record ("),
            "{error}"
        );
        match &first {
            Some(bytes) => assert!(*bytes == transcript, "parallel {parallel}"),
            None => first = Some(transcript),
        }
    }
    let transcript = first.unwrap();
    let report = verify_loop_bytes(&transcript, &verify::Options::default());
    assert!(report.ok(), "{:?}", report.faults);
    let replayed = replay(&transcript, &mut tools()).unwrap();
    assert_eq!(replayed.difference, None);
    let mut resumed = transcript.clone();
    let outcome = resume(
        &transcript,
        Budgets::default(),
        &mut Scripted::new([Reply::new("done")]),
        &mut tools(),
        &mut || false,
        &mut resumed,
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    let report = verify_loop_bytes(&resumed, &verify::Options::default());
    assert!(report.ok(), "{:?}", report.faults);
}

/// The demo tools but `echo`, and the setup offering them.
fn without_echo() -> (Toolbox, crate::vocabulary::Setup) {
    let mut toolbox = Toolbox::new();
    for tool in demo::all_tools() {
        if tool.spec().name != "echo" {
            toolbox.register(tool, ToolOptions::new()).unwrap();
        }
    }
    let setup = crate::vocabulary::Setup {
        tools: crate::vocabulary::OfferedTool::from_manifest(toolbox.manifest()),
        ..Default::default()
    };
    (toolbox, setup)
}

/// [`Io::changes`]: a change the host reports before the second turn is recorded
/// before it, and the tools it drops are refused as unknown from then on; a change the
/// agent refuses stops the driver and keeps the toolbox in use.
#[test]
fn a_change_of_tools_before_a_turn_is_recorded_before_it_and_followed() {
    let replies = vec![
        Reply::new("").with_call("echo", j(r#"{"text":"hi"}"#)),
        Reply::new("").with_call("echo", j(r#"{"text":"again"}"#)),
        Reply::new("done"),
    ];
    let mut tools = demo::toolbox().unwrap();
    let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
    let mut kept = Kept::default();
    let mut asked = 0;
    let outcome = drive(
        &mut agent,
        Io {
            log: &mut Chain::new(),
            model: &mut Scripted::new(replies),
            toolbox: &mut tools,
            cancel: &mut || false,
            records: &mut kept,
            changes: Some(&mut |_| {
                asked += 1;
                (asked == 2).then(without_echo)
            }),
        },
        RunOptions::default(),
    )
    .unwrap();
    assert_eq!(outcome.reason, StopReason::NoToolCalls);
    let kinds: Vec<&str> = kept.seen.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "task",
            "assistant",
            "tool",
            "setup",
            "assistant",
            "tool",
            "assistant",
            "stop"
        ]
    );
    // Asked before each request, and once more after the change.
    assert_eq!(asked, 4);
    assert!(tools.manifest().names().all(|name| name != "echo"));
    let text = String::from_utf8(kept.bytes.clone()).unwrap();
    assert!(text.contains(r#""error":"no tool named 'echo' (have: add, fail, greet)""#));
    assert!(verify_loop_bytes(&kept.bytes, &verify::Options::default()).ok());

    let mut tools = demo::toolbox().unwrap();
    let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
    let refused = drive(
        &mut agent,
        Io {
            log: &mut Chain::new(),
            model: &mut Scripted::new([Reply::new("done")]),
            toolbox: &mut tools,
            cancel: &mut || false,
            records: &mut Kept::default(),
            changes: Some(&mut |_| {
                let (toolbox, _) = without_echo();
                Some((toolbox, crate::vocabulary::Setup::default()))
            }),
        },
        RunOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(refused, RunError::Setup(ref e) if matches!(e.0, SetupErrorKind::Tools(_))),
        "{refused}"
    );
    assert!(refused
        .to_string()
        .starts_with("the tools could not change between turns: the setup's tools are not"));
    assert_eq!(tools.manifest().len(), 4);
}
