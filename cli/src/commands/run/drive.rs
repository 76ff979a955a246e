//! The loop, driven over the sans-I/O [`Agent`] as `agentloop_core::driver` drives it
//! — every record appended and shown before the model, a tool or the cancel flag is
//! consulted again — with one difference: a model turn being awaited is abandoned when
//! the cancel flag is set ([`Agent::cancel`]), so Ctrl-C stops the run at once.

use std::sync::atomic::{AtomicBool, Ordering};

use agentloop_core::agent::{Agent, Need, Outcome, Record};
use agentloop_core::chain::Chain;
use agentloop_core::durable::Appended;
use agentloop_core::json::Value;
use agentloop_core::model::ToolCall;
use agentloop_core::tools::{ToolError, Toolbox};

use super::remote::{Answer, Ask};

/// Where each record goes: appended to the transcript, then shown. An error stops the
/// run (the transcript ends at the last record appended).
pub trait Records {
    /// The error that stops the run.
    type Error;
    /// Appends `line` (record `record`, built by the chain) to the transcript.
    fn append(&mut self, record: &Record, line: &[u8]) -> Result<Appended, Self::Error>;
    /// Shows the record just appended; `agent` has taken it (its counts include it).
    fn show(
        &mut self,
        record: &Record,
        appended: &Appended,
        agent: &Agent,
    ) -> Result<(), Self::Error>;
    /// The error for a record the chain refused (its seq passed 2^53 − 1), or a feed
    /// out of turn (a bug): the sentence.
    fn refused(&mut self, record: Option<&Record>, why: String) -> Self::Error;
}

/// Runs `agent` to its end: writes its pending records, then answers each need.
pub fn drive<R: Records>(
    agent: &mut Agent,
    chain: &mut Chain,
    model: &mut dyn Ask,
    toolbox: &mut Toolbox,
    cancel: &AtomicBool,
    records: &mut R,
) -> Result<Outcome, R::Error> {
    loop {
        write(agent, chain, records)?;
        let fed = match agent.poll_with(&mut || cancel.load(Ordering::SeqCst)) {
            Need::ModelReply { messages, .. } => match model.ask(messages, cancel) {
                Answer::Reply(reply) => agent.feed_reply(reply),
                Answer::Cancelled => {
                    agent.cancel();
                    Ok(())
                }
            },
            Need::ToolResult { call } => {
                let result = call_tool(toolbox, &call);
                agent.feed_tool_result(result)
            }
            Need::TakeRecords => Ok(()),
            Need::Done(outcome) => {
                write(agent, chain, records)?;
                return Ok(outcome);
            }
        };
        if let Err(e) = fed {
            return Err(records.refused(None, format!("the loop was fed out of turn: {e}")));
        }
    }
}

/// Appends and shows the agent's pending records, in order.
fn write<R: Records>(
    agent: &mut Agent,
    chain: &mut Chain,
    records: &mut R,
) -> Result<(), R::Error> {
    for record in agent.take_records() {
        let line = match chain.append(record.kind.as_str(), &record.payload) {
            Ok(line) => line,
            Err(e) => return Err(records.refused(Some(&record), e.to_string())),
        };
        let appended = records.append(&record, line)?;
        records.show(&record, &appended, agent)?;
    }
    Ok(())
}

/// Runs one call; a tool that panics fails the call (as the core's driver does).
fn call_tool(toolbox: &mut Toolbox, call: &ToolCall) -> Result<Value, ToolError> {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    catch_unwind(AssertUnwindSafe(|| {
        toolbox.call(&call.name, &call.arguments)
    }))
    .unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a non-string panic payload");
        Err(ToolError::new(format!("panicked: {message}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::agent::{Budgets, StopReason};
    use agentloop_core::model::{Message, Model, Reply, Scripted};
    use agentloop_core::sink::RecordSink;
    use agentloop_core::{demo, driver, json, verify};

    /// Appends to memory; shows nothing.
    #[derive(Default)]
    struct Memory {
        bytes: Vec<u8>,
        shown: Vec<(u64, String, u64)>,
    }

    impl Records for Memory {
        type Error = String;
        fn append(&mut self, _: &Record, line: &[u8]) -> Result<Appended, String> {
            self.bytes.extend_from_slice(line);
            let report = verify::verify_bytes(&self.bytes, &verify::Options::default());
            Ok(Appended {
                seq: report.count - 1,
                head: report.head.ok_or("no head")?,
            })
        }
        fn show(
            &mut self,
            record: &Record,
            appended: &Appended,
            agent: &Agent,
        ) -> Result<(), String> {
            assert_eq!(record.seq, appended.seq);
            self.shown
                .push((appended.seq, record.kind.as_str().to_owned(), agent.steps()));
            Ok(())
        }
        fn refused(&mut self, _: Option<&Record>, why: String) -> String {
            why
        }
    }

    /// A scripted model asked directly (no thread), cancelling at turn `cancel_at`.
    struct Direct {
        model: Scripted,
        asked: usize,
        cancel_at: Option<usize>,
    }

    impl Ask for Direct {
        fn ask(&mut self, messages: &[Message], _: &AtomicBool) -> Answer {
            self.asked += 1;
            if Some(self.asked) == self.cancel_at {
                return Answer::Cancelled;
            }
            Answer::Reply(self.model.reply(messages, &[]))
        }
    }

    fn replies() -> Vec<Reply> {
        let args = |text: &str| json::parse(text.as_bytes()).unwrap();
        vec![
            Reply::new("adding").with_call("add", args(r#"{"a":2,"b":40}"#)),
            Reply::new("").with_call("fail", args("{}")),
            Reply::new("42"),
        ]
    }

    /// The bytes this loop writes are the core driver's, byte for byte.
    #[test]
    fn writes_what_the_core_driver_writes() {
        let budgets = Budgets {
            max_steps: Some(5),
            ..Budgets::default()
        };
        let mut expected = Vec::new();
        let mut tools = demo::toolbox().unwrap();
        driver::run(
            "add 2 and 40",
            budgets.clone(),
            &mut Scripted::new(replies()),
            &mut tools,
            &mut || false,
            &mut expected as &mut dyn RecordSink,
        )
        .unwrap();

        let mut tools = demo::toolbox().unwrap();
        let mut agent = Agent::new("add 2 and 40", budgets, tools.manifest().clone()).unwrap();
        let mut memory = Memory::default();
        let mut model = Direct {
            model: Scripted::new(replies()),
            asked: 0,
            cancel_at: None,
        };
        let outcome = drive(
            &mut agent,
            &mut Chain::new(),
            &mut model,
            &mut tools,
            &AtomicBool::new(false),
            &mut memory,
        )
        .unwrap();
        assert_eq!(outcome.reason, StopReason::NoToolCalls);
        assert_eq!(memory.bytes, expected);
        let kinds: Vec<&str> = memory.shown.iter().map(|(_, k, _)| k.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "task",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant",
                "stop"
            ]
        );
        // Each record is shown with the counts that include it.
        let turns: Vec<u64> = memory.shown.iter().map(|(_, _, t)| *t).collect();
        assert_eq!(turns, [0, 1, 1, 2, 2, 3, 3]);
    }

    /// A turn abandoned is a `cancelled` stop with no assistant record for it.
    #[test]
    fn an_abandoned_turn_stops_the_run_as_cancelled() {
        let mut tools = demo::toolbox().unwrap();
        let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
        let mut memory = Memory::default();
        let mut model = Direct {
            model: Scripted::new(replies()),
            asked: 0,
            cancel_at: Some(2),
        };
        let outcome = drive(
            &mut agent,
            &mut Chain::new(),
            &mut model,
            &mut tools,
            &AtomicBool::new(false),
            &mut memory,
        )
        .unwrap();
        assert_eq!(outcome.reason, StopReason::Cancelled);
        assert_eq!((outcome.steps, outcome.unrun_calls), (1, 0));
        let kinds: Vec<&str> = memory.shown.iter().map(|(_, k, _)| k.as_str()).collect();
        assert_eq!(kinds, ["task", "assistant", "tool", "stop"]);
        let report =
            agentloop_core::audit::verify_loop_bytes(&memory.bytes, &verify::Options::default());
        assert!(report.ok(), "{:?}", report.faults);
    }

    /// A set flag stops the run at its next check point, before a call.
    #[test]
    fn a_set_flag_stops_the_run_before_the_next_call() {
        let mut tools = demo::toolbox().unwrap();
        let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
        let mut memory = Memory::default();
        // A model that sets the flag while it answers: the turn is recorded, its call
        // is not run.
        struct SetsFlag(Scripted);
        impl Ask for SetsFlag {
            fn ask(&mut self, messages: &[Message], cancel: &AtomicBool) -> Answer {
                cancel.store(true, Ordering::SeqCst);
                Answer::Reply(self.0.reply(messages, &[]))
            }
        }
        let outcome = drive(
            &mut agent,
            &mut Chain::new(),
            &mut SetsFlag(Scripted::new(replies())),
            &mut tools,
            &AtomicBool::new(false),
            &mut memory,
        )
        .unwrap();
        assert_eq!(outcome.reason, StopReason::Cancelled);
        assert_eq!(
            (outcome.steps, outcome.unrun_calls, outcome.tool_calls),
            (1, 1, 0)
        );
    }

    /// An error from the records' side stops the run there.
    #[test]
    fn a_record_that_cannot_be_appended_stops_the_run() {
        struct Full(usize);
        impl Records for Full {
            type Error = String;
            fn append(&mut self, record: &Record, _: &[u8]) -> Result<Appended, String> {
                if self.0 == 0 {
                    return Err(format!("no room for seq {}", record.seq));
                }
                self.0 -= 1;
                Ok(Appended {
                    seq: record.seq,
                    head: agentloop_core::Hash::ZERO,
                })
            }
            fn show(&mut self, _: &Record, _: &Appended, _: &Agent) -> Result<(), String> {
                Ok(())
            }
            fn refused(&mut self, _: Option<&Record>, why: String) -> String {
                why
            }
        }
        let mut tools = demo::toolbox().unwrap();
        let mut agent = Agent::new("t", Budgets::default(), tools.manifest().clone()).unwrap();
        let mut model = Direct {
            model: Scripted::new(replies()),
            asked: 0,
            cancel_at: None,
        };
        let error = drive(
            &mut agent,
            &mut Chain::new(),
            &mut model,
            &mut tools,
            &AtomicBool::new(false),
            &mut Full(2),
        )
        .unwrap_err();
        assert_eq!(error, "no room for seq 2");
        // The tool of that turn was not run: the model was asked once.
        assert_eq!(model.asked, 1);
    }

    /// A panicking tool fails its call; the run goes on.
    #[test]
    fn a_tool_that_panics_fails_its_call() {
        struct Boom;
        impl agentloop_core::tools::Tool for Boom {
            fn spec(&self) -> agentloop_core::tools::ToolSpec {
                agentloop_core::tools::ToolSpec::new(
                    "boom",
                    "panics",
                    json::parse(br#"{"type":"object"}"#).unwrap(),
                )
            }
            fn call(&mut self, _: &Value) -> Result<Value, ToolError> {
                panic!("kaboom")
            }
        }
        let mut tools = Toolbox::new();
        tools.register(Boom).unwrap();
        let call = ToolCall {
            id: String::from("call_1_0"),
            name: String::from("boom"),
            arguments: json::parse(b"{}").unwrap(),
        };
        let error = call_tool(&mut tools, &call).unwrap_err();
        assert_eq!(error.message(), "panicked: kaboom");
    }
}
