//! The model's side of an `agentloop_agent`: what a model is shown (the conversation
//! and the tools on offer) and feeding its reply or its failure.

use agentloop_core::export::{native_messages, native_tools};

use crate::answer::{parse_calls, read_model_error, Answer};
use crate::boundary::boundary;
use crate::bytes::{handle, handle_mut, input, need, text, write_out};
use crate::result::agentloop_result;

use super::{agentloop_agent, canonical};

/// Writes the conversation so far — what a model is shown — as canonical JSON to
/// `(out_buf, out_cap)` and its length to `*out_len` (no NUL). The shape is an array,
/// the task first:
///
/// - `{"role":"user","text":…}`
/// - `{"role":"assistant","text":…,"tool_calls":[{"arguments":…,"id":…,"name":…}]}`
/// - `{"role":"tool","id":…,"name":…,"ok":true,"value":…}` or
///   `{"role":"tool","error":…,"id":…,"name":…,"ok":false}` (members in canonical
///   order).
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_STATE` before the first poll.
/// NULL `agent` or `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_messages_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let running = agent.agent.as_ref().ok_or(agentloop_result::InvalidState)?;
        let messages = native_messages(running.messages());
        let bytes = canonical(&messages)?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Writes the tools on offer, sorted by name, as canonical JSON
/// `[{"description":…,"name":…,"schema":…}]` to `(out_buf, out_cap)` and its length to
/// `*out_len` (no NUL). Any time. Size query as `agentloop_json_canonicalize`. NULL `agent`
/// or `out_len` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_messages_json`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_manifest_json(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let bytes = canonical(&native_tools(&agent.specs))?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&bytes, out_buf, out_cap, out_len) }
    })
}

/// Feeds the model's reply to the reply asked for: the text `(text_ptr, text_len)`
/// (UTF-8, may be empty), the calls `(calls_ptr, calls_len)` — a JSON array of
/// `{"name": string, "arguments": any JSON}` in order, or empty (length 0) for none —
/// and, when `has_output_tokens`, the turn's real output tokens (else the loop
/// estimates them from the text).
///
/// Refusals, each leaving the agent unchanged and still waiting for a reply:
/// `INVALID_STATE` when the last poll did not ask for a reply; `INVALID_UTF8`;
/// `INVALID_JSON` / `NO_CANONICAL_FORM` for the calls text; `INVALID_ARGUMENT` when it
/// is not an array of objects with exactly `name` (a string) and `arguments`.
/// A reply the loop cannot record (tokens above 2^53 − 1, or an `assistant` record
/// longer than the 16 MiB line limit: "the model's reply is too large for one record
/// (N bytes, the limit is 16777216)") is accepted and stops the run with
/// `model_error`, as in the Rust loop. Poll again afterwards. The inputs are
/// copied. NULL `agent` is `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; the byte inputs must point to their
/// lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_reply(
    agent: *mut agentloop_agent,
    text_ptr: *const u8,
    text_len: usize,
    calls_ptr: *const u8,
    calls_len: usize,
    has_output_tokens: bool,
    output_tokens: u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let reply_text = unsafe { text(text_ptr, text_len) }?;
        // SAFETY: as above.
        let calls = parse_calls(unsafe { input(calls_ptr, calls_len) }?)?;
        let mut answer = Answer::default();
        answer.set_text(reply_text);
        for (name, arguments) in calls {
            answer.add_call(name, arguments);
        }
        if has_output_tokens {
            answer.set_output_tokens(output_tokens);
        }
        agent.feed_reply(answer.finish())
    })
}

/// Feeds the model's failure to the reply asked for: the sentence `(ptr, len)` (UTF-8;
/// empty becomes "the model failed without saying why") goes into the `stop` record's
/// `error`, and the run stops with `model_error`. Refusals, each leaving the agent
/// unchanged and still waiting for a reply: `INVALID_STATE` when the last poll did not
/// ask for a reply; `INVALID_UTF8` for a sentence that is not UTF-8. NULL `agent` (or
/// a NULL `ptr` with a length above 0) is `NULL_PARAMETER`. Not thread-safe for one
/// agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `ptr` must point to `len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_model_error(
    agent: *mut agentloop_agent,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte input.
        let error = unsafe { read_model_error(ptr, len) }?;
        agent.feed_reply(Err(error))
    })
}
