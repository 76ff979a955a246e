//! Making a proof from a transcript held in memory, as `agentloop prove` and
//! `agentloop_transcript_prove_inclusion` / `_consistency` make it: the transcript must
//! verify, the checkpoint is the one the caller kept (which must cover a prefix of the
//! transcript) or a fresh one of every record, and the finished proof text carries it.
//! One set of rules for the CLI and the C ABI; they read the files and copy the text out.

use alloc::string::String;
use core::fmt;

use super::checkpoint::{read_checkpoint, CheckpointText, Malformed, TlogCheckpoint};
use super::leaves::{leaves_of, LeafError};
use super::make::{consistency_text, inclusion_text, made, MakeCheckpointError};
use crate::hash::Hash;
use crate::merkle::{root_of, ProofError};
use crate::note::SignerKey;
use crate::verify::Report;

/// The proof asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofRequest {
    /// An inclusion proof of the record at this index (`prove --index`).
    Inclusion(u64),
    /// A consistency proof from the tree of this many first records (`prove --from`).
    Consistency(u64),
}

/// The checkpoint a proof is made against.
#[derive(Debug, Clone, Copy)]
pub enum Against<'a> {
    /// A checkpoint the caller kept, its text verbatim (C2SP, signed or not): it must
    /// cover a prefix of the transcript (its root that of the transcript's first `count`
    /// records, else [`ProveError::NotAPrefix`]), and the proof carries it as given.
    Given(&'a [u8]),
    /// A fresh checkpoint of every record ([`make_checkpoint`](super::make_checkpoint)
    /// with this origin and signer).
    Fresh {
        /// The origin; `None` for the default one.
        origin: Option<&'a str>,
        /// The key to sign it with; `None` for an unsigned checkpoint.
        signer: Option<&'a SignerKey>,
    },
}

/// A checkpoint that does not cover a prefix of the transcript: its Merkle root is not
/// that of the transcript's first `count` records (or it has more than the transcript).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAPrefix {
    /// The checkpoint's record count.
    pub count: u64,
}

impl fmt::Display for NotAPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the checkpoint ({} records) is not of this transcript: its Merkle root is not that of the transcript's first {} records",
            self.count, self.count
        )
    }
}

impl core::error::Error for NotAPrefix {}

/// Why [`prove`] made no proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProveError {
    /// The transcript's report has faults: a proof would vouch for records that do not
    /// hold.
    NotVerified,
    /// A line of the transcript has no well-formed hash (the report given is not the
    /// transcript's).
    Leaves(LeafError),
    /// The given checkpoint does not parse.
    Malformed(Malformed),
    /// The given checkpoint is a v1 one, with no Merkle root to prove against.
    V1Checkpoint,
    /// The given checkpoint is not of a prefix of this transcript.
    NotAPrefix(NotAPrefix),
    /// The fresh checkpoint could not be made (its origin, its signature).
    Checkpoint(MakeCheckpointError),
    /// The proof cannot be made: an index or size beyond the checkpoint's count.
    Proof(ProofError),
}

impl fmt::Display for ProveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProveError::NotVerified => {
                f.write_str("the transcript does not verify, so no proof is made of it")
            }
            ProveError::Leaves(e) => write!(f, "the transcript: {e}"),
            ProveError::Malformed(e) => write!(f, "the given checkpoint is malformed: {e}"),
            ProveError::V1Checkpoint => f.write_str(
                "a proof needs a C2SP checkpoint (with a Merkle root), and the given one is a v1 checkpoint",
            ),
            ProveError::NotAPrefix(e) => e.fmt(f),
            ProveError::Checkpoint(e) => e.fmt(f),
            ProveError::Proof(e) => write!(f, "cannot make that proof: {e}"),
        }
    }
}

impl core::error::Error for ProveError {}

/// Whether `checkpoint` covers a prefix of the records whose Merkle leaves are
/// `leaves`: its root is that of their first `count`.
pub(crate) fn covers(checkpoint: &TlogCheckpoint, leaves: &[Hash]) -> Result<(), NotAPrefix> {
    let fits = usize::try_from(checkpoint.count)
        .ok()
        .and_then(|n| leaves.get(..n))
        .is_some_and(|prefix| root_of(prefix) == checkpoint.root);
    if fits {
        Ok(())
    } else {
        Err(NotAPrefix {
            count: checkpoint.count,
        })
    }
}

/// The finished text of the proof `request` of the transcript `bytes` (JSONL) against
/// `against`. `report` is the transcript's verification report (by the caller's
/// options: strict, lenient, an anchor); a report with faults is
/// [`ProveError::NotVerified`]. The problems are found in this order: the report, the
/// transcript's leaves, the checkpoint, the proof.
pub fn prove(
    bytes: &[u8],
    report: &Report,
    request: ProofRequest,
    against: Against<'_>,
) -> Result<String, ProveError> {
    if !report.ok() {
        return Err(ProveError::NotVerified);
    }
    let (leaves, _) = leaves_of(bytes).map_err(ProveError::Leaves)?;
    let (checkpoint, text) = checkpoint_for(report, &leaves, against)?;
    match request {
        ProofRequest::Inclusion(index) => {
            inclusion_text(bytes, &leaves, index, checkpoint.count, text)
        }
        ProofRequest::Consistency(from) => consistency_text(&leaves, from, checkpoint.count, text),
    }
    .map_err(ProveError::Proof)
}

/// The checkpoint the proof is made against, and the text it carries.
fn checkpoint_for(
    report: &Report,
    leaves: &[Hash],
    against: Against<'_>,
) -> Result<(TlogCheckpoint, String), ProveError> {
    match against {
        Against::Fresh { origin, signer } => {
            made(report, origin.map(String::from), signer).map_err(ProveError::Checkpoint)
        }
        Against::Given(given) => {
            let checkpoint = match read_checkpoint(given).map_err(ProveError::Malformed)? {
                CheckpointText::Tlog { checkpoint, .. } => checkpoint,
                CheckpointText::V1(_) => return Err(ProveError::V1Checkpoint),
            };
            covers(&checkpoint, leaves).map_err(ProveError::NotAPrefix)?;
            // read_checkpoint accepted it, so it is UTF-8.
            let text = String::from_utf8_lossy(given).into_owned();
            Ok((checkpoint, text))
        }
    }
}
