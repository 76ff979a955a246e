//! `agentloop show`: one human-readable line per record, then the file's verification.

use std::io::{self, Write};

use agentloop_core::json;
use agentloop_core::verify::{for_each_line, LineEvent, Options, Verifier};
use agentloop_core::Anchor;

use super::{flush, say_line};
use crate::args::ShowArgs;
use crate::diag;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::record_line::record_line;
use crate::report_text;

/// Why the listing stopped before the end of the input.
enum Stopped {
    /// The input could not be read further.
    Read(io::Error),
    /// Standard output failed.
    Out(Failure),
}

impl From<io::Error> for Stopped {
    fn from(e: io::Error) -> Self {
        Stopped::Read(e)
    }
}

/// Shows each line, verifying the same bytes as it goes (one pass, so standard input
/// works too); faults go to stderr. Lines are split as `verify` splits them: a line
/// longer than the line limit is named by its length and never held in memory.
pub fn run(args: &ShowArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let name = source.name();
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    };
    let limit = options.max_line_bytes;
    let mut verifier = Verifier::new(options);
    let mut problems = false;
    match source.open() {
        Err(e) => verifier.push_unreadable(format!("cannot open {name}: {e}")),
        Ok(reader) => {
            let mut line_no = 0u64;
            let read = for_each_line(reader, limit, |event| {
                verifier.push_event(event);
                line_no += 1;
                let shown = match event {
                    LineEvent::Line(content) => show_line(content).unwrap_or_else(|problem| {
                        problems = true;
                        format!("line {line_no}: {problem}")
                    }),
                    LineEvent::TooLong(len) => {
                        problems = true;
                        format!(
                            "line {line_no}: the line is {len} bytes long, more than the limit of {limit} bytes"
                        )
                    }
                    LineEvent::TornTail(tail) => {
                        problems = true;
                        match show_line(tail) {
                            Ok(record) => {
                                format!("{record} (line {line_no} has no terminating newline)")
                            }
                            Err(_) => torn(line_no),
                        }
                    }
                    LineEvent::LongTornTail(_) => {
                        problems = true;
                        torn(line_no)
                    }
                };
                // JSON escaping in the line leaves DEL, C1 and bidi controls as they
                // are: the terminal rule escapes them.
                say_line(out, &shown).map_err(Stopped::Out)
            });
            match read {
                Ok(()) => {}
                Err(Stopped::Out(failure)) => return Err(failure),
                Err(Stopped::Read(e)) => verifier.push_unreadable(format!(
                    "reading failed after {} complete lines: {e}",
                    verifier.count()
                )),
            }
        }
    }
    flush(out)?;
    let report = verifier.finish();
    if !report.ok() {
        report_text::say_faults(&name, &report);
        diag::say(report_text::faults_line(&name, &report));
    }
    let shown = if problems { Exit::Fault } else { Exit::Held };
    Ok(shown.max(Exit::of_report(&report)))
}

/// The line for a last line with no terminating newline that is not a record.
fn torn(line_no: u64) -> String {
    format!("line {line_no}: the last line has no terminating newline (a torn append)")
}

/// The line for one complete input line, or what keeps it from being shown.
fn show_line(content: &[u8]) -> Result<String, String> {
    if content.is_empty() {
        return Err(String::from("the line is empty"));
    }
    match json::parse_record_line(content) {
        Err(e) => {
            let verdict = if e.is_unserialisable() {
                "has no canonical encoding"
            } else {
                "is not I-JSON"
            };
            Err(format!(
                "the line {verdict} (column {}): {}",
                e.offset() + 1,
                e.kind()
            ))
        }
        Ok(value) => record_line(&value).map_err(|e| e.to_string()),
    }
}
