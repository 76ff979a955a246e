//! The cross-crate tests of agentloop, one module per file, as one test binary: the core
//! is linked once for all of them. `cargo test -p agentloop-tests --test suite` runs
//! them, `-- jcs_vectors::` one file's. Beside it: `memory` (the tests that count the
//! heap with their own global allocator) and `summary` (what the run skipped, last).

mod crate_graph;
mod doc_paths;
mod durability;
mod ecmascript_oracle;
mod errors;
mod evidence;
mod fast_path;
mod independent_verifier;
mod jcs_vectors;
mod merkle_vectors;
mod module_cycles;
mod parallel;
mod pattern_oracle;
mod pattern_vectors;
mod payload_names;
mod properties;
mod provider_requests;
mod schema_differential;
mod schema_test_suite;
mod serde;
mod skips;
mod stream_equivalence;
mod test_layout;
