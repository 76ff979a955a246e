//! Proof texts made from a transcript held in memory, as `agentloop prove` writes them:
//! the checkpoint of all its records, and the inclusion or consistency proof against
//! a checkpoint. Shared by the CLI and the C ABI so both give the same bytes.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::checkpoint::{default_origin, TlogCheckpoint};
use super::origin::{check_origin, OriginError};
use super::proof::{ConsistencyProof, InclusionProof};
use crate::hash::Hash;
use crate::merkle::{consistency_proof, inclusion_proof, ProofError};
use crate::note::{NoteError, SignerKey};
use crate::verify::Report;

/// Why [`report_checkpoint`] or [`make_checkpoint`] made no checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MakeCheckpointError {
    /// The report has faults, or no Merkle root (a record without a well-formed hash,
    /// an input that could not be read): a checkpoint would vouch for records that do
    /// not hold.
    NotVerified,
    /// The origin asked for could not be read back from the checkpoint.
    Origin(OriginError),
    /// The signer key could not sign the checkpoint's body.
    Sign(NoteError),
}

impl fmt::Display for MakeCheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MakeCheckpointError::NotVerified => {
                f.write_str("the transcript does not verify, so no checkpoint is made of it")
            }
            MakeCheckpointError::Origin(e) => e.fmt(f),
            MakeCheckpointError::Sign(e) => write!(f, "the checkpoint cannot be signed: {e}"),
        }
    }
}

impl core::error::Error for MakeCheckpointError {}

impl From<OriginError> for MakeCheckpointError {
    fn from(e: OriginError) -> Self {
        MakeCheckpointError::Origin(e)
    }
}

/// The C2SP checkpoint of every record a verification `report` read, with the Merkle
/// root the verifier computed — the one function `agentloop checkpoint`, `agentloop
/// prove`, `agentloop run --checkpoint` and the C ABI make checkpoints with. `origin`
/// defaults to `agentloop/transcript/<hash of record 0>`; a given one must pass
/// [`check_origin`], so that the checkpoint reads back with it. A report with faults
/// or without a root is [`MakeCheckpointError::NotVerified`].
pub fn report_checkpoint(
    report: &Report,
    origin: Option<String>,
) -> Result<TlogCheckpoint, MakeCheckpointError> {
    let (true, Some(root)) = (report.ok(), report.root) else {
        return Err(MakeCheckpointError::NotVerified);
    };
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

/// The finished text of the checkpoint of every record a verification `report` read —
/// what `agentloop checkpoint`, `agentloop prove`, `agentloop run --checkpoint` and
/// `agentloop_transcript_checkpoint` write: the body ([`TlogCheckpoint::body`]) or,
/// with a `signer`, the signed note. `origin` as in [`report_checkpoint`].
pub fn make_checkpoint(
    report: &Report,
    origin: Option<String>,
    signer: Option<&SignerKey>,
) -> Result<String, MakeCheckpointError> {
    made(report, origin, signer).map(|(_, text)| text)
}

/// The checkpoint [`make_checkpoint`] makes, and its finished text.
pub(super) fn made(
    report: &Report,
    origin: Option<String>,
    signer: Option<&SignerKey>,
) -> Result<(TlogCheckpoint, String), MakeCheckpointError> {
    let checkpoint = report_checkpoint(report, origin)?;
    let text = match signer {
        Some(key) => checkpoint.sign(key).map_err(MakeCheckpointError::Sign)?,
        None => checkpoint.body(),
    };
    Ok((checkpoint, text))
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
