//! The counting global allocator of the memory tests, installed once for this whole test
//! binary (`main.rs`): [`peak_of`] measures the heap a closure holds at its peak
//! (`streaming_memory.rs`, `limits.rs`), [`allocations_of`] how many allocations it
//! makes (`stream_no_alloc.rs`), [`allocated_by`] how many bytes it allocates in all
//! (`limits.rs`).
//!
//! The counts are per thread, so tests running in parallel (and the test harness's own
//! thread) do not disturb one another's measurements.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Tracks the live heap bytes of each thread, their high-water mark and the number of
/// allocations.
pub struct Counting;

thread_local! {
    // `const` initialisers without destructors: reading them never allocates, so the
    // allocator may use them.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds the
// GlobalAlloc contract; the counters are only bookkeeping. `realloc` and `alloc_zeroed`
// keep their default bodies, which go through `alloc` and `dealloc` here, so each counts
// as one allocation (and a `realloc` holds old and new block while it copies).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout, as GlobalAlloc::alloc requires.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            // `try_with`: no panic while a thread's locals are being torn down.
            let _ = LIVE.try_with(|live| {
                let now = live.get().wrapping_add(layout.size());
                live.set(now);
                let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
            });
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            let _ = TOTAL.try_with(|t| t.set(t.get().wrapping_add(layout.size())));
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        let _ = LIVE.try_with(|live| live.set(live.get().wrapping_sub(layout.size())));
    }
}

/// Runs `f` and returns its result with the most heap this thread held beyond what it
/// held when `f` started (a `realloc` counts old and new block, as the default
/// `realloc` holds both while it copies).
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.get();
    PEAK.set(base);
    let value = f();
    (value, PEAK.get().wrapping_sub(base))
}

/// Runs `f` and returns how many heap allocations (and reallocations) this thread made
/// meanwhile, with its result.
pub fn allocations_of<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let before = ALLOCATIONS.get();
    let out = f();
    (ALLOCATIONS.get() - before, out)
}

/// Runs `f` and returns its result with the heap bytes this thread allocated while it
/// ran, in all (what was freed again included): the work of writing what is built.
pub fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = TOTAL.get();
    let value = f();
    (value, TOTAL.get().wrapping_sub(before))
}
