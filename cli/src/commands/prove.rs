//! `agentloop prove`: an inclusion proof of one record, or a consistency proof from a
//! prefix, against a checkpoint of the transcript (`agentloop_core::tlog::prove`).

use std::io::Write;

use agentloop_core::tlog::{prove, Against, ProofRequest, ProveError};
use agentloop_core::verify::Options;
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
    // Read (and refuse a malformed) checkpoint before the transcript.
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
    let against = match &given {
        Some((_, _, text)) => Against::Given(text.as_bytes()),
        None => Against::Fresh {
            origin: args.origin.as_deref(),
            signer: signer.as_ref(),
        },
    };
    let request = match args.index {
        Some(index) => ProofRequest::Inclusion(index),
        None => ProofRequest::Consistency(args.from.unwrap_or_default()),
    };
    let proof = prove(&bytes, &report, request, against).map_err(|e| {
        let given = given.as_ref().map(|(cp_name, _, _)| cp_name.as_str());
        refused(e, &name, given, &report)
    })?;
    emit(out, proof.as_bytes())?;
    Ok(Exit::Held)
}

/// The failure for a proof not made of the file `name`; `given` names the checkpoint
/// file given, if any.
fn refused(
    error: ProveError,
    name: &str,
    given: Option<&str>,
    report: &agentloop_core::verify::Report,
) -> Failure {
    let cp_name = String::from(given.unwrap_or("--checkpoint"));
    Failure::Anchor(match error {
        ProveError::NotVerified => {
            return Failure::does_not_verify(name, report, "no proof was made")
        }
        ProveError::Leaves(e) => AnchorFailure::ProveCheckpoint {
            name: name.to_owned(),
            reason: format!("{e}"),
        },
        ProveError::Malformed(error) => AnchorFailure::CheckpointMalformed {
            name: cp_name,
            error,
        },
        ProveError::V1Checkpoint => AnchorFailure::ProveCheckpoint {
            name: cp_name,
            reason: String::from(
                "a proof needs a C2SP checkpoint (with a Merkle root), and this is a v1 checkpoint",
            ),
        },
        ProveError::NotAPrefix(e) => AnchorFailure::ProveCheckpoint {
            name: cp_name,
            reason: format!(
                "the checkpoint ({} records) is not of {name}: its Merkle root is not that of the file's first {} records",
                e.count, e.count
            ),
        },
        // `--origin` passed `check_origin` already (args.rs); this is that check.
        ProveError::Checkpoint(e) => AnchorFailure::not_made(String::from("--origin"), e),
        ProveError::Proof(error) => AnchorFailure::Prove {
            name: name.to_owned(),
            error,
        },
    })
}
