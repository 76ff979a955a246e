//! Tests of the transcript crate's no-allocator layer that need this crate's allocating
//! one (values, the chain, the allocating verifier) to compare against.

mod jcs;
mod merkle;
mod stream;
mod stream_append;
mod stream_faults;
