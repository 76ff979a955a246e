//! Batches: the calls of a turn handed out together ([`Agent::poll_batch_with`]), their
//! results fed by id in any order ([`Agent::feed_tool_result`]) and recorded in call
//! order, and what a cancellation keeps of them.

use alloc::vec::Vec;

use super::*;

/// What became of one call of a batch.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slot {
    /// Recorded already, or before the batch.
    Done,
    /// Handed out; its result is awaited.
    Running,
    /// Its record's result is known; `ran` says whether it counts as a run of its tool
    /// (a fed result, a lost one) or not (a refusal).
    Ready {
        result: Result<Value, String>,
        ran: bool,
    },
}

/// A turn whose calls were decided at once ([`Agent::poll_batch_with`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Batch {
    pub(super) calls: Vec<ToolCall>,
    /// One per call of the turn.
    pub(super) slots: Vec<Slot>,
    /// The next call to record.
    pub(super) next: usize,
    /// The calls `next..end` are the batch; when `end` is short of the turn, the
    /// tool-call budget stops the run after them (`tool_budget`).
    pub(super) end: usize,
    /// The calls handed out whose results have not been fed, in call order.
    pub(super) waiting: Vec<ToolCall>,
}

impl Agent {
    /// [`Agent::poll_batch_with`] without a cancellation hook.
    pub fn poll_batch(&mut self) -> BatchNeed<'_> {
        self.poll_batch_with(&mut || false)
    }

    /// Like [`Agent::poll_with`], but the calls of a turn come all at once
    /// ([`BatchNeed::ToolResults`]), to be run in any order or together and fed back by
    /// id with [`Agent::feed_tool_result`].
    ///
    /// Before the batch, `cancel` is asked once (not once per call); then every call of
    /// the turn is decided as the one-at-a-time path decides it, in call order:
    /// `tool_budget` (the calls after the budget is spent are not in the batch, and
    /// the run stops on `tool_budget` once the batch is recorded), then unknown tool,
    /// the tool's call limit (counting the calls of the batch before it) and the
    /// schema; a refusal is a `tool` record as usual. Records are written in call
    /// order, so the transcript is the bytes the one-at-a-time path writes when
    /// nothing is cancelled. The records of the calls before the first one that runs
    /// are written before the calls are handed out ([`BatchNeed::TakeRecords`]); those
    /// of later calls wait for the results before them. A crash with some of them
    /// unwritten is resumed safely: [`Agent::resume`] treats every unrecorded call of
    /// the last turn that passes the checks as possibly run.
    pub fn poll_batch_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> BatchNeed<'_> {
        loop {
            if matches!(self.state, State::BeforeTurn | State::Calls(_)) {
                let written = self.records.len();
                match core::mem::replace(&mut self.state, State::BeforeTurn) {
                    State::Calls(turn) => self.start_batch(turn, cancel),
                    other => {
                        self.state = other;
                        self.check_point(cancel);
                    }
                }
                if self.records.len() > written && !matches!(self.state, State::Done(_)) {
                    return BatchNeed::TakeRecords;
                }
                continue;
            }
            let stuck = match &self.state {
                State::AwaitingTool(turn) => turn.calls.get(turn.next..=turn.next).is_none(),
                State::Batch(batch) => batch.waiting.is_empty(),
                _ => false,
            };
            if stuck {
                // Unreachable: a turn awaits only calls it has. Stop rather than spin.
                self.cancel();
            }
            return match &self.state {
                State::AwaitingReply => BatchNeed::ModelReply {
                    messages: &self.messages,
                    manifest: self.manifest.specs(),
                },
                State::AwaitingTool(turn) => BatchNeed::ToolResults {
                    calls: turn.calls.get(turn.next..=turn.next).unwrap_or_default(),
                },
                State::Batch(batch) => BatchNeed::ToolResults {
                    calls: &batch.waiting,
                },
                State::Done(outcome) => BatchNeed::Done(outcome.clone()),
                // Left above.
                State::BeforeTurn | State::Calls(_) => BatchNeed::TakeRecords,
            };
        }
    }

    /// Feeds the result of the waiting call `call_id`: a value, or the tool's failure.
    /// Results may come in any order; the record of a call is written once the calls
    /// before it are recorded (take the records after every feed). Works for a call
    /// asked for one at a time ([`Need::ToolResult`]) too.
    pub fn feed_tool_result(
        &mut self,
        call_id: &str,
        result: Result<Value, ToolError>,
    ) -> Result<(), FeedError> {
        match &mut self.state {
            State::AwaitingTool(turn) => {
                if turn.calls.get(turn.next).is_some_and(|c| c.id == call_id) {
                    self.feed_result_with(|call| checks::result(&call.name, result))
                } else {
                    Err(FeedError::NoSuchCall)
                }
            }
            State::Batch(batch) => {
                let Some(at) = batch.waiting.iter().position(|c| c.id == call_id) else {
                    return Err(FeedError::NoSuchCall);
                };
                let call = batch.waiting.remove(at);
                let index = batch.calls.iter().position(|c| c.id == call.id);
                if let Some(slot) = index.and_then(|i| batch.slots.get_mut(i)) {
                    *slot = Slot::Ready {
                        result: checks::result(&call.name, result),
                        ran: true,
                    };
                }
                if let State::Batch(batch) = core::mem::replace(&mut self.state, State::BeforeTurn)
                {
                    self.settle(batch);
                }
                Ok(())
            }
            State::Done(_) => Err(FeedError::Finished),
            _ => Err(FeedError::NotAwaitingToolResult),
        }
    }

    /// The check point before a batch: `cancel` once, then every call of the rest of
    /// the turn decided in call order as [`Agent::before_call`] decides it (with the
    /// runs of the earlier calls of the batch counted); then the records that are
    /// ready are written.
    pub(super) fn start_batch(&mut self, turn: Turn, cancel: &mut dyn FnMut() -> bool) {
        let Turn { calls, next } = turn;
        if calls.get(next).is_none() {
            self.in_flight.clear();
            self.state = State::BeforeTurn;
            return;
        }
        if cancel() {
            let unrun = calls.len().saturating_sub(next) as u64;
            return self.finish(StopReason::Cancelled, unrun, None);
        }
        let mut runs = self.runs.clone();
        let mut slots = alloc::vec![Slot::Done; calls.len()];
        let mut waiting = Vec::new();
        let mut end = calls.len();
        for (k, call) in calls.iter().enumerate().skip(next) {
            let recorded = self.tool_calls.saturating_add((k - next) as u64);
            if self
                .budgets
                .max_tool_calls
                .is_some_and(|max| recorded >= max)
            {
                end = k;
                break;
            }
            let lost = self.lost(call);
            slots[k] = match checks::call(&self.manifest, &runs, call) {
                Ok(index) => {
                    if let Some(runs) = runs.get_mut(index) {
                        *runs = runs.saturating_add(1);
                    }
                    if lost {
                        Slot::Ready {
                            result: Err(result_lost_sentence(&call.name)),
                            ran: true,
                        }
                    } else {
                        waiting.push(call.clone());
                        Slot::Running
                    }
                }
                Err(sentence) => Slot::Ready {
                    result: Err(sentence),
                    ran: false,
                },
            };
        }
        self.in_flight.clear();
        self.settle(Batch {
            calls,
            slots,
            next,
            end,
            waiting,
        });
    }

    /// Writes the records of the batch that are ready, in call order up to the first
    /// call still running; when every call of the batch is recorded, the turn is over
    /// (or the tool-call budget stops the run).
    pub(super) fn settle(&mut self, mut batch: Batch) {
        self.record_ready(&mut batch);
        if batch.next < batch.end {
            self.state = State::Batch(batch);
        } else if batch.end < batch.calls.len() {
            let unrun = (batch.calls.len() - batch.end) as u64;
            self.finish(StopReason::ToolBudget, unrun, None);
        } else {
            self.state = State::BeforeTurn;
        }
    }

    /// Records the batch's calls whose results are known, in call order up to the
    /// first call still running.
    pub(super) fn record_ready(&mut self, batch: &mut Batch) {
        while batch.next < batch.end {
            if !matches!(batch.slots.get(batch.next), Some(Slot::Ready { .. })) {
                break;
            }
            let taken = batch
                .slots
                .get_mut(batch.next)
                .map(|s| core::mem::replace(s, Slot::Done));
            let Some(Slot::Ready { result, ran }) = taken else {
                break;
            };
            if let Some(call) = batch.calls.get(batch.next) {
                if ran {
                    if let Some(index) = self.manifest.index(&call.name) {
                        if let Some(runs) = self.runs.get_mut(index) {
                            *runs = runs.saturating_add(1);
                        }
                    }
                }
                self.record_tool(call, result);
            }
            batch.next += 1;
        }
    }

    /// Cancelling a batch: the calls still waiting before the last call whose result
    /// was fed become lost results, and everything up to that call is recorded.
    pub(super) fn record_fed_before_cancel(&mut self, batch: &mut Batch) {
        let Some(last) = batch
            .slots
            .iter()
            .enumerate()
            .take(batch.end)
            .skip(batch.next)
            .rev()
            .find(|(_, slot)| matches!(slot, Slot::Ready { ran: true, .. }))
            .map(|(at, _)| at)
        else {
            return;
        };
        for at in batch.next..last {
            if let (Some(slot @ Slot::Running), Some(call)) =
                (batch.slots.get_mut(at), batch.calls.get(at))
            {
                *slot = Slot::Ready {
                    result: Err(result_lost_sentence(&call.name)),
                    ran: true,
                };
                batch.waiting.retain(|w| w.id != call.id);
            }
        }
        self.record_ready(batch);
    }
}
