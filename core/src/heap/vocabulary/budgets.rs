//! The budgets a run works within, as the `task` record states them (SPEC section 4).

use alloc::string::String;
use core::fmt;

use super::member::{MAX_STEPS, MAX_TOKENS, MAX_TOOL_CALLS, MAX_TOTAL_TOKENS, STOP_SENTINEL};
use super::read::number;
use crate::anchor::MAX_SEQ;
use crate::heap::opaque::opaque_error;
use crate::json::{Object, Value};

/// The limits a run works within. `None` means no limit; per-tool call limits are set
/// when a tool is registered ([`crate::tools::ToolOptions::limit`]).
///
/// All limits must be at most 2^53 − 1 (so the `task` record states them exactly), and
/// a sentinel must not be empty (every text contains the empty string).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Budgets {
    /// Most assistant turns; checked before each turn, so `steps` never exceeds it.
    pub max_steps: Option<u64>,
    /// Most tokens, summed over turns; the turn that exceeds it is recorded, then the
    /// run stops without running its calls.
    pub max_tokens: Option<u64>,
    /// Most `tool` records (calls run or refused); checked before each call.
    pub max_tool_calls: Option<u64>,
    /// Most tokens in and out, summed over turns: each turn counts its `tokens` (as
    /// for `max_tokens`) plus the input tokens its provider reported (0 when none
    /// were). Exceeded when the sum is greater than the limit; the turn that exceeds
    /// it is recorded, then the run stops on `token_budget` without running its calls.
    pub max_total_tokens: Option<u64>,
    /// The run stops when an assistant's text contains this.
    pub stop_sentinel: Option<String>,
}

opaque_error! {
    /// Why budgets were refused.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct BudgetError(BudgetErrorKind);
}

/// What [`BudgetError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BudgetErrorKind {
    /// `stop_sentinel` is the empty string, which every text contains.
    EmptySentinel,
    /// A limit is above 2^53 − 1 (the member name is given).
    TooLarge(&'static str),
}

impl fmt::Display for BudgetErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetErrorKind::EmptySentinel => {
                f.write_str("stop_sentinel is empty, and every text contains the empty string")
            }
            BudgetErrorKind::TooLarge(name) => write!(
                f,
                "{name} is above 2^53-1, which a transcript cannot record exactly"
            ),
        }
    }
}

impl Budgets {
    /// Checks the budgets can be applied and recorded as given.
    pub fn check(&self) -> Result<(), BudgetError> {
        if self.stop_sentinel.as_deref() == Some("") {
            return Err(BudgetErrorKind::EmptySentinel.into());
        }
        for (name, limit) in self.limits() {
            if limit > MAX_SEQ {
                return Err(BudgetErrorKind::TooLarge(name).into());
            }
        }
        Ok(())
    }

    /// The numeric limits that are set, with their member names (as the `task` record
    /// states them: `max_steps`, `max_tokens`, `max_tool_calls`, `max_total_tokens`),
    /// in canonical order. The one list of the budgets' names, for hosts that show or
    /// compare them.
    pub fn limits(&self) -> impl Iterator<Item = (&'static str, u64)> {
        [
            (MAX_STEPS, self.max_steps),
            (MAX_TOKENS, self.max_tokens),
            (MAX_TOOL_CALLS, self.max_tool_calls),
            (MAX_TOTAL_TOKENS, self.max_total_tokens),
        ]
        .into_iter()
        .filter_map(|(name, limit)| Some((name, limit?)))
    }

    /// The `budgets` member of the `task` record, but for the tools' limits
    /// ([`super::TaskPayload`] adds them): only the budgets that are set.
    pub fn encode(&self) -> Value {
        let mut set = Object::new();
        for (name, limit) in self.limits() {
            set.insert(name, number(limit));
        }
        if let Some(sentinel) = &self.stop_sentinel {
            set.insert(STOP_SENTINEL, Value::from(sentinel.as_str()));
        }
        Value::Object(set)
    }

    /// Each numeric limit with its member name, to be set (the decode's side of
    /// [`Budgets::limits`]).
    pub(crate) fn slots(&mut self) -> [(&'static str, &mut Option<u64>); 4] {
        [
            (MAX_STEPS, &mut self.max_steps),
            (MAX_TOKENS, &mut self.max_tokens),
            (MAX_TOOL_CALLS, &mut self.max_tool_calls),
            (MAX_TOTAL_TOKENS, &mut self.max_total_tokens),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_refuse_what_cannot_be_applied_or_recorded() {
        assert_eq!(Budgets::default().check(), Ok(()));
        let empty = Budgets {
            stop_sentinel: Some(String::new()),
            ..Budgets::default()
        };
        assert_eq!(empty.check(), Err(BudgetErrorKind::EmptySentinel.into()));
        let big = Budgets {
            max_tokens: Some(MAX_SEQ + 1),
            ..Budgets::default()
        };
        assert_eq!(
            big.check(),
            Err(BudgetErrorKind::TooLarge("max_tokens").into())
        );
        assert_eq!(
            alloc::format!("{}", BudgetErrorKind::TooLarge("max_tokens")),
            "max_tokens is above 2^53-1, which a transcript cannot record exactly"
        );
    }
}
