//! `agentloop show`: one human-readable line per record, then the file's verification.

use std::io::{BufRead, Write};

use agentloop_core::json;
use agentloop_core::verify::{Options, Verifier};
use agentloop_core::Anchor;

use super::{emit, flush};
use crate::args::ShowArgs;
use crate::diag;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::record_line::record_line;
use crate::report_text;

/// Shows each line, verifying the same bytes as it goes (one pass, so standard input
/// works too); faults go to stderr.
pub fn run(args: &ShowArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let name = source.name();
    let mut verifier = Verifier::new(Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    });
    let mut problems = false;
    match source.open() {
        Err(e) => verifier.push_unreadable(format!("cannot open {name}: {e}")),
        Ok(mut reader) => {
            let mut line = Vec::new();
            let mut line_no = 0u64;
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        verifier.push_unreadable(format!(
                            "reading failed after {} complete lines: {e}",
                            verifier.count()
                        ));
                        break;
                    }
                }
                line_no += 1;
                let Some(content) = line.strip_suffix(b"\n") else {
                    verifier.push_torn_tail(line.len());
                    problems = true;
                    let text = format!(
                        "line {line_no}: the last line has no terminating newline (a torn append)\n"
                    );
                    emit(out, text.as_bytes())?;
                    break;
                };
                verifier.push_line(content);
                let shown = match show_line(content) {
                    Ok(shown) => shown,
                    Err(problem) => {
                        problems = true;
                        format!("line {line_no}: {problem}")
                    }
                };
                emit(out, shown.as_bytes())?;
                emit(out, b"\n")?;
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

/// The line for one complete input line, or what keeps it from being shown.
fn show_line(content: &[u8]) -> Result<String, String> {
    if content.is_empty() {
        return Err(String::from("the line is empty"));
    }
    match json::parse_record_line(content) {
        Err(e) => {
            let verdict = if e.kind.is_unserialisable() {
                "has no canonical encoding"
            } else {
                "is not I-JSON"
            };
            Err(format!(
                "the line {verdict} (column {}): {}",
                e.offset + 1,
                e.kind
            ))
        }
        Ok(value) => record_line(&value).map_err(|e| e.to_string()),
    }
}
