//! `agentloop verify`: verifies each file and reports every fault.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

use agentloop_core::audit;
use agentloop_core::merkle::{consistency_proof, root_of, verify_consistency};
use agentloop_core::tlog::{admit, leaves_of, read_checkpoint, Admission, CheckpointText};
use agentloop_core::verify::{self, Checkpoint, Fault, FaultKind, Options, Parallel, Report};
use agentloop_core::{Anchor, Hash};

use super::{emit, flush};
use crate::args::VerifyArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::keys;
use crate::{report_json, report_text};

/// The longest checkpoint file read; a checkpoint is well under 100 bytes.
const CHECKPOINT_LIMIT: u64 = 1 << 16;

/// A checkpoint named on the command line, admitted or not.
struct Given {
    name: String,
    admission: Admission,
}

/// Verifies each file in argument order; the exit status is the worst of theirs.
pub fn run(args: &VerifyArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let trusted = keys::trusted(&args.keys, &args.key_files)?;
    let mut given = Vec::new();
    for path in &args.checkpoint {
        let (name, text, _) = read_checkpoint_text(path)?;
        let admission = admit(&text, &trusted, args.origin.as_deref());
        given.push((name, text, admission));
    }
    // The largest checkpoint is judged against the file; older ones against it.
    let newest = (0..given.len()).max_by_key(|&i| given[i].1.checkpoint().count);
    let newest = newest.map(|i| given.remove(i));
    let older: Vec<(Given, CheckpointText)> = given
        .into_iter()
        .map(|(name, text, admission)| (Given { name, admission }, text))
        .collect();
    let checkpoint = match (&newest, args.expect_count) {
        (Some((_, _, admission)), _) => admission.checkpoint,
        (None, Some(count)) => Some(Checkpoint {
            count,
            head: args.expect_head,
            ..Default::default()
        }),
        (None, None) => None,
    };
    if !trusted.is_empty() && newest.is_none() {
        return Err(Failure::KeyMalformed {
            name: String::from("--key"),
            line: None,
            error: String::from("keys were given but no --checkpoint to check them against"),
        });
    }
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        lenient: args.lenient,
        checkpoint,
        ..Options::default()
    };
    let with_checkpoint = checkpoint.is_some() || newest.is_some();
    let verify_one = |source: Source<'_>, parallel: &Parallel| {
        let mut report = if args.check_loop {
            verify_loop_source(source, &options)
        } else {
            verify_source(source, &options, parallel)
        };
        if let Some((name, _, admission)) = &newest {
            add_file_faults(&mut report, name, &admission.faults);
        }
        if !older.is_empty() {
            check_older(&mut report, source, checkpoint, &older);
        }
        report
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
        emit(out, verdict.as_bytes())?;
        emit(out, b"\n")?;
    }
    flush(out)
}

/// Puts a checkpoint's own faults (file-level: no index, no line) first, naming it.
fn add_file_faults(report: &mut Report, name: &str, faults: &[Fault]) {
    let named = faults.iter().map(|f| Fault {
        detail: format!("checkpoint {name}: {}", f.detail),
        ..f.clone()
    });
    report.faults.splice(0..0, named);
}

/// Judges each older checkpoint: admitted like the newest; then, if the newest holds
/// for this file, it must be a prefix of the newest (a consistency proof made from the
/// file's records, checked against both roots: `checkpoint_inconsistent`); if the
/// newest does not hold, it is judged against the file itself (`head_mismatch`,
/// `truncated`).
fn check_older(
    report: &mut Report,
    source: Source<'_>,
    newest: Option<Checkpoint>,
    older: &[(Given, CheckpointText)],
) {
    let newest_holds = newest.is_some()
        && !report.faults.iter().any(|f| {
            f.index.is_none()
                || matches!(
                    f.kind,
                    FaultKind::Truncated
                        | FaultKind::HeadMismatch
                        | FaultKind::CheckpointOriginMismatch
                )
        });
    // The file's leaves, when it can be read again (not standard input).
    let leaves = match source {
        Source::Path(path) => fs::read(path).ok().and_then(|b| leaves_of(&b).ok()),
        Source::Stdin => None,
    };
    for (given, _) in older {
        add_file_faults(report, &given.name, &given.admission.faults);
        let Some(old) = given.admission.checkpoint else {
            continue;
        };
        let Some((leaves, hashes)) = &leaves else {
            continue;
        };
        let inconsistent = |detail: String| Fault {
            index: None,
            line: None,
            kind: FaultKind::CheckpointInconsistent,
            detail: format!("checkpoint {}: {detail}", given.name),
        };
        match newest.filter(|_| newest_holds) {
            Some(new) => {
                if let Some(detail) = prefix_problem(old, new, leaves, hashes) {
                    report.faults.push(inconsistent(detail));
                }
            }
            None => {
                // Judge the older checkpoint against the file, as the newest would be.
                let found = judge_alone(old, leaves, hashes);
                if let Some(fault) = found {
                    report.faults.push(Fault {
                        detail: format!("checkpoint {}: {}", given.name, fault.detail),
                        ..fault
                    });
                }
            }
        }
    }
}

/// Why `old` is not a prefix of `new`, given the records `new` holds for.
fn prefix_problem(
    old: Checkpoint,
    new: Checkpoint,
    leaves: &[Hash],
    hashes: &[Hash],
) -> Option<String> {
    if let (Some(a), Some(b)) = (old.first, new.first) {
        if a != b {
            return Some(String::from(
                "it names another transcript (record 0) than the newest checkpoint",
            ));
        }
    }
    if old.count > new.count {
        return Some(format!(
            "it covers {} records, more than the newest checkpoint's {}",
            old.count, new.count
        ));
    }
    let m = usize::try_from(old.count).unwrap_or(usize::MAX);
    if m == 0 {
        return None;
    }
    if let Some(head) = old.head {
        if hashes.get(m - 1) != Some(&head) {
            return Some(format!(
                "its head {head} is not record {}'s hash in the newest checkpoint's history",
                m - 1
            ));
        }
    }
    if let (Some(r1), Some(r2)) = (old.root, new.root) {
        let Ok(proof) = consistency_proof(leaves, old.count, new.count) else {
            return Some(String::from(
                "no consistency proof can be made to the newest checkpoint",
            ));
        };
        if let Err(e) = verify_consistency(old.count, new.count, &proof, &r1.0, &r2.0) {
            return Some(format!(
                "it is not a prefix of the newest checkpoint: the consistency proof from {} to {} records fails ({e})",
                old.count, new.count
            ));
        }
    }
    None
}

/// An older checkpoint judged against the file alone (when the newest does not hold).
fn judge_alone(old: Checkpoint, leaves: &[Hash], hashes: &[Hash]) -> Option<Fault> {
    let m = usize::try_from(old.count).unwrap_or(usize::MAX);
    if m > leaves.len() {
        return Some(Fault {
            index: Some(leaves.len() as u64),
            line: None,
            kind: FaultKind::Truncated,
            detail: format!(
                "the checkpoint covers {} records but the transcript has {}",
                old.count,
                leaves.len()
            ),
        });
    }
    if m == 0 {
        return None;
    }
    let head_differs = old.head.is_some_and(|h| hashes[m - 1] != h);
    let root_differs = old.root.is_some_and(|r| root_of(&leaves[..m]) != r);
    (head_differs || root_differs).then(|| Fault {
        index: Some(old.count - 1),
        line: Some(old.count),
        kind: FaultKind::HeadMismatch,
        detail: format!(
            "record {} and the records before it are not what the checkpoint recorded",
            old.count - 1
        ),
    })
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
        Source::Path(path) => verify::verify_file_with(path, options, parallel),
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
    let parsed = read_checkpoint(&text).map_err(|error| Failure::CheckpointMalformed {
        name: source.name(),
        error,
    })?;
    // The parser accepted UTF-8 only.
    Ok((
        source.name(),
        parsed,
        String::from_utf8_lossy(&text).into_owned(),
    ))
}
