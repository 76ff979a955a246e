//! Checked conversions of C pointers: byte inputs, strings, caller buffers, handles and
//! output parameters. Every raw-pointer read or write of the crate goes through here or
//! sits next to a `// SAFETY:` comment.

use std::path::Path;

use crate::hash::agentloop_hash;
use crate::result::{agentloop_result, Outcome};

/// A byte input `(ptr, len)`: NULL is allowed only with `len == 0`.
///
/// # Safety
/// If `ptr` is not NULL it must point to `len` readable bytes that stay valid and
/// unmodified for `'a`.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Outcome<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(agentloop_result::NullParameter);
    }
    if len > isize::MAX as usize {
        return Err(agentloop_result::InvalidArgument);
    }
    // SAFETY: ptr is non-NULL, len is non-zero and at most isize::MAX, and the caller
    // promises len readable bytes (the contract of every byte input in the header).
    // u8 has alignment 1.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// A text input `(ptr, len)`: as [`input`], and valid UTF-8.
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn text<'a>(ptr: *const u8, len: usize) -> Outcome<&'a str> {
    // SAFETY: forwarded from this function's contract.
    let bytes = unsafe { input(ptr, len) }?;
    core::str::from_utf8(bytes).map_err(|_| agentloop_result::InvalidUtf8)
}

/// An optional text input `(ptr, len)`: length 0 is `None` (whatever `ptr` is),
/// otherwise as [`text`].
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn opt_text<'a>(ptr: *const u8, len: usize) -> Outcome<Option<&'a str>> {
    if len == 0 {
        return Ok(None);
    }
    // SAFETY: forwarded from this function's contract.
    unsafe { text(ptr, len) }.map(Some)
}

/// A path input `(ptr, len)`: not empty, no NUL byte (the operating system would cut
/// the path there: `INVALID_ARGUMENT`); any other bytes on Unix, UTF-8 elsewhere
/// (`INVALID_UTF8`).
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn path<'a>(ptr: *const u8, len: usize) -> Outcome<&'a Path> {
    // SAFETY: forwarded from this function's contract.
    let bytes = unsafe { input(ptr, len) }?;
    if bytes.is_empty() || bytes.contains(&0) {
        return Err(agentloop_result::InvalidArgument);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        core::str::from_utf8(bytes)
            .map(Path::new)
            .map_err(|_| agentloop_result::InvalidUtf8)
    }
}

/// A hash input (not NULL).
///
/// # Safety
/// If `ptr` is not NULL it must point to a readable `agentloop_hash`.
pub(crate) unsafe fn hash_in(ptr: *const agentloop_hash) -> Outcome<[u8; 32]> {
    // SAFETY: forwarded from this function's contract; the struct is plain bytes, so
    // any value is valid and its alignment is 1.
    let hash = unsafe { ptr.as_ref() }.ok_or(agentloop_result::NullParameter)?;
    Ok(hash.bytes)
}

/// Checks that an output pointer is not NULL, before any work is done, so that
/// failing calls change nothing.
pub(crate) fn need<T>(ptr: *mut T) -> Outcome {
    if ptr.is_null() {
        Err(agentloop_result::NullParameter)
    } else {
        Ok(())
    }
}

/// Writes `value` through an output pointer (NULL is `NULL_PARAMETER`).
///
/// # Safety
/// If `ptr` is not NULL it must be valid for a write of one `T` and aligned.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T) -> Outcome {
    need(ptr)?;
    // SAFETY: non-NULL; the caller promises a valid, aligned `T` to write. `write`
    // does not drop the old value, which for the plain C types used here is nothing.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Writes `value` through an optional output pointer: NULL means "not wanted".
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_opt<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL; the caller promises a valid, aligned `T` to write.
        unsafe { ptr.write(value) };
    }
}

/// Writes a hash to `*out` (not NULL).
///
/// # Safety
/// If `out` is not NULL it must be valid for a write of one `agentloop_hash`.
pub(crate) unsafe fn hash_out(out: *mut agentloop_hash, hash: &[u8; 32]) -> Outcome {
    // SAFETY: forwarded from this function's contract.
    unsafe { put(out, agentloop_hash { bytes: *hash }) }
}

/// Whether `len` bytes fit the caller's buffer.
pub(crate) fn fits(buf: *mut u8, cap: usize, len: usize) -> bool {
    len == 0 || (!buf.is_null() && len <= cap)
}

/// The size-query protocol: when `bytes` fit `(buf, cap)` they are copied there and
/// their length written to `*out_len`; otherwise only the needed length is written to
/// `*out_len` and the result is `INSUFFICIENT_SIZE`. A NULL `buf` (or `cap == 0`) is a
/// size query, except for empty `bytes`: they fit any buffer, so the result is `OK`
/// with length 0. Nothing is written past `cap`, and no NUL is added.
///
/// # Safety
/// If `buf` is not NULL it must point to `cap` writable bytes; `out_len` must be NULL
/// or valid for a write.
pub(crate) unsafe fn write_out(
    bytes: &[u8],
    buf: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> Outcome {
    need(out_len)?;
    if !fits(buf, cap, bytes.len()) {
        // SAFETY: out_len was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_len, bytes.len()) }?;
        return Err(agentloop_result::InsufficientSize);
    }
    if !bytes.is_empty() {
        // SAFETY: buf is non-NULL (checked by `fits`) with cap >= bytes.len() writable
        // bytes; `bytes` is Rust-owned memory the caller has no pointer into.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len()) };
    }
    // SAFETY: as above.
    unsafe { put(out_len, bytes.len()) }
}

/// A shared reference to a handle (NULL is `NULL_PARAMETER`).
///
/// # Safety
/// If `ptr` is not NULL it must come from this library's `_new` for this type and not
/// have been freed, with no other thread using it mutably.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T) -> Outcome<&'a T> {
    // SAFETY: forwarded from this function's contract: a live Box-allocated T.
    unsafe { ptr.as_ref() }.ok_or(agentloop_result::NullParameter)
}

/// An exclusive reference to a handle (NULL is `NULL_PARAMETER`).
///
/// # Safety
/// If `ptr` is not NULL it must come from this library's `_new` for this type and not
/// have been freed, with no other thread using it at the same time.
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T) -> Outcome<&'a mut T> {
    // SAFETY: forwarded from this function's contract: a live Box-allocated T that
    // nobody else is using during the call.
    unsafe { ptr.as_mut() }.ok_or(agentloop_result::NullParameter)
}

/// Moves `value` to the heap and writes its pointer to `*out` (already checked
/// non-NULL by the caller with [`need`]).
///
/// # Safety
/// `out` must be valid for a write of one pointer.
pub(crate) unsafe fn give<T>(out: *mut *mut T, value: T) -> Outcome {
    let raw = Box::into_raw(Box::new(value));
    // SAFETY: forwarded from this function's contract.
    unsafe { put(out, raw) }
}

/// Frees a handle made by [`give`]; NULL does nothing.
///
/// # Safety
/// `ptr` must be NULL or a pointer from [`give`] for the same `T`, not freed before.
pub(crate) unsafe fn take<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the pointer came from Box::into_raw in `give` and is freed once.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
