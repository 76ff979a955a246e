//! `agentloop_json_canonicalize`: RFC 8785 canonical bytes of a JSON document.

use agentloop_core::jcs;
use agentloop_core::json::ParseError;

use crate::boundary::boundary;
use crate::bytes::{input, need, write_out};
use crate::result::agentloop_result;

/// The result code for a strict-parser refusal: a number with no canonical encoding is
/// `NO_CANONICAL_FORM`, everything else `INVALID_JSON`.
pub(crate) fn parse_error(error: ParseError) -> agentloop_result {
    if error.is_unserialisable() {
        agentloop_result::NoCanonicalForm
    } else {
        agentloop_result::InvalidJson
    }
}

/// Writes the RFC 8785 canonical encoding of the JSON document `(in_ptr, in_len)` to
/// the caller's buffer `(out_buf, out_cap)` and its length to `*out_len`. No NUL is
/// added: the output is exactly the canonical bytes, whose SHA-256 is the document's
/// hash.
///
/// The input is read by the strict I-JSON parser: `AGENTLOOP_RESULT_INVALID_JSON` for
/// input it refuses (bad syntax, invalid UTF-8, a byte-order mark, a duplicate key, a
/// lone surrogate, `NaN`, nesting deeper than 128), `AGENTLOOP_RESULT_NO_CANONICAL_FORM`
/// for a number with no canonical encoding (`9007199254740993`, `1e400`, `1e-400`).
///
/// Size query: when the output does not fit (or `out_buf` is NULL, or `out_cap` is 0),
/// the needed length is written to `*out_len` and the result is
/// `AGENTLOOP_RESULT_INSUFFICIENT_SIZE`; call again with a buffer that large. An empty
/// output fits any buffer, NULL included: `OK` with `*out_len` 0 (for the functions
/// whose output can be empty; a canonical document never is).
///
/// NULL: `in_ptr` may be NULL only when `in_len` is 0 (then the input is empty, which
/// is `INVALID_JSON`); `out_len` must not be NULL. Nothing is written on failure except
/// `*out_len` with `INSUFFICIENT_SIZE`. Thread-safe: it touches no shared state.
///
/// # Safety
/// `in_ptr` must point to `in_len` readable bytes; `out_buf`, if not NULL, to
/// `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_json_canonicalize(
    in_ptr: *const u8,
    in_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller's contract for the input bytes.
        let bytes = unsafe { input(in_ptr, in_len) }?;
        let canonical = jcs::canonicalize(bytes).map_err(parse_error)?;
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&canonical, out_buf, out_cap, out_len) }
    })
}
