//! `agentloop verify-proof`: checks a proof made by `agentloop prove`.

use std::io::Write;

use agentloop_core::merkle::{record_leaf, verify_consistency, verify_inclusion};
use agentloop_core::note::VerifierKey;
use agentloop_core::tlog::{
    admit, read_checkpoint, CheckpointText, ConsistencyProof, InclusionProof, TlogCheckpoint, Trust,
};
use agentloop_core::verify::{self, FaultKind, Options};
use agentloop_core::{json, Anchor, Hash};

use super::emit;
use super::verify::read_checkpoint_text;
use crate::args::VerifyProofArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::keys;

/// The longest proof file read (a record line of up to 16 MiB in base64, and more).
const PROOF_LIMIT: u64 = 32 << 20;

/// Why a proof does not hold: a kind (a fault kind name, or `proof_invalid`) and a
/// sentence.
struct Problem {
    kind: &'static str,
    detail: String,
}

fn problem(kind: &'static str, detail: String) -> Problem {
    Problem { kind, detail }
}

/// Checks the proof; prints whether it holds and, if not, why.
pub fn run(args: &VerifyProofArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let trusted = keys::trusted(&args.keys, &args.key_files)?;
    let source = Source::from_arg(&args.proof);
    let name = source.name();
    let bytes = source
        .read_at_most(PROOF_LIMIT)
        .map_err(|reason| Failure::Unreadable {
            name: name.clone(),
            reason,
        })?;
    let outcome = if bytes.starts_with(b"agentloop/tlog-consistency@v1\n") {
        let proof = ConsistencyProof::parse(&bytes).map_err(|error| Failure::ProofMalformed {
            name: name.clone(),
            error,
        })?;
        let Some(old_path) = &args.old else {
            return Err(Failure::ProveCheckpoint {
                name,
                reason: String::from(
                    "a consistency proof is checked against the older checkpoint you kept: give it with --old FILE",
                ),
            });
        };
        let (old_name, old, _) = read_checkpoint_text(old_path)?;
        let new = proof_checkpoint(&name, &proof.checkpoint)?;
        check_consistency(
            &proof,
            &old_name,
            &old,
            &new,
            &trusted,
            args.origin.as_deref(),
        )
    } else {
        let proof = InclusionProof::parse(&bytes).map_err(|error| Failure::ProofMalformed {
            name: name.clone(),
            error,
        })?;
        let checkpoint = proof_checkpoint(&name, &proof.checkpoint)?;
        check_inclusion(&proof, &checkpoint, &trusted, args.origin.as_deref())
    };
    match outcome {
        Ok(what) => {
            emit(out, format!("{name}: holds: {what}\n").as_bytes())?;
            Ok(Exit::Held)
        }
        Err(problems) => {
            for p in &problems {
                emit(
                    out,
                    format!("{name}: does not hold: {}: {}\n", p.kind, p.detail).as_bytes(),
                )?;
            }
            Ok(Exit::Fault)
        }
    }
}

/// The proof's own checkpoint, which must be a C2SP one.
fn proof_checkpoint(name: &str, text: &str) -> Result<CheckpointText, Failure> {
    let parsed =
        read_checkpoint(text.as_bytes()).map_err(|error| Failure::CheckpointMalformed {
            name: format!("{name} (its checkpoint)"),
            error,
        })?;
    if matches!(parsed, CheckpointText::V1(_)) {
        return Err(Failure::ProveCheckpoint {
            name: name.to_owned(),
            reason: String::from("the proof's checkpoint is a v1 checkpoint, with no Merkle root"),
        });
    }
    Ok(parsed)
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
            .map(|f| problem(f.kind.as_str(), f.detail.clone()))
            .collect());
    }
    Ok(match admission.trust {
        Trust::NotChecked => String::from("no key was trusted, so no signature was checked"),
        Trust::SignedBy(names) => format!("signed by {}", names.join(", ")),
    })
}

fn check_inclusion(
    proof: &InclusionProof,
    text: &CheckpointText,
    trusted: &[VerifierKey],
    origin: Option<&str>,
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
            "proof_invalid",
            String::from(
                "the proof carries no record (no extra line), so there is no leaf to check",
            ),
        )]);
    };
    let leaf = record_hash(record, proof.index)?;
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
            "proof_invalid",
            format!("the inclusion proof does not verify: {e}"),
        )]
    })?;
    Ok(format!(
        "record {} (hash {leaf}) is in the checkpoint of {} records, origin {}; {signed}",
        proof.index, checkpoint.count, checkpoint.origin
    ))
}

/// Checks the record in the proof: a record whose `hash` is its own, whose `seq` is
/// its index (for a transcript from seq 0); returns its hash.
fn record_hash(record: &[u8], index: u64) -> Result<Hash, Vec<Problem>> {
    let bad = |detail: String| vec![problem("proof_invalid", detail)];
    let value = json::parse(record)
        .map_err(|e| bad(format!("the record in the proof is not I-JSON: {}", e.kind)))?;
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
    let mut line = record.to_vec();
    line.push(b'\n');
    let options = Options {
        anchor: Anchor {
            seq0: index,
            prev0: prev,
        },
        ..Options::default()
    };
    let report = verify::verify_bytes(&line, &options);
    match (report.faults.first(), report.head) {
        (None, Some(hash)) if report.count == 1 => Ok(hash),
        (Some(f), _) => Err(bad(format!(
            "the record in the proof: {}: {}",
            f.kind, f.detail
        ))),
        _ => Err(bad(String::from(
            "the proof's extra data is not one record",
        ))),
    }
}

fn check_consistency(
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
