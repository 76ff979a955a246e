//! The loop's record vocabulary (SPEC section 4): the kinds of record, one type per
//! payload with its one encode and its one decode ([`TaskPayload`], [`AssistantPayload`],
//! [`ToolPayload`], [`StopPayload`], [`ResumePayload`], [`SetupPayload`]; a decode's
//! error is a [`PayloadError`]), the budgets a `task` record states, why a run stops, call ids,
//! counts, and the fixed sentences the loop writes for calls it did not run. The loop
//! ([`crate::agent`], [`crate::driver`]), its audit ([`crate::audit`]) and its exports
//! ([`crate::export`]) all speak it, so that none of them needs another for its words.
//! Member names and these strings are part of the format; the names are spelled in one
//! place, `member` (hidden: a program reads a payload through its type).
//!
//! ```
//! use agentloop_core::agent::{Agent, Budgets, RecordKind};
//! use agentloop_core::tools::Manifest;
//! use agentloop_core::vocabulary::TaskPayload;
//!
//! let mut agent = Agent::new("add 2 and 40", Budgets::default(), Manifest::new()).unwrap();
//! let record = &agent.take_records()[0];
//! assert_eq!(record.kind, RecordKind::Task);
//! assert_eq!(TaskPayload::decode(&record.payload).unwrap().task, "add 2 and 40");
//! ```

use alloc::format;
use alloc::string::String;
use core::fmt;

use crate::anchor::MAX_SEQ;

mod assistant;
mod budgets;
mod error;
#[doc(hidden)]
pub mod member;
mod read;
mod resume;
mod server;
mod setup;
mod setup_change;
#[cfg(test)]
mod setup_tests;
mod stop;
pub(crate) mod task;
mod tool;

#[doc(hidden)]
pub use crate::tools::failure::result_lost_sentence;
pub use crate::tools::failure::CallFailure;
pub(crate) use crate::tools::failure::INVALID_ARGUMENTS;
pub(crate) use assistant::encode_call;
pub use assistant::AssistantPayload;
#[cfg(test)]
pub(crate) use budgets::BudgetErrorKind;
pub use budgets::{BudgetError, Budgets};
pub use error::PayloadError;
pub(crate) use error::PayloadErrorKind;
pub use resume::ResumePayload;
pub use server::{ServerIdentity, ServerOrigin};
pub use setup::{ModelName, OfferedTool, Setup, SetupDifference, ToolSource};
pub use setup_change::{SetupPayload, SetupReason};
pub use stop::StopPayload;
pub use task::TaskPayload;
pub use tool::ToolPayload;

/// The kinds of record the loop writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordKind {
    /// The first record: the task and the budgets in force.
    Task,
    /// One model turn.
    Assistant,
    /// The result of one call, run or refused.
    Tool,
    /// The last record: why the run stopped.
    Stop,
    /// A run continues a transcript that ended with `stop` (after the stop it names).
    Resume,
    /// Between turns: the setup changed (an MCP server's tools), and this one is in
    /// force from here on.
    Setup,
}

impl RecordKind {
    /// The record's `kind` member.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Task => "task",
            RecordKind::Assistant => "assistant",
            RecordKind::Tool => "tool",
            RecordKind::Stop => "stop",
            RecordKind::Resume => "resume",
            RecordKind::Setup => "setup",
        }
    }

    /// Every kind, in the order a run first writes them.
    pub const ALL: [RecordKind; 6] = [
        RecordKind::Task,
        RecordKind::Assistant,
        RecordKind::Tool,
        RecordKind::Stop,
        RecordKind::Resume,
        RecordKind::Setup,
    ];

    /// The kind with this name, if the loop writes one.
    pub fn from_name(name: &str) -> Option<RecordKind> {
        RecordKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a run stopped (SPEC section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StopReason {
    /// The assistant asked for no tools: the ordinary end.
    NoToolCalls,
    /// The assistant's text contains the stop sentinel.
    Sentinel,
    /// `max_steps` turns were taken (checked before each turn).
    StepBudget,
    /// The token sum exceeded `max_tokens`, or the sum of input and output tokens
    /// exceeded `max_total_tokens`; the last turn's calls were not run.
    TokenBudget,
    /// The model failed, or gave a reply that cannot be recorded.
    ModelError,
    /// `max_tool_calls` calls have records (checked before each call).
    ToolBudget,
    /// The host's cancellation (checked before each turn and each call).
    Cancelled,
}

impl StopReason {
    /// Every reason, in the SPEC's order.
    pub const ALL: [StopReason; 7] = [
        StopReason::NoToolCalls,
        StopReason::Sentinel,
        StopReason::StepBudget,
        StopReason::TokenBudget,
        StopReason::ModelError,
        StopReason::ToolBudget,
        StopReason::Cancelled,
    ];

    /// The name written in the `stop` record.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::NoToolCalls => "no_tool_calls",
            StopReason::Sentinel => "sentinel",
            StopReason::StepBudget => "step_budget",
            StopReason::TokenBudget => "token_budget",
            StopReason::ModelError => "model_error",
            StopReason::ToolBudget => "tool_budget",
            StopReason::Cancelled => "cancelled",
        }
    }

    /// The reason with this name, if any.
    pub fn from_name(name: &str) -> Option<StopReason> {
        StopReason::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `call_<seq>_<index>`: the id of call `index` of the assistant record at `seq`.
pub fn call_id(seq: u64, index: usize) -> String {
    format!("call_{seq}_{index}")
}

/// `n` as a count, if it is an integer from 0 to 2^53 − 1 (`f64::fract` is not in
/// `core`: the round trip through `u64` is exact in that range).
pub(crate) fn as_count(n: f64) -> Option<u64> {
    (n >= 0.0 && n <= MAX_SEQ as f64 && (n as u64) as f64 == n).then_some(n as u64)
}

/// The synthetic result of a call left unrun because the loop stopped for `reason`.
pub(crate) fn not_run_sentence(reason: &str) -> String {
    format!("not run: the loop stopped ({reason})")
}

#[cfg(test)]
mod tests;
