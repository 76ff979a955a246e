//! The tools' side of an `agentloop_agent`: the call to run (or the calls handed out
//! together) and feeding each result or failure.

use agentloop_core::export::{native_call, native_calls};
use agentloop_core::json::Value;
use agentloop_core::model::ToolCall;
use agentloop_core::tools::ToolError;

use crate::boundary::boundary;
use crate::bytes::{handle, handle_mut, need, text, write_out};
use crate::result::{agentloop_result, Outcome};
use crate::tool_result::{read_failure, read_value};

use super::{agentloop_agent, canonical};

/// Writes one part of the call the last poll asked to run, as
/// `agentloop_agent_call_json` does for the whole call.
///
/// # Safety
/// As `agentloop_agent_call_json`.
unsafe fn call_part(
    agent: *const agentloop_agent,
    part: impl FnOnce(&ToolCall) -> Outcome<Vec<u8>>,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> Outcome {
    need(out_len)?;
    // SAFETY: the caller promises a live agent.
    let agent = unsafe { handle(agent) }?;
    let bytes = part(agent.call()?)?;
    // SAFETY: the caller's contract for the output buffer and out_len.
    unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
}

/// Writes the call to run — after a poll gave `AGENTLOOP_NEED_TOOL_RESULT` — as
/// canonical JSON `{"arguments":…,"id":…,"name":…}` to `(out_buf, out_cap)` and its
/// length to `*out_len` (no NUL). The arguments have passed the tool's schema.
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_STATE` when the last poll did not
/// ask for a tool result (or it was fed since). NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| canonical(&native_call(call));
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the name of the tool to run (UTF-8, no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_STATE` when the last poll did
/// not ask for a tool result (or it was fed since). NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_name(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| Ok(call.name.clone().into_bytes());
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the id of the call to run (`call_<seq>_<index>`, no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_STATE` when the last poll did
/// not ask for a tool result (or it was fed since). NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_id(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| Ok(call.id.clone().into_bytes());
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// Writes the arguments of the call to run as canonical JSON (no NUL); otherwise as
/// `agentloop_agent_call_json`.
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_STATE` when the last poll did
/// not ask for a tool result (or it was fed since). NULL `agent` or `out_len` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_call_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_call_arguments(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        let part = |call: &ToolCall| canonical(&call.arguments);
        // SAFETY: forwarded from this function's contract.
        unsafe { call_part(agent, part, out_buf, out_cap, out_len) }
    })
}

/// The body of the four tool feeds: the result `read` gives, fed to the call the last
/// poll asked for or — with an id `(id_ptr, id_len)` (UTF-8) — to that waiting call. The id is read before the result.
///
/// # Safety
/// `agent` must be a live agent used by no other thread; the id must point to `id_len`
/// readable bytes; `read` must be safe to call (its inputs valid).
unsafe fn feed(
    agent: *mut agentloop_agent,
    id: Option<(*const u8, usize)>,
    read: impl FnOnce() -> Outcome<Result<Value, ToolError>>,
) -> Outcome {
    // SAFETY: the caller promises a live agent used by no other thread.
    let agent = unsafe { handle_mut(agent) }?;
    match id {
        None => agent.feed_tool(read()?),
        Some((id_ptr, id_len)) => {
            // SAFETY: the caller's contract for the id bytes.
            let id = unsafe { text(id_ptr, id_len) }?;
            agent.feed_tool_for(id, read()?)
        }
    }
}

/// Feeds the tool's value `(ptr, len)` — any JSON document — to the call asked for; it
/// is recorded with `"ok":true`. As in the Rust loop, a value the record cannot hold
/// is recorded as `"ok":false` with the loop's sentence and the call counts as run:
/// a number with no canonical encoding (`1e400`: "tool 'x' returned a value with no
/// canonical encoding"), nesting too deep, or a `tool` record longer than the 16 MiB
/// line limit ("the result of tool 'x' is too large for one record (N bytes, the limit
/// is 16777216)"); that is still `OK`.
///
/// Refusals, each leaving the agent unchanged and still waiting for this result:
/// `INVALID_STATE` when the last poll did not ask for a tool result; `INVALID_JSON`
/// for text the strict parser refuses (bad syntax, invalid UTF-8, a duplicate key, …).
/// Poll again afterwards. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one
/// agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_result(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller's contract for the agent and the byte input.
        unsafe { feed(agent, None, || read_value(ptr, len).map(Ok)) }
    })
}

/// Feeds the tool's failure to the call asked for: the sentence `(ptr, len)` (UTF-8)
/// is recorded as `"ok":false` with `"error":"tool '<name>' failed: <sentence>"` (empty:
/// "failed without saying why"), and the run goes on. Refusals as
/// `agentloop_agent_feed_tool_result` (`INVALID_STATE`, `INVALID_UTF8`). Not
/// thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_error(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller's contract for the agent and the byte input.
        unsafe { feed(agent, None, || read_failure(ptr, len).map(Err)) }
    })
}

/// Writes the calls handed out and still waiting for a result — after a poll gave
/// `AGENTLOOP_NEED_TOOL_RESULTS` or `AGENTLOOP_NEED_TOOL_RESULT` — as a canonical JSON
/// array `[{"arguments":…,"id":…,"name":…}, …]` in call order to `(out_buf, out_cap)`
/// and its length to `*out_len` (no NUL). Each call's arguments have passed its tool's
/// schema. After `AGENTLOOP_NEED_TOOL_RESULT` it is the one call asked for (and any
/// others still waiting from polls with a higher parallelism), so one code path —
/// take the calls, feed each by id — serves every parallelism. It takes nothing away:
/// calling it again gives the calls still waiting (fewer, as results are fed).
///
/// Size query as `agentloop_json_canonicalize`: with a NULL or short buffer, the needed
/// length is written and the result is `INSUFFICIENT_SIZE`, nothing changed.
/// `INVALID_STATE` when the last poll handed out no call (it gave
/// `AGENTLOOP_NEED_MODEL_REPLY` or `AGENTLOOP_NEED_DONE`), or every result was fed
/// since. NULL `agent` or
/// `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_calls(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let calls = native_calls(agent.waiting()?);
        let bytes = canonical(&calls)?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Feeds the value `(ptr, len)` — any JSON document — as the result of the waiting
/// call whose id is `(id_ptr, id_len)` (UTF-8, as `agentloop_agent_take_calls` gave
/// it), in any order. Recorded as `agentloop_agent_feed_tool_result` records it, once
/// the calls before it are recorded: take the records after every feed. It serves
/// after `AGENTLOOP_NEED_TOOL_RESULT` too: feeding the call asked for (by its id) is
/// then what `agentloop_agent_feed_tool_result` does (the call getters refuse until
/// the next poll).
///
/// Refusals, each leaving the agent unchanged: `INVALID_STATE` when no call is
/// waiting (the last poll handed out none, or every result was fed, as for
/// `agentloop_agent_take_calls`); `INVALID_ARGUMENT` when
/// no waiting call has that id (unknown, refused, or fed already); `INVALID_UTF8`;
/// `INVALID_JSON` for text the strict parser refuses. NULL `agent` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `id_ptr` must point to `id_len`
/// readable bytes and `ptr` to `len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_result_for(
    agent: *mut agentloop_agent,
    id_ptr: *const u8,
    id_len: usize,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        let id = Some((id_ptr, id_len));
        // SAFETY: the caller's contract for the agent and the byte inputs.
        unsafe { feed(agent, id, || read_value(ptr, len).map(Ok)) }
    })
}

/// Feeds the tool's failure, the sentence `(ptr, len)` (UTF-8), as the result of the
/// waiting call `(id_ptr, id_len)`: recorded as `agentloop_agent_feed_tool_error`
/// records it. Refusals, each leaving the agent unchanged: `INVALID_STATE` when no
/// call is waiting; `INVALID_ARGUMENT` when no waiting call has that id;
/// `INVALID_UTF8` for an id or a sentence that is not UTF-8. NULL `agent` (or a NULL
/// input with a length above 0) is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `id_ptr` must point to `id_len`
/// readable bytes and `ptr` to `len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_tool_error_for(
    agent: *mut agentloop_agent,
    id_ptr: *const u8,
    id_len: usize,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        let id = Some((id_ptr, id_len));
        // SAFETY: the caller's contract for the agent and the byte inputs.
        unsafe { feed(agent, id, || read_failure(ptr, len).map(Err)) }
    })
}
