//! The std layer: files, readers, threads and locks — the durable writer, a file record
//! sink, a reader split into lines, the verifier's and the loop audit's readers and the
//! verifier's parallel mode, a model on its own thread, and a `FnMut` closure as a tool.

pub(crate) mod audit_io;
pub mod durable;
pub(crate) mod file_sink;
mod fn_tool_mut;
pub(crate) mod read_lines;
pub(crate) mod threaded_model;
pub(crate) mod verify_io;
pub(crate) mod verify_parallel;
