//! Verifying readers and files (`std`): streams line by line, so memory is bounded by
//! the longest line, not the number of records.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind};
use std::path::Path;
use std::vec::Vec;

use super::{Options, Report, Verifier};

/// Verifies a transcript from a reader. A read error ends verification with an
/// `unreadable` fault; what was read before it is still reported.
pub fn verify_reader<R: BufRead>(mut reader: R, options: &Options) -> Report {
    let mut verifier = Verifier::new(*options);
    let mut line = Vec::new();
    // Length of the current line when it outgrew the limit and stopped being buffered.
    let mut overflow: Option<usize> = None;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                verifier.push_unreadable(std::format!(
                    "reading failed after {} complete lines: {e}",
                    verifier.count()
                ));
                return verifier.finish();
            }
        };
        if chunk.is_empty() {
            break;
        }
        let (taken, complete) = match chunk.iter().position(|&b| b == b'\n') {
            Some(nl) => (&chunk[..nl], true),
            None => (chunk, false),
        };
        let used = taken.len() + usize::from(complete);
        match overflow.as_mut() {
            Some(len) => *len += taken.len(),
            None if line.len() + taken.len() > options.max_line_bytes => {
                overflow = Some(line.len() + taken.len());
                line.clear();
            }
            None => line.extend_from_slice(taken),
        }
        reader.consume(used);
        if complete {
            match overflow.take() {
                Some(len) => verifier.push_long_line(len),
                None => verifier.push_line(&line),
            }
            line.clear();
        }
    }
    match overflow {
        Some(len) => verifier.push_torn_tail(len),
        None if !line.is_empty() => verifier.push_torn_tail(line.len()),
        None => {}
    }
    verifier.finish()
}

/// Verifies a transcript file. A file that cannot be opened or read is an
/// `unreadable` fault naming the path and the reason.
pub fn verify_file(path: &Path, options: &Options) -> Report {
    match File::open(path) {
        Ok(file) => verify_reader(BufReader::with_capacity(1 << 16, file), options),
        Err(e) => {
            let mut verifier = Verifier::new(*options);
            verifier.push_unreadable(std::format!("cannot open {}: {e}", path.display()));
            verifier.finish()
        }
    }
}
