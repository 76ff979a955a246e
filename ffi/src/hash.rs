//! `agentloop_hash`: a record hash (SHA-256, 32 bytes), and its spelling as 64
//! lowercase hex digits (`agentloop_hash_to_hex`, `agentloop_hash_from_hex`).

use agentloop_core::Hash;

use crate::boundary::boundary;
use crate::bytes::{hash_in, hash_out, input, need, write_out};
use crate::result::agentloop_result;

/// The length of a hash's hex spelling, as `agentloop_hash_to_hex` writes it (the
/// header defines it too, as `AGENTLOOP_HASH_HEX_LEN`, from `ffi/cbindgen.toml`).
pub const AGENTLOOP_HASH_HEX_LEN: usize = 64;

/// A record hash, SHA-256: 32 bytes. Heads, roots and anchors come and go as this type,
/// so their size is the type's: a function that writes one takes an
/// `agentloop_hash *`, and no buffer and capacity. Copy it with `=`; compare it with
/// `memcmp(a.bytes, b.bytes, 32)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct agentloop_hash {
    /// The hash's bytes, as SHA-256 gives them.
    pub bytes: [u8; 32],
}

/// Writes the 64 lowercase hex digits of `*hash` — the spelling records use — to
/// `(out_buf, out_cap)` and 64 to `*out_len` (`AGENTLOOP_HASH_HEX_LEN`; no NUL: print
/// it with `"%.64s"`, or give a 65-byte buffer room for your own NUL).
///
/// Size query: `out_buf` NULL or `out_cap` below 64 writes 64 to `*out_len` and is
/// `INSUFFICIENT_SIZE`, nothing else written. NULL `hash` or `out_len` is
/// `NULL_PARAMETER`. Thread-safe.
///
/// # Safety
/// `hash` must point to a readable `agentloop_hash`; `out_buf`, if not NULL, to
/// `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_hash_to_hex(
    hash: *const agentloop_hash,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a readable hash.
        let bytes = unsafe { hash_in(hash) }?;
        let text: [u8; AGENTLOOP_HASH_HEX_LEN] = Hash(bytes).to_hex();
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(&text, out_buf, out_cap, out_len) }
    })
}

/// Reads exactly 64 lowercase hex digits `(hex, hex_len)` into `*out`.
///
/// Anything else (uppercase, another length, a non-hex character) is
/// `AGENTLOOP_RESULT_INVALID_ARGUMENT`, with nothing written: a record has only one
/// spelling of a hash. NULL: `hex` may be NULL only when `hex_len` is 0; `out` must not
/// be NULL. Thread-safe.
///
/// # Safety
/// `hex` must point to `hex_len` readable bytes and `out` be valid for a write of one
/// `agentloop_hash`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_hash_from_hex(
    hex: *const u8,
    hex_len: usize,
    out: *mut agentloop_hash,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller's contract for the input bytes.
        let text = unsafe { input(hex, hex_len) }?;
        let hash = Hash::from_hex(text).ok_or(agentloop_result::InvalidArgument)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { hash_out(out, &hash.0) }
    })
}
