//! Reading a transcript's records back into the conversation they record: the task,
//! then each turn with its calls and exactly one result per call.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::jcs::write_value;
use crate::json::{Object, Value};
use crate::model::{Message, ToolCall};
use crate::sink::CountingSink;
use crate::vocabulary::member::{
    ARGUMENTS, ERROR, ID, NAME, OK, REASON, TASK, TEXT, TOOL_CALLS, VALUE,
};
use crate::vocabulary::{not_run_sentence, RecordKind, StopReason};

/// Why records could not be read as a loop transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryError {
    /// 0-based index of the record at fault (0 for an empty transcript).
    pub index: usize,
    /// What is wrong with it (its sentence is the error's `Display`).
    pub(crate) kind: HistoryErrorKind,
}

/// What is wrong, for a [`HistoryError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistoryErrorKind {
    /// Not an object with a string `kind` and a `payload`.
    NotARecord,
    /// The transcript is empty, or its first record is not a `task`.
    NoTask,
    /// A second `task` record.
    SecondTask,
    /// A record kind the loop does not write.
    UnknownKind,
    /// The payload lacks a member the loop writes, or it has the wrong type (named).
    BadPayload(&'static str),
    /// A call id that is empty, holds a character other than `A-Z a-z 0-9 _ -`
    /// (providers refuse those), or repeats an earlier id.
    BadCallId,
    /// A `tool` record that does not answer the next unanswered call of the
    /// `assistant` record before it.
    ToolWithoutCall,
    /// A turn (or a `resume`) starts while a call of the turn before has no `tool`
    /// record, and no `stop` came between to say it was left unrun.
    CallUnanswered,
    /// A record other than `resume` after a `stop`.
    AfterStop,
    /// A `resume` that does not follow a `stop`.
    ResumeWithoutStop,
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}: ", self.index)?;
        match self.kind {
            HistoryErrorKind::NotARecord => {
                f.write_str("not a record (an object with a string kind and a payload)")
            }
            HistoryErrorKind::NoTask => {
                f.write_str("a loop transcript starts with a task record, and this one does not")
            }
            HistoryErrorKind::SecondTask => f.write_str("a second task record"),
            HistoryErrorKind::UnknownKind => {
                f.write_str("a record kind the loop does not write (task, assistant, tool, stop, resume, setup)")
            }
            HistoryErrorKind::BadPayload(what) => write!(f, "the payload's {what} is missing or malformed"),
            HistoryErrorKind::BadCallId => f.write_str(
                "a call id that is empty, repeats an earlier id, or holds a character other than A-Z a-z 0-9 _ -",
            ),
            HistoryErrorKind::ToolWithoutCall => f.write_str(
                "a tool record that does not answer the next unanswered call of the assistant record before it",
            ),
            HistoryErrorKind::CallUnanswered => f.write_str(
                "a call of the turn before has no tool record, and no stop record says it was left unrun",
            ),
            HistoryErrorKind::AfterStop => f.write_str("a record other than resume after a stop record"),
            HistoryErrorKind::ResumeWithoutStop => f.write_str("a resume record that does not follow a stop record"),
        }
    }
}

impl core::error::Error for HistoryError {}

/// One call of a turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// The one result a call gets in a history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// `ok:true`: the tool's value.
    Value(Value),
    /// `ok:false`: the error sentence.
    Error(String),
    /// No `tool` record: the synthetic "not run" sentence.
    NotRun(String),
}

/// One assistant turn: its text, its calls, and one answer per call, in call order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    pub text: String,
    pub calls: Vec<Call>,
    pub answers: Vec<Answer>,
}

/// A transcript read back: the task and the turns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conversation {
    pub task: String,
    pub turns: Vec<Turn>,
}

impl Conversation {
    /// The conversation as the loop shows it to a model: the task, then each turn and
    /// its answers, a call left unrun answered with its "not run" sentence as an error.
    pub(crate) fn messages(&self) -> Vec<Message> {
        let calls: usize = self.turns.iter().map(|t| t.calls.len()).sum();
        let mut messages = Vec::with_capacity(1 + self.turns.len() + calls);
        messages.push(Message::User {
            text: self.task.clone(),
        });
        for turn in &self.turns {
            messages.push(Message::Assistant {
                text: turn.text.clone(),
                tool_calls: turn
                    .calls
                    .iter()
                    .map(|call| ToolCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    })
                    .collect(),
            });
            for (call, answer) in turn.calls.iter().zip(&turn.answers) {
                messages.push(Message::Tool {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    result: match answer {
                        Answer::Value(value) => Ok(value.clone()),
                        Answer::Error(sentence) | Answer::NotRun(sentence) => Err(sentence.clone()),
                    },
                });
            }
        }
        messages
    }
}

/// The result of a call still pending where the transcript ends without a `stop`.
const ENDS_BEFORE: &str = "not run: the transcript ends before its result";

#[derive(PartialEq)]
enum State {
    Running,
    Stopped,
}

/// Reads records into a conversation.
pub(crate) fn read(records: &[Value]) -> Result<Conversation, HistoryError> {
    let error = |index: usize, kind| HistoryError { index, kind };
    let Some(first) = records.first() else {
        return Err(error(0, HistoryErrorKind::NoTask));
    };
    let (kind, payload) = split(first).ok_or(error(0, HistoryErrorKind::NotARecord))?;
    if kind != Some(RecordKind::Task) {
        return Err(error(0, HistoryErrorKind::NoTask));
    }
    let task = string(payload, TASK).ok_or(error(0, HistoryErrorKind::BadPayload(TASK)))?;
    let mut conversation = Conversation {
        task: task.into(),
        turns: Vec::new(),
    };
    let mut ids = BTreeSet::new();
    let mut state = State::Running;
    for (index, record) in records.iter().enumerate().skip(1) {
        let (kind, payload) = split(record).ok_or(error(index, HistoryErrorKind::NotARecord))?;
        let fail = |kind| Err(error(index, kind));
        if state == State::Stopped && kind != Some(RecordKind::Resume) {
            return fail(HistoryErrorKind::AfterStop);
        }
        let pending = conversation
            .turns
            .last()
            .map_or(0, |t| t.calls.len() - t.answers.len());
        match kind {
            Some(RecordKind::Task) => return fail(HistoryErrorKind::SecondTask),
            Some(RecordKind::Assistant) => {
                if pending > 0 {
                    return fail(HistoryErrorKind::CallUnanswered);
                }
                let turn = turn(payload, &mut ids).map_err(|kind| error(index, kind))?;
                conversation.turns.push(turn);
            }
            Some(RecordKind::Tool) => {
                let answer = answer(payload).map_err(|kind| error(index, kind))?;
                let id = string(payload, ID);
                let name = string(payload, NAME);
                let Some(turn) = conversation.turns.last_mut().filter(|_| pending > 0) else {
                    return fail(HistoryErrorKind::ToolWithoutCall);
                };
                let call = &turn.calls[turn.answers.len()];
                if id != Some(call.id.as_str()) || name != Some(call.name.as_str()) {
                    return fail(HistoryErrorKind::ToolWithoutCall);
                }
                turn.answers.push(answer);
            }
            Some(RecordKind::Stop) => {
                let reason = string(payload, REASON)
                    .filter(|r| StopReason::from_name(r).is_some())
                    .ok_or(error(index, HistoryErrorKind::BadPayload(REASON)))?;
                if let Some(turn) = conversation.turns.last_mut() {
                    while turn.answers.len() < turn.calls.len() {
                        turn.answers.push(Answer::NotRun(not_run_sentence(reason)));
                    }
                }
                state = State::Stopped;
            }
            Some(RecordKind::Resume) => {
                if state != State::Stopped {
                    return fail(HistoryErrorKind::ResumeWithoutStop);
                }
                state = State::Running;
            }
            // The tools changed between turns: the conversation did not.
            Some(RecordKind::Setup) => {}
            None => return fail(HistoryErrorKind::UnknownKind),
        }
    }
    if let Some(turn) = conversation.turns.last_mut() {
        while turn.answers.len() < turn.calls.len() {
            turn.answers.push(Answer::NotRun(String::from(ENDS_BEFORE)));
        }
    }
    Ok(conversation)
}

/// The record's `kind` (`None` for a kind the loop does not write) and `payload`
/// object.
fn split(record: &Value) -> Option<(Option<RecordKind>, &Object)> {
    let record = record.as_object()?;
    let kind = RecordKind::from_name(record.get("kind")?.as_str()?);
    let payload = record.get("payload")?.as_object()?;
    Some((kind, payload))
}

fn string<'a>(payload: &'a Object, key: &str) -> Option<&'a str> {
    payload.get(key).and_then(Value::as_str)
}

/// Whether `id` is one providers accept: non-empty, `[A-Za-z0-9_-]` only.
fn id_ok(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether `value` has a canonical encoding (a value built by hand may hold a NaN).
fn encodable(value: &Value) -> bool {
    write_value(value, &mut CountingSink::default()).is_ok()
}

/// An `assistant` payload as a turn with no answers yet.
fn turn(payload: &Object, ids: &mut BTreeSet<String>) -> Result<Turn, HistoryErrorKind> {
    let text = string(payload, TEXT).ok_or(HistoryErrorKind::BadPayload(TEXT))?;
    let Some(Value::Array(items)) = payload.get(TOOL_CALLS) else {
        return Err(HistoryErrorKind::BadPayload(TOOL_CALLS));
    };
    let mut calls = Vec::with_capacity(items.len());
    for item in items {
        let call = item
            .as_object()
            .ok_or(HistoryErrorKind::BadPayload(TOOL_CALLS))?;
        let id = string(call, ID).ok_or(HistoryErrorKind::BadPayload("call id"))?;
        let name = string(call, NAME).ok_or(HistoryErrorKind::BadPayload("call name"))?;
        let arguments = call
            .get(ARGUMENTS)
            .ok_or(HistoryErrorKind::BadPayload("call arguments"))?;
        if !encodable(arguments) {
            return Err(HistoryErrorKind::BadPayload("call arguments"));
        }
        if !id_ok(id) || !ids.insert(String::from(id)) {
            return Err(HistoryErrorKind::BadCallId);
        }
        calls.push(Call {
            id: id.into(),
            name: name.into(),
            arguments: arguments.clone(),
        });
    }
    Ok(Turn {
        text: text.into(),
        calls,
        answers: Vec::new(),
    })
}

/// A `tool` payload's result.
fn answer(payload: &Object) -> Result<Answer, HistoryErrorKind> {
    match payload.get(OK) {
        Some(Value::Bool(true)) => payload
            .get(VALUE)
            .filter(|v| encodable(v))
            .map(|v| Answer::Value(v.clone()))
            .ok_or(HistoryErrorKind::BadPayload(VALUE)),
        Some(Value::Bool(false)) => string(payload, ERROR)
            .map(|e| Answer::Error(e.into()))
            .ok_or(HistoryErrorKind::BadPayload(ERROR)),
        _ => Err(HistoryErrorKind::BadPayload(OK)),
    }
}
