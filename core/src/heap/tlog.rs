//! External anchors in the transparency-log formats (C2SP): checkpoints
//! (`tlog-checkpoint`), optionally signed ([`crate::note`]), inclusion proofs
//! (`tlog-proof@v1`) and consistency proofs (this project's analogue of it), and the
//! rules a verifier applies to them: the root of the crate agentloop-tlog, re-exported.
//! See `docs/anchors.md`.
//!
//! A checkpoint body is
//!
//! ```text
//! agentloop/transcript/<64 hex: hash of record 0>   (origin)
//! 5                                                  (record count)
//! <base64 of the RFC 6962 Merkle root of records 0..count>
//! head <64 hex: hash of record count-1>              (extension line)
//! ```

pub use agentloop_tlog::{
    check_consistency, check_inclusion, check_inclusion_anchored, check_origin, consistency_text,
    covers, inclusion_text, leaves_of, make_checkpoint, prove, read_checkpoint, report_checkpoint,
    verify_by_checkpoints, Against, ByCheckpoints, ByCheckpointsError, CheckpointText, Checkpoints,
    ConsistencyProof, InclusionProof, LeafError, Leaves, MakeCheckpointError, Malformed,
    NotAPrefix, OriginError, Problem, ProofRequest, ProofText, ProofTextError, ProveError,
    TlogCheckpoint, PROOF_INVALID,
};
