//! `agentloop prove`: an inclusion proof of one record, or a consistency proof from a
//! prefix, against a checkpoint of the transcript.

use std::io::Write;

use agentloop_core::merkle::root_of;
use agentloop_core::note::SignerKey;
use agentloop_core::tlog::{
    consistency_text, inclusion_text, leaves_of, report_checkpoint, CheckpointText, TlogCheckpoint,
};
use agentloop_core::verify::{self, Options};
use agentloop_core::Anchor;

use super::emit;
use super::verify::read_checkpoint_text;
use crate::args::ProveArgs;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure};
use crate::input::Source;
use crate::keys;
use crate::lines::{read_transcript, Transcript};

/// Verifies the file, then prints the proof asked for.
pub fn run(args: &ProveArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let signer = args.sign_key.as_deref().map(keys::signer).transpose()?;
    let given = match &args.checkpoint {
        Some(path) => Some(read_checkpoint_text(path)?),
        None => None,
    };
    let source = Source::from_arg(&args.file);
    let name = source.name();
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    };
    let Transcript { bytes, report } = read_transcript(source, &options)?;
    if !report.ok() {
        return Err(Failure::does_not_verify(
            &name,
            &report,
            "no proof was made",
        ));
    }
    // The file verified, so every line is a record with a well-formed hash.
    let (leaves, _) = leaves_of(&bytes).map_err(|e| {
        Failure::Anchor(AnchorFailure::ProveCheckpoint {
            name: name.clone(),
            reason: format!("{e}"),
        })
    })?;
    let (checkpoint, text) = against(args, given, &name, &report, &leaves, signer.as_ref())?;
    let proof_text = if let Some(index) = args.index {
        inclusion_text(&bytes, &leaves, index, checkpoint.count, text)
    } else {
        consistency_text(
            &leaves,
            args.from.unwrap_or_default(),
            checkpoint.count,
            text,
        )
    }
    .map_err(|error| {
        Failure::Anchor(AnchorFailure::Prove {
            name: name.clone(),
            error,
        })
    })?;
    emit(out, proof_text.as_bytes())?;
    Ok(Exit::Held)
}

/// The checkpoint the proof is made against, and its text: the one `given`, which must
/// be of a prefix of the file (a C2SP one, with a root), or else the checkpoint of the
/// whole file, signed if a key was given.
fn against(
    args: &ProveArgs,
    given: Option<(String, CheckpointText, String)>,
    name: &str,
    report: &verify::Report,
    leaves: &[agentloop_core::Hash],
    signer: Option<&SignerKey>,
) -> Result<(TlogCheckpoint, String), Failure> {
    match given {
        Some((cp_name, CheckpointText::Tlog { checkpoint, .. }, text)) => {
            let fits = usize::try_from(checkpoint.count)
                .ok()
                .and_then(|n| leaves.get(..n))
                .is_some_and(|prefix| root_of(prefix) == checkpoint.root);
            if !fits {
                return Err(Failure::Anchor(AnchorFailure::ProveCheckpoint {
                    name: cp_name,
                    reason: format!(
                        "the checkpoint ({} records) is not of {name}: its Merkle root is not that of the file's first {} records",
                        checkpoint.count, checkpoint.count
                    ),
                }));
            }
            Ok((checkpoint, text))
        }
        Some((cp_name, CheckpointText::V1(_), _)) => Err(Failure::Anchor(AnchorFailure::ProveCheckpoint {
            name: cp_name,
            reason: String::from(
                "a proof needs a C2SP checkpoint (with a Merkle root), and this is a v1 checkpoint",
            ),
        })),
        None => {
            // `--origin` passed `check_origin` already (args.rs); this is that check.
            let checkpoint = report_checkpoint(report, args.origin.clone()).map_err(|e| {
                Failure::Anchor(AnchorFailure::ProveCheckpoint {
                    name: String::from("--origin"),
                    reason: e.to_string(),
                })
            })?;
            let text = match signer {
                Some(key) => checkpoint.sign(key).map_err(|e| Failure::Anchor(AnchorFailure::Sign {
                    error: format!("{e}"),
                }))?,
                None => checkpoint.body(),
            };
            Ok((checkpoint, text))
        }
    }
}
