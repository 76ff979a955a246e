//! `agentloop_chain`: the writer's side of the hash chain, producing record lines into
//! the caller's buffer.

use agentloop_core::anchor::{Anchor, MAX_SEQ};
use agentloop_core::chain::{AppendError, Chain};
use agentloop_core::json::Value;
use agentloop_core::Hash;

use crate::boundary::boundary;
use crate::bytes::{
    fits, give, handle, handle_mut, hash_in, hash_out, input, need, put, take, text, write_out,
};
use crate::hash::agentloop_hash;
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// A hash chain: the next `seq` and the head, from which the next record line is
/// made. Create it with `agentloop_chain_new` or `agentloop_chain_resume`, free it
/// with `agentloop_chain_free`.
///
/// Not thread-safe: one thread at a time may call functions on a chain (it may move
/// between threads).
pub struct agentloop_chain {
    chain: Chain,
    /// Where the chain started (kept here too: a rollback rebuilds `chain`).
    anchor: Anchor,
}

impl agentloop_chain {
    fn new(anchor: Anchor) -> agentloop_chain {
        agentloop_chain {
            chain: Chain::from_anchor(anchor),
            anchor,
        }
    }

    /// Appends a record and hands its line out: copied to the caller's buffer or, when
    /// it does not fit, the chain restored as it was before the call; or lent.
    fn append(&mut self, kind: &str, payload: &[u8], out: Out) -> Outcome {
        self.append_with(out, |chain| chain.append_json(kind, payload))
    }

    /// As [`agentloop_chain::append`], with a parsed payload (the loop's records).
    pub(crate) fn append_value(&mut self, kind: &str, payload: &Value, out: Out) -> Outcome {
        self.append_with(out, |chain| chain.append(kind, payload))
    }

    /// The `seq` the next record will have.
    pub(crate) fn next_seq(&self) -> u64 {
        self.chain.next_seq()
    }

    /// Runs one append on the chain; see [`agentloop_chain::append`].
    fn append_with(
        &mut self,
        out: Out,
        append: impl for<'c> FnOnce(&'c mut Chain) -> Result<&'c [u8], AppendError>,
    ) -> Outcome {
        let (buf, cap, len) = match out {
            Out::Buffer { buf, cap, len } => (buf, cap, len),
            Out::Lent { ptr, len } => {
                let line = append(&mut self.chain).map_err(append_error)?;
                // The line lives in the chain's buffer until the chain's next append (a
                // failed one included) or its free: the lifetime the header promises.
                // SAFETY: both were checked non-NULL by the caller of this method, which
                // promises they are writable.
                return unsafe {
                    put(ptr, line.as_ptr())?;
                    put(len, line.len())
                };
            }
        };
        let before = (self.chain.next_seq(), self.chain.head());
        let line = append(&mut self.chain).map_err(append_error)?;
        if fits(buf, cap, line.len()) {
            // SAFETY: the caller's contract for the output buffer and out_len.
            return unsafe { write_out(line, buf, cap, len) };
        }
        let needed = line.len();
        // Undo: a chain continuing from the state before this append, whose count
        // still counts from the original anchor (see `count`).
        self.chain = Chain::from_anchor(Anchor {
            seq0: before.0,
            prev0: before.1,
        });
        // SAFETY: len was checked non-NULL by the caller of this method.
        unsafe { put(len, needed) }?;
        Err(agentloop_result::InsufficientSize)
    }

    fn count(&self) -> u64 {
        self.chain.next_seq() - self.anchor.seq0
    }
}

/// Where an appended line goes; the pointers were checked non-NULL (but `buf`).
pub(crate) enum Out {
    /// Copied to the caller's buffer, by the size-query protocol.
    Buffer {
        buf: *mut u8,
        cap: usize,
        len: *mut usize,
    },
    /// Lent: a pointer into the chain and the length.
    Lent {
        ptr: *mut *const u8,
        len: *mut usize,
    },
}

/// The result code for a refused append.
pub(crate) fn append_error(error: AppendError) -> agentloop_result {
    match error {
        AppendError::EmptyKind => agentloop_result::InvalidArgument,
        AppendError::SeqExhausted => agentloop_result::ChainExhausted,
        AppendError::Payload(_) => agentloop_result::NoCanonicalForm,
        AppendError::PayloadJson(e) => parse_error(e),
        AppendError::LineTooLong { .. } => agentloop_result::RecordTooLong,
        // Not reached: a payload given as JSON text is parsed at most 128 deep.
        AppendError::TooDeep { .. } => agentloop_result::InvalidJson,
        // Not reached by a chain, which writes a parsed value into its own buffer.
        AppendError::NotCanonical(_) => agentloop_result::InvalidJson,
        AppendError::BufferFull { .. } => agentloop_result::InsufficientSize,
        _ => agentloop_result::InvalidArgument,
    }
}

/// Creates a chain whose first record will have `seq` 0 and `prev` 64 zeros, and
/// writes it to `*out`.
///
/// `out` must not be NULL (`AGENTLOOP_RESULT_NULL_PARAMETER`). On success the caller
/// owns `*out` and frees it with `agentloop_chain_free`; on failure `*out` is not
/// written. Thread-safe.
///
/// # Safety
/// `out` must be valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_new(out: *mut *mut agentloop_chain) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: out was checked non-NULL and the caller promises it is writable.
        unsafe { give(out, agentloop_chain::new(Anchor::GENESIS)) }
    })
}

/// Creates a chain that continues another transcript: its first record will have
/// `seq = seq0` and `prev` = `*prev0` (the head of the transcript it continues, or of
/// a file that already holds `seq0` records from `(0, zeros)`).
///
/// `seq0` above 2^53 − 1 is `AGENTLOOP_RESULT_INVALID_ARGUMENT`. `prev0` and `out`
/// must not be NULL. On success the caller owns `*out` (free it with
/// `agentloop_chain_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `prev0` must point to a readable `agentloop_hash` and `out` be valid for a write of
/// one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_resume(
    seq0: u64,
    prev0: *const agentloop_hash,
    out: *mut *mut agentloop_chain,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a readable hash at prev0.
        let prev0 = Hash(unsafe { hash_in(prev0) }?);
        if seq0 > MAX_SEQ {
            return Err(agentloop_result::InvalidArgument);
        }
        // SAFETY: out was checked non-NULL and the caller promises it is writable.
        unsafe { give(out, agentloop_chain::new(Anchor { seq0, prev0 })) }
    })
}

/// Appends one record to `chain` and writes its canonical line — ending in `\n`, no
/// NUL — to the caller's buffer `(out_buf, out_cap)`, and the line's length to
/// `*out_len`.
///
/// `kind` `(kind_ptr, kind_len)` is UTF-8 text, not empty (`INVALID_UTF8`,
/// `INVALID_ARGUMENT`); `payload` `(payload_ptr, payload_len)` is a JSON document read
/// by the strict parser (`INVALID_JSON`, `NO_CANONICAL_FORM`); its member order and
/// spacing do not matter, the line is canonical. A chain that wrote `seq` 2^53 − 1
/// gives `CHAIN_EXHAUSTED`. A line that would be longer than 16 MiB without its `\n`
/// (the line limit: a verifier refuses it) gives `RECORD_TOO_LONG`.
///
/// Size query: when the line does not fit (or `out_buf` is NULL, or `out_cap` is 0),
/// the needed length is written to `*out_len`, the result is
/// `AGENTLOOP_RESULT_INSUFFICIENT_SIZE` and the chain is **unchanged**: calling again
/// with the same kind and payload and a buffer that large gives the same line.
///
/// Every failure leaves the chain unchanged (except `PANIC`, after which its state is
/// unspecified). NULL: `chain` and `out_len` must not be NULL; a byte input may be NULL
/// only with length 0. Not thread-safe for one chain.
///
/// # Safety
/// `chain` must be a live chain from this library; the byte inputs must point to their
/// lengths in readable bytes; `out_buf`, if not NULL, to `out_cap` writable bytes;
/// `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_append(
    chain: *mut agentloop_chain,
    kind_ptr: *const u8,
    kind_len: usize,
    payload_ptr: *const u8,
    payload_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live chain used by no other thread.
        let chain = unsafe { handle_mut(chain) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let kind = unsafe { text(kind_ptr, kind_len) }?;
        // SAFETY: as above.
        let payload = unsafe { input(payload_ptr, payload_len) }?;
        let out = Out::Buffer {
            buf: out_buf,
            cap: out_cap,
            len: out_len,
        };
        chain.append(kind, payload, out)
    })
}

/// As `agentloop_chain_append`, with the line lent instead of copied: appends one
/// record to `chain` and writes a pointer to its canonical line (ending in `\n`, no
/// NUL) to `*out_line` and the line's length to `*out_len`. The line belongs to the
/// chain: it stays valid and unchanged until the next call that takes this chain
/// (another append, `agentloop_agent_take_record`, …) or `agentloop_chain_free`; copy
/// or write it out before then. There is no size query: the record is appended at once.
///
/// Refusals as `agentloop_chain_append` (`INVALID_UTF8`, `INVALID_ARGUMENT`,
/// `INVALID_JSON`, `NO_CANONICAL_FORM`, `CHAIN_EXHAUSTED`, `RECORD_TOO_LONG`): the chain
/// is unchanged, the outputs are not written, and a line lent before is no longer
/// valid. NULL `chain`, `out_line` or `out_len`, or a NULL byte input with a length
/// above 0, is `NULL_PARAMETER`. Not thread-safe for one chain.
///
/// # Safety
/// `chain` must be a live chain from this library; the byte inputs must point to their
/// lengths in readable bytes; `out_line` and `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_append_borrowed(
    chain: *mut agentloop_chain,
    kind_ptr: *const u8,
    kind_len: usize,
    payload_ptr: *const u8,
    payload_len: usize,
    out_line: *mut *const u8,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_line)?;
        need(out_len)?;
        // SAFETY: the caller promises a live chain used by no other thread.
        let chain = unsafe { handle_mut(chain) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let kind = unsafe { text(kind_ptr, kind_len) }?;
        // SAFETY: as above.
        let payload = unsafe { input(payload_ptr, payload_len) }?;
        let out = Out::Lent {
            ptr: out_line,
            len: out_len,
        };
        chain.append(kind, payload, out)
    })
}

/// Writes the chain's head — the `hash` of its last record, or `prev0` before the
/// first — to `*out` (`agentloop_hash_to_hex` gives its hex spelling).
///
/// NULL: `chain` and `out` must not be NULL. Not thread-safe for one chain against a
/// concurrent append.
///
/// # Safety
/// `chain` must be a live chain from this library; `out` must be valid for a write of
/// one `agentloop_hash`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_head(
    chain: *const agentloop_chain,
    out: *mut agentloop_hash,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a live chain.
        let chain = unsafe { handle(chain) }?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { hash_out(out, &chain.chain.head().0) }
    })
}

/// Writes to `*out` how many records the chain has appended since it was created (a
/// resumed chain counts from 0 too); the next record's `seq` is `seq0` plus this.
///
/// NULL: `chain` and `out` must not be NULL. Not thread-safe for one chain against a
/// concurrent append.
///
/// # Safety
/// `chain` must be a live chain from this library; `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_count(
    chain: *const agentloop_chain,
    out: *mut u64,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a live chain.
        let chain = unsafe { handle(chain) }?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { put(out, chain.count()) }
    })
}

/// Frees a chain. NULL does nothing. The pointer must not be used afterwards.
///
/// # Safety
/// `chain` must be NULL or a chain from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_chain_free(chain: *mut agentloop_chain) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(chain) })
}
