//! `agentloop verify`: verifies each file and reports every fault.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

use agentloop_core::audit;
use agentloop_core::tlog::{read_checkpoint, ByCheckpoints, ByCheckpointsError, CheckpointText};
use agentloop_core::verify::{self, Checkpoint, Options, Parallel, Report};
use agentloop_core::Anchor;

use super::{emit, flush, say_line};
use crate::args::VerifyArgs;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure};
use crate::input::{ReadError, Source};
use crate::keys;
use crate::{report_json, report_text};

/// The longest checkpoint file read; a checkpoint is well under 100 bytes.
const CHECKPOINT_LIMIT: u64 = 1 << 16;

/// Verifies each file in argument order; the exit status is the worst of theirs.
pub fn run(args: &VerifyArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    if args.requests {
        return super::requests::verify(&args.files, out);
    }
    let trusted = keys::trusted(&args.keys, &args.key_files)?;
    let mut given = Vec::new();
    for path in &args.checkpoint {
        let (name, text, _) = read_checkpoint_text(path)?;
        given.push((name, text));
    }
    // An inline checkpoint (`--expect-count`) conflicts with `--checkpoint` (args.rs).
    let inline = args.expect_count.map(|count| Checkpoint {
        count,
        head: args.expect_head,
        ..Default::default()
    });
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        lenient: args.lenient,
        checkpoint: inline,
        ..Options::default()
    };
    // The largest checkpoint is judged against the file; older ones against it.
    let by =
        ByCheckpoints::new(options, given, &trusted, args.origin.as_deref()).map_err(|error| {
            Failure::Anchor(match error {
                ByCheckpointsError::KeysWithoutCheckpoint => AnchorFailure::KeyMalformed {
                    name: String::from("--key"),
                    line: None,
                    error: String::from(
                        "keys were given but no --checkpoint to check them against",
                    ),
                },
                e @ ByCheckpointsError::CheckpointTwice => AnchorFailure::ProveCheckpoint {
                    name: String::from("--expect-count"),
                    reason: e.to_string(),
                },
            })
        })?;
    let with_checkpoint = by.with_checkpoint();
    let verify_one = |source: Source<'_>, parallel: &Parallel| {
        let report = if args.check_loop {
            verify_loop_source(source, by.options())
        } else {
            verify_source(source, by.options(), parallel)
        };
        // Older checkpoints are judged with the file's records, when it can be read
        // again (not standard input).
        by.finish(report, || match source {
            Source::Path(path) => fs::read(path).ok(),
            Source::Stdin => None,
        })
    };
    // Several files take the cores between them: each is verified on one thread.
    let each_on_one_core = Parallel {
        threads: 1,
        ..Parallel::default()
    };
    let mut worst = Exit::Held;
    let mut failure = None;
    verify_in_order(
        &args.files,
        |file, report| {
            if failure.is_some() {
                return;
            }
            match say(args, with_checkpoint, file, &report, out) {
                Ok(()) => worst = worst.max(Exit::of_report(&report)),
                Err(e) => failure = Some(e),
            }
        },
        |source| verify_one(source, &each_on_one_core),
        |source| verify_one(source, &Parallel::default()),
    );
    match failure {
        Some(e) => Err(e),
        None => Ok(worst),
    }
}

/// Verifies the files and hands each report to `say` in argument order. One file is
/// verified with `alone` (which may use every core); several are verified `each` on
/// its own thread, as many at once as the machine has cores, and said as soon as the
/// ones before them were.
fn verify_in_order(
    files: &[PathBuf],
    mut say: impl FnMut(&Path, Report),
    each: impl Fn(Source<'_>) -> Report + Sync,
    alone: impl Fn(Source<'_>) -> Report,
) {
    if let [file] = files {
        return say(file, alone(Source::from_arg(file)));
    }
    let threads = Parallel::default().threads.clamp(1, files.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Report)>();
    thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, each) = (&next, &each);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else {
                    return;
                };
                if tx.send((i, each(Source::from_arg(file)))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut done = BTreeMap::new();
        let mut said = 0;
        for (i, report) in rx {
            done.insert(i, report);
            while let Some(report) = done.remove(&said) {
                if let Some(file) = files.get(said) {
                    say(file, report);
                }
                said += 1;
            }
        }
    });
}

/// Writes one file's verdict (text or JSON line) and flushes.
fn say(
    args: &VerifyArgs,
    with_checkpoint: bool,
    file: &Path,
    report: &Report,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let source = Source::from_arg(file);
    if args.json {
        let value = report_json::report_value(&source.json_name(), report, with_checkpoint);
        let line = report_json::to_line(&value).map_err(|error| Failure::Encode {
            name: source.name(),
            error,
        })?;
        emit(out, &line)?;
    } else {
        let name = source.name();
        let verdict = if report.ok() {
            report_text::ok_line(&name, report)
        } else {
            report_text::say_faults(&name, report);
            report_text::faults_line(&name, report)
        };
        say_line(out, &verdict)?;
    }
    flush(out)
}

/// Verifies one input: a file by path, or standard input streamed; on `parallel`'s
/// threads when they pay (a file of at least `from_bytes`, or standard input).
pub fn verify_source(source: Source<'_>, options: &Options, parallel: &Parallel) -> Report {
    match source {
        Source::Stdin if parallel.threads > 1 => {
            verify::verify_reader_parallel(io::stdin(), options, parallel)
        }
        Source::Stdin => verify::verify_reader(
            BufReader::with_capacity(1 << 16, io::stdin().lock()),
            options,
        ),
        Source::Path(path) => verify::verify_file(path, options, parallel),
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

/// Reads and parses a checkpoint file, returning its name, what it says and its text;
/// unreadable or malformed is a failure (exit 2).
pub fn read_checkpoint_text(path: &Path) -> Result<(String, CheckpointText, String), Failure> {
    let source = Source::from_arg(path);
    let text = source.read_bounded(CHECKPOINT_LIMIT).map_err(|error| {
        Failure::Anchor(match error {
            ReadError::Io(reason) => AnchorFailure::CheckpointUnreadable {
                name: source.name(),
                reason,
            },
            ReadError::TooLarge { limit } => AnchorFailure::CheckpointTooLarge {
                name: source.name(),
                limit,
            },
        })
    })?;
    let parsed = read_checkpoint(&text).map_err(|error| {
        Failure::Anchor(AnchorFailure::CheckpointMalformed {
            name: source.name(),
            error,
        })
    })?;
    // The parser accepted UTF-8 only.
    Ok((
        source.name(),
        parsed,
        String::from_utf8_lossy(&text).into_owned(),
    ))
}
