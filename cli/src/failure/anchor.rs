//! Failures about checkpoints, keys and proofs: reading, signing, writing them.

use std::fmt;
use std::io;

use agentloop_core::merkle::ProofError;
use agentloop_core::note::KeyError;
use agentloop_core::tlog::{MakeCheckpointError, Malformed, ProofTextError};

use super::size_hint;

/// Failures about checkpoints, keys and proofs: reading, signing, writing them.
#[derive(Debug)]
pub enum AnchorFailure {
    /// The checkpoint file could not be opened or read.
    CheckpointUnreadable {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// The checkpoint file is longer than any checkpoint can be.
    CheckpointTooLarge {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// The largest accepted size in bytes.
        limit: u64,
    },
    /// The checkpoint file is not a checkpoint (`checkpoint_malformed`).
    CheckpointMalformed {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// What is wrong with it.
        error: Malformed,
    },
    /// A key file could not be read.
    KeyUnreadable {
        /// The key file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// A key (given with `--key` or in a key file) is not a note key.
    KeyMalformed {
        /// `--key` or the key file, as named on the command line.
        name: String,
        /// The 1-based line in the file, if any.
        line: Option<usize>,
        /// What is wrong.
        error: String,
    },
    /// A key of the other kind: a signer key where a verifier key is wanted, or the
    /// reverse.
    KeyKind {
        /// `--key` or the key file, as named on the command line.
        name: String,
        /// The 1-based line in the file, if any.
        line: Option<usize>,
        /// Which kind was given (a [`KeyError`] of the other kind:
        /// [`KeyError::other_kind`]).
        error: KeyError,
    },
    /// `keygen`: the operating system gave no randomness.
    Random(String),
    /// `checkpoint`, `prove`: the key cannot sign this checkpoint text.
    Sign {
        /// What was refused.
        error: String,
    },
    /// `checkpoint --out`: the checkpoint could not be written.
    CheckpointWrite {
        /// The file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// `checkpoint --out`: the file to write is the transcript itself.
    OutIsInput {
        /// `--out`, as named on the command line.
        out: String,
        /// The transcript, as named on the command line.
        input: String,
    },
    /// `verify-proof`: the proof file is not a proof.
    ProofMalformed {
        /// The proof file, as named on the command line.
        name: String,
        /// What is wrong.
        error: ProofTextError,
    },
    /// `prove`: the proof asked for cannot be made (index or size out of range).
    Prove {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: ProofError,
    },
    /// `prove`: the checkpoint given is not a C2SP checkpoint, or not of this
    /// transcript.
    ProveCheckpoint {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// Why.
        reason: String,
    },
}

impl AnchorFailure {
    /// The failure for a checkpoint that was not made: a signing failure as
    /// [`AnchorFailure::Sign`], any other reason said about `name` (`--origin`, the
    /// file the checkpoint was for).
    pub fn not_made(name: String, error: MakeCheckpointError) -> AnchorFailure {
        match error {
            MakeCheckpointError::Sign(e) => AnchorFailure::Sign {
                error: format!("{e}"),
            },
            e => AnchorFailure::ProveCheckpoint {
                name,
                reason: e.to_string(),
            },
        }
    }
}

impl fmt::Display for AnchorFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnchorFailure::CheckpointUnreadable { name, reason } => {
                write!(f, "{name}: cannot read the checkpoint: {reason}")
            }
            AnchorFailure::CheckpointTooLarge { name, limit } => write!(
                f,
                "{name}: checkpoint_malformed: the checkpoint is longer than {limit} bytes"
            ),
            AnchorFailure::CheckpointMalformed { name, error } => {
                write!(f, "{name}: checkpoint_malformed: {error}")
            }
            AnchorFailure::KeyUnreadable { name, reason } => {
                write!(f, "{name}: cannot read the key file: {reason}")
            }
            AnchorFailure::KeyMalformed {
                name,
                line: Some(line),
                error,
            } => write!(f, "{name} line {line}: not a note key: {error}"),
            AnchorFailure::KeyMalformed {
                name,
                line: None,
                error,
            } => write!(f, "{name}: not a note key: {error}"),
            AnchorFailure::KeyKind {
                name,
                line: Some(line),
                error,
            } => write!(f, "{name} line {line}: {error}"),
            AnchorFailure::KeyKind {
                name,
                line: None,
                error,
            } => write!(f, "{name}: {error}"),
            AnchorFailure::Random(error) => {
                write!(
                    f,
                    "the operating system gave no randomness for the key: {error}"
                )
            }
            AnchorFailure::CheckpointWrite { name, reason } => write!(
                f,
                "{name}: cannot write the checkpoint: {reason}{}; the file was left as it was",
                size_hint(reason)
            ),
            AnchorFailure::OutIsInput { out, input } => write!(
                f,
                "--out {out}: it is the transcript {input} itself (the same file); the \
                 checkpoint would replace it, so nothing was written"
            ),
            AnchorFailure::Sign { error } => write!(f, "cannot sign the checkpoint: {error}"),
            AnchorFailure::ProofMalformed { name, error } => {
                write!(f, "{name}: not a proof: {error}")
            }
            AnchorFailure::Prove { name, error } => {
                write!(f, "{name}: cannot make that proof: {error}")
            }
            AnchorFailure::ProveCheckpoint { name, reason } => write!(f, "{name}: {reason}"),
        }
    }
}
