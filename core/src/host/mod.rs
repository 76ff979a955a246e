//! The std layer: files, readers and threads — the durable writer, a file record sink,
//! the verifier's readers and its parallel mode, and a model on its own thread.

pub mod durable;
pub(crate) mod file_sink;
pub(crate) mod threaded_model;
pub(crate) mod verify_io;
pub(crate) mod verify_parallel;
