//! Internals, not an API: what `agentloop-core` builds on. Public only because core is
//! another crate; hidden from the docs and outside any semver promise.

/// The declaration of an opaque error (a public struct around a crate-private kind),
/// which core's own errors use too.
pub use crate::opaque_error;
