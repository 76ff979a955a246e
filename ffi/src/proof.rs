//! Anchors over the C ABI: the C2SP checkpoint of a transcript, inclusion and
//! consistency proofs against it, and their checks — the same bytes and the same rules
//! as `agentloop checkpoint`, `agentloop prove` and `agentloop verify-proof`, through
//! the shared functions of `agentloop_core::tlog`. See "Proofs" in `docs/c-api.md`.

use agentloop_core::merkle::ProofError;
use agentloop_core::note::signer_key_text;
use agentloop_core::tlog::{
    make_checkpoint, prove, Against, MakeCheckpointError, Malformed, ProofRequest, ProveError,
};
use agentloop_core::verify::{self, Options, Report};

use crate::boundary::boundary;
use crate::bytes::{handle, hash_out, input, need, opt_text, put, write_out};
use crate::hash::agentloop_hash;
use crate::report::agentloop_report;
use crate::result::{agentloop_result, Outcome};

/// The verification report of `bytes`, strict, from genesis: the transcripts these
/// functions make checkpoints and proofs of.
fn report_of(bytes: &[u8]) -> Report {
    verify::verify_bytes(bytes, &Options::default())
}

fn checkpoint_error(error: MakeCheckpointError) -> agentloop_result {
    match error {
        MakeCheckpointError::NotVerified => agentloop_result::DoesNotVerify,
        MakeCheckpointError::Origin(_) | MakeCheckpointError::Sign(_) => {
            agentloop_result::AnchorMalformed
        }
    }
}

/// The code for a checkpoint text that does not parse: `INVALID_UTF8` when it is not
/// UTF-8, else `ANCHOR_MALFORMED`.
pub(crate) fn malformed_code(error: &Malformed) -> agentloop_result {
    if error.not_utf8() {
        agentloop_result::InvalidUtf8
    } else {
        agentloop_result::AnchorMalformed
    }
}

fn prove_error(error: ProveError) -> agentloop_result {
    match error {
        ProveError::NotVerified | ProveError::Leaves(_) => agentloop_result::DoesNotVerify,
        ProveError::Malformed(e) => malformed_code(&e),
        ProveError::V1Checkpoint => agentloop_result::AnchorMalformed,
        ProveError::NotAPrefix(_) => agentloop_result::InvalidArgument,
        ProveError::Checkpoint(e) => checkpoint_error(e),
        ProveError::Proof(
            ProofError::IndexBeyondSize { .. } | ProofError::SizesReversed { .. },
        ) => agentloop_result::IndexOutOfRange,
        ProveError::Proof(_) => agentloop_result::InvalidArgument,
    }
}

/// The proof `request` of `bytes` against the checkpoint `given` (empty: the unsigned
/// one of every record).
fn proof_of(bytes: &[u8], given: &[u8], request: ProofRequest) -> Outcome<String> {
    let against = if given.is_empty() {
        Against::Fresh {
            origin: None,
            signer: None,
        }
    } else {
        Against::Given(given)
    };
    prove(bytes, &report_of(bytes), request, against).map_err(prove_error)
}

/// Writes the RFC 6962 Merkle root of the records read (leaf `i`: `SHA-256(0x00 ||
/// hash_i)`, the root of no records `SHA-256("")`) to `*out`, and `true` to
/// `*out_has_root`. When there is none (the file could not be read) `out` is left alone
/// and `*out_has_root` is `false`. The root of a report with faults is not meaningful.
///
/// NULL: `report`, `out` and `out_has_root` must not be NULL. Thread-safe on a live report.
///
/// # Safety
/// `report` must be a live report from this library; `out` must be valid for a write
/// of one `agentloop_hash`; `out_has_root` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_root(
    report: *const agentloop_report,
    out: *mut agentloop_hash,
    out_has_root: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        need(out_has_root)?;
        // SAFETY: the caller promises a live report.
        let root = unsafe { handle(report) }?.report().root;
        if let Some(root) = root {
            // SAFETY: out was checked non-NULL; the caller promises it is writable.
            unsafe { hash_out(out, &root.0) }?;
        }
        // SAFETY: out_has_root was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_has_root, root.is_some()) }
    })
}

/// Writes the C2SP checkpoint of every record of the transcript
/// `(transcript, transcript_len)` (JSONL from seq 0, which must verify strictly) to
/// `out_buf` — the bytes `agentloop checkpoint --format tlog` writes: origin, record
/// count, Merkle root, `head` line, then, with a signer key, a blank line and the
/// signature.
///
/// `(origin_ptr, origin_len)`: UTF-8, or length 0 for
/// `agentloop/transcript/<hash of record 0>`. `(signer_key_ptr, signer_key_len)`:
/// length 0 for an unsigned checkpoint, or the text of a signer key file as
/// `--sign-key FILE` reads it (`agentloop_core::note::signer_key_text`): its first line
/// that is not blank or a `#` comment, trimmed, is the note signer key
/// (`PRIVATE+KEY+name+id+key`) — so what `agentloop keygen` prints (the signer key,
/// then its verifier key) is one.
///
/// Results: `DOES_NOT_VERIFY`; `INVALID_UTF8` for a string that is not UTF-8;
/// `ANCHOR_MALFORMED` for a signer key text with no key or whose first key line does
/// not parse as a signer key, or an origin a checkpoint cannot carry and read back (a control character, a leading white space or `{`:
/// `agentloop_core::tlog::check_origin`); the size-query protocol for the output.
///
/// # Safety
/// Byte inputs as in the header conventions; `out_buf` NULL or `out_cap` writable
/// bytes; `out_len` writable.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_checkpoint(
    transcript: *const u8,
    transcript_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
    signer_key_ptr: *const u8,
    signer_key_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { input(transcript, transcript_len) }?;
        // SAFETY: forwarded from this function's contract.
        let origin = unsafe { opt_text(origin_ptr, origin_len) }?;
        // SAFETY: forwarded from this function's contract.
        let signer = match unsafe { opt_text(signer_key_ptr, signer_key_len) }? {
            Some(key) => Some(signer_key_text(key).map_err(|_| agentloop_result::AnchorMalformed)?),
            None => None,
        };
        // An origin a checkpoint cannot carry is refused (empty, a newline, a leading
        // brace that would read back as a v1 checkpoint): `check_origin`.
        let text = make_checkpoint(
            &report_of(bytes),
            origin.map(str::to_owned),
            signer.as_ref(),
        )
        .map_err(checkpoint_error)?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(text.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Writes an inclusion proof of record `index` of the transcript `(transcript,
/// transcript_len)` (JSONL from seq 0, which must verify strictly) to `out_buf`: the
/// bytes `agentloop prove --index INDEX` writes, a C2SP `tlog-proof@v1` carrying the
/// record's line and the checkpoint.
///
/// `(checkpoint, checkpoint_len)`: a C2SP checkpoint (signed or not, e.g. from
/// `agentloop_transcript_checkpoint`) of a prefix of this transcript, as `--checkpoint FILE`; NULL
/// with length 0 for the unsigned checkpoint of every record.
///
/// Results: `DOES_NOT_VERIFY`; `INDEX_OUT_OF_RANGE` for an index not below the
/// checkpoint's count; `INVALID_UTF8` / `ANCHOR_MALFORMED` for a checkpoint that is not
/// UTF-8 or not a C2SP checkpoint; `INVALID_ARGUMENT` for a checkpoint of another
/// transcript (its root is not that of this transcript's first `count` records); the
/// size-query protocol for the output.
///
/// # Safety
/// Byte inputs as in the header conventions; `out_buf` NULL or `out_cap` writable
/// bytes; `out_len` writable.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_prove_inclusion(
    transcript: *const u8,
    transcript_len: usize,
    checkpoint: *const u8,
    checkpoint_len: usize,
    index: u64,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { input(transcript, transcript_len) }?;
        // SAFETY: forwarded from this function's contract.
        let given = unsafe { input(checkpoint, checkpoint_len) }?;
        let proof = proof_of(bytes, given, ProofRequest::Inclusion(index))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(proof.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Writes a consistency proof from the transcript's first `from` records to the
/// checkpoint to `out_buf`: the bytes `agentloop prove --from FROM` writes
/// (`agentloop/tlog-consistency@v1`, carrying the checkpoint). The checkpoint is as
/// in `agentloop_transcript_prove_inclusion`.
///
/// Results: as `agentloop_transcript_prove_inclusion` — `DOES_NOT_VERIFY`;
/// `INVALID_UTF8` / `ANCHOR_MALFORMED` for a checkpoint that is not UTF-8 or not a
/// C2SP checkpoint; `INVALID_ARGUMENT` for a checkpoint of another transcript, and for
/// `from` 0; the size-query protocol for the output — with `INDEX_OUT_OF_RANGE` for a
/// `from` above the checkpoint's count. NULL `out_len` (or a NULL input with a length
/// above 0) is `NULL_PARAMETER`.
///
/// # Safety
/// As `agentloop_transcript_prove_inclusion`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_prove_consistency(
    transcript: *const u8,
    transcript_len: usize,
    checkpoint: *const u8,
    checkpoint_len: usize,
    from: u64,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: forwarded from this function's contract.
        let bytes = unsafe { input(transcript, transcript_len) }?;
        // SAFETY: forwarded from this function's contract.
        let given = unsafe { input(checkpoint, checkpoint_len) }?;
        let proof = proof_of(bytes, given, ProofRequest::Consistency(from))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(proof.as_bytes(), out_buf, out_cap, out_len) }
    })
}
