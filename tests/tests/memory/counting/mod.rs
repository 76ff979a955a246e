//! A counting global allocator for the memory tests (`streaming_memory.rs`,
//! `limits.rs`): each of those test binaries installs [`Counting`] and measures the
//! heap a closure holds at its peak with [`peak_of`].
//!
//! The counts are per thread, so tests running in parallel (and the test harness's own
//! thread) do not disturb one another's measurements.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Tracks the live heap bytes of each thread and their high-water mark.
pub struct Counting;

thread_local! {
    // `const` initialisers without destructors: reading them never allocates, so the
    // allocator may use them.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds the
// GlobalAlloc contract; the counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout, as GlobalAlloc::alloc requires.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.get().wrapping_add(layout.size());
            LIVE.set(live);
            PEAK.set(PEAK.get().max(live));
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.set(LIVE.get().wrapping_sub(layout.size()));
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
