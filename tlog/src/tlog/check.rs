//! Checking a proof made by [`inclusion_text`](super::inclusion_text) or
//! [`consistency_text`](super::consistency_text): its checkpoint is admitted (trusted
//! keys, expected origin), its record recomputed, its path verified. Shared by
//! `agentloop verify-proof` and the C ABI.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::admit::{admit, Trust};
use super::checkpoint::{CheckpointText, TlogCheckpoint};
use super::proof::{ConsistencyProof, InclusionProof};
use crate::anchor::Anchor;
use crate::fault_kind::FaultKind;
use crate::hash::Hash;
use crate::json;
use crate::merkle::{record_leaf, verify_consistency, verify_inclusion};
use crate::note::VerifierKey;
use crate::verify::{self, Options};

/// The kind of a [`Problem`] whose proof path or record does not check.
pub const PROOF_INVALID: &str = "proof_invalid";

/// Why a proof does not hold: a kind (a fault kind name, or [`PROOF_INVALID`]) and a
/// sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// A fault kind name (`checkpoint_untrusted`, `checkpoint_inconsistent`, …) or
    /// [`PROOF_INVALID`].
    pub kind: &'static str,
    /// What was expected and what was found.
    pub detail: String,
}

fn problem(kind: &'static str, detail: String) -> Problem {
    Problem { kind, detail }
}

fn tlog(text: &CheckpointText) -> Option<&TlogCheckpoint> {
    match text {
        CheckpointText::Tlog { checkpoint, .. } => Some(checkpoint),
        CheckpointText::V1(_) => None,
    }
}

/// Admits the checkpoint (signatures, origin) and says who signed it.
fn admitted(
    text: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
) -> Result<String, Vec<Problem>> {
    let admission = admit(text, trusted, origin);
    if !admission.faults.is_empty() {
        return Err(admission
            .faults
            .iter()
            .map(|f| problem(f.kind.as_str(), f.detail.to_string()))
            .collect());
    }
    Ok(match admission.trust {
        Trust::NotChecked => String::from("no key was trusted, so no signature was checked"),
        Trust::SignedBy(names) => format!("signed by {}", names.join(", ")),
    })
}

/// Checks an inclusion proof whose checkpoint `text` was read from the proof: on
/// success, a sentence saying what holds; otherwise every problem found. The record
/// is judged as one of a transcript from seq 0 (`seq` = index, record 0's `prev` 64
/// zeros): [`check_inclusion_anchored`] with no anchor.
pub fn check_inclusion(
    proof: &InclusionProof,
    text: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
) -> Result<String, Vec<Problem>> {
    check_inclusion_anchored(proof, text, trusted, origin, None)
}

/// [`check_inclusion`] for a transcript that starts at `anchor` (one made with
/// `prove --anchor`, continuing another): the record must carry `seq` = `seq0` + its
/// index, and record 0 the anchor's `prev0`. `None` is the anchor `(0, 64 zeros)`, and a
/// record that breaks it gets a sentence saying that no anchor was given.
pub fn check_inclusion_anchored(
    proof: &InclusionProof,
    text: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
    anchor: Option<Anchor>,
) -> Result<String, Vec<Problem>> {
    let signed = admitted(text, trusted, origin)?;
    let Some(checkpoint) = tlog(text) else {
        return Err(vec![problem(
            "checkpoint_malformed",
            String::from("no Merkle root"),
        )]);
    };
    let Some(record) = &proof.record else {
        return Err(vec![problem(
            PROOF_INVALID,
            String::from(
                "the proof carries no record (no extra line), so there is no leaf to check",
            ),
        )]);
    };
    let (leaf, seq) = record_hash(record, proof.index, anchor)?;
    if proof.index == 0 {
        if let Some(first) = checkpoint.checkpoint().first {
            if first != leaf {
                return Err(vec![problem(
                    FaultKind::CheckpointOriginMismatch.as_str(),
                    format!("record 0 carries {leaf}, but the checkpoint's origin names {first}"),
                )]);
            }
        }
    }
    verify_inclusion(
        proof.index,
        checkpoint.count,
        &record_leaf(&leaf).0,
        &proof.proof,
        &checkpoint.root.0,
    )
    .map_err(|e| {
        vec![problem(
            PROOF_INVALID,
            format!("the inclusion proof does not verify: {e}"),
        )]
    })?;
    Ok(format!(
        "record {} (seq {seq}, hash {leaf}) is in the checkpoint of {} records, origin {}; {signed}",
        proof.index, checkpoint.count, checkpoint.origin
    ))
}

/// Checks the record in the proof: a record whose `hash` is its own, whose `seq` is
/// the anchor's `seq0` + its index and, at index 0, whose `prev` is the anchor's
/// `prev0`; returns its hash and its seq.
fn record_hash(
    record: &[u8],
    index: u64,
    anchor: Option<Anchor>,
) -> Result<(Hash, u64), Vec<Problem>> {
    let bad = |detail: String| vec![problem(PROOF_INVALID, detail)];
    let value = json::parse_record_line(record).map_err(|e| {
        bad(format!(
            "the record in the proof is not I-JSON: {}",
            e.kind()
        ))
    })?;
    let prev = value
        .as_object()
        .and_then(|o| o.get("prev"))
        .and_then(|p| p.as_str())
        .and_then(|p| Hash::from_hex(p.as_bytes()))
        .ok_or_else(|| {
            bad(String::from(
                "the record in the proof has no well-formed prev",
            ))
        })?;
    let given = anchor.unwrap_or(Anchor::GENESIS);
    // Past 2^53 - 1 no record is right: the verifier says so (a seq_gap).
    let seq = given.seq0.saturating_add(index);
    let mut line = record.to_vec();
    line.push(b'\n');
    let options = Options {
        anchor: Anchor {
            seq0: seq,
            // Record 0 continues the anchor; any other record's prev is checked by
            // the audit path (its hash covers it), not here.
            prev0: if index == 0 { given.prev0 } else { prev },
        },
        ..Options::default()
    };
    let report = verify::verify_bytes(&line, &options);
    // `record` parsed as one JSON value, so it is one line unless it holds a raw
    // newline, and then some line of it is not a whole record (a fault): without a
    // fault, `line` is exactly one record and the head is its hash.
    match (report.faults.first(), report.head) {
        (None, Some(hash)) => Ok((hash, seq)),
        (Some(f), _) => {
            let mut detail = format!("the record in the proof: {}: {}", f.kind, f.detail);
            let chain = matches!(f.kind, FaultKind::SeqGap | FaultKind::PrevMismatch);
            if anchor.is_none() && chain {
                detail.push_str(
                    "; no anchor was given, so the record is taken as one of a transcript from seq 0 with prev 64 zeros: a transcript that continues another (SEQ0:PREV0) is checked with its anchor",
                );
            }
            Err(bad(detail))
        }
        _ => Err(bad(String::from(
            "the proof's extra data is not one record",
        ))),
    }
}

/// Checks a consistency proof whose newer checkpoint `new` was read from the proof
/// against `old`, the older checkpoint the caller kept (named `old_name` in the
/// sentences): on success, a sentence saying what holds; otherwise every problem.
pub fn check_consistency(
    proof: &ConsistencyProof,
    old_name: &str,
    old: &CheckpointText,
    new: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
) -> Result<String, Vec<Problem>> {
    let signed = admitted(new, trusted, origin)?;
    let inconsistent =
        |detail: String| vec![problem(FaultKind::CheckpointInconsistent.as_str(), detail)];
    let Some(new) = tlog(new) else {
        return Err(vec![problem(
            "checkpoint_malformed",
            String::from("no Merkle root"),
        )]);
    };
    let Some(old) = tlog(old) else {
        return Err(inconsistent(format!(
            "{old_name} is a v1 checkpoint, with no Merkle root to check a proof against"
        )));
    };
    if old.origin != new.origin {
        return Err(inconsistent(format!(
            "{old_name} has origin {:?}, the proof's checkpoint {:?}: they are of different transcripts",
            old.origin, new.origin
        )));
    }
    if old.count != proof.old {
        return Err(inconsistent(format!(
            "{old_name} covers {} records, but the proof starts from {}",
            old.count, proof.old
        )));
    }
    // Every tree extends the empty one.
    if old.count > 0 {
        verify_consistency(old.count, new.count, &proof.proof, &old.root.0, &new.root.0).map_err(
            |e| {
                inconsistent(format!(
                    "{old_name} ({} records) is not a prefix of the proof's checkpoint ({} records): {e}",
                    old.count, new.count
                ))
            },
        )?;
    }
    Ok(format!(
        "{old_name} ({} records) is a prefix of the checkpoint of {} records, origin {}; {signed}",
        old.count, new.count, new.origin
    ))
}
