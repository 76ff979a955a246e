//! The integration tests of the `agentloop` command, one module per file, as one test
//! binary: `cargo test -p agentloop-cli --test cli`, `-- run::` one file's. [`common`]
//! runs the binary in scratch folders.

mod common;

mod anchors;
mod canon_oracle;
mod cli;
mod demo;
mod format1;
mod full_disk;
mod otel;
mod record_lines;
mod repair;
mod replay;
mod requests;
mod run;
mod run_mcp;
mod run_mcp_changes;
mod run_mcp_eras;
mod run_mcp_http;
mod run_sizes;
mod setup;
mod validate;
mod verify_loop;
mod view;
mod writes;
