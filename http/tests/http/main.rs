//! The tests of the HTTP models against the loopback stand-in, one module per file, as
//! one test binary: `cargo test -p agentloop-http --test http`, `-- retries::` one
//! file's.

mod common;

mod requests;
mod retries;
mod run;
mod transport;
