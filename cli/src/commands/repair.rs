//! `agentloop repair`: moves a torn tail (an incomplete last line) to a side file and
//! cuts the transcript back to its last complete record — the only command that ever
//! removes bytes from a transcript; or, when that line is a whole record lacking only
//! its newline, adds the newline.

use std::io::Write;

use agentloop_core::durable::{self, LockWait, TailRepair, WriterOptions};
use agentloop_core::verify::Options;
use agentloop_core::Anchor;

use super::say_line;
use crate::args::RepairArgs;
use crate::diag::plural;
use crate::exit::Exit;
use crate::failure::{Failure, WriteFailure};
use crate::input::Source;
use crate::lock_wait;

/// Repairs FILE's torn tail, if it has one, and says exactly what it removed or added.
pub fn run(args: &RepairArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let Source::Path(path) = source else {
        return Err(Failure::Writing(WriteFailure::RepairStdin));
    };
    let name = source.name();
    let options = WriterOptions {
        lock: if args.no_wait {
            LockWait::Fail
        } else {
            lock_wait::watched(&name, path)
        },
        verify: Options {
            anchor: args.anchor.unwrap_or(Anchor::GENESIS),
            ..Options::default()
        },
        ..WriterOptions::default()
    };
    let repaired = durable::repair(path, &options).map_err(|error| {
        Failure::Writing(WriteFailure::Repair {
            name: name.clone(),
            error,
        })
    })?;
    let records = plural(repaired.count, "complete record");
    let sentence = match &repaired.tail {
        TailRepair::Untouched => format!(
            "{name}: nothing to repair: no torn tail; {records}, head {}",
            repaired.head
        ),
        TailRepair::Completed { offset, len } => format!(
            "{name}: repaired: the last line ({} at offset {offset}) is a complete, valid \
             record missing only its newline: kept it and added the newline; {records}, \
             head {}",
            plural(*len, "byte"),
            repaired.head
        ),
        TailRepair::Removed(removed) => format!(
            "{name}: repaired: removed the torn tail, {} at offset {} (moved to {}); \
             {records} remain, head {}",
            plural(removed.len, "byte"),
            removed.offset,
            removed.side_file.display(),
            repaired.head
        ),
    };
    say_line(out, &sentence)?;
    Ok(Exit::Held)
}
