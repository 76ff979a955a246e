//! The std layer: files, readers and threads — the durable writer, a file record sink,
//! and the verifier's readers and its parallel mode.

pub mod durable;
pub(crate) mod file_sink;
pub(crate) mod verify_io;
pub(crate) mod verify_parallel;
