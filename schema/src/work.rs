//! A count of the comparisons made where a long keyword (`required`, `enum`) or a long
//! list of violations could make compiling or validating quadratic, so that unit tests
//! can hold the work to n log n by counting it, never by timing it. Outside the unit
//! tests, [`comparison`] is nothing.

/// Counts one comparison (in unit tests; nothing otherwise).
#[inline(always)]
pub(crate) fn comparison() {
    #[cfg(all(test, feature = "std"))]
    COMPARISONS.with(|c| c.set(c.get() + 1));
}

#[cfg(all(test, feature = "std"))]
std::thread_local! {
    static COMPARISONS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Runs `f` and returns its result with the comparisons it made (on this thread).
#[cfg(all(test, feature = "std"))]
pub(crate) fn comparisons_in<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = COMPARISONS.with(core::cell::Cell::get);
    let result = f();
    (result, COMPARISONS.with(core::cell::Cell::get) - before)
}

/// Counts one application of an object schema's keywords by the check pass (in unit
/// tests; nothing otherwise): what remembered verdicts keep bounded.
#[inline(always)]
pub(crate) fn application() {
    #[cfg(all(test, feature = "std"))]
    APPLICATIONS.with(|c| c.set(c.get() + 1));
}

#[cfg(all(test, feature = "std"))]
std::thread_local! {
    static APPLICATIONS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Runs `f` and returns its result with the applications the check pass made (on this
/// thread).
#[cfg(all(test, feature = "std"))]
pub(crate) fn applications_in<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = APPLICATIONS.with(core::cell::Cell::get);
    let result = f();
    (result, APPLICATIONS.with(core::cell::Cell::get) - before)
}

/// Whether the check pass takes the general path everywhere, skipping its inline cases
/// (only ever true in unit tests, which hold the two paths to the same verdicts).
#[inline(always)]
pub(crate) fn general_only() -> bool {
    #[cfg(all(test, feature = "std"))]
    return GENERAL_ONLY.with(core::cell::Cell::get);
    #[cfg(not(all(test, feature = "std")))]
    false
}

#[cfg(all(test, feature = "std"))]
std::thread_local! {
    static GENERAL_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Runs `f` with the check pass on its general path only (on this thread).
#[cfg(all(test, feature = "std"))]
pub(crate) fn general_path<R>(f: impl FnOnce() -> R) -> R {
    GENERAL_ONLY.with(|g| g.set(true));
    let result = f();
    GENERAL_ONLY.with(|g| g.set(false));
    result
}
