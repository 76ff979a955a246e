//! The loop (SPEC section 4) as a sans-I/O state machine.
//!
//! An [`Agent`] never calls out. The host asks it what it needs next with
//! [`Agent::poll`] — a model reply for these messages, a tool result for this call, or
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
//! assert!(matches!(agent.poll(), Need::ModelReply { .. }));
//! agent.feed_reply(Ok(Reply::new("hi"))).unwrap();
//! let Need::Done(outcome) = agent.poll() else { unreachable!() };
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
//! A turn's calls can also be taken all at once, to run them together:
//! [`Agent::poll_batch_with`] asks the host's cancellation once before the batch, then
//! decides every call of the turn up front exactly as the one-at-a-time path would
//! (`tool_budget`, unknown tool, the tool's limit counting the earlier calls of the
//! batch, schema), and hands out the calls that may run ([`BatchNeed::ToolResults`]).
//! Results are fed by call id in any order ([`Agent::feed_tool_result`]); records
//! are written strictly in call order (a result for call 3 waits until calls 0–2 are
//! recorded, refusals included), so the transcript is the same bytes either way.
//!
//! ```
//! use agentloop_core::agent::{Agent, BatchNeed, Budgets};
//! use agentloop_core::json::Value;
//! use agentloop_core::model::Reply;
//! use agentloop_core::tools::{Manifest, ToolSpec};
//!
//! let mut manifest = Manifest::new();
//! let schema = agentloop_core::json::parse(br#"{"type":"object"}"#).unwrap();
//! manifest.register(ToolSpec::new("t", "a tool", schema), None).unwrap();
//! let mut agent = Agent::new("two calls", Budgets::default(), manifest).unwrap();
//! assert!(matches!(agent.poll_batch(), BatchNeed::ModelReply { .. }));
//! let args = Value::Object(Default::default());
//! let reply = Reply::new("").with_call("t", args.clone()).with_call("t", args);
//! agent.feed_reply(Ok(reply)).unwrap();
//! agent.take_records();
//! let BatchNeed::ToolResults { calls } = agent.poll_batch() else { unreachable!() };
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

mod batch;
use batch::Batch;
mod budget;
mod checks;
mod fit;
pub(crate) mod follow;
mod need;
mod records;
pub(crate) mod resume;
mod steps;
mod task;
#[cfg(test)]
mod tests;

pub use crate::vocabulary::{call_id, result_lost_sentence, RecordKind, StopReason};
pub use budget::{estimate_tokens, BudgetError, Budgets, Outcome};
pub use checks::{argument_root, MAX_SHOWN_VIOLATIONS};
pub use follow::Difference;
pub use need::{BatchNeed, FeedError, Need};
pub use records::Record;
pub use resume::{recorded_budgets, ResumeError};
pub use task::{check_task, TaskError};

use alloc::string::String;
use alloc::vec::Vec;

use crate::json::Value;
use crate::model::{Message, ModelError, Reply, ToolCall};
use crate::tools::{Manifest, ToolError};

/// The calls of the turn being run, and the position of the next one.
#[derive(Debug, Clone, PartialEq)]
struct Turn {
    calls: Vec<ToolCall>,
    next: usize,
}

impl Turn {
    fn unrun(&self) -> u64 {
        self.calls.len().saturating_sub(self.next) as u64
    }
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// The next check point is before a turn.
    BeforeTurn,
    /// A model reply was asked for.
    AwaitingReply,
    /// The next check point is before call `next` (or the turn is over).
    Calls(Turn),
    /// The result of call `next` was asked for.
    AwaitingTool(Turn),
    /// The calls of a turn were handed out together; their results are awaited.
    Batch(Batch),
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
        };
        agent.push_record(RecordKind::Task, payload);
        Ok(agent)
    }

    /// What the agent needs next, running every check point it reaches until one
    /// writes a record ([`Need::TakeRecords`]) or the loop needs something; a host
    /// cancellation is only the one [`Agent::cancel`] set. Calling it again without
    /// feeding anything returns the same model or tool need.
    ///
    /// At most once, by construction: a host that takes and stores the records after
    /// every poll and feed, before acting on the need, has every record on disk
    /// before it calls out again.
    pub fn poll(&mut self) -> Need<'_> {
        self.poll_with(&mut || false)
    }

    /// Like [`Agent::poll`], asking `cancel` at each check point it reaches (before a
    /// turn, before a call) whether to stop: exactly once per check point, in order.
    /// This is how a host adds a wall-clock deadline without a clock in the core.
    pub fn poll_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> Need<'_> {
        loop {
            let state = core::mem::replace(&mut self.state, State::BeforeTurn);
            match state {
                State::BeforeTurn | State::Calls(_) => {
                    self.state = state;
                    let written = self.records.len();
                    self.check_point(cancel);
                    // A check point that wrote a record and did not end the run: the
                    // next one asks `cancel`, and may run a tool or the model.
                    if self.records.len() > written && !matches!(self.state, State::Done(_)) {
                        return Need::TakeRecords;
                    }
                }
                State::AwaitingReply => {
                    self.state = State::AwaitingReply;
                    return Need::ModelReply {
                        messages: &self.messages,
                        manifest: self.manifest.specs(),
                    };
                }
                State::AwaitingTool(turn) => {
                    let call = turn.calls.get(turn.next).cloned();
                    self.state = State::AwaitingTool(turn);
                    if let Some(call) = call {
                        return Need::ToolResult { call };
                    }
                    // Unreachable: a turn awaits only a call it has. Stop rather than spin.
                    self.cancel();
                }
                // Taken as a batch, polled one at a time: the first call still waiting.
                State::Batch(batch) => {
                    let call = batch.waiting.first().cloned();
                    self.state = State::Batch(batch);
                    if let Some(call) = call {
                        return Need::ToolResult { call };
                    }
                    self.cancel();
                }
                State::Done(outcome) => {
                    self.state = State::Done(outcome.clone());
                    return Need::Done(outcome);
                }
            }
        }
    }

    /// Feeds the model's answer to the reply asked for.
    pub fn feed_reply(&mut self, reply: Result<Reply, ModelError>) -> Result<(), FeedError> {
        match self.state {
            State::AwaitingReply => {}
            State::Done(_) => return Err(FeedError::Finished),
            _ => return Err(FeedError::NotAwaitingReply),
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

    /// Feeds the result of the call asked for, as `make` words it for the record.
    pub(crate) fn feed_result_with(
        &mut self,
        make: impl FnOnce(&ToolCall) -> Result<Value, String>,
    ) -> Result<(), FeedError> {
        let mut turn = match core::mem::replace(&mut self.state, State::BeforeTurn) {
            State::AwaitingTool(turn) => turn,
            other => {
                let error = match other {
                    State::Done(_) => FeedError::Finished,
                    _ => FeedError::NotAwaitingToolResult,
                };
                self.state = other;
                return Err(error);
            }
        };
        if let Some(call) = turn.calls.get(turn.next) {
            if let Some(index) = self.manifest.index(&call.name) {
                if let Some(runs) = self.runs.get_mut(index) {
                    *runs = runs.saturating_add(1);
                }
            }
            let recorded = make(call);
            self.record_tool(call, recorded);
            turn.next += 1;
        }
        self.state = State::Calls(turn);
        Ok(())
    }

    /// The host's cancellation: stops the run now, as the next check point would. A
    /// reply or result asked for and not yet fed is abandoned (an abandoned call gets
    /// no `tool` record and counts as unrun). Does nothing once the run has stopped.
    ///
    /// In a batch ([`Agent::poll_batch_with`]) the results already fed are kept: every
    /// call up to the last one whose result was fed is recorded, in call order (with
    /// the refusals decided with the batch that follow it, as the batch writes them),
    /// and a call among them still waiting for its result (handed out, so it may have
    /// run) gets an `ok:false` record saying its result was lost, as a call interrupted
    /// by a crash does on resume — never "unrun" while a later call's result is
    /// recorded. The calls after those are abandoned and count as unrun.
    pub fn cancel(&mut self) {
        let unrun = match core::mem::replace(&mut self.state, State::BeforeTurn) {
            State::Done(outcome) => {
                self.state = State::Done(outcome);
                return;
            }
            State::BeforeTurn | State::AwaitingReply => 0,
            State::Calls(turn) | State::AwaitingTool(turn) => turn.unrun(),
            State::Batch(mut batch) => {
                self.record_fed_before_cancel(&mut batch);
                batch.calls.len().saturating_sub(batch.next) as u64
            }
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

    /// The calls handed out whose results have not been fed, in call order: those of
    /// a batch ([`BatchNeed::ToolResults`]), or the one call asked for
    /// ([`Need::ToolResult`]); empty when no tool result is awaited. Reading it runs
    /// no check point.
    pub fn waiting_calls(&self) -> &[ToolCall] {
        match &self.state {
            State::AwaitingTool(turn) => turn.calls.get(turn.next..=turn.next).unwrap_or_default(),
            State::Batch(batch) => &batch.waiting,
            _ => &[],
        }
    }

    /// The id of the first call an interrupted run may have started, until its check
    /// point is reached: see [`Agent::resume`].
    pub fn in_flight(&self) -> Option<&str> {
        self.in_flight.first().map(String::as_str)
    }

    /// The ids of every call an interrupted run may have started whose check point is
    /// not reached yet, in call order: see [`Agent::resume`].
    pub fn in_flight_calls(&self) -> &[String] {
        &self.in_flight
    }
}
