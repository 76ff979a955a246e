//! The calls of a turn: their check points passed in call order, the calls that may
//! run handed out (at most [`Agent::set_parallel`] waiting at once), their results fed
//! by id in any order ([`Agent::feed_tool_result`]) and recorded in call order, and
//! what a cancellation keeps of them.

use alloc::vec::Vec;

use super::*;

/// What became of one call of a turn.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slot {
    /// Its check point is not passed yet.
    Undecided,
    /// Handed out; its result is awaited.
    Running,
    /// Its record's result is known; `ran` says whether it was handed out (a fed
    /// result, a lost one) or refused at its check point.
    Ready {
        result: Result<Value, String>,
        ran: bool,
    },
    /// Recorded.
    Done,
}

/// The calls of the turn being run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Turn {
    pub(super) calls: Vec<ToolCall>,
    /// One per call of the turn.
    pub(super) slots: Vec<Slot>,
    /// The next call to record.
    pub(super) next: usize,
    /// The next call whose check point comes up.
    pub(super) decided: usize,
    /// A stop decided at the check point of this call (`cancelled`, `tool_budget`):
    /// it and the calls after it are unrun, and the run stops once the calls before
    /// it are recorded.
    pub(super) stop: Option<(usize, StopReason)>,
    /// The calls handed out whose results have not been fed, in call order.
    pub(super) waiting: Vec<ToolCall>,
}

impl Turn {
    /// A turn of `calls`, none decided.
    pub(super) fn new(calls: Vec<ToolCall>) -> Turn {
        Turn {
            slots: alloc::vec![Slot::Undecided; calls.len()],
            calls,
            next: 0,
            decided: 0,
            stop: None,
            waiting: Vec::new(),
        }
    }

    /// Whether the check point of call `decided` may run now: no stop is decided and
    /// fewer than `parallel` calls wait.
    pub(super) fn at_check_point(&self, parallel: usize) -> bool {
        self.stop.is_none() && self.decided < self.calls.len() && self.waiting.len() < parallel
    }

    /// The calls of the turn that will not run, when it stops now: those after the
    /// last recorded one.
    fn unrun_after(&self, from: usize) -> u64 {
        self.calls.len().saturating_sub(from) as u64
    }
}

impl Agent {
    /// How many calls of a turn may wait for their results at once: 1 (the default,
    /// and what 0 means) hands out one call at a time; more lets a host run that many
    /// together; `usize::MAX` hands out every call of a turn at once. The check point of
    /// each call (cancellation, `tool_budget`, unknown tool, the tool's limit, schema)
    /// still comes in call order, just before the call is handed out, and records are
    /// written in call order: the transcript is the same bytes whatever the limit, when
    /// nothing is cancelled. Takes effect at the next poll.
    pub fn set_parallel(&mut self, parallel: usize) {
        self.parallel = parallel.max(1);
    }

    /// Feeds the result of the waiting call `call_id`: a value, or the tool's failure.
    /// Results may come in any order; the record of a call is written once the calls
    /// before it are recorded (take the records after every feed).
    pub fn feed_tool_result(
        &mut self,
        call_id: &str,
        result: Result<Value, ToolError>,
    ) -> Result<(), FeedError> {
        let turn = match &self.state {
            State::Calls(turn) => turn,
            State::Done(_) => return Err(FeedErrorKind::Finished.into()),
            _ => return Err(FeedErrorKind::NotAwaitingToolResult.into()),
        };
        if turn.waiting.is_empty() {
            return Err(FeedErrorKind::NotAwaitingToolResult.into());
        }
        let Some(at) = turn.waiting.iter().position(|c| c.id == call_id) else {
            return Err(FeedErrorKind::NoSuchCall.into());
        };
        self.feed_waiting(at, |call| checks::result(&call.name, result));
        Ok(())
    }

    /// Feeds waiting call `at` the result `make` gives it, as it will be recorded.
    pub(super) fn feed_waiting(
        &mut self,
        at: usize,
        make: impl FnOnce(&ToolCall) -> Result<Value, String>,
    ) {
        let State::Calls(mut turn) = core::mem::replace(&mut self.state, State::BeforeTurn) else {
            return;
        };
        if at < turn.waiting.len() {
            let call = turn.waiting.remove(at);
            let index = turn.calls.iter().position(|c| c.id == call.id);
            if let Some(slot) = index.and_then(|i| turn.slots.get_mut(i)) {
                *slot = Slot::Ready {
                    result: make(&call),
                    ran: true,
                };
            }
        }
        self.settle(turn);
    }

    /// Check point before call `turn.decided`: cancelled, `tool_budget` (counting the
    /// calls decided and not yet recorded), then the call's own checks (the tool's
    /// limit counting the calls handed out before it); a call that passes is handed
    /// out, a refused one gets its record in call order.
    pub(super) fn before_call(&mut self, mut turn: Turn, cancel: &mut dyn FnMut() -> bool) {
        let k = turn.decided;
        let Some(call) = turn.calls.get(k).cloned() else {
            return self.settle(turn);
        };
        // A call the interrupted run may have started whose tool is not idempotent: its
        // effect may have happened, so it is not run again. Its check point was passed
        // then (cancellation said no), so it is not asked again; the deterministic
        // checks below give the answer they gave then.
        let lost = self.lost(&call);
        let pending = (k - turn.next) as u64;
        let budget_spent = self
            .budgets
            .max_tool_calls
            .is_some_and(|max| self.tool_calls.saturating_add(pending) >= max);
        if !lost && cancel() {
            turn.stop = Some((k, StopReason::Cancelled));
        } else if budget_spent {
            turn.stop = Some((k, StopReason::ToolBudget));
        } else {
            turn.slots[k] = match checks::call(&self.manifest, &self.runs, &call) {
                Ok(index) => {
                    // It counts as a run of its tool once handed out: it may run.
                    if let Some(runs) = self.runs.get_mut(index) {
                        *runs = runs.saturating_add(1);
                    }
                    if lost {
                        Slot::Ready {
                            result: Err(result_lost_sentence(&call.name)),
                            ran: true,
                        }
                    } else {
                        turn.waiting.push(call);
                        Slot::Running
                    }
                }
                Err(sentence) => Slot::Ready {
                    result: Err(sentence),
                    ran: false,
                },
            };
            turn.decided = k + 1;
        }
        self.settle(turn);
    }

    /// Writes the records of the turn that are ready, in call order up to the first
    /// call not ready; when every call decided is recorded and none is left to decide
    /// (or a stop was decided), the turn is over.
    pub(super) fn settle(&mut self, mut turn: Turn) {
        self.record_ready(&mut turn);
        if turn.next < turn.decided || !turn.waiting.is_empty() {
            self.state = State::Calls(turn);
        } else if let Some((at, reason)) = turn.stop {
            self.finish(reason, turn.unrun_after(at), None);
        } else if turn.decided < turn.calls.len() {
            self.state = State::Calls(turn);
        } else {
            self.in_flight.clear();
            self.state = State::BeforeTurn;
        }
    }

    /// Records the turn's calls whose results are known, in call order up to the
    /// first call that is not.
    fn record_ready(&mut self, turn: &mut Turn) {
        while turn.next < turn.decided {
            let Some(slot @ Slot::Ready { .. }) = turn.slots.get_mut(turn.next) else {
                break;
            };
            let Slot::Ready { result, .. } = core::mem::replace(slot, Slot::Done) else {
                break;
            };
            if let Some(call) = turn.calls.get(turn.next) {
                self.record_tool(call, result);
            }
            turn.next += 1;
        }
    }

    /// The host's cancellation in a turn: the calls still waiting before the last
    /// call whose result was fed become lost results, and everything up to that call
    /// is recorded. The calls not recorded after that are unrun.
    pub(super) fn cancel_turn(&mut self, mut turn: Turn) -> u64 {
        let last_fed = turn
            .slots
            .iter()
            .enumerate()
            .take(turn.decided)
            .skip(turn.next)
            .rev()
            .find(|(_, slot)| matches!(slot, Slot::Ready { ran: true, .. }))
            .map(|(at, _)| at);
        if let Some(last) = last_fed {
            for at in turn.next..last {
                if let (Some(slot @ Slot::Running), Some(call)) =
                    (turn.slots.get_mut(at), turn.calls.get(at))
                {
                    *slot = Slot::Ready {
                        result: Err(result_lost_sentence(&call.name)),
                        ran: true,
                    };
                }
            }
            self.record_ready(&mut turn);
        }
        turn.unrun_after(turn.next)
    }
}
