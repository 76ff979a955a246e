//! `agentloop append`: appends one record through the durable writer (a lock for the
//! append, the file verified first, one write, synced, cut back on failure).

use std::io::Write;

use agentloop_core::durable::{LockWait, Writer, WriterOptions};
use agentloop_core::json::{self, Value};
use agentloop_core::verify::Options;
use agentloop_core::Anchor;

use super::emit;
use crate::args::AppendArgs;
use crate::exit::Exit;
use crate::failure::{Failure, InputFailure, WriteFailure};
use crate::input::Source;
use crate::lock_wait;

/// Validates the payload, then opens (verifying), appends and closes; prints the new
/// head.
///
/// Everything that can be refused without the file (empty kind, unreadable or
/// unacceptable payload) is refused before the file is opened, so a refusal never
/// creates it.
pub fn run(args: &AppendArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let Source::Path(path) = source else {
        return Err(Failure::Writing(WriteFailure::AppendToStdin));
    };
    let name = source.name();
    let payload = read_payload(args, &name)?;
    let options = WriterOptions {
        lock: if args.no_wait {
            LockWait::Fail
        } else {
            lock_wait::watched(&name, path)
        },
        verify: Options {
            anchor: args.anchor.unwrap_or(Anchor::GENESIS),
            ..Options::default()
        },
        ..WriterOptions::default()
    };
    let fail = |error| Failure::writer(&name, error, "nothing was appended");
    let mut writer = Writer::open(path, options).map_err(fail)?;
    let appended = writer.append(&args.kind, &payload).map_err(fail)?;
    writer.close().map_err(fail)?;

    emit(out, format!("{}\n", appended.head).as_bytes())?;
    Ok(Exit::Held)
}

/// Reads and strictly parses the payload from `--payload` or `--payload-file`.
fn read_payload(args: &AppendArgs, file: &str) -> Result<Value, Failure> {
    let (origin, bytes) = match (&args.payload, &args.payload_file) {
        (Some(text), _) => (String::from("--payload"), text.as_encoded_bytes().to_vec()),
        (None, Some(path)) => {
            let source = Source::from_arg(path);
            let bytes = source.read_document().map_err(|reason| {
                Failure::Input(InputFailure::PayloadUnreadable {
                    name: source.name(),
                    reason,
                })
            })?;
            (source.name(), bytes)
        }
        // clap requires exactly one of the two; an empty payload is refused as JSON.
        (None, None) => (String::from("--payload"), Vec::new()),
    };
    json::parse(&bytes).map_err(|e| {
        let (line, column) = e.line_column(&bytes);
        Failure::Input(InputFailure::Payload {
            file: file.to_owned(),
            origin,
            line,
            column,
            kind: e.kind(),
        })
    })
}
