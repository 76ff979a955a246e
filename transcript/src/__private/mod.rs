//! Internals, not an API: what `agentloop-core`'s allocating verifier, chain and
//! checkpoint code build on (the fixed-size checkpoint and its verdict, the fault kinds,
//! ECMAScript number text, the parse error, the newline scan, the verifier's engine and
//! line assembly). Public only because core is another crate now; hidden from the docs
//! and outside any semver promise. Users reach these types through their re-exports
//! (`stream::Checkpoint`, `stream::FaultKind`, `jcs`).

pub mod checkpoint;
pub mod fault_kind;
pub mod number;
pub mod parse_detail;
pub mod parse_error;
pub mod scan;
