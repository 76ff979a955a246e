//! Several checkpoints given to one verification, as `agentloop verify --checkpoint A
//! --checkpoint B` and `agentloop_transcript_verify_checkpoints` take them: each is admitted
//! (signatures, origin), the newest (largest count) is the one the verifier judges the
//! transcript by, and each older one must be a prefix of the newest — or, when the
//! newest does not hold, is judged against the transcript itself. One set of rules for
//! the CLI and the C ABI.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::admit::{admit, Admission};
use super::checkpoint::CheckpointText;
use crate::checkpoint::Checkpoint;
use crate::fault_kind::FaultKind;
use crate::hash::Hash;
use crate::merkle::{consistency_proof, root_of, verify_consistency};
use crate::note::VerifierKey;
use crate::verify::{Fault, Report};

/// One checkpoint given, named as its faults will name it, and its admission.
#[derive(Debug, Clone)]
struct Given {
    name: String,
    admission: Admission,
}

/// The checkpoints given to one verification, admitted. Make it with
/// [`Checkpoints::admit`], verify with [`Checkpoints::newest`] as the options'
/// checkpoint, then complete the report with [`Checkpoints::judge`].
#[derive(Debug, Clone, Default)]
pub struct Checkpoints {
    /// The one with the largest count (the last such one given), if any.
    newest: Option<Given>,
    /// The others, in the order given.
    older: Vec<Given>,
}

/// The transcript's Merkle leaves and record hashes, as [`leaves_of`](super::leaves_of)
/// gives them.
#[derive(Debug, Clone, Copy)]
pub struct Leaves<'a> {
    /// Leaf `i`: `SHA-256(0x00 || hash_i)`.
    pub leaves: &'a [Hash],
    /// The `hash` of record `i`.
    pub hashes: &'a [Hash],
}

impl Checkpoints {
    /// Admits each `(name, text)` against the `trusted` keys and the expected `origin`
    /// and picks the newest: the largest count, the last given on a tie. Admitting
    /// one: with `trusted` keys, at least one of them must have signed it
    /// (`checkpoint_untrusted` otherwise, also for an unsigned or v1 checkpoint) and
    /// none of their signature lines may be bad (`checkpoint_bad_signature`); lines by
    /// other keys are ignored, as the signed-note spec requires. With an `origin`, the
    /// checkpoint's must be that one (`checkpoint_origin_mismatch`).
    pub fn admit(
        given: Vec<(String, CheckpointText)>,
        trusted: &[VerifierKey],
        origin: Option<&str>,
    ) -> Checkpoints {
        let newest = given
            .iter()
            .enumerate()
            .max_by_key(|(_, (_, text))| text.checkpoint().count)
            .map(|(i, _)| i);
        let mut older = Vec::with_capacity(given.len());
        let mut chosen = None;
        for (i, (name, text)) in given.into_iter().enumerate() {
            let judged = Given {
                name,
                admission: admit(&text, trusted, origin),
            };
            if Some(i) == newest {
                chosen = Some(judged);
            } else {
                older.push(judged);
            }
        }
        Checkpoints {
            newest: chosen,
            older,
        }
    }

    /// Whether no checkpoint was given.
    pub fn is_empty(&self) -> bool {
        self.newest.is_none()
    }

    /// Whether [`Checkpoints::judge`] can use the transcript's leaves (there is an
    /// older checkpoint to judge).
    pub fn wants_leaves(&self) -> bool {
        !self.older.is_empty()
    }

    /// The checkpoint the verifier judges the transcript by (`Options::checkpoint`):
    /// the newest, if it was admitted.
    pub fn newest(&self) -> Option<Checkpoint> {
        self.newest.as_ref().and_then(|g| g.admission.checkpoint)
    }

    /// Completes `report`, the transcript's report verified against
    /// [`Checkpoints::newest`]: the newest checkpoint's own faults (signature, origin)
    /// go first, each named; then each older one's own faults, and its judgement —
    /// against the newest when the newest holds for this transcript (a consistency
    /// proof made from `leaves` and checked against both roots:
    /// `checkpoint_inconsistent`), or else against the transcript itself
    /// (`truncated`, `head_mismatch`). Without `leaves` (the transcript cannot be read
    /// again) the older checkpoints are only admitted.
    pub fn judge(&self, report: &mut Report, leaves: Option<Leaves<'_>>) {
        let Some(newest) = &self.newest else {
            return;
        };
        add_file_faults(report, &newest.name, &newest.admission.faults);
        let newest = self.newest().filter(|_| holds(report));
        for given in &self.older {
            add_file_faults(report, &given.name, &given.admission.faults);
            let (Some(old), Some(leaves)) = (given.admission.checkpoint, leaves) else {
                continue;
            };
            let found = match newest {
                Some(new) => prefix_problem(old, new, leaves).map(|detail| Fault {
                    index: None,
                    line: None,
                    kind: FaultKind::CheckpointInconsistent,
                    detail: detail.into(),
                }),
                None => judge_alone(old, leaves),
            };
            if let Some(fault) = found {
                report.faults.push(named(&given.name, fault));
            }
        }
    }
}

/// Whether the checkpoint the report was verified against holds: no file-level fault
/// (a checkpoint's own), no `truncated`, `head_mismatch` or origin mismatch.
fn holds(report: &Report) -> bool {
    !report.faults.iter().any(|f| {
        f.index.is_none()
            || matches!(
                f.kind,
                FaultKind::Truncated
                    | FaultKind::HeadMismatch
                    | FaultKind::CheckpointOriginMismatch
            )
    })
}

fn named(name: &str, fault: Fault) -> Fault {
    Fault {
        detail: format!("checkpoint {name}: {}", fault.detail).into(),
        ..fault
    }
}

/// Puts a checkpoint's own faults (file-level: no index, no line) first, naming it.
fn add_file_faults(report: &mut Report, name: &str, faults: &[Fault]) {
    let named = faults.iter().map(|f| named(name, f.clone()));
    report.faults.splice(0..0, named);
}

/// Why `old` is not a prefix of `new`, given the records `new` holds for.
fn prefix_problem(old: Checkpoint, new: Checkpoint, leaves: Leaves<'_>) -> Option<String> {
    if let (Some(a), Some(b)) = (old.first, new.first) {
        if a != b {
            return Some(String::from(
                "it names another transcript (record 0) than the newest checkpoint",
            ));
        }
    }
    if old.count > new.count {
        return Some(format!(
            "it covers {} records, more than the newest checkpoint's {}",
            old.count, new.count
        ));
    }
    let m = usize::try_from(old.count).unwrap_or(usize::MAX);
    if m == 0 {
        return None;
    }
    if let Some(head) = old.head {
        if leaves.hashes.get(m - 1) != Some(&head) {
            return Some(format!(
                "its head {head} is not record {}'s hash in the newest checkpoint's history",
                m - 1
            ));
        }
    }
    if let (Some(r1), Some(r2)) = (old.root, new.root) {
        let Ok(proof) = consistency_proof(leaves.leaves, old.count, new.count) else {
            return Some(String::from(
                "no consistency proof can be made to the newest checkpoint",
            ));
        };
        if let Err(e) = verify_consistency(old.count, new.count, &proof, &r1.0, &r2.0) {
            return Some(format!(
                "it is not a prefix of the newest checkpoint: the consistency proof from {} to {} records fails ({e})",
                old.count, new.count
            ));
        }
    }
    None
}

/// An older checkpoint judged against the transcript alone (when the newest does not
/// hold).
fn judge_alone(old: Checkpoint, leaves: Leaves<'_>) -> Option<Fault> {
    let have = leaves.leaves.len();
    let m = usize::try_from(old.count).unwrap_or(usize::MAX);
    if m > have {
        return Some(Fault {
            index: Some(have as u64),
            line: None,
            kind: FaultKind::Truncated,
            detail: crate::finding::Finding::Truncated {
                checkpoint: old.count,
                count: have as u64,
            }
            .into(),
        });
    }
    if m == 0 {
        return None;
    }
    let head_differs = old
        .head
        .is_some_and(|h| leaves.hashes.get(m - 1) != Some(&h));
    let root_differs = old.root.is_some_and(|r| root_of(&leaves.leaves[..m]) != r);
    (head_differs || root_differs).then(|| Fault {
        index: Some(old.count - 1),
        line: Some(old.count),
        kind: FaultKind::HeadMismatch,
        detail: format!(
            "record {} and the records before it are not what the checkpoint recorded",
            old.count - 1
        )
        .into(),
    })
}
