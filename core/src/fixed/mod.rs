//! The fixed-size layer: everything here runs with no allocator, on the stack and in
//! the caller's buffers. No file of this folder has a `cfg` other than `cfg(test)`,
//! nor names `alloc` or `std` outside its tests (`tests/tests/suite/module_cycles.rs` holds it).

pub mod anchor;
pub(crate) mod checkpoint;
pub(crate) mod fault_kind;
pub mod hash;
pub mod jcs;
pub mod merkle;
pub mod number;
pub(crate) mod parse_error;
pub mod record;
pub(crate) mod scan;
pub mod sink;
pub mod stream;
