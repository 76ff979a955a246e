//! `agentloop canon`: the RFC 8785 canonical bytes of a JSON document, or of each line.

use std::io::Write;
use std::path::Path;

use agentloop_core::verify::MAX_LINE_BYTES;
use agentloop_core::{jcs, json};

use super::{emit, flush};
use crate::args::CanonArgs;
use crate::exit::Exit;
use crate::failure::{Failure, InputFailure};
use crate::input::Source;
use crate::lines::{Line, LineError, Lines};

/// Canonicalises the input (standard input when no FILE is given).
pub fn run(args: &CanonArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(args.file.as_deref().unwrap_or(Path::new("-")));
    if args.jsonl {
        canon_lines(source, out)
    } else {
        canon_document(source, out)
    }
}

/// One document: its canonical bytes, with no trailing newline. A document longer
/// than `input::DOCUMENT_LIMIT` is refused without being read further.
fn canon_document(source: Source<'_>, out: &mut dyn Write) -> Result<Exit, Failure> {
    let input = source
        .read_document()
        .map_err(|error| Failure::reading(source.name(), error))?;
    let value = json::parse(&input).map_err(|e| {
        let (line, column) = e.line_column(&input);
        Failure::Input(InputFailure::Json {
            name: source.name(),
            line,
            column,
            kind: e.kind(),
        })
    })?;
    let bytes = jcs::to_vec(&value).map_err(|error| Failure::Encode {
        name: source.name(),
        error,
    })?;
    emit(out, &bytes)?;
    Ok(Exit::Held)
}

/// JSONL: each line's canonical bytes and a newline, streamed; stops at the first bad
/// line with everything before it printed and nothing after it. A line is read as a
/// transcript line: nesting up to `json::RECORD_MAX_DEPTH`, and at most `verify`'s line
/// limit — a longer line is refused as soon as the limit is passed, without reading
/// it to its end (nothing after it would be printed), so memory stays bounded.
fn canon_lines(source: Source<'_>, out: &mut dyn Write) -> Result<Exit, Failure> {
    let unreadable = |reason| Failure::Unreadable {
        name: source.name(),
        reason,
    };
    let mut lines = Lines::new(source.open().map_err(unreadable)?, MAX_LINE_BYTES);
    let mut canonical = Vec::new();
    loop {
        let content = match lines.next_line() {
            Ok(None) => break,
            Ok(Some(Line::Complete(content) | Line::Unterminated(content))) => content,
            Err(LineError::Read(reason)) => return Err(unreadable(reason)),
            Err(LineError::TooLong(line)) => {
                return Err(Failure::Input(InputFailure::LineTooLong {
                    name: source.name(),
                    line,
                    limit: MAX_LINE_BYTES,
                }))
            }
        };
        let value = json::parse_record_line(content).map_err(|e| {
            Failure::Input(InputFailure::Json {
                name: source.name(),
                line: lines.number(),
                column: e.offset() + 1,
                kind: e.kind(),
            })
        })?;
        canonical.clear();
        jcs::write_value(&value, &mut canonical).map_err(|error| Failure::Encode {
            name: source.name(),
            error,
        })?;
        canonical.push(b'\n');
        emit(out, &canonical)?;
        // Flush whenever the next line is not already buffered, so output keeps up
        // with a slow producer without a write per line on a fast one.
        if !lines.buffered() {
            flush(out)?;
        }
    }
    Ok(Exit::Held)
}
