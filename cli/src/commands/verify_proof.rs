//! `agentloop verify-proof`: checks a proof made by `agentloop prove`.

use std::io::Write;

use agentloop_core::tlog::{
    check_consistency, check_inclusion_anchored, read_checkpoint, CheckpointText, ProofText,
};

use super::say_line;
use super::verify::read_checkpoint_text;
use crate::args::VerifyProofArgs;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure};
use crate::input::Source;
use crate::keys;

/// The longest proof file read (a record line of up to 16 MiB in base64, and more).
const PROOF_LIMIT: u64 = 32 << 20;

/// Checks the proof; prints whether it holds and, if not, why.
pub fn run(args: &VerifyProofArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let trusted = keys::trusted(&args.keys, &args.key_files)?;
    let source = Source::from_arg(&args.proof);
    let name = source.name();
    let bytes = source
        .read_bounded(PROOF_LIMIT)
        .map_err(|error| Failure::reading(name.clone(), error))?;
    let proof = ProofText::parse(&bytes).map_err(|error| {
        Failure::Anchor(AnchorFailure::ProofMalformed {
            name: name.clone(),
            error,
        })
    })?;
    let outcome = match proof {
        ProofText::Consistency(proof) => {
            let Some(old_path) = &args.old else {
                return Err(Failure::Anchor(AnchorFailure::ProveCheckpoint {
                    name,
                    reason: String::from(
                        "a consistency proof is checked against the older checkpoint you kept: give it with --old FILE",
                    ),
                }));
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
        }
        ProofText::Inclusion(proof) => {
            let checkpoint = proof_checkpoint(&name, &proof.checkpoint)?;
            check_inclusion_anchored(
                &proof,
                &checkpoint,
                &trusted,
                args.origin.as_deref(),
                args.anchor,
            )
        }
    };
    match outcome {
        Ok(what) => {
            say_line(out, &format!("{name}: holds: {what}"))?;
            Ok(Exit::Held)
        }
        Err(problems) => {
            for p in &problems {
                say_line(
                    out,
                    &format!("{name}: does not hold: {}: {}", p.kind, p.detail),
                )?;
            }
            Ok(Exit::Fault)
        }
    }
}

/// The proof's own checkpoint, which must be a C2SP one.
fn proof_checkpoint(name: &str, text: &str) -> Result<CheckpointText, Failure> {
    let parsed = read_checkpoint(text.as_bytes()).map_err(|error| {
        Failure::Anchor(AnchorFailure::CheckpointMalformed {
            name: format!("{name} (its checkpoint)"),
            error,
        })
    })?;
    if matches!(parsed, CheckpointText::V1(_)) {
        return Err(Failure::Anchor(AnchorFailure::ProveCheckpoint {
            name: name.to_owned(),
            reason: String::from("the proof's checkpoint is a v1 checkpoint, with no Merkle root"),
        }));
    }
    Ok(parsed)
}
