//! The panic boundary every export runs inside.
//!
//! A Rust panic must never unwind into C (that is undefined behaviour), so each
//! `extern "C"` function's body is one call to [`boundary`], which catches the panic
//! and turns it into the export's documented fallback: `AGENTLOOP_RESULT_PANIC` for
//! functions that return a result code, a documented neutral value for the few that
//! return something else. `tests/boundary.rs` fails if an export skips it.
//!
//! No panic hook is installed (that would be global state): the default hook still
//! prints the panic message to stderr, which is what a bug report needs.

use core::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::result::{agentloop_result, Outcome};

/// What a closure inside the boundary returns, and how it crosses into C.
pub(crate) trait Crossing {
    /// The C return type.
    type C;
    /// The value returned to C.
    fn into_c(self) -> Self::C;
    /// The value returned to C when the closure panicked.
    fn panicked() -> Self::C;
}

impl Crossing for Outcome {
    type C = agentloop_result;
    fn into_c(self) -> agentloop_result {
        match self {
            Ok(()) => agentloop_result::Ok,
            Err(code) => code,
        }
    }
    fn panicked() -> agentloop_result {
        agentloop_result::Panic
    }
}

/// Static strings: a panic gives the empty string, never NULL.
impl Crossing for *const c_char {
    type C = *const c_char;
    fn into_c(self) -> *const c_char {
        self
    }
    fn panicked() -> *const c_char {
        c"".as_ptr()
    }
}

/// Yes/no queries: a panic gives `false`.
impl Crossing for bool {
    type C = bool;
    fn into_c(self) -> bool {
        self
    }
    fn panicked() -> bool {
        false
    }
}

/// Counts: a panic gives 0.
impl Crossing for u64 {
    type C = u64;
    fn into_c(self) -> u64 {
        self
    }
    fn panicked() -> u64 {
        0
    }
}

/// Counts: a panic gives 0.
impl Crossing for usize {
    type C = usize;
    fn into_c(self) -> usize {
        self
    }
    fn panicked() -> usize {
        0
    }
}

/// Frees: nothing to return.
impl Crossing for () {
    type C = ();
    fn into_c(self) {}
    fn panicked() {}
}

/// Runs `body`, catching any panic (see the module docs).
pub(crate) fn boundary<R: Crossing>(body: impl FnOnce() -> R) -> R::C {
    // AssertUnwindSafe: after a panic the objects the closure touched may hold a
    // half-done update; every export documents that `AGENTLOOP_RESULT_PANIC` leaves
    // its object in an unspecified but memory-safe state, and Rust's own invariants
    // (no use of freed memory) hold across an unwind.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value.into_c(),
        Err(_) => R::panicked(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_the_fallback() {
        assert_eq!(
            boundary(|| -> Outcome { panic!("on purpose") }),
            agentloop_result::Panic
        );
        assert_eq!(boundary(|| -> Outcome { Ok(()) }), agentloop_result::Ok);
        assert!(!boundary(|| -> bool { panic!("on purpose") }));
        assert_eq!(boundary(|| -> u64 { panic!("on purpose") }), 0);
        assert_eq!(boundary(|| -> usize { panic!("on purpose") }), 0);
        let empty = boundary(|| -> *const c_char { panic!("on purpose") });
        // SAFETY: the fallback is a static NUL-terminated string.
        assert_eq!(unsafe { core::ffi::CStr::from_ptr(empty) }.to_bytes(), b"");
    }
}
