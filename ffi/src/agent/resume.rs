//! Resuming an `agentloop_agent`: continuing a transcript that stopped early or ended
//! with `stop` (see docs/resume.md), and declaring tools idempotent.

use agentloop_core::anchor::Anchor;
use agentloop_core::driver::Resumable;
use agentloop_core::hash::Hash;

use crate::agent::agentloop_agent;
use crate::boundary::boundary;
use crate::bytes::{handle, handle_mut, hash_in, hash_out, input, need, put_opt, text, write_out};
use crate::hash::agentloop_hash;
use crate::result::agentloop_result;

/// Declares the registered tool `(name_ptr, name_len)` idempotent: running it twice
/// has the effect of running it once. When a resumed run finds that a call of an
/// idempotent tool may have been running when the run died, it runs the call again;
/// any other tool's call is not run again and is recorded `ok:false`, "result lost"
/// (tool effects at most once; docs/resume.md). Tools are not idempotent unless
/// declared.
///
/// `INVALID_ARGUMENT` when no tool of that name is registered; `INVALID_UTF8`;
/// `INVALID_STATE` after the first poll or a resume. NULL `agent` is `NULL_PARAMETER`.
/// Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `name_ptr` must point to `name_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_set_idempotent(
    agent: *mut agentloop_agent,
    name_ptr: *const u8,
    name_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller's contract for the byte input.
        let name = unsafe { text(name_ptr, name_len) }?;
        agent.set_idempotent(name)
    })
}

/// Makes the agent continue the transcript `(transcript_ptr, transcript_len)` — every
/// line it holds, from its `task` record — instead of starting a new run. Call it after
/// `agentloop_agent_new` (same task, budgets and `first_seq` as the run that wrote the
/// transcript) and registering the same tools, before the first poll.
///
/// The transcript must verify strictly from `(first_seq, *prev0)` (`prev0` NULL for 32
/// zero bytes); a torn last line or any other fault is
/// `DOES_NOT_VERIFY`. It must be a run of this loop with this task, these budgets and
/// tools; otherwise `RESUME_REFUSED`. After either, `agentloop_agent_resume_error`
/// says why, and the agent is unchanged (it may be resumed again or run anew).
///
/// On success the agent is where the recorded run was: polls go on from there, budgets
/// cumulative, and records it holds already may be taken at once (a `resume` record
/// when the transcript ended with `stop`). The next record's `seq` is written to
/// `*out_next_seq` and the transcript's head (the last record's hash) to `*out_head`
/// (each may be NULL): create the chain for
/// `agentloop_agent_take_record` with `agentloop_chain_resume(next_seq, head)` and
/// append its lines to the same file.
///
/// NULL `agent` is `NULL_PARAMETER`. The transcript is not kept. Not thread-safe for
/// one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `prev0` NULL or a readable
/// `agentloop_hash`; `transcript_ptr` must point to `transcript_len` readable bytes;
/// `out_next_seq` and `out_head` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_resume(
    agent: *mut agentloop_agent,
    prev0: *const agentloop_hash,
    transcript_ptr: *const u8,
    transcript_len: usize,
    out_next_seq: *mut u64,
    out_head: *mut agentloop_hash,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let prev0 = if prev0.is_null() {
            Hash::ZERO
        } else {
            // SAFETY: the caller promises a readable hash at a non-NULL prev0.
            Hash(unsafe { hash_in(prev0) }?)
        };
        // SAFETY: the caller's contract for the byte input.
        let transcript = unsafe { input(transcript_ptr, transcript_len) }?;
        let (first_seq, _) = agent.setup()?;
        let anchor = Anchor {
            seq0: first_seq,
            prev0,
        };
        let recorded = match Resumable::read(anchor, transcript) {
            Ok(recorded) => recorded,
            Err(error) if error.unreadable() => return Err(agentloop_result::InvalidJson),
            Err(error) => {
                return agent
                    .refuse(error.to_string())
                    .map_err(|_| agentloop_result::DoesNotVerify)
            }
        };
        let (_, task) = agent.setup()?;
        if let Some(other) = recorded.task().filter(|t| *t != task) {
            let sentence = format!(
                "the transcript's task is {other:?}, the agent's is {task:?}: a resumed run \
                 continues its own task"
            );
            return agent.refuse(sentence);
        }
        agent.resume(&recorded)?;
        let Anchor {
            seq0: next_seq,
            prev0: head,
        } = recorded.next();
        // SAFETY: out_next_seq is NULL or valid for a write (the caller's contract).
        unsafe { put_opt(out_next_seq, next_seq) };
        if !out_head.is_null() {
            // SAFETY: a non-NULL out_head is writable (the caller's contract).
            unsafe { hash_out(out_head, &head.0) }?;
        }
        Ok(())
    })
}

/// Writes why the last `agentloop_agent_resume` refused its transcript — the fault or
/// the record and what is wrong with it; the empty string if it did not — to
/// `(out_buf, out_cap)` and its length to `*out_len` (UTF-8, no NUL). Size query as
/// `agentloop_json_canonicalize`. NULL `agent` or `out_len` is `NULL_PARAMETER`. Not
/// thread-safe for one agent.
///
/// Empty output: no refused resume gives the empty string, which fits any buffer: `OK`
/// with `*out_len` 0, even with a NULL buffer (so the size query answers `OK`, not
/// `INSUFFICIENT_SIZE`).
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_resume_error(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(agent.refusal().as_bytes(), out_buf, out_cap, out_len) }
    })
}
