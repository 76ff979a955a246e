//! Verifying readers and files (`std`): streams line by line, so memory is bounded by
//! the longest line, not the number of records.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::verify::for_each_line;
use crate::verify::{verify_reader_parallel, Options, Parallel, Report, Verifier};

/// Verifies a transcript from a reader. A read error ends verification with an
/// `unreadable` fault; what was read before it is still reported.
pub fn verify_reader<R: BufRead>(reader: R, options: &Options) -> Report {
    let mut verifier = Verifier::new(*options);
    let read = for_each_line(reader, options.max_line_bytes, |event| {
        verifier.push_event(event);
        Ok::<(), std::io::Error>(())
    });
    if let Err(e) = read {
        verifier.push_unreadable(std::format!(
            "reading failed after {} complete lines: {e}",
            verifier.count()
        ));
    }
    verifier.finish()
}

/// Verifies a transcript file: on `parallel`'s worker threads
/// ([`verify_reader_parallel`]) when it has more than one and the file is at least
/// [`Parallel::from_bytes`] long, else on the calling thread (`threads` = 1 always
/// does). [`Parallel::default`] uses every core for a file from 4 MiB. A file that
/// cannot be opened or read is an `unreadable` fault naming the path and the reason.
///
/// ```no_run
/// use agentloop_core::verify::{verify_file, Options, Parallel};
///
/// let report = verify_file("run.jsonl".as_ref(), &Options::default(), &Parallel::default());
/// assert!(report.ok());
/// ```
pub fn verify_file(path: &Path, options: &Options, parallel: &Parallel) -> Report {
    match File::open(path) {
        Ok(file) => {
            let len = file.metadata().map_or(0, |m| m.len());
            if parallel.threads > 1 && len >= parallel.from_bytes {
                verify_reader_parallel(file, options, parallel)
            } else {
                verify_reader(BufReader::with_capacity(1 << 16, file), options)
            }
        }
        Err(e) => {
            let mut verifier = Verifier::new(*options);
            verifier.push_unreadable(std::format!("cannot open {}: {e}", path.display()));
            verifier.finish()
        }
    }
}
