//! Proof texts made from a transcript held in memory, as `agentloop prove` writes them:
//! the checkpoint of all its records, and the inclusion or consistency proof against
//! a checkpoint. Shared by the CLI and the C ABI so both give the same bytes.

use alloc::string::String;
use alloc::vec::Vec;

use super::checkpoint::{default_origin, TlogCheckpoint};
use super::origin::{check_origin, OriginError};
use super::proof::{ConsistencyProof, InclusionProof};
use crate::hash::Hash;
use crate::merkle::{consistency_proof, inclusion_proof, root_of, ProofError};
use crate::verify::Report;

/// The C2SP checkpoint of every record of a transcript that verified: `report` is its
/// verification report and `leaves` its Merkle leaves (from
/// [`leaves_of`](super::leaves_of)). See [`report_checkpoint`].
pub fn transcript_checkpoint(
    report: &Report,
    leaves: &[Hash],
    origin: Option<String>,
) -> Result<TlogCheckpoint, OriginError> {
    report_checkpoint(report, root_of(leaves), origin)
}

/// The C2SP checkpoint of the records a verification `report` read, whose Merkle root
/// is `root` (the report's own, or one computed from the leaves). `origin` defaults to
/// `agentloop/transcript/<hash of record 0>`; a given one must pass [`check_origin`],
/// so that the checkpoint reads back with it.
pub fn report_checkpoint(
    report: &Report,
    root: Hash,
    origin: Option<String>,
) -> Result<TlogCheckpoint, OriginError> {
    let origin = match origin {
        Some(o) => {
            check_origin(&o)?;
            o
        }
        None => default_origin(report.first.as_ref()),
    };
    Ok(TlogCheckpoint {
        origin,
        count: report.count,
        root,
        head: report.head,
        extensions: Vec::new(),
    })
}

/// The text of an inclusion proof of record `index` of `bytes` (a transcript whose
/// leaves are `leaves`) in the tree of the first `size` records, carrying the record's
/// line and `checkpoint` (the checkpoint text, verbatim).
pub fn inclusion_text(
    bytes: &[u8],
    leaves: &[Hash],
    index: u64,
    size: u64,
    checkpoint: String,
) -> Result<String, ProofError> {
    let proof = inclusion_proof(leaves, index, size)?;
    let record = bytes
        .split(|b| *b == b'\n')
        .nth(usize::try_from(index).unwrap_or(usize::MAX))
        .map(<[u8]>::to_vec);
    Ok(InclusionProof {
        record,
        index,
        proof,
        checkpoint,
    }
    .to_text())
}

/// The text of a consistency proof from the tree of the first `old` leaves to that of
/// the first `size`, carrying `checkpoint` (the newer checkpoint text, verbatim).
pub fn consistency_text(
    leaves: &[Hash],
    old: u64,
    size: u64,
    checkpoint: String,
) -> Result<String, ProofError> {
    let proof = consistency_proof(leaves, old, size)?;
    Ok(ConsistencyProof {
        old,
        proof,
        checkpoint,
    }
    .to_text())
}
