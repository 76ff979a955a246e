//! Verifying a transcript against several checkpoints at once, by the rules of
//! `agentloop verify --checkpoint A --checkpoint B` (`agentloop_core::tlog::ByCheckpoints`).

use agentloop_core::tlog::{read_checkpoint, ByCheckpoints};

use crate::boundary::boundary;
use crate::bytes::{give, input, need, opt_text};
use crate::proof::malformed_code;
use crate::proof_check::trusted_key_list;
use crate::report::agentloop_report;
use crate::result::{agentloop_result, Outcome};
use crate::verify::{agentloop_verify_options, read_options};

/// Reads checkpoint `i` of the caller's arrays.
///
/// # Safety
/// `texts` and `lens` must each point to more than `i` readable elements; each text
/// must point to its length's readable bytes.
unsafe fn checkpoint_input<'a>(
    texts: *const *const u8,
    lens: *const usize,
    i: usize,
) -> Outcome<&'a [u8]> {
    // SAFETY: the caller promises more than `i` readable elements in each array.
    let (ptr, len) = unsafe { (*texts.add(i), *lens.add(i)) };
    // SAFETY: the caller promises `len` readable bytes at `ptr`.
    unsafe { input(ptr, len) }
}

/// Verifies the transcript held in `(ptr, len)` against `checkpoints_len` checkpoints
/// (C2SP, signed or not, or v1: each `(checkpoints[i], checkpoint_lens[i])`) by the
/// rules of `agentloop verify --checkpoint` given several times, and writes a new report
/// to `*out_report`:
/// - each checkpoint is admitted: with trusted keys `(trusted_keys_ptr,
///   trusted_keys_len)` (note verifier keys one a line, as
///   `agentloop_proof_verify_inclusion` takes them) it must be signed by one of them
///   (`checkpoint_untrusted`, `checkpoint_bad_signature`); with an origin
///   `(origin_ptr, origin_len)` it must name that origin
///   (`checkpoint_origin_mismatch`). These are file-level faults (index and
///   line -1) whose detail starts `checkpoint checkpoints[i]: `.
/// - the newest (the largest count; the last given on a tie) is the checkpoint the
///   transcript is verified against (`truncated`, `head_mismatch`, its Merkle root,
///   `checkpoint_origin_mismatch` for another transcript's);
/// - each older one must be a prefix of the newest (`checkpoint_inconsistent`: a
///   consistency proof from the transcript's records, checked against both roots) or,
///   when the newest does not hold, is judged against the transcript itself.
///
/// A transcript with faults is still `OK`: the faults are in the report. Failures
/// are about the call: NULL `out_report`, or a NULL array or text with a length above 0
/// (`NULL_PARAMETER`); `options` with `has_checkpoint` set, or `trusted_keys` with no
/// checkpoint (`INVALID_ARGUMENT`); a checkpoint or a key line that does not parse
/// (`ANCHOR_MALFORMED`, or `INVALID_UTF8`). `options` NULL means the defaults;
/// `trusted_keys` and `origin` of length 0 for none. With no checkpoint at all this is
/// `agentloop_transcript_verify_buffer`.
///
/// On success the caller owns `*out_report` (free it with `agentloop_report_free`); on
/// failure it is not written. Thread-safe: it touches no shared state.
///
/// # Safety
/// `ptr` must point to `len` readable bytes; `checkpoints` and `checkpoint_lens` to
/// `checkpoints_len` readable elements each (NULL when it is 0), each text to its
/// length's readable bytes; `options` NULL or an initialised struct; the other byte
/// inputs to their lengths' readable bytes; `out_report` valid for a write of one
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_verify_checkpoints(
    ptr: *const u8,
    len: usize,
    options: *const agentloop_verify_options,
    checkpoints: *const *const u8,
    checkpoint_lens: *const usize,
    checkpoints_len: usize,
    trusted_keys_ptr: *const u8,
    trusted_keys_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
    out_report: *mut *mut agentloop_report,
) -> agentloop_result {
    boundary(|| {
        need(out_report)?;
        if checkpoints_len > 0 {
            need(checkpoints.cast_mut())?;
            need(checkpoint_lens.cast_mut())?;
        }
        // SAFETY: the caller's contract for the input bytes.
        let bytes = unsafe { input(ptr, len) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let options = unsafe { read_options(options) }?;
        if options.checkpoint.is_some() {
            return Err(agentloop_result::InvalidArgument);
        }
        // SAFETY: the caller's contract for the byte inputs.
        let keys = unsafe { opt_text(trusted_keys_ptr, trusted_keys_len) }?;
        // SAFETY: as above.
        let origin = unsafe { opt_text(origin_ptr, origin_len) }?;
        let trusted = trusted_key_list(keys)?;
        // No capacity from the caller's count: a wrong count must not become a huge
        // allocation before the first element is read.
        let mut given = Vec::new();
        for i in 0..checkpoints_len {
            // SAFETY: both arrays were checked non-NULL; the caller promises
            // `checkpoints_len` elements and readable texts.
            let text = unsafe { checkpoint_input(checkpoints, checkpoint_lens, i) }?;
            let parsed = read_checkpoint(text).map_err(|e| malformed_code(&e))?;
            given.push((format!("checkpoints[{i}]"), parsed));
        }
        // Keys without a checkpoint are refused (the options carry none: refused
        // above, even with no checkpoint, as the C contract says).
        let report = ByCheckpoints::new(options, given, &trusted, origin)
            .map_err(|_| agentloop_result::InvalidArgument)?
            .verify(bytes);
        // SAFETY: out_report was checked non-NULL; the caller promises it is writable.
        unsafe { give(out_report, agentloop_report::new(report)) }
    })
}
