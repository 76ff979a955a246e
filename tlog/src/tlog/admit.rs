//! Whether a checkpoint may be used: its signatures against the trusted keys, its
//! origin against the expected one. The checkpoint's own problems are file-level
//! faults (no index, no line), and a checkpoint with one is not judged further.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::checkpoint::CheckpointText;
use crate::checkpoint::Checkpoint;
use crate::fault_kind::FaultKind;
use crate::note::{SignatureCheck, VerifierKey};
use crate::verify::Fault;

/// What the signatures established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trust {
    /// No key was trusted, so no signature was checked: the checkpoint is as good as
    /// the place it was kept (the v1 rule).
    NotChecked,
    /// These trusted keys (`name+keyid`) signed it.
    SignedBy(Vec<String>),
}

/// The outcome of [`admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Admission {
    /// The checkpoint to judge the transcript by, if it was admitted.
    pub checkpoint: Option<Checkpoint>,
    /// Its faults: `checkpoint_bad_signature`, `checkpoint_untrusted`,
    /// `checkpoint_origin_mismatch`.
    pub faults: Vec<Fault>,
    /// What the signatures established.
    pub trust: Trust,
}

fn file_fault(kind: FaultKind, detail: String) -> Fault {
    Fault {
        index: None,
        line: None,
        kind,
        detail: detail.into(),
    }
}

/// Admits a checkpoint. With `trusted` keys, at least one of them must have signed it
/// (`checkpoint_untrusted` otherwise, also for an unsigned or v1 checkpoint) and none
/// of their signature lines may be bad (`checkpoint_bad_signature`); lines by other
/// keys are ignored, as the signed-note spec requires. With an `origin`, the
/// checkpoint's must be that one (`checkpoint_origin_mismatch`).
pub(crate) fn admit(
    text: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
) -> Admission {
    let mut trust = Trust::NotChecked;
    let mut faults = Vec::new();
    if !trusted.is_empty() {
        match text {
            CheckpointText::Tlog {
                note: Some(note), ..
            } => match note.check(trusted) {
                SignatureCheck::Trusted(names) => trust = Trust::SignedBy(names),
                SignatureCheck::BadSignature(key) => faults.push(file_fault(
                    FaultKind::CheckpointBadSignature,
                    format!("the signature by trusted key {key} does not verify: the checkpoint was altered or forged"),
                )),
                SignatureCheck::Untrusted => faults.push(file_fault(
                    FaultKind::CheckpointUntrusted,
                    format!(
                        "none of the {} trusted keys signed the checkpoint (signed by: {})",
                        trusted.len(),
                        signers(note)
                    ),
                )),
            },
            _ => faults.push(file_fault(
                FaultKind::CheckpointUntrusted,
                String::from("keys are trusted but the checkpoint is not signed"),
            )),
        }
    }
    if let Some(expected) = origin {
        let found = match text {
            CheckpointText::Tlog { checkpoint, .. } => Some(checkpoint.origin.as_str()),
            CheckpointText::V1(_) => None,
        };
        if found != Some(expected) {
            faults.push(file_fault(
                FaultKind::CheckpointOriginMismatch,
                match found {
                    Some(found) => format!(
                        "the checkpoint's origin is {found:?}, not the expected {expected:?}"
                    ),
                    None => format!("a v1 checkpoint names no origin; expected {expected:?}"),
                },
            ));
        }
    }
    Admission {
        checkpoint: faults.is_empty().then(|| text.checkpoint()),
        faults,
        trust,
    }
}

fn signers(note: &crate::note::Note) -> String {
    if note.signatures.is_empty() {
        return String::from("nobody");
    }
    let names: Vec<String> = note
        .signatures
        .iter()
        .map(|s| format!("{}+{:08x}", s.name, s.id))
        .collect();
    names.join(", ")
}
