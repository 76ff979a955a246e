//! How a run of an `agentloop_agent` ended: `agentloop_stop`, its names, the outcome
//! and the `stop` record's error sentence.

use core::ffi::c_char;

use agentloop_core::agent::{Agent, StopReason};

use crate::boundary::boundary;
use crate::bytes::{handle, need, put_opt, write_out};
use crate::result::agentloop_result;

use super::agentloop_agent;

/// Why a run stopped, as a `uint32_t` (`agentloop_stop_str` gives the name the
/// `stop` record carries). The numbers are stable and append-only; treat an unknown
/// value as a reason this version does not know.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_stop {
    /// Never returned: a reason this library version cannot name.
    Unknown = 0,
    /// `no_tool_calls`: the assistant asked for no tools (the ordinary end).
    NoToolCalls = 1,
    /// `sentinel`: the assistant's text contains the stop sentinel.
    Sentinel = 2,
    /// `step_budget`: `max_steps` turns were taken.
    StepBudget = 3,
    /// `token_budget`: the token sum exceeded `max_tokens`, or the sum of tokens in
    /// and out exceeded `max_total_tokens`.
    TokenBudget = 4,
    /// `model_error`: the model failed or gave a reply that cannot be recorded.
    ModelError = 5,
    /// `tool_budget`: `max_tool_calls` calls have records.
    ToolBudget = 6,
    /// `cancelled`: the host cancelled the run.
    Cancelled = 7,
}

impl agentloop_stop {
    /// Every value, in number order.
    pub const ALL: [agentloop_stop; 8] = [
        agentloop_stop::Unknown,
        agentloop_stop::NoToolCalls,
        agentloop_stop::Sentinel,
        agentloop_stop::StepBudget,
        agentloop_stop::TokenBudget,
        agentloop_stop::ModelError,
        agentloop_stop::ToolBudget,
        agentloop_stop::Cancelled,
    ];

    /// The C value for a core reason.
    pub fn from_core(reason: StopReason) -> agentloop_stop {
        match reason {
            StopReason::NoToolCalls => agentloop_stop::NoToolCalls,
            StopReason::Sentinel => agentloop_stop::Sentinel,
            StopReason::StepBudget => agentloop_stop::StepBudget,
            StopReason::TokenBudget => agentloop_stop::TokenBudget,
            StopReason::ModelError => agentloop_stop::ModelError,
            StopReason::ToolBudget => agentloop_stop::ToolBudget,
            StopReason::Cancelled => agentloop_stop::Cancelled,
        }
    }

    fn name(self) -> &'static [u8] {
        match self {
            agentloop_stop::Unknown => b"unknown\0",
            agentloop_stop::NoToolCalls => b"no_tool_calls\0",
            agentloop_stop::Sentinel => b"sentinel\0",
            agentloop_stop::StepBudget => b"step_budget\0",
            agentloop_stop::TokenBudget => b"token_budget\0",
            agentloop_stop::ModelError => b"model_error\0",
            agentloop_stop::ToolBudget => b"tool_budget\0",
            agentloop_stop::Cancelled => b"cancelled\0",
        }
    }
}

/// The name the `stop` record gives `reason` (an `agentloop_stop` value), e.g.
/// `"no_tool_calls"`. Any value is accepted: one this version does not know gives
/// `"unknown"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn agentloop_stop_str(reason: u32) -> *const c_char {
    boundary(|| {
        let known = usize::try_from(reason)
            .ok()
            .and_then(|i| agentloop_stop::ALL.get(i))
            .copied()
            .unwrap_or(agentloop_stop::Unknown);
        known.name().as_ptr().cast::<c_char>()
    })
}

/// How the run ended, once `agentloop_agent_poll` gave `AGENTLOOP_NEED_DONE` (or after
/// a cancel): the stop reason (an `agentloop_stop` value) to `*out_reason`, the
/// assistant turns to `*out_steps`, the tokens counted to `*out_tokens`, the calls
/// asked for and not run to `*out_unrun_calls`, and the `tool` records to
/// `*out_tool_calls`. Each output may be NULL when not wanted.
///
/// `INVALID_STATE` while the run goes on (nothing written). NULL `agent` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; each output NULL or valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_outcome(
    agent: *const agentloop_agent,
    out_reason: *mut u32,
    out_steps: *mut u64,
    out_tokens: *mut u64,
    out_unrun_calls: *mut u64,
    out_tool_calls: *mut u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let outcome = agent
            .agent
            .as_ref()
            .and_then(Agent::outcome)
            .ok_or(agentloop_result::InvalidState)?;
        // SAFETY: each output is NULL or valid for a write (the caller's contract).
        unsafe {
            put_opt(out_reason, agentloop_stop::from_core(outcome.reason) as u32);
            put_opt(out_steps, outcome.steps);
            put_opt(out_tokens, outcome.tokens);
            put_opt(out_unrun_calls, outcome.unrun_calls);
            put_opt(out_tool_calls, outcome.tool_calls);
        }
        Ok(())
    })
}

/// Writes the `stop` record's `error` sentence — why the model failed, for
/// `model_error`; the empty string for every other reason — to `(out_buf, out_cap)` and
/// its length to `*out_len` (UTF-8, no NUL). Size query as `agentloop_json_canonicalize`;
/// `INVALID_STATE` while the run goes on. NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// Empty output: a stop for any reason but `model_error` gives the empty string, which
/// fits any buffer: `OK` with `*out_len` 0, even with a NULL buffer (so the size query
/// answers `OK`, not `INSUFFICIENT_SIZE`).
///
/// # Safety
/// As `agentloop_agent_messages_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_stop_error(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let outcome = agent
            .agent
            .as_ref()
            .and_then(Agent::outcome)
            .ok_or(agentloop_result::InvalidState)?;
        let sentence = outcome.error.as_deref().unwrap_or("");
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(sentence.as_bytes(), out_buf, out_cap, out_len) }
    })
}
