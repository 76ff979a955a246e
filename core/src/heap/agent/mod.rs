//! The loop (SPEC section 4) as a sans-I/O state machine.
//!
//! An [`Agent`] never calls out. The host asks it what it needs next with
//! [`Agent::poll`] — a model reply for these messages, results for these calls, or
//! nothing because the run is over — and feeds the answer back with
//! [`Agent::feed_reply`] or [`Agent::feed_tool_result`]. Each step leaves records to
//! append, drained with [`Agent::take_records`]: take and store them after every poll
//! and feed, before acting on the need. A poll whose check point wrote a record (a
//! refused call) stops there with [`Need::TakeRecords`], so no tool, model or
//! cancellation hook is called while a record is unstored. Async hosts, C event loops and
//! thread-less firmware drive it directly; [`crate::driver`] is a blocking driver over
//! the [`crate::model::Model`] and [`crate::tools::Tool`] traits.
//!
//! ```
//! use agentloop_core::agent::{Agent, Budgets, Need, StopReason};
//! use agentloop_core::model::Reply;
//! use agentloop_core::tools::Manifest;
//!
//! let mut agent = Agent::new("say hi", Budgets::default(), Manifest::new()).unwrap();
//! let never = &mut || false;
//! assert!(matches!(agent.poll(never), Need::ModelReply { .. }));
//! agent.feed_reply(Ok(Reply::new("hi"))).unwrap();
//! let Need::Done(outcome) = agent.poll(never) else { unreachable!() };
//! assert_eq!(outcome.reason, StopReason::NoToolCalls);
//! let kinds: Vec<&str> = agent.take_records().iter().map(|r| r.kind.as_str()).collect();
//! assert_eq!(kinds, ["task", "assistant", "stop"]);
//! ```
//!
//! Order of checks, as the SPEC gives it. Before each turn: cancelled, then
//! `step_budget`. After a reply: record the turn (a failed model writes no `assistant`
//! record; the `stop` record carries its error), then the sentinel, then
//! `no_tool_calls`, then `token_budget` (`max_tokens` or `max_total_tokens` exceeded).
//! Before each call: cancelled, then
//! `tool_budget`, then unknown tool, then the tool's call limit, then the schema; the
//! three refusals are `ok:false` records and the run goes on. A tool's call limit
//! counts the calls it ran (whatever they returned); the tool-call budget counts every
//! `tool` record, refusals included.
//!
//! Every record fits on one line a verifier reads ([`crate::verify::MAX_LINE_BYTES`],
//! 16 MiB), so a run always ends with its `stop` record: a reply whose `assistant`
//! record would be longer is not recorded and stops the run with `model_error` ("the
//! model's reply is too large for one record (N bytes, the limit is L)"); a result
//! whose `tool` record would be longer is recorded as `ok:false` ("the result of tool
//! 'x' is too large for one record (N bytes, the limit is L)") and the run goes on; a
//! `stop` record's error sentence too long for its line is cut, saying so.
//!
//! The calls of a turn are handed out as [`Need::ToolResults`]: one at a time by
//! default, or up to [`Agent::set_parallel`] at once, to run them together. Each call's
//! check point comes in call order just before it is handed out (cancelled,
//! `tool_budget`, unknown tool, the tool's limit counting the calls handed out before
//! it, schema). Results are fed by call id in any order ([`Agent::feed_tool_result`]);
//! records are written strictly in call order (a result for call 3 waits until calls
//! 0–2 are recorded, refusals included), so the transcript is the same bytes whatever
//! the limit.
//!
//! ```
//! use agentloop_core::agent::{Agent, Budgets, Need};
//! use agentloop_core::json::Value;
//! use agentloop_core::model::Reply;
//! use agentloop_core::tools::{Manifest, ToolSpec};
//!
//! let mut manifest = Manifest::new();
//! let schema = agentloop_core::json::parse(br#"{"type":"object"}"#).unwrap();
//! manifest.register(ToolSpec::new("t", "a tool", schema), None).unwrap();
//! let mut agent = Agent::new("two calls", Budgets::default(), manifest).unwrap();
//! agent.set_parallel(2);
//! let never = &mut || false;
//! assert!(matches!(agent.poll(never), Need::ModelReply { .. }));
//! let args = Value::Object(Default::default());
//! let reply = Reply::new("").with_call("t", args.clone()).with_call("t", args);
//! agent.feed_reply(Ok(reply)).unwrap();
//! agent.take_records();
//! let Need::ToolResults { calls } = agent.poll(never) else { unreachable!() };
//! let ids: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
//! assert_eq!(ids, ["call_1_0", "call_1_1"]);
//! // The second result first: it waits for the first.
//! agent.feed_tool_result(&ids[1], Ok(Value::from("b"))).unwrap();
//! assert!(agent.take_records().is_empty());
//! agent.feed_tool_result(&ids[0], Ok(Value::from("a"))).unwrap();
//! let ids: Vec<String> = agent.take_records().iter()
//!     .map(|r| r.payload.as_object().unwrap().get("id").unwrap().as_str().unwrap().into())
//!     .collect();
//! assert_eq!(ids, ["call_1_0", "call_1_1"]);
//! ```

mod budget;
mod checks;
mod fit;
pub(crate) mod follow;
mod need;
mod records;
pub(crate) mod resume;
mod setup;
mod steps;
mod task;
mod turn;
use turn::Turn;
#[cfg(test)]
mod tests;

// Internals the workspace's tests and benches build on (not API).
#[doc(hidden)]
pub use crate::vocabulary::result_lost_sentence;
pub use crate::vocabulary::{call_id, RecordKind, StopReason};
pub use crate::vocabulary::{BudgetError, Budgets};
#[doc(hidden)]
pub use budget::estimate_tokens;
pub use budget::Outcome;
pub(crate) use follow::Difference;
pub(crate) use need::FeedErrorKind;
pub use need::{FeedError, Need};
pub use records::Record;
pub(crate) use resume::recorded_budgets;
pub use resume::ResumeError;
pub(crate) use resume::ResumeErrorKind;
pub use setup::SetupError;
#[cfg(test)]
pub(crate) use setup::SetupErrorKind;
pub use task::TaskError;
// The task's rule, which the agent applies; the CLI and the C ABI apply it before a
// run starts, to refuse a task early. Not API.
#[doc(hidden)]
pub use task::check_task;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::Value;
use crate::model::{Message, ModelError, Reply, ToolCall};
use crate::tools::{Manifest, ToolError};

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// The next check point is before a turn.
    BeforeTurn,
    /// A model reply was asked for.
    AwaitingReply,
    /// The calls of a turn: check points to pass, results awaited.
    Calls(Turn),
    /// The `stop` record is written.
    Done(Outcome),
}

/// The loop's state: budgets, tools, the conversation, counts, and the records not yet
/// taken. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Agent {
    budgets: Budgets,
    manifest: Manifest,
    /// How many times each tool (by manifest index) has run.
    runs: Vec<u64>,
    messages: Vec<Message>,
    records: Vec<Record>,
    next_seq: u64,
    steps: u64,
    tokens: u64,
    /// `tokens` plus the input tokens providers reported, summed over turns.
    total_tokens: u64,
    tool_calls: u64,
    state: State,
    /// The ids of the calls an interrupted run may have started (set by
    /// [`Agent::resume`]: every call of its last turn with no `tool` record): none is
    /// run again unless its tool is idempotent.
    in_flight: Vec<String>,
    /// How many calls may wait for their results at once ([`Agent::set_parallel`]).
    parallel: usize,
    /// Each limited tool's most runs, as the `task` record states them: the limits of
    /// every manifest offered later ([`Agent::change_setup`]).
    tool_limits: BTreeMap<String, u64>,
}

impl Agent {
    /// An agent for `task` whose records start at seq 0. The `task` record is ready at
    /// once ([`Agent::take_records`]).
    pub fn new(task: &str, budgets: Budgets, manifest: Manifest) -> Result<Agent, BudgetError> {
        Agent::with_first_seq(0, task, budgets, manifest)
    }

    /// An agent whose first record (the `task`) will have `seq = first_seq`: for a
    /// chain anchored elsewhere. Call ids derive from these seqs.
    pub fn with_first_seq(
        first_seq: u64,
        task: &str,
        budgets: Budgets,
        manifest: Manifest,
    ) -> Result<Agent, BudgetError> {
        budgets.check()?;
        let payload = records::task(task, &budgets, &manifest);
        let tool_limits = manifest
            .limits()
            .map(|(name, limit)| (String::from(name), limit))
            .collect();
        let mut agent = Agent {
            runs: alloc::vec![0; manifest.len()],
            budgets,
            manifest,
            messages: alloc::vec![Message::User { text: task.into() }],
            records: Vec::new(),
            next_seq: first_seq,
            steps: 0,
            tokens: 0,
            total_tokens: 0,
            tool_calls: 0,
            state: State::BeforeTurn,
            in_flight: Vec::new(),
            parallel: 1,
            tool_limits,
        };
        agent.push_record(RecordKind::Task, payload);
        Ok(agent)
    }

    /// What the agent needs next, running every check point it reaches until one
    /// writes a record ([`Need::TakeRecords`]) or the loop needs something. `cancel` is
    /// the host's cancellation hook (`&mut || false` for none; [`Agent::cancel`] stops
    /// the run from outside a poll): asked exactly once at each check point reached —
    /// before a turn, before each call is handed out — in order, and `true` stops the
    /// run with `cancelled`. This is how a host adds a wall-clock deadline without a
    /// clock in the core. Polling again without feeding anything returns the same
    /// need (or, for calls, hands out more up to [`Agent::set_parallel`]).
    ///
    /// At most once, by construction: a host that takes and stores the records after
    /// every poll and feed, before acting on the need, has every record on disk
    /// before it calls out again.
    pub fn poll(&mut self, cancel: &mut dyn FnMut() -> bool) -> Need<'_> {
        loop {
            if self.at_check_point() {
                let written = self.records.len();
                self.check_point(cancel);
                // A check point that wrote a record and did not end the run: the
                // next one asks `cancel`, and may hand out a call or ask the model.
                if self.records.len() > written && !matches!(self.state, State::Done(_)) {
                    return Need::TakeRecords;
                }
                continue;
            }
            if matches!(&self.state, State::Calls(turn) if turn.waiting.is_empty()) {
                // Unreachable: a turn with nothing to decide or await is over. Stop
                // rather than spin.
                self.cancel();
            }
            return match &self.state {
                State::AwaitingReply => Need::ModelReply {
                    messages: &self.messages,
                    manifest: self.manifest.specs(),
                },
                State::Calls(turn) => Need::ToolResults {
                    calls: &turn.waiting,
                },
                State::Done(outcome) => Need::Done(outcome.clone()),
                // Left above: a check point.
                State::BeforeTurn => Need::TakeRecords,
            };
        }
    }

    /// Feeds the model's answer to the reply asked for.
    pub fn feed_reply(&mut self, reply: Result<Reply, ModelError>) -> Result<(), FeedError> {
        match self.state {
            State::AwaitingReply => {}
            State::Done(_) => return Err(FeedErrorKind::Finished.into()),
            _ => return Err(FeedErrorKind::NotAwaitingReply.into()),
        }
        match reply {
            Err(error) => {
                let sentence = if error.message().is_empty() {
                    String::from("the model failed without saying why")
                } else {
                    String::from(error.message())
                };
                self.model_error(sentence);
            }
            Ok(reply) => match checks::reply(&reply) {
                Ok(tokens) => self.record_turn(reply, tokens),
                Err(sentence) => self.model_error(sentence),
            },
        }
        Ok(())
    }

    /// Feeds the result of the waiting call `call_id` as any `O: Serialize` (feature
    /// `serde`), as [`Agent::feed_tool_result`] feeds a value: for a host that runs
    /// calls itself with typed results ([`ToolCall::arguments_as`] reads the
    /// arguments). A result that cannot be a JSON value (an inexact integer, NaN, … see
    /// [`crate::json::to_value`]) is fed as the tool's failure, saying why and where, so
    /// the record says what happened.
    #[cfg(feature = "serde")]
    pub fn feed_tool_output<O: serde::Serialize>(
        &mut self,
        call_id: &str,
        result: Result<O, ToolError>,
    ) -> Result<(), FeedError> {
        self.feed_tool_result(call_id, crate::tools::output_value(result))
    }

    /// The host's cancellation: stops the run now, as the next check point would. A
    /// reply or result asked for and not yet fed is abandoned (an abandoned call gets
    /// no `tool` record and counts as unrun). Does nothing once the run has stopped.
    ///
    /// In a turn, the results already fed are kept: every call up to the last one
    /// whose result was fed is recorded, in call order (with the refusals decided
    /// after it, up to the first call not decided or still waiting), and a call among
    /// them still waiting for its result (handed out, so it may have run) gets an
    /// `ok:false` record saying its result was lost, as a call interrupted by a crash
    /// does on resume — never "unrun" while a later call's result is recorded. The
    /// calls after those are abandoned and count as unrun.
    pub fn cancel(&mut self) {
        let unrun = match core::mem::replace(&mut self.state, State::BeforeTurn) {
            State::Done(outcome) => {
                self.state = State::Done(outcome);
                return;
            }
            State::BeforeTurn | State::AwaitingReply => 0,
            State::Calls(turn) => self.cancel_turn(turn),
        };
        self.finish(StopReason::Cancelled, unrun, None);
    }

    /// Drains the records produced so far, in order.
    pub fn take_records(&mut self) -> Vec<Record> {
        core::mem::take(&mut self.records)
    }

    /// The outcome, once the run has stopped.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.state {
            State::Done(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// The conversation so far, the task first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The `seq` the next record will have.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Assistant turns recorded so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Tokens counted so far.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// Tokens in and out counted so far: [`Agent::tokens`] plus the input tokens the
    /// providers reported ([`crate::model::ProviderReport::input_tokens`]); what
    /// `max_total_tokens` bounds.
    pub fn total_tokens(&self) -> u64 {
        self.total_tokens
    }

    /// `tool` records written so far.
    pub fn tool_calls(&self) -> u64 {
        self.tool_calls
    }

    /// The calls handed out whose results have not been fed, in call order (those of
    /// [`Need::ToolResults`]); empty when no tool result is awaited. Reading it runs
    /// no check point.
    pub fn waiting_calls(&self) -> &[ToolCall] {
        match &self.state {
            State::Calls(turn) => &turn.waiting,
            _ => &[],
        }
    }

    /// The ids of every call an interrupted run may have started whose check point is
    /// not reached yet, in call order: see [`Agent::resume`].
    pub fn in_flight_calls(&self) -> &[String] {
        &self.in_flight
    }
}
