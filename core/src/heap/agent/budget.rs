//! The outcome of a run and the token estimate (the budgets are the vocabulary's:
//! [`crate::vocabulary::Budgets`]).

use alloc::string::String;

use crate::vocabulary::StopReason;

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
/// scalar values. Internal (`#[doc(hidden)]` where re-exported, not API): the loop
/// counts it for a turn whose model reported no usage; the benches use it too.
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
}
