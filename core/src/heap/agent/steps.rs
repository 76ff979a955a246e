//! The loop's private steps: the check points before a turn and before a call, and
//! what they write (the `assistant`, `tool`, `resume` and `stop` records), as a second
//! `impl Agent` block.

use alloc::string::String;
use alloc::vec::Vec;

use super::turn::Turn;
use super::{fit, records, Agent, Outcome, Record, State};
use crate::json::Value;
use crate::model::{Message, Reply, ToolCall};
use crate::vocabulary::{call_id, AssistantPayload, RecordKind, StopReason};

impl Agent {
    /// Whether `call` may have been started by the interrupted run and its tool is not
    /// idempotent (so it is not run again); forgets it as in flight either way.
    pub(super) fn lost(&mut self, call: &ToolCall) -> bool {
        let Some(at) = self.in_flight.iter().position(|id| *id == call.id) else {
            return false;
        };
        self.in_flight.remove(at);
        !self.manifest.idempotent(&call.name)
    }

    /// Whether the loop is at a check point (before a turn, or before a call it may
    /// hand out now).
    pub(super) fn at_check_point(&self) -> bool {
        match &self.state {
            State::BeforeTurn => true,
            State::Calls(turn) => turn.at_check_point(self.parallel),
            _ => false,
        }
    }

    /// Runs the check point the loop is at (before a turn or before a call), if it is
    /// at one: one step, asking `cancel` at most once.
    pub(super) fn check_point(&mut self, cancel: &mut dyn FnMut() -> bool) {
        if !self.at_check_point() {
            return;
        }
        match core::mem::replace(&mut self.state, State::BeforeTurn) {
            State::BeforeTurn => self.before_turn(cancel),
            State::Calls(turn) => self.before_call(turn, cancel),
            other => self.state = other,
        }
    }

    /// Check point before a turn: cancelled, then `step_budget`.
    fn before_turn(&mut self, cancel: &mut dyn FnMut() -> bool) {
        if cancel() {
            self.finish(StopReason::Cancelled, 0, None);
        } else if self.budgets.max_steps.is_some_and(|max| self.steps >= max) {
            self.finish(StopReason::StepBudget, 0, None);
        } else {
            self.state = State::AwaitingReply;
        }
    }

    /// Records a turn, then checks the sentinel, `no_tool_calls` and `token_budget`
    /// (`max_tokens`, then `max_total_tokens`: either one over its limit).
    /// A turn whose record would pass the line limit is not recorded: the run stops
    /// with `model_error` ([`fit::turn`]).
    pub(super) fn record_turn(&mut self, reply: Reply, tokens: u64) {
        let seq = self.next_seq;
        let calls: Vec<ToolCall> = reply
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(index, (name, arguments))| ToolCall {
                id: call_id(seq, index),
                name,
                arguments,
            })
            .collect();
        // The record is made from the reply, which is then taken back apart (no copy).
        let record = AssistantPayload {
            text: reply.text,
            tool_calls: calls,
            tokens,
            provider: reply.provider,
        };
        let payload = record.encode();
        let AssistantPayload {
            text,
            tool_calls: calls,
            provider,
            ..
        } = record;
        if let Err(sentence) = fit::turn(seq, &payload, &calls) {
            return self.model_error(sentence);
        }
        self.steps += 1;
        self.tokens = self.tokens.saturating_add(tokens);
        let input = provider.input_tokens.unwrap_or(0);
        self.total_tokens = self
            .total_tokens
            .saturating_add(tokens)
            .saturating_add(input);
        self.push_record(RecordKind::Assistant, payload);
        let sentinel = match &self.budgets.stop_sentinel {
            Some(sentinel) => text.contains(sentinel.as_str()),
            None => false,
        };
        let over_budget = self.budgets.max_tokens.is_some_and(|max| self.tokens > max)
            || self
                .budgets
                .max_total_tokens
                .is_some_and(|max| self.total_tokens > max);
        let turn = Turn::new(calls.clone());
        self.messages.push(Message::Assistant {
            text,
            tool_calls: calls,
        });
        if sentinel {
            self.finish(StopReason::Sentinel, turn.calls.len() as u64, None);
        } else if turn.calls.is_empty() {
            self.finish(StopReason::NoToolCalls, 0, None);
        } else if over_budget {
            self.finish(StopReason::TokenBudget, turn.calls.len() as u64, None);
        } else {
            self.state = State::Calls(turn);
        }
    }

    pub(super) fn model_error(&mut self, sentence: String) {
        self.finish(StopReason::ModelError, 0, Some(sentence));
    }

    /// Writes the `tool` record for `call` and shows the result to the model: as
    /// `ok:false` saying so when the result is too large for one record ([`fit::tool`]).
    pub(super) fn record_tool(&mut self, call: &ToolCall, result: Result<Value, String>) {
        self.tool_calls += 1;
        let (payload, result) = fit::tool(self.next_seq, call, result);
        self.push_record(RecordKind::Tool, payload);
        self.messages.push(Message::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            result,
        });
    }

    /// Goes on after the `stop` record: writes `resume {"after": reason}` and shows the
    /// model each call the stop left unrun with the result a provider history gives it
    /// ([`crate::export::not_run_sentence`]), so every call has one result. Steps,
    /// tokens and tool calls stay as they were: budgets are cumulative.
    pub(crate) fn reopen(&mut self) {
        let State::Done(outcome) = &self.state else {
            return;
        };
        let reason = outcome.reason;
        let unrun = usize::try_from(outcome.unrun_calls).unwrap_or(usize::MAX);
        let last_calls = self.messages.iter().rev().find_map(|m| match m {
            Message::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        });
        let not_run: Vec<Message> = last_calls
            .map(|calls| {
                let from = calls.len().saturating_sub(unrun);
                calls[from..]
                    .iter()
                    .map(|call| Message::Tool {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        result: Err(crate::vocabulary::not_run_sentence(reason.as_str())),
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.messages.extend(not_run);
        self.push_record(RecordKind::Resume, records::resume(reason));
        self.state = State::BeforeTurn;
    }

    /// Writes the `stop` record; the run is over. An `error` sentence too long for the
    /// record is cut to fit ([`fit::stop_error`]), in the outcome as in the record.
    pub(super) fn finish(&mut self, reason: StopReason, unrun_calls: u64, error: Option<String>) {
        let mut outcome = Outcome {
            reason,
            steps: self.steps,
            tokens: self.tokens,
            unrun_calls,
            tool_calls: self.tool_calls,
            error,
        };
        let mut payload = records::stop(&outcome);
        if let Some(error) = &outcome.error {
            if let Some(cut) = fit::stop_error(self.next_seq, &payload, error) {
                outcome.error = Some(cut);
                payload = records::stop(&outcome);
            }
        }
        self.push_record(RecordKind::Stop, payload);
        self.in_flight.clear();
        self.state = State::Done(outcome);
    }

    pub(super) fn push_record(&mut self, kind: RecordKind, payload: Value) {
        self.records.push(Record {
            seq: self.next_seq,
            kind,
            payload,
        });
        self.next_seq = self.next_seq.saturating_add(1);
    }
}
