//! `agentloop checkpoint`: prints a verified file's `(count, head)`.

use std::io::Write;

use agentloop_core::verify::{Checkpoint, Options};
use agentloop_core::Anchor;

use super::emit;
use crate::args::CheckpointArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;

use super::verify::verify_source;

/// Verifies the file; prints its checkpoint if it verified, refuses otherwise.
pub fn run(args: &CheckpointArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    };
    let report = verify_source(source, &options);
    if !report.ok() {
        return Err(Failure::does_not_verify(
            &source.name(),
            &report,
            "no checkpoint was printed",
        ));
    }
    let checkpoint = Checkpoint {
        count: report.count,
        head: report.head,
        ..Default::default()
    };
    emit(out, checkpoint.to_text().as_bytes())?;
    Ok(Exit::Held)
}
