//! The tests of libagentloop's C ABI, one module per file, as one test binary: `cargo
//! test -p agentloop-ffi --test ffi`, `-- c_examples::` one file's. `header` (the
//! checked-in header against cbindgen) is its own binary, which `.ci/run` names.

#[path = "../common/mod.rs"]
mod common;

mod agent;
mod boundary;
mod c_examples;
mod driver;
mod empty_outputs;
mod install;
mod proof;
mod provider;
mod result_codes;
mod safety;
mod verify_checkpoints;
mod writer;
