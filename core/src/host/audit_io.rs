//! Verifying and auditing readers and files in one streaming pass (`std`): memory is
//! bounded by the longest line and the largest turn, not the number of records.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::audit::{merge, LoopAudit};
use crate::verify::{for_each_line, LineEvent};
use crate::verify::{Options, Report, Verifier};

/// Verifies a transcript from a reader (as [`crate::verify::verify_reader`] does) and
/// audits it as a run, each line parsed by both. The findings are added to the report
/// as `loop_malformed` faults, in record order after the chain's faults of the same
/// record, within `max_faults` (the rest counted). A read error ends both with an `unreadable`
/// fault, and the audit says nothing about an end it did not see.
pub fn verify_loop_reader<R: BufRead>(reader: R, options: &Options) -> Report {
    let mut verifier = Verifier::new(*options);
    let mut audit = LoopAudit::with_max_findings(options.max_faults);
    // The same line splitting as `verify_reader`: a line longer than the limit stops
    // being buffered and is reported by length.
    let read = for_each_line(reader, options.max_line_bytes, |event| {
        match event {
            LineEvent::Line(line) => {
                verifier.push_line(line);
                audit.push_line(line);
            }
            LineEvent::TooLong(len) => {
                verifier.push_long_line(len);
                audit.push_unreadable();
            }
            LineEvent::TornTail(_) | LineEvent::LongTornTail(_) => verifier.push_event(event),
        }
        Ok::<(), std::io::Error>(())
    });
    match read {
        Ok(()) => audit.finish_into(verifier.finish(), options.max_faults),
        Err(e) => {
            verifier.push_unreadable(std::format!(
                "reading failed after {} complete lines: {e}",
                verifier.count()
            ));
            merge(
                verifier.finish(),
                audit.finish_incomplete(),
                options.max_faults,
            )
        }
    }
}

/// Verifies and audits a transcript file; a file that cannot be opened is an
/// `unreadable` fault naming the path and the reason (and no audit).
pub fn verify_loop_file(path: &Path, options: &Options) -> Report {
    match File::open(path) {
        Ok(file) => verify_loop_reader(BufReader::with_capacity(1 << 16, file), options),
        Err(e) => {
            let mut verifier = Verifier::new(*options);
            verifier.push_unreadable(std::format!("cannot open {}: {e}", path.display()));
            verifier.finish()
        }
    }
}
