//! A verification by a set of checkpoints, from the checkpoints given to the finished
//! report — what `agentloop verify --checkpoint A --checkpoint B` and
//! `agentloop_transcript_verify_checkpoints` do, by the rules of [`Checkpoints`]. The
//! CLI and the C ABI read the files and the arguments, and say the report.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::checkpoint::CheckpointText;
use super::judge::{Checkpoints, Leaves};
use super::leaves::leaves_of;
use crate::note::VerifierKey;
use crate::verify::{verify_bytes, Options, Report};

/// Why a verification by checkpoints was refused before it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByCheckpointsError {
    /// Trusted keys were given, but no checkpoint for them to check.
    KeysWithoutCheckpoint,
    /// The options carry a checkpoint and checkpoints were given as well: which one the
    /// transcript is judged by would be a silent choice.
    CheckpointTwice,
}

impl fmt::Display for ByCheckpointsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ByCheckpointsError::KeysWithoutCheckpoint => {
                "keys were given but no checkpoint to check them against"
            }
            ByCheckpointsError::CheckpointTwice => {
                "the options carry a checkpoint and checkpoints were given as well: give the checkpoint once"
            }
        })
    }
}

impl core::error::Error for ByCheckpointsError {}

/// The checkpoints given to a verification, admitted, and the options to verify by
/// (the caller's, with the newest checkpoint). Verify each transcript with
/// [`ByCheckpoints::options`] and complete its report with [`ByCheckpoints::finish`],
/// or do both with [`ByCheckpoints::verify`].
#[derive(Debug, Clone)]
pub struct ByCheckpoints {
    checkpoints: Checkpoints,
    options: Options,
}

impl ByCheckpoints {
    /// Admits the `given` checkpoints (`(name, text)`: faults name them `checkpoint
    /// NAME: …`) against the `trusted` keys and the expected `origin`
    /// ([`Checkpoints::admit`]); the newest is the one `options` verify by. Without
    /// checkpoints the options stay as they are (a checkpoint they carry, such as
    /// `--expect-count`, still counts).
    pub fn new(
        options: Options,
        given: Vec<(String, CheckpointText)>,
        trusted: &[VerifierKey],
        origin: Option<&str>,
    ) -> Result<ByCheckpoints, ByCheckpointsError> {
        if given.is_empty() && !trusted.is_empty() {
            return Err(ByCheckpointsError::KeysWithoutCheckpoint);
        }
        if !given.is_empty() && options.checkpoint.is_some() {
            return Err(ByCheckpointsError::CheckpointTwice);
        }
        let checkpoints = Checkpoints::admit(given, trusted, origin);
        let mut options = options;
        if !checkpoints.is_empty() {
            options.checkpoint = checkpoints.newest();
        }
        Ok(ByCheckpoints {
            checkpoints,
            options,
        })
    }

    /// The options to verify each transcript by.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Whether the transcript is judged against any checkpoint (the report says how
    /// it stands to it).
    pub fn with_checkpoint(&self) -> bool {
        self.options.checkpoint.is_some() || !self.checkpoints.is_empty()
    }

    /// Completes `report`, a transcript's report verified by
    /// [`ByCheckpoints::options`], with the checkpoints' own faults and the older
    /// ones' judgement ([`Checkpoints::judge`]). `reread` gives the transcript's bytes
    /// again, asked for only when there is an older checkpoint; `None` (standard
    /// input, read once) leaves the older checkpoints only admitted.
    pub fn finish(&self, report: Report, reread: impl FnOnce() -> Option<Vec<u8>>) -> Report {
        let bytes = self.checkpoints.wants_leaves().then(reread).flatten();
        self.judge(report, bytes.as_deref())
    }

    /// Verifies the transcript `bytes` (JSONL) and completes its report.
    pub fn verify(&self, bytes: &[u8]) -> Report {
        self.judge(verify_bytes(bytes, &self.options), Some(bytes))
    }

    fn judge(&self, mut report: Report, bytes: Option<&[u8]>) -> Report {
        let read = bytes
            .filter(|_| self.checkpoints.wants_leaves())
            .and_then(|b| leaves_of(b).ok());
        let leaves = read
            .as_ref()
            .map(|(leaves, hashes)| Leaves { leaves, hashes });
        self.checkpoints.judge(&mut report, leaves);
        report
    }
}
