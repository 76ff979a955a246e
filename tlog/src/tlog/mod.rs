//! External anchors in the transparency-log formats (C2SP): checkpoints
//! (`tlog-checkpoint`), optionally signed ([`crate::note`]); public as the crate root (`agentloop_core::tlog`), inclusion proofs
//! (`tlog-proof@v1`) and consistency proofs (this project's analogue of it), and the
//! rules a verifier applies to them. See `docs/anchors.md`.
//!
//! A checkpoint body is
//!
//! ```text
//! agentloop/transcript/<64 hex: hash of record 0>   (origin)
//! 5                                                  (record count)
//! <base64 of the RFC 6962 Merkle root of records 0..count>
//! head <64 hex: hash of record count-1>              (extension line)
//! ```

mod admit;
mod by_checkpoints;
mod check;
mod checkpoint;
mod judge;
mod leaves;
mod make;
mod origin;
mod proof;
mod prove;

pub use by_checkpoints::{ByCheckpoints, ByCheckpointsError};
pub use check::{
    check_consistency, check_inclusion, check_inclusion_anchored, Problem, PROOF_INVALID,
};
#[cfg(test)]
pub(crate) use checkpoint::MalformedKind;
pub use checkpoint::{read_checkpoint, CheckpointText, Malformed, TlogCheckpoint};
// The rules ByCheckpoints applies, which the C ABI's tests hold it to: not API
// ([`ByCheckpoints`] is the one way to verify by checkpoints).
#[doc(hidden)]
pub use judge::{Checkpoints, Leaves};
pub use leaves::LeafError;
// The leaves and proof texts [`prove`] and [`ByCheckpoints`] build on: what the C ABI's
// tests and the fuzz targets hold those to, not API ([`prove`] is the one way to a proof).
#[doc(hidden)]
pub use leaves::leaves_of;
#[doc(hidden)]
pub use make::{consistency_text, inclusion_text};
pub use make::{make_checkpoint, report_checkpoint, MakeCheckpointError};
#[cfg(test)]
pub(crate) use origin::OriginErrorKind;
pub use origin::{check_origin, OriginError};
#[cfg(test)]
pub(crate) use proof::ProofTextErrorKind;
pub use proof::{ConsistencyProof, InclusionProof, ProofText, ProofTextError};
pub use prove::{prove, Against, NotAPrefix, ProofRequest, ProveError};

#[cfg(test)]
mod judge_tests;
#[cfg(test)]
mod prove_tests;
#[cfg(test)]
mod tests;
