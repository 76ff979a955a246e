//! Taking an `agentloop_agent`'s records into a chain.

use crate::boundary::boundary;
use crate::bytes::{handle_mut, need, put};
use crate::chain::{agentloop_chain, Out};
use crate::result::{agentloop_result, Outcome};

use super::agentloop_agent;

/// Appends the agent's next pending record to `chain` and writes its canonical line
/// (ending in `\n`, no NUL) to `(out_buf, out_cap)`, its length to `*out_len`, and
/// `true` to `*out_has_record`. With no record pending it writes `false` to
/// `*out_has_record` and 0 to `*out_len` and changes nothing. Call it until
/// `*out_has_record` is false after every poll, feed and cancel.
///
/// Size query: when the line does not fit (or `out_buf` is NULL), the needed length is
/// written to `*out_len`, the result is `INSUFFICIENT_SIZE`, the record stays pending
/// and the chain is unchanged: the retry gives the same line.
///
/// The chain's next `seq` must be the record's (`first_seq` of
/// `agentloop_agent_new` for the first): otherwise `INVALID_ARGUMENT`, nothing changed.
/// Other refusals as `agentloop_chain_append` (`CHAIN_EXHAUSTED`, `RECORD_TOO_LONG`).
/// NULL `agent`, `chain`, `out_len` or `out_has_record` is `NULL_PARAMETER`. Not
/// thread-safe for one agent or chain.
///
/// # Safety
/// `agent` and `chain` must be live objects from this library; `out_buf`, if not NULL,
/// must point to `out_cap` writable bytes; `out_len` and `out_has_record` must be valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_record(
    agent: *mut agentloop_agent,
    chain: *mut agentloop_chain,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    out_has_record: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        need(out_has_record)?;
        let out = Out::Buffer {
            buf: out_buf,
            cap: out_cap,
            len: out_len,
        };
        // SAFETY: forwarded from this function's contract.
        let taken = unsafe { take(agent, chain, out) }?;
        if !taken {
            // SAFETY: checked non-NULL; the caller promises it is writable.
            unsafe { put(out_len, 0) }?;
        }
        // SAFETY: checked non-NULL; the caller promises it is writable.
        unsafe { put(out_has_record, taken) }
    })
}

/// As `agentloop_agent_take_record`, with the line lent instead of copied: appends the
/// agent's next pending record to `chain`, writes a pointer to its canonical line
/// (ending in `\n`, no NUL) to `*out_line`, its length to `*out_len`, and `true` to
/// `*out_has_record`. The line belongs to the chain, as with
/// `agentloop_chain_append_borrowed`: valid and unchanged until the next call that
/// takes this chain (this one included) or `agentloop_chain_free` — write it out
/// before taking the next record. With no record pending it writes NULL, 0 and
/// `false` and changes nothing. There is no size query: one call per record.
///
/// Refusals as `agentloop_agent_take_record` (`INVALID_ARGUMENT` for a chain at
/// another `seq`, `CHAIN_EXHAUSTED`, `RECORD_TOO_LONG`), each leaving the record
/// pending, the chain unchanged and the outputs unwritten. NULL `agent`, `chain`,
/// `out_line`, `out_len` or `out_has_record` is `NULL_PARAMETER`. Not thread-safe for one
/// agent or chain.
///
/// # Safety
/// `agent` and `chain` must be live objects from this library; `out_line`, `out_len`
/// and `out_has_record` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_record_borrowed(
    agent: *mut agentloop_agent,
    chain: *mut agentloop_chain,
    out_line: *mut *const u8,
    out_len: *mut usize,
    out_has_record: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out_line)?;
        need(out_len)?;
        need(out_has_record)?;
        let out = Out::Lent {
            ptr: out_line,
            len: out_len,
        };
        // SAFETY: forwarded from this function's contract.
        let taken = unsafe { take(agent, chain, out) }?;
        if !taken {
            // SAFETY: each was checked non-NULL; the caller promises they are writable.
            unsafe {
                put(out_line, core::ptr::null())?;
                put(out_len, 0)?;
            }
        }
        // SAFETY: checked non-NULL; the caller promises it is writable.
        unsafe { put(out_has_record, taken) }
    })
}

/// The body of both take functions: the next pending record into `chain`, its line
/// handed out as `out` says; whether there was one.
///
/// # Safety
/// `agent` and `chain` live objects from this library; `out`'s pointers checked
/// non-NULL (but a buffer) and as the calling function's contract says.
unsafe fn take(
    agent: *mut agentloop_agent,
    chain: *mut agentloop_chain,
    out: Out,
) -> Outcome<bool> {
    // SAFETY: the caller promises a live agent used by no other thread.
    let agent = unsafe { handle_mut(agent) }?;
    // SAFETY: the caller promises a live chain used by no other thread.
    let chain = unsafe { handle_mut(chain) }?;
    let Some(record) = agent.pending.front() else {
        return Ok(false);
    };
    if record.seq != chain.next_seq() {
        return Err(agentloop_result::InvalidArgument);
    }
    chain.append_value(record.kind.as_str(), &record.payload, out)?;
    agent.pending.pop_front();
    Ok(true)
}
