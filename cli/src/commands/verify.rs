//! `agentloop verify`: verifies each file and reports every fault.

use std::io::{self, BufReader, Write};
use std::path::Path;

use agentloop_core::audit;
use agentloop_core::verify::{self, Checkpoint, Options, Report};
use agentloop_core::Anchor;

use super::{emit, flush};
use crate::args::VerifyArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::{report_json, report_text};

/// The longest checkpoint file read; a checkpoint is well under 100 bytes.
const CHECKPOINT_LIMIT: u64 = 1 << 16;

/// Verifies each file in argument order; the exit status is the worst of theirs.
pub fn run(args: &VerifyArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let checkpoint = match (&args.checkpoint, args.expect_count) {
        (Some(path), _) => Some(read_checkpoint(path)?),
        (None, Some(count)) => Some(Checkpoint {
            count,
            head: args.expect_head,
            ..Default::default()
        }),
        (None, None) => None,
    };
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        lenient: args.lenient,
        checkpoint,
        ..Options::default()
    };
    let mut worst = Exit::Held;
    for file in &args.files {
        let source = Source::from_arg(file);
        let report = if args.check_loop {
            verify_loop_source(source, &options)
        } else {
            verify_source(source, &options)
        };
        if args.json {
            let value =
                report_json::report_value(&source.json_name(), &report, checkpoint.is_some());
            let line = report_json::to_line(&value).map_err(|error| Failure::Encode {
                name: source.name(),
                error,
            })?;
            emit(out, &line)?;
        } else {
            let name = source.name();
            let verdict = if report.ok() {
                report_text::ok_line(&name, &report)
            } else {
                report_text::say_faults(&name, &report);
                report_text::faults_line(&name, &report)
            };
            emit(out, verdict.as_bytes())?;
            emit(out, b"\n")?;
        }
        flush(out)?;
        worst = worst.max(Exit::of_report(&report));
    }
    Ok(worst)
}

/// Verifies one input: a file by path, or standard input streamed.
pub fn verify_source(source: Source<'_>, options: &Options) -> Report {
    match source {
        Source::Stdin => verify::verify_reader(
            BufReader::with_capacity(1 << 16, io::stdin().lock()),
            options,
        ),
        Source::Path(path) => verify::verify_file(path, options),
    }
}

/// Verifies one input and audits it as a run of the loop, in one streaming pass.
fn verify_loop_source(source: Source<'_>, options: &Options) -> Report {
    match source {
        Source::Stdin => audit::verify_loop_reader(
            BufReader::with_capacity(1 << 16, io::stdin().lock()),
            options,
        ),
        Source::Path(path) => audit::verify_loop_file(path, options),
    }
}

/// Reads and parses a checkpoint file; unreadable or malformed is a failure (exit 2).
fn read_checkpoint(path: &Path) -> Result<Checkpoint, Failure> {
    let source = Source::from_arg(path);
    let text = source
        .read_at_most(CHECKPOINT_LIMIT + 1)
        .map_err(|reason| Failure::CheckpointUnreadable {
            name: source.name(),
            reason,
        })?;
    if text.len() as u64 > CHECKPOINT_LIMIT {
        return Err(Failure::CheckpointTooLarge {
            name: source.name(),
            limit: CHECKPOINT_LIMIT,
        });
    }
    Checkpoint::parse(&text).map_err(|error| Failure::CheckpointMalformed {
        name: source.name(),
        error,
    })
}
