//! Taking an `agentloop_agent`'s records into a chain.

use crate::boundary::boundary;
use crate::bytes::{handle_mut, need, put};
use crate::chain::agentloop_chain;
use crate::result::agentloop_result;

use super::agentloop_agent;

/// Appends the agent's next pending record to `chain` and writes its canonical line
/// (ending in `\n`, no NUL) to `(out_buf, out_cap)`, its length to `*out_len`, and
/// `true` to `*has_record`. With no record pending it writes `false` to `*has_record`
/// and 0 to `*out_len` and changes nothing. Call it until `*has_record` is false after
/// every poll, feed and cancel.
///
/// Size query: when the line does not fit (or `out_buf` is NULL), the needed length is
/// written to `*out_len`, the result is `INSUFFICIENT_SIZE`, the record stays pending
/// and the chain is unchanged: the retry gives the same line.
///
/// The chain's next `seq` must be the record's (`first_seq` of
/// `agentloop_agent_new` for the first): otherwise `INVALID_ARGUMENT`, nothing changed.
/// Other refusals as `agentloop_chain_append` (`CHAIN_EXHAUSTED`, `RECORD_TOO_LONG`). NULL `agent`,
/// `chain`, `out_len` or `has_record` is `NULL_PARAMETER`. Not thread-safe for one agent
/// or chain.
///
/// # Safety
/// `agent` and `chain` must be live objects from this library; `out_buf`, if not NULL,
/// must point to `out_cap` writable bytes; `out_len` and `has_record` must be valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_take_record(
    agent: *mut agentloop_agent,
    chain: *mut agentloop_chain,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    has_record: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        need(has_record)?;
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: the caller promises a live chain used by no other thread.
        let chain = unsafe { handle_mut(chain) }?;
        let Some(record) = agent.pending.front() else {
            // SAFETY: both were checked non-NULL; the caller promises they are writable.
            unsafe { put(out_len, 0) }?;
            // SAFETY: as above.
            return unsafe { put(has_record, false) };
        };
        if record.seq != chain.next_seq() {
            return Err(agentloop_result::InvalidArgument);
        }
        chain.append_value(
            record.kind.as_str(),
            &record.payload,
            out_buf,
            out_cap,
            out_len,
        )?;
        agent.pending.pop_front();
        // SAFETY: has_record was checked non-NULL; the caller promises it is writable.
        unsafe { put(has_record, true) }
    })
}
