//! Checking proofs over the C ABI: `agentloop_proof_verify_inclusion` and
//! `agentloop_proof_verify_consistency` give the verdict as a result code,
//! `agentloop_proof_explain` the sentence that says why a proof does not hold — the
//! reasons `agentloop verify-proof` prints. All three judge through one private
//! function, so the code and the sentence never disagree.

use agentloop_core::note::{key_lines, VerifierKey};
use agentloop_core::tlog::{
    check_consistency, check_inclusion, read_checkpoint, CheckpointText, ConsistencyProof,
    InclusionProof, ProofText,
};

use crate::boundary::boundary;
use crate::bytes::{input, need, opt_text, write_out};
use crate::proof::malformed_code;
use crate::result::{agentloop_result, Outcome};

/// Why a proof was not found to hold: the code the verify functions return and the
/// sentence `agentloop_proof_explain` writes.
struct Rejection {
    code: agentloop_result,
    why: String,
}

fn reject(code: agentloop_result, why: String) -> Rejection {
    Rejection { code, why }
}

/// The kind of proof a caller expects.
#[derive(Clone, Copy)]
enum Expect {
    Inclusion,
    Consistency,
    /// Whichever the proof's first line says.
    Either,
}

/// The caller's trusted keys (`--key-file` format), each line named when it is wrong.
fn trusted_keys(text: Option<&str>) -> Result<Vec<VerifierKey>, Rejection> {
    let mut keys = Vec::new();
    for (number, line) in key_lines(text.unwrap_or("")) {
        let key = line.parse().map_err(|error| {
            reject(
                agentloop_result::AnchorMalformed,
                format!("trusted_keys line {number} is not a note verifier key: {error}"),
            )
        })?;
        keys.push(key);
    }
    Ok(keys)
}

/// The caller's trusted keys, or `ANCHOR_MALFORMED` for a line that is not a key.
pub(crate) fn trusted_key_list(text: Option<&str>) -> Outcome<Vec<VerifierKey>> {
    trusted_keys(text).map_err(|r| r.code)
}

/// The proof text, of the expected kind.
fn read_proof(bytes: &[u8], expect: Expect) -> Result<ProofText, Rejection> {
    let parsed = match expect {
        Expect::Inclusion => InclusionProof::parse(bytes).map(ProofText::Inclusion),
        Expect::Consistency => ConsistencyProof::parse(bytes).map(ProofText::Consistency),
        Expect::Either => ProofText::parse(bytes),
    };
    parsed.map_err(|error| {
        let code = if error.not_utf8() {
            agentloop_result::InvalidUtf8
        } else {
            agentloop_result::AnchorMalformed
        };
        reject(code, format!("the proof is malformed: {error}"))
    })
}

/// A C2SP checkpoint (signed or not); `what` names it in the sentence.
fn read_tlog_checkpoint(text: &[u8], what: &str) -> Result<CheckpointText, Rejection> {
    match read_checkpoint(text) {
        Ok(parsed @ CheckpointText::Tlog { .. }) => Ok(parsed),
        Ok(CheckpointText::V1(_)) => Err(reject(
            agentloop_result::AnchorMalformed,
            format!("{what} is a v1 checkpoint, with no Merkle root to check a proof against"),
        )),
        Err(error) => Err(reject(
            malformed_code(&error),
            format!("{what} is malformed: {error}"),
        )),
    }
}

/// The arguments every proof check takes, read from C.
struct Inputs<'a> {
    proof: &'a [u8],
    /// The older checkpoint the caller kept (consistency proofs); empty if none.
    old: &'a [u8],
    trusted: Option<&'a str>,
    origin: Option<&'a str>,
}

/// Reads the arguments of a proof check.
///
/// # Safety
/// Byte inputs as in the header conventions.
// The C parameters of the three exports, passed through unchanged.
#[allow(clippy::too_many_arguments)]
unsafe fn inputs<'a>(
    proof: *const u8,
    proof_len: usize,
    old: *const u8,
    old_len: usize,
    trusted_keys_ptr: *const u8,
    trusted_keys_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
) -> Outcome<Inputs<'a>> {
    Ok(Inputs {
        // SAFETY: forwarded from the caller's contract.
        proof: unsafe { input(proof, proof_len) }?,
        // SAFETY: forwarded from the caller's contract.
        old: unsafe { input(old, old_len) }?,
        // SAFETY: forwarded from the caller's contract.
        trusted: unsafe { opt_text(trusted_keys_ptr, trusted_keys_len) }?,
        // SAFETY: forwarded from the caller's contract.
        origin: unsafe { opt_text(origin_ptr, origin_len) }?,
    })
}

/// Judges the proof as `agentloop verify-proof` does.
fn judge(inputs: &Inputs<'_>, expect: Expect) -> Result<(), Rejection> {
    let Inputs {
        proof,
        old,
        trusted,
        origin,
    } = *inputs;
    let trusted = trusted_keys(trusted)?;
    let outcome = match read_proof(proof, expect)? {
        ProofText::Inclusion(proof) => {
            let checkpoint =
                read_tlog_checkpoint(proof.checkpoint.as_bytes(), "the proof's checkpoint")?;
            check_inclusion(&proof, &checkpoint, &trusted, origin)
        }
        ProofText::Consistency(proof) => {
            if old.is_empty() {
                return Err(reject(
                    agentloop_result::AnchorMalformed,
                    String::from(
                        "a consistency proof is checked against the older checkpoint the caller kept, and old_checkpoint is empty",
                    ),
                ));
            }
            let new = read_tlog_checkpoint(proof.checkpoint.as_bytes(), "the proof's checkpoint")?;
            let old = read_tlog_checkpoint(old, "the older checkpoint")?;
            check_consistency(&proof, "the older checkpoint", &old, &new, &trusted, origin)
        }
    };
    outcome.map(drop).map_err(|problems| {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.kind, p.detail))
            .collect();
        reject(agentloop_result::ProofInvalid, lines.join("\n"))
    })
}

/// Checks an inclusion proof `(proof, proof_len)` made by `agentloop_transcript_prove_inclusion`
/// or `agentloop prove --index`, by the rules of `agentloop verify-proof`: the record
/// it carries is recomputed (its hash, its `seq` = index and, for record 0, its `prev`
/// = 64 zeros: a record of a transcript from seq 0), its path is checked against the
/// proof's checkpoint, and the checkpoint is admitted. A proof made by `agentloop prove
/// --anchor` (a transcript that continues another) does not hold here: it is checked
/// with `agentloop verify-proof --anchor`.
///
/// `(trusted_keys_ptr, trusted_keys_len)`: length 0 to check no signature, or note
/// verifier keys one a line (UTF-8; blank lines and `#` lines skipped; `--key-file`);
/// with keys, the checkpoint must carry a good signature by one of them.
/// `(origin_ptr, origin_len)`: length 0 for any origin, or the origin the checkpoint
/// must name (`--origin`).
///
/// Results: `OK` when the proof holds; `PROOF_INVALID` when it does not (a path, a
/// record, a signature or an origin that does not check); `INVALID_UTF8` /
/// `ANCHOR_MALFORMED` for a proof, checkpoint or key text that does not parse.
/// `agentloop_proof_explain` says why.
///
/// # Safety
/// Byte inputs as in the header conventions.
#[no_mangle]
pub unsafe extern "C" fn agentloop_proof_verify_inclusion(
    proof: *const u8,
    proof_len: usize,
    trusted_keys_ptr: *const u8,
    trusted_keys_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
) -> agentloop_result {
    boundary(|| {
        let none = core::ptr::null();
        // SAFETY: forwarded from this function's contract.
        let inputs = unsafe {
            inputs(
                proof,
                proof_len,
                none,
                0,
                trusted_keys_ptr,
                trusted_keys_len,
                origin_ptr,
                origin_len,
            )
        }?;
        judge(&inputs, Expect::Inclusion).map_err(|r| r.code)
    })
}

/// Checks a consistency proof `(proof, proof_len)` made by
/// `agentloop_transcript_prove_consistency` or `agentloop prove --from` against the older
/// checkpoint the caller kept, `(old_checkpoint, old_checkpoint_len)` (`--old FILE`):
/// the proof must start from its count, name its origin, and prove its root a prefix
/// of the proof's checkpoint, which is admitted as in `agentloop_proof_verify_inclusion`.
///
/// Results: `OK` when the proof holds; `PROOF_INVALID` when it does not;
/// `INVALID_UTF8` / `ANCHOR_MALFORMED` for a proof, checkpoint or key text that does
/// not parse (the older checkpoint must be a C2SP one). `agentloop_proof_explain` says
/// why.
///
/// # Safety
/// Byte inputs as in the header conventions.
#[no_mangle]
pub unsafe extern "C" fn agentloop_proof_verify_consistency(
    proof: *const u8,
    proof_len: usize,
    old_checkpoint: *const u8,
    old_checkpoint_len: usize,
    trusted_keys_ptr: *const u8,
    trusted_keys_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let inputs = unsafe {
            inputs(
                proof,
                proof_len,
                old_checkpoint,
                old_checkpoint_len,
                trusted_keys_ptr,
                trusted_keys_len,
                origin_ptr,
                origin_len,
            )
        }?;
        judge(&inputs, Expect::Consistency).map_err(|r| r.code)
    })
}

/// Writes why the proof `(proof, proof_len)` does not hold — inclusion or consistency,
/// as its first line says — to `(out_buf, out_cap)` and the sentence's length to
/// `*out_len` (UTF-8, no NUL): the empty string when it holds. The arguments are those
/// of `agentloop_proof_verify_inclusion` / `agentloop_proof_verify_consistency` (NULL / 0 for
/// `old_checkpoint` with an inclusion proof), and the verdict is theirs.
///
/// A proof that does not hold gives one line per problem, `kind: detail`, joined by
/// `\n`: `kind` is a verifier finding (`checkpoint_untrusted`,
/// `checkpoint_origin_mismatch`, `checkpoint_inconsistent`, …) or `proof_invalid`, and
/// the detail names what was expected and what was found — the lines
/// `agentloop verify-proof` prints. A proof, checkpoint or key text that does not
/// parse gives one sentence naming it and what is wrong.
///
/// Results: `OK` whenever the sentence (possibly empty) was written; the size-query
/// protocol as `agentloop_json_canonicalize`; `INVALID_UTF8` for `trusted_keys` or `origin`
/// not UTF-8; NULL `out_len`, or a NULL pointer with a length above 0, is
/// `NULL_PARAMETER`. Thread-safe.
///
/// Empty output: a proof that holds gives the empty string, which fits any buffer: `OK`
/// with `*out_len` 0, even with a NULL buffer (so the size query answers `OK`, not
/// `INSUFFICIENT_SIZE`).
///
/// # Safety
/// Byte inputs as in the header conventions; `out_buf` NULL or `out_cap` writable
/// bytes; `out_len` writable.
#[no_mangle]
pub unsafe extern "C" fn agentloop_proof_explain(
    proof: *const u8,
    proof_len: usize,
    old_checkpoint: *const u8,
    old_checkpoint_len: usize,
    trusted_keys_ptr: *const u8,
    trusted_keys_len: usize,
    origin_ptr: *const u8,
    origin_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: forwarded from this function's contract.
        let inputs = unsafe {
            inputs(
                proof,
                proof_len,
                old_checkpoint,
                old_checkpoint_len,
                trusted_keys_ptr,
                trusted_keys_len,
                origin_ptr,
                origin_len,
            )
        }?;
        let why = match judge(&inputs, Expect::Either) {
            Ok(()) => String::new(),
            Err(rejection) => rejection.why,
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(why.as_bytes(), out_buf, out_cap, out_len) }
    })
}
