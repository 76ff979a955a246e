//! Following a recorded transcript: drives an [`Agent`] so that it produces the
//! recorded records one by one, feeding it the recorded model replies — and either the
//! recorded tool results ([`Agent::resume`]: the state the interrupted run had) or the
//! results of running the tools again (`driver::replay`: are the tools deterministic?).
//! The first record the loop would not write the same way is a [`Difference`].
//!
//! A check point (before a turn, before a call) is stepped only while a recorded record
//! is left to explain what happened there: the loop never runs past the end of the
//! recording on its own, so a resumed run asks the host's cancellation hook at the
//! first check point after it, as the uninterrupted run did. Records the loop produces
//! without a check point after the last recorded one (the `stop` that follows an
//! `assistant` record at once, say) stay pending, to be written by the resumed run.

use alloc::format;
use alloc::string::String;
use core::fmt;

use super::{Agent, Record, RecordKind, State, StopReason};
use crate::jcs::to_vec;
use crate::json::{Object, Value};
use crate::model::{Message, ModelError, Reply, ToolCall};
use crate::quote::escape_controls;
use crate::tools::{ToolError, ToolSpec};
use crate::vocabulary::{
    as_count, result_lost_sentence, AssistantPayload, PayloadError, StopPayload, ToolPayload,
};

/// The first place where the loop does not write what the transcript recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// 0-based index of the recorded record (the record count when the loop would write
    /// more than the transcript holds is never a difference: that is a continuation).
    pub index: u64,
    /// The recorded record's `seq`, if it has a readable one.
    pub seq: Option<u64>,
    /// The recorded record, as canonical `{"kind","payload","seq"}`.
    pub expected: String,
    /// What the loop writes or does there instead.
    pub found: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}", self.index)?;
        if let Some(seq) = self.seq {
            write!(f, " (seq {seq})")?;
        }
        // Canonical JSON escapes C0 controls but not DEL, C1 or U+2028: escape them too.
        write!(
            f,
            " differs: the transcript has {}, the loop {}",
            escape_controls(&self.expected),
            escape_controls(&self.found)
        )
    }
}

impl core::error::Error for Difference {}

/// Where tool results come from while following.
pub(crate) enum Tools<'a> {
    /// The recorded results: rebuild the state of the recorded run.
    Recorded,
    /// Run the tools again and compare what they return with what was recorded.
    Run(&'a mut dyn FnMut(&ToolCall) -> Result<Value, ToolError>),
}

/// A record's `seq`, `kind` and `payload`, as far as they can be read. Following comes
/// after the audit, so a loop record's payload decodes; one that would not is read as
/// nothing (no reason, no result, an empty reply), and the loop's record then differs.
struct Recorded<'r> {
    seq: Option<u64>,
    kind: Option<RecordKind>,
    payload: Option<&'r Value>,
}

impl<'r> Recorded<'r> {
    fn read(record: &'r Value) -> Recorded<'r> {
        let object = record.as_object();
        let get = |key: &str| object.and_then(|o| o.get(key));
        Recorded {
            seq: get("seq").and_then(Value::as_f64).and_then(as_count),
            kind: get("kind")
                .and_then(Value::as_str)
                .and_then(RecordKind::from_name),
            payload: get("payload"),
        }
    }

    /// The payload of a record of `kind`, decoded.
    fn decoded<T>(
        &self,
        kind: RecordKind,
        decode: fn(&Value) -> Result<T, PayloadError>,
    ) -> Option<T> {
        (self.kind == Some(kind))
            .then_some(self.payload?)
            .and_then(|p| decode(p).ok())
    }

    fn stop(&self) -> Option<StopPayload> {
        self.decoded(RecordKind::Stop, StopPayload::decode)
    }

    fn tool(&self) -> Option<ToolPayload> {
        self.decoded(RecordKind::Tool, ToolPayload::decode)
    }

    /// The setup a `task`, `resume` or `setup` record states.
    fn setup(&self) -> Option<crate::vocabulary::Setup> {
        super::setup::stated_setup(self.kind?, self.payload?)
    }

    /// Whether this is a `stop` record with `reason`.
    fn is_stop(&self, reason: StopReason) -> bool {
        self.stop().is_some_and(|stop| stop.reason == reason)
    }

    /// Whether this is the `tool` record answering `call`.
    fn answers(&self, call: &ToolCall) -> bool {
        self.tool()
            .is_some_and(|tool| tool.id == call.id && tool.name == call.name)
    }

    /// The result this `tool` record holds.
    fn result(&self) -> Result<Value, String> {
        self.tool().map_or(Err(String::new()), |tool| tool.result)
    }

    /// The reply that makes the loop write this `assistant` record. The recorded
    /// `tokens` are given as the model's count, so the record has them whether they
    /// were counted or estimated; the `provider` member as the provider's report, so
    /// its input tokens count again towards `max_total_tokens`.
    fn reply(&self) -> Reply {
        let Some(turn) = self.decoded(RecordKind::Assistant, AssistantPayload::decode) else {
            return Reply::new("");
        };
        let mut reply = Reply::new(turn.text);
        for call in turn.tool_calls {
            reply = reply.with_call(call.name, call.arguments);
        }
        reply
            .with_output_tokens(turn.tokens)
            .with_provider(turn.provider)
    }
}

/// Drives `agent` (fresh from [`Agent::with_first_seq`], its `task` record pending)
/// through `records`. On success the agent is where the recorded run was after its
/// last record, with the records it would write next without a check point pending.
pub(crate) fn follow(
    agent: &mut Agent,
    records: &[Value],
    tools: Tools<'_>,
) -> Result<(), Difference> {
    follow_turns(agent, records, tools, &mut |_, _, _| {})
}

/// What a recorded turn was asked with: the index of its `assistant` record, the
/// messages the model was shown and the tools on offer.
pub(crate) type OnTurn<'s> = dyn FnMut(usize, &[Message], &[ToolSpec]) + 's;

/// [`follow`], telling `on_turn` what the model was shown for each recorded `assistant`
/// record, just before the recorded reply is fed.
pub(crate) fn follow_turns(
    agent: &mut Agent,
    records: &[Value],
    mut tools: Tools<'_>,
    on_turn: &mut OnTurn<'_>,
) -> Result<(), Difference> {
    // The setup the task record states (format 2) is the agent's too: the host states
    // it, not the loop. A setup that will not go in is left out, and record 0 differs.
    // Its tools are the ones the recorded calls were checked against.
    if let Some(setup) = records.first().and_then(|r| Recorded::read(r).setup()) {
        adopt(agent, setup);
    }
    let mut next = 0usize;
    loop {
        let produced = agent.take_records();
        let mut produced = produced.into_iter();
        for record in produced.by_ref() {
            let Some(recorded) = records.get(next) else {
                agent.records.push(record);
                break;
            };
            compare(&record, recorded, next)?;
            next += 1;
        }
        agent.records.extend(produced);
        let Some(recorded) = records.get(next) else {
            return Ok(());
        };
        let want = Recorded::read(recorded);
        let differs = |found: &str| difference(next, recorded, String::from(found));
        match &agent.state {
            // Every way into AwaitingReply or to a call handed out passes a check
            // point that asks the hook, here, with the same `want`: a recorded
            // cancellation stops the loop there (as a host's `cancel` while a reply or
            // result was awaited leaves the same stop record), so the awaiting states
            // never meet one. Following hands out one call at a time.
            State::BeforeTurn => {
                let cancelled = want.is_stop(StopReason::Cancelled);
                agent.check_point(&mut || cancelled);
            }
            State::Calls(turn) if turn.waiting.is_empty() => {
                let cancelled = want.is_stop(StopReason::Cancelled);
                agent.check_point(&mut || cancelled);
            }
            State::Done(_) if want.kind == Some(RecordKind::Resume) => {
                agent.reopen();
                if let Some(setup) = want.setup() {
                    adopt(agent, setup);
                }
            }
            State::Done(_) => return Err(differs("has stopped and writes nothing more")),
            // A setup changed between turns: its tools are offered from here on.
            State::AwaitingReply if want.kind == Some(RecordKind::Setup) => {
                change(agent, &want).map_err(|found| differs(&found))?;
            }
            State::AwaitingReply if want.kind == Some(RecordKind::Assistant) => {
                on_turn(next, &agent.messages, agent.manifest.specs());
                let reply = want.reply();
                feed(agent.feed_reply(Ok(reply)), next, recorded)?;
            }
            State::AwaitingReply if want.is_stop(StopReason::ModelError) => {
                let error = want.stop().and_then(|stop| stop.error).unwrap_or_default();
                let error = ModelError::new(error);
                feed(agent.feed_reply(Err(error)), next, recorded)?;
            }
            State::AwaitingReply => return Err(differs("asks the model for a turn here")),
            State::Calls(turn) => {
                let call = turn.waiting.first().cloned();
                answer(agent, call, &want, &mut tools, next, recorded)?;
            }
        }
    }
}

/// Feeds the recorded result of the waiting `call` (or, replaying, the tool's result).
fn answer(
    agent: &mut Agent,
    call: Option<ToolCall>,
    want: &Recorded<'_>,
    tools: &mut Tools<'_>,
    next: usize,
    recorded: &Value,
) -> Result<(), Difference> {
    let differs = |found: &str| difference(next, recorded, String::from(found));
    let Some(call) = call else {
        return Err(differs("has no call to run here"));
    };
    if !want.answers(&call) {
        let found = format!("runs call {} '{}' here", call.id, call.name);
        return Err(differs(&found));
    }
    let lost = Err(result_lost_sentence(&call.name));
    match tools {
        Tools::Recorded => agent.feed_waiting(0, |_| want.result()),
        // A lost result was never a tool's answer: it is taken as recorded.
        Tools::Run(_) if want.result() == lost && !agent.manifest.idempotent(&call.name) => {
            agent.feed_waiting(0, |_| lost)
        }
        Tools::Run(run) => {
            let result = run(&call);
            feed(agent.feed_tool_result(&call.id, result), next, recorded)?;
        }
    }
    Ok(())
}

/// Follows a `setup` record: offers its tools from here on and writes it; what the loop
/// does instead when it cannot.
fn change(agent: &mut Agent, want: &Recorded<'_>) -> Result<(), String> {
    let Some(setup) = want.setup() else {
        return Err(String::from("cannot read the setup this record states"));
    };
    if let Some(manifest) = agent.manifest_of(&setup) {
        agent.swap_manifest(manifest);
    }
    agent
        .record_setup(setup)
        .map_err(|e| format!("refused the setup: {e}"))
}

/// Follows a recorded setup: states it in the pending `task` or `resume` record, and
/// offers its tools from there on (a setup that will not go in is left out, and the
/// record differs).
fn adopt(agent: &mut Agent, setup: crate::vocabulary::Setup) {
    if let Some(manifest) = agent.manifest_of(&setup) {
        agent.swap_manifest(manifest);
    }
    let _ = agent.state_setup(setup);
}

/// A feed the state said was awaited cannot fail; if it does, it is a difference.
fn feed(
    fed: Result<(), super::FeedError>,
    index: usize,
    recorded: &Value,
) -> Result<(), Difference> {
    fed.map_err(|e| difference(index, recorded, format!("refused the feed: {e}")))
}

/// Checks the loop's record against the recorded one.
fn compare(record: &Record, recorded: &Value, index: usize) -> Result<(), Difference> {
    let found = canonical(record.seq, record.kind.as_str(), &record.payload);
    let want = Recorded::read(recorded);
    let expected = shown(recorded);
    if Some(found.as_str()) == expected.as_deref() && want.seq == Some(record.seq) {
        return Ok(());
    }
    Err(difference(index, recorded, format!("writes {found}")))
}

fn difference(index: usize, recorded: &Value, found: String) -> Difference {
    let want = Recorded::read(recorded);
    Difference {
        index: index as u64,
        seq: want.seq,
        expected: shown(recorded).unwrap_or_else(|| String::from("a record that cannot be read")),
        found,
    }
}

/// `{"kind","payload","seq"}` of a recorded record, canonical, if it has the three.
fn shown(recorded: &Value) -> Option<String> {
    let object = recorded.as_object()?;
    let seq = object.get("seq")?.as_f64().and_then(as_count)?;
    let kind = object.get("kind")?.as_str()?;
    Some(canonical(seq, kind, object.get("payload")?))
}

fn canonical(seq: u64, kind: &str, payload: &Value) -> String {
    let mut object = Object::new();
    object.insert("kind", Value::from(kind));
    object.insert("payload", payload.clone());
    object.insert("seq", Value::Number(seq as f64));
    to_vec(&Value::Object(object))
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| String::from("a record with no canonical encoding"))
}
