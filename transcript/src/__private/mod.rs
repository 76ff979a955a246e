//! Internals, not an API: what `agentloop-core`'s allocating verifier, chain and
//! checkpoint code build on (the fixed-size checkpoint and its verdict, the fault kinds,
//! ECMAScript number text, the parse error, the opaque-error macro, the fault details' facts, the newline scan, the verifier's engine and
//! line assembly). Public only because core is another crate now; hidden from the docs
//! and outside any semver promise. Users reach these types through their re-exports
//! (`stream::Checkpoint`, `stream::FaultKind`, `jcs`).

// The modules whose public types users reach through re-exports (`stream::Checkpoint`,
// `stream::FaultKind`, core's `json::ParseError`) are private modules of the crate root,
// named here again: the types' documented home stays the re-export.
pub mod checkpoint {
    //! The checkpoint and its verdict (`crate::checkpoint`).
    pub use crate::checkpoint::*;
}
pub mod fault_kind {
    //! The fault kinds (`crate::fault_kind`).
    pub use crate::fault_kind::*;
}
pub mod parse_error {
    //! The strict parser's error (`crate::parse_error`).
    pub use crate::parse_error::*;
}
pub mod finding {
    //! What an opaque `stream::StreamDetail` holds, and its parts: the facts of a fault
    //! as both verifiers build them (agentloop-core's builds them too), with the
    //! sentences of their `Display`; and why a `stream::CheckError` stopped.
    pub use crate::stream::lexer::{CheckReason, JsonType, Limit, NumberProblem, Stop, Syntax};
    pub use crate::stream::report::detail::Finding;
    pub use crate::stream::report::found::{Excerpt, Found, EXCERPT_BYTES};
    pub use crate::stream::report::{FromStreamDetail, NAME_BYTES};
}
/// The declaration of an opaque error (a public struct around a crate-private kind):
/// the workspace's one way to write one (this crate's, agentloop-tlog's and
/// agentloop-core's errors use it).
pub use crate::opaque_error;
pub mod number;
pub mod parse_detail;
pub mod scan;
