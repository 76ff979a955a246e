//! `agentloop_library_version`.

use core::ffi::c_char;

use crate::boundary::boundary;

/// The library version, NUL-terminated.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library's version as a static NUL-terminated string, e.g. `"0.1.0"`
/// (semantic versioning; see the ABI policy in `docs/c-api.md`).
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn agentloop_library_version() -> *const c_char {
    boundary(|| VERSION.as_ptr().cast::<c_char>())
}
