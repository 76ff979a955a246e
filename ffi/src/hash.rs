//! Hashes as 64 lowercase hex digits: `agentloop_hash_to_hex`, `agentloop_hash_from_hex`.

use core::ffi::c_char;

use agentloop_core::Hash;

use crate::boundary::boundary;
use crate::bytes::{hash_in, hash_out, input, need};
use crate::result::agentloop_result;

/// Writes the 64 lowercase hex digits of the 32-byte hash `hash`, then a NUL, to
/// `out` (65 bytes): the spelling records use.
///
/// NULL: `hash` and `out` must not be NULL (`AGENTLOOP_RESULT_NULL_PARAMETER`, nothing
/// written). Thread-safe.
///
/// # Safety
/// `hash` must point to 32 readable bytes and `out` to 65 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_hash_to_hex(
    hash: *const u8,
    out: *mut c_char,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises 32 readable bytes at `hash`.
        let bytes = unsafe { hash_in(hash) }?;
        let mut text = [0u8; 65];
        text[..64].copy_from_slice(&Hash(bytes).to_hex());
        // SAFETY: out is non-NULL and the caller promises 65 writable bytes; `text` is
        // a local array.
        unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), out.cast::<u8>(), 65) };
        Ok(())
    })
}

/// Reads exactly 64 lowercase hex digits `(hex, hex_len)` into the 32 bytes at `out`.
///
/// Anything else (uppercase, another length, a non-hex character) is
/// `AGENTLOOP_RESULT_INVALID_ARGUMENT`, with nothing written: a record has only one
/// spelling of a hash. NULL: `hex` may be NULL only when `hex_len` is 0; `out` must not
/// be NULL. Thread-safe.
///
/// # Safety
/// `hex` must point to `hex_len` readable bytes and `out` to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_hash_from_hex(
    hex: *const u8,
    hex_len: usize,
    out: *mut u8,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller's contract for the input bytes.
        let text = unsafe { input(hex, hex_len) }?;
        let hash = Hash::from_hex(text).ok_or(agentloop_result::InvalidArgument)?;
        // SAFETY: the caller promises 32 writable bytes at `out`.
        unsafe { hash_out(out, &hash.0) }
    })
}
