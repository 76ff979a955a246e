//! The tests that measure the heap, as one test binary with the counting global
//! allocator ([`counting`]): per thread, so they run in parallel as any others do.
//! `cargo test -p agentloop-tests --test memory`, `-- limits::` one file's.

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

mod counting;

mod limits;
mod stream_no_alloc;
mod streaming_memory;
