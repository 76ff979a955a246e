//! Input read line by line, each line bounded by the verifier's line limit: `canon
//! --jsonl`, and the transcripts `prove`, `export` and `replay` hold whole. A line
//! longer than the limit is refused as soon as the limit is passed, without reading it
//! to its end, so memory stays bounded by the limit for any input without newlines
//! (`/dev/zero`).

use std::io::{self, BufRead, BufReader, Read};

use agentloop_core::audit::LoopAudit;
use agentloop_core::export::parse_records;
use agentloop_core::json::Value;
use agentloop_core::verify::{Options, Report, Verifier, MAX_FAULTS};

use crate::failure::{Failure, InputFailure, RunFailure};
use crate::input::Source;

/// One line of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line that ended with `\n` (without it).
    Complete(&'a [u8]),
    /// The input's last bytes, with no `\n` after them.
    Unterminated(&'a [u8]),
}

/// Why the reading stopped.
#[derive(Debug)]
pub enum LineError {
    /// Reading failed.
    Read(io::Error),
    /// The line with this 1-based number is longer than the limit.
    TooLong(usize),
}

/// The lines of a reader, each at most `limit` bytes without its `\n`.
pub struct Lines<R> {
    reader: BufReader<R>,
    limit: usize,
    line: Vec<u8>,
    number: usize,
}

impl<R: Read> Lines<R> {
    /// The lines of `reader`, each at most `limit` bytes.
    pub fn new(reader: BufReader<R>, limit: usize) -> Lines<R> {
        Lines {
            reader,
            limit,
            line: Vec::new(),
            number: 0,
        }
    }

    /// The 1-based number of the last line read (0 before the first).
    pub fn number(&self) -> usize {
        self.number
    }

    /// Whether the next line is already in the reader's buffer (so output can wait for
    /// it before a flush).
    pub fn buffered(&self) -> bool {
        !self.reader.buffer().is_empty()
    }

    /// The next line, `None` at the end of the input. A line longer than the limit
    /// is [`LineError::TooLong`], found after reading at most `limit + 1` of its bytes.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, LineError> {
        self.line.clear();
        // At most the limit (the buffer never grows past it), then its newline.
        let read = (&mut self.reader)
            .take(self.limit as u64)
            .read_until(b'\n', &mut self.line)
            .map_err(LineError::Read)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.line.last() == Some(&b'\n') {
            self.line.pop();
            return Ok(Some(Line::Complete(&self.line)));
        }
        if self.line.len() < self.limit {
            return Ok(Some(Line::Unterminated(&self.line)));
        }
        // Exactly the limit read: the line is within it only if its newline, or the
        // end of the input, comes next.
        match self.reader.fill_buf().map_err(LineError::Read)?.first() {
            None => Ok(Some(Line::Unterminated(&self.line))),
            Some(b'\n') => {
                self.reader.consume(1);
                Ok(Some(Line::Complete(&self.line)))
            }
            Some(_) => Err(LineError::TooLong(self.number)),
        }
    }
}

/// A transcript held whole, and its verification.
pub struct Transcript {
    /// Its bytes, every line with its `\n` — up to the first fault: a transcript that
    /// does not verify is refused, so what follows is verified but not kept.
    pub bytes: Vec<u8>,
    /// The verifier's report on the whole input.
    pub report: Report,
}

/// Reads a transcript a command needs whole (`prove`, `export`, `replay`), verifying
/// each line as it is read (standard input cannot be read twice). A line longer than
/// the line limit is refused at once, naming it; so is an input that cannot be read.
pub fn read_transcript(source: Source<'_>, options: &Options) -> Result<Transcript, Failure> {
    let unreadable = |reason| Failure::Unreadable {
        name: source.name(),
        reason,
    };
    let mut lines = Lines::new(source.open().map_err(unreadable)?, options.max_line_bytes);
    let mut verifier = Verifier::new(*options);
    let mut bytes = Vec::new();
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(LineError::Read(reason)) => return Err(unreadable(reason)),
            Err(LineError::TooLong(line)) => {
                return Err(Failure::Input(InputFailure::LineTooLong {
                    name: source.name(),
                    line,
                    limit: options.max_line_bytes,
                }))
            }
        };
        let keep = verifier.is_clean();
        match line {
            Line::Complete(content) => {
                verifier.push_line(content);
                if keep {
                    bytes.extend_from_slice(content);
                    bytes.push(b'\n');
                }
            }
            Line::Unterminated(content) => verifier.push_torn_tail(content),
        }
    }
    Ok(Transcript {
        bytes,
        report: verifier.finish(),
    })
}

/// How much of a transcript [`verified_records`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The chain.
    Chain,
    /// The chain, and that its records are a run of the loop (`verify --loop`).
    ChainAndLoop,
}

/// A transcript's records, read whole and verified (its chain must hold, and with
/// [`Check::ChainAndLoop`] be a run of the loop; `consequence` says what did not happen
/// when it does not), with the name the input goes by: `export` and `export
/// --requests`/`verify --requests` read their input so.
pub fn verified_records(
    source: Source<'_>,
    consequence: &'static str,
    check: Check,
) -> Result<(String, Vec<Value>), Failure> {
    let name = source.name();
    // The bytes read are the bytes verified (standard input cannot be read twice).
    let Transcript { bytes, report } = read_transcript(source, &Options::default())?;
    if !report.ok() {
        return Err(Failure::does_not_verify(&name, &report, consequence));
    }
    let records = parse_records(&bytes).map_err(|e| {
        Failure::Run(RunFailure::RecordUnreadable {
            name: name.clone(),
            index: e.index,
            error: e.error,
        })
    })?;
    if check == Check::ChainAndLoop {
        // The chain verified as it was read; the records parsed are audited as a run.
        let mut audit = LoopAudit::with_max_findings(MAX_FAULTS);
        records.iter().for_each(|record| audit.push_record(record));
        let report = audit.finish_into(report, MAX_FAULTS);
        if !report.ok() {
            return Err(Failure::does_not_verify(&name, &report, consequence));
        }
    }
    Ok((name, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Result<(bool, Vec<u8>), String>> {
        let mut lines = Lines::new(io::BufReader::with_capacity(2, input), limit);
        let mut out = Vec::new();
        loop {
            match lines.next_line() {
                Ok(None) => return out,
                Ok(Some(Line::Complete(l))) => out.push(Ok((true, l.to_vec()))),
                Ok(Some(Line::Unterminated(l))) => out.push(Ok((false, l.to_vec()))),
                Err(e) => {
                    out.push(Err(format!("{e:?}")));
                    return out;
                }
            }
        }
    }

    #[test]
    fn lines_up_to_the_limit_and_no_further() {
        let ok = |complete, l: &[u8]| Ok((complete, l.to_vec()));
        assert_eq!(
            lines(b"abc\n\nabcd", 4),
            [ok(true, b"abc"), ok(true, b""), ok(false, b"abcd")]
        );
        assert_eq!(lines(b"abcd\nx", 4), [ok(true, b"abcd"), ok(false, b"x")]);
        assert_eq!(
            lines(b"ab\nabcde\nx", 4),
            [ok(true, b"ab"), Err(String::from("TooLong(2)"))]
        );
        assert_eq!(lines(b"", 4), []);
    }
}
