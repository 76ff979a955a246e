//! The verifier's alloc layer: the crate agentloop-tlog's `verify` (the `Verifier` state
//! machine, its reports and the in-memory entry points), re-exported. Public as
//! [`crate::verify`], with the readers of `host/`.

pub use agentloop_tlog::verify::*;
