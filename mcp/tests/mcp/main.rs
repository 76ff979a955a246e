//! The tests of the MCP client, one module per file, as one test binary: `cargo test -p
//! agentloop-mcp --test mcp`, `-- real_servers::` one file's.

mod common;

mod eras;
mod fake_server;
mod hostile_http;
mod http_servers;
mod output_schema;
mod real_servers;
mod sdk_servers;
mod setup;
