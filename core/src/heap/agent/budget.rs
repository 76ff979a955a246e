//! Budgets, stop reasons and the outcome of a run.

use alloc::string::String;
use core::fmt;

use crate::anchor::MAX_SEQ;
use crate::vocabulary::StopReason;

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

/// Why budgets were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetError {
    /// `stop_sentinel` is the empty string, which every text contains.
    EmptySentinel,
    /// A limit is above 2^53 − 1 (the member name is given).
    TooLarge(&'static str),
}

impl fmt::Display for BudgetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetError::EmptySentinel => {
                f.write_str("stop_sentinel is empty, and every text contains the empty string")
            }
            BudgetError::TooLarge(name) => write!(
                f,
                "{name} is above 2^53-1, which a transcript cannot record exactly"
            ),
        }
    }
}

impl core::error::Error for BudgetError {}

impl Budgets {
    /// Checks the budgets can be applied and recorded as given.
    pub fn check(&self) -> Result<(), BudgetError> {
        if self.stop_sentinel.as_deref() == Some("") {
            return Err(BudgetError::EmptySentinel);
        }
        for (name, limit) in self.limits() {
            if limit > MAX_SEQ {
                return Err(BudgetError::TooLarge(name));
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
            ("max_steps", self.max_steps),
            ("max_tokens", self.max_tokens),
            ("max_tool_calls", self.max_tool_calls),
            ("max_total_tokens", self.max_total_tokens),
        ]
        .into_iter()
        .filter_map(|(name, limit)| Some((name, limit?)))
    }
}

/// How a run ended: what the `stop` record says, plus the tool-call count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Why it stopped.
    pub reason: StopReason,
    /// Assistant turns recorded.
    pub steps: u64,
    /// Tokens counted, summed over turns.
    pub tokens: u64,
    /// Calls of the last turn that got no `tool` record.
    pub unrun_calls: u64,
    /// `tool` records written (calls run or refused); not in the `stop` record.
    pub tool_calls: u64,
    /// For [`StopReason::ModelError`]: the model's error sentence.
    pub error: Option<String>,
}

/// The token estimate for a turn's text: `max(1, chars / 4)`, chars being Unicode
/// scalar values.
pub fn estimate_tokens(text: &str) -> u64 {
    let chars = text.chars().count() as u64;
    (chars / 4).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip_their_names() {
        for reason in StopReason::ALL {
            assert_eq!(StopReason::from_name(reason.as_str()), Some(reason));
            assert_eq!(alloc::format!("{reason}"), reason.as_str());
        }
        assert_eq!(StopReason::from_name("done"), None);
    }

    #[test]
    fn estimate_counts_scalar_values_not_bytes() {
        assert_eq!(estimate_tokens(""), 1);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcdefgh"), 2);
        // 8 scalar values, 16 bytes in UTF-8: 2 tokens, not 4.
        assert_eq!(estimate_tokens("éééééééé"), 2);
        // One scalar value, four bytes.
        assert_eq!(estimate_tokens(&"😀".repeat(12)), 3);
    }

    #[test]
    fn budgets_refuse_what_cannot_be_applied_or_recorded() {
        assert_eq!(Budgets::default().check(), Ok(()));
        let empty = Budgets {
            stop_sentinel: Some(String::new()),
            ..Budgets::default()
        };
        assert_eq!(empty.check(), Err(BudgetError::EmptySentinel));
        let big = Budgets {
            max_tokens: Some(MAX_SEQ + 1),
            ..Budgets::default()
        };
        assert_eq!(big.check(), Err(BudgetError::TooLarge("max_tokens")));
        assert_eq!(
            alloc::format!("{}", BudgetError::TooLarge("max_tokens")),
            "max_tokens is above 2^53-1, which a transcript cannot record exactly"
        );
    }
}
