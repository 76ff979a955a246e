//! Polling an `agentloop_agent` for what it needs (`agentloop_need`), how many calls
//! it hands out at once, and cancelling it.

use crate::boundary::boundary;
use crate::bytes::{handle_mut, need, put};
use crate::result::agentloop_result;

use super::{agentloop_agent, Asked};

/// What `agentloop_agent_poll` says the agent needs, as a `uint32_t`. The numbers are
/// stable and append-only.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_need {
    /// A model reply: read `agentloop_agent_messages_json` and
    /// `agentloop_agent_manifest_json`, then call `agentloop_agent_feed_reply` or
    /// `agentloop_agent_feed_model_error`.
    ModelReply = 1,
    /// A tool result, with parallelism 1 (the default): read the call
    /// (`agentloop_agent_call_name`, `agentloop_agent_call_arguments`, …), run it, then
    /// call `agentloop_agent_feed_tool_result` or `agentloop_agent_feed_tool_error`.
    /// The by-id functions of `AGENTLOOP_NEED_TOOL_RESULTS` serve too: the call is the
    /// one `agentloop_agent_take_calls` gives.
    ToolResult = 2,
    /// Nothing: the run is over (`agentloop_agent_outcome`).
    Done = 3,
    /// Tool results, with parallelism other than 1 (`agentloop_agent_set_parallel`):
    /// read the calls with `agentloop_agent_take_calls`, run them in any order or
    /// together, and feed each result by its id (`agentloop_agent_feed_tool_result_for`,
    /// `agentloop_agent_feed_tool_error_for`).
    ToolResults = 4,
}

/// Runs the loop to its next need and writes it to `*out_need` (an `agentloop_need`):
/// `AGENTLOOP_NEED_MODEL_REPLY`, `AGENTLOOP_NEED_DONE`, and for the calls of a turn
/// `AGENTLOOP_NEED_TOOL_RESULT` (parallelism 1, the default: one call at a time) or
/// `AGENTLOOP_NEED_TOOL_RESULTS` (otherwise: up to that many calls at once, read with
/// `agentloop_agent_take_calls` and fed by id, in any order, on any threads of yours).
/// Polling again without feeding gives the same need (with more calls handed out, up
/// to the parallelism, as results are fed). The first poll writes the `task` record
/// and freezes the manifest; every poll may leave records to take
/// (`agentloop_agent_take_record`): take them all before acting on the need, so that
/// every record is stored before the next tool runs (a poll writes the record of a
/// call it refused, then goes on to the next call).
///
/// Each call is decided just before it is handed out, in call order (tool-call budget,
/// unknown tool, the tool's limit counting the earlier calls of the turn, schema); a
/// refused call gets its `tool` record as usual and is not handed out. Records are
/// written in call order: a result fed for call 3 is recorded once calls 0–2 are. So
/// the transcript is the same bytes whatever the parallelism. If the process dies with
/// results unrecorded, a resume treats every call of the turn with no `tool` record as
/// possibly run (docs/resume.md).
///
/// NULL `agent` or `out_need` is `NULL_PARAMETER`. Not thread-safe for one agent: run
/// the tools on other threads, but make the agent calls (feeds, takes) from one thread
/// at a time.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_need` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_poll(
    agent: *mut agentloop_agent,
    out_need: *mut u32,
) -> agentloop_result {
    boundary(|| {
        need(out_need)?;
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let asked = agent.poll()?;
        // SAFETY: out_need was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_need, asked as u32) }
    })
}

/// Sets how many calls of a turn may wait for their results at once: 1 (the default,
/// and what 0 means) hands out one call at a time (`AGENTLOOP_NEED_TOOL_RESULT`); more
/// lets the host run that many together (`AGENTLOOP_NEED_TOOL_RESULTS`); `UINT64_MAX`
/// hands out every call of a turn at once (a count of calls, so `uint64_t`, as every
/// count in this API; above what the target can address it means every call too).
/// The transcript is the same bytes whatever the parallelism.
///
/// May be called at any time; it takes effect at the next `agentloop_agent_poll`.
/// Calls already handed out stay handed out: lowered to 1 while several wait, a poll
/// asks for the first of them one at a time. NULL `agent` is `NULL_PARAMETER`. Not
/// thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_set_parallel(
    agent: *mut agentloop_agent,
    parallel: u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.parallel = usize::try_from(parallel).unwrap_or(usize::MAX).max(1);
        Ok(())
    })
}

/// The host's cancellation: stops the run now with `cancelled` (a reply or result
/// asked for and not yet fed is abandoned; an abandoned call counts as unrun). With
/// several calls handed out (`agentloop_agent_set_parallel`), results already fed are
/// kept: every call up to the last one fed is recorded in call order, and a call
/// before it still waiting for its result gets an `ok:false` "result lost" record (it
/// was handed out, so it may have run); only the calls after those are unrun. Before the first poll it
/// writes the `task` record first. Does nothing once the run has stopped. NULL `agent`
/// is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_cancel(agent: *mut agentloop_agent) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        agent.start()?.cancel();
        agent.asked = Asked::Nothing;
        agent.collect();
        Ok(())
    })
}
