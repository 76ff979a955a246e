//! Internals, not an API: what `agentloop-core`, `agentloop-schema` and `agentloop-tlog`
//! build on (the verifier's and the loop audit's tolerant parse, instance paths as
//! violations spell them). Public only because they are other crates; hidden from the
//! docs and outside any semver promise.

pub use crate::parse::parse_tolerant;

pub mod path {
    //! Instance paths (`crate::path`).
    pub use crate::path::*;
}
