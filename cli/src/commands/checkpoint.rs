//! `agentloop checkpoint`: prints (or atomically writes) a verified file's checkpoint.

use std::fs;
use std::io::Write;
use std::path::Path;

use agentloop_core::tlog::make_checkpoint;
use agentloop_core::verify::{Checkpoint, Options, Parallel};
use agentloop_core::Anchor;

use super::emit;
use super::verify::verify_source;
use crate::args::CheckpointArgs;
use crate::atomic::write_atomically;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure};
use crate::input::{same_file, Source};
use crate::keys;

/// Verifies the file; prints or writes its checkpoint if it verified, refuses otherwise.
pub fn run(args: &CheckpointArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    if let Some(path) = &args.out {
        refuse_the_input(path, source)?;
    }
    // Read the key first: a bad key file is refused before any work.
    let signer = args.sign_key.as_deref().map(keys::signer).transpose()?;
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    };
    let report = verify_source(source, &options, &Parallel::default());
    let consequence = if args.out.is_some() {
        "no checkpoint was written"
    } else {
        "no checkpoint was printed"
    };
    if !report.ok() || report.root.is_none() {
        return Err(Failure::does_not_verify(
            &source.name(),
            &report,
            consequence,
        ));
    }
    let text = if args.v1 {
        Checkpoint {
            count: report.count,
            head: report.head,
            ..Default::default()
        }
        .to_text()
    } else {
        // `--origin` passed `check_origin` already (args.rs); this is that check.
        make_checkpoint(&report, args.origin.clone(), signer.as_ref())
            .map_err(|e| Failure::Anchor(AnchorFailure::not_made(String::from("--origin"), e)))?
    };
    match &args.out {
        Some(path) => {
            write_atomically(path, text.as_bytes()).map_err(|reason| {
                Failure::Anchor(AnchorFailure::CheckpointWrite {
                    name: path.display().to_string(),
                    reason,
                })
            })?;
        }
        None => emit(out, text.as_bytes())?,
    }
    Ok(Exit::Held)
}

/// Refuses an `--out` that is the transcript itself (by identity, not by name: `t`,
/// `./t`, a hard link, standard input redirected from it): the rename would replace
/// the transcript with its checkpoint. An `--out` that does not exist yet is another
/// file.
fn refuse_the_input(out: &Path, source: Source) -> Result<(), Failure> {
    let (Ok(target), Ok(input)) = (fs::metadata(out), source.metadata()) else {
        return Ok(());
    };
    if same_file(&target, &input) {
        return Err(Failure::Anchor(AnchorFailure::OutIsInput {
            out: out.display().to_string(),
            input: source.name(),
        }));
    }
    Ok(())
}
