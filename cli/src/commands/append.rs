//! `agentloop append`: appends one record under an exclusive lock.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};

use agentloop_core::chain::Chain;
use agentloop_core::json::{self, Value};
use agentloop_core::verify::{self, Options};
use agentloop_core::Anchor;

use super::emit;
use crate::args::AppendArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;

/// Validates the payload, then locks, verifies and appends; prints the new head.
///
/// Everything that can be refused without the file (empty kind, unreadable or
/// unacceptable payload) is refused before the file is opened, so a refusal never
/// creates it.
pub fn run(args: &AppendArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let Source::Path(path) = source else {
        return Err(Failure::AppendToStdin);
    };
    let name = source.name();
    let payload = read_payload(args, &name)?;
    let anchor = args.anchor.unwrap_or(Anchor::GENESIS);

    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|reason| Failure::Open {
            name: name.clone(),
            reason,
        })?;
    // Blocks while another process holds the lock; released when `file` is dropped.
    file.lock().map_err(|reason| Failure::Lock {
        name: name.clone(),
        reason,
    })?;

    let options = Options {
        anchor,
        ..Options::default()
    };
    let report = verify::verify_reader(BufReader::with_capacity(1 << 16, &file), &options);
    if !report.ok() {
        return Err(Failure::does_not_verify(
            &name,
            &report,
            "nothing was appended",
        ));
    }
    let mut chain = Chain::from_anchor(Anchor {
        seq0: anchor.seq0.saturating_add(report.count),
        prev0: report.head.unwrap_or(anchor.prev0),
    });
    let line = chain
        .append(&args.kind, &payload)
        .map_err(|error| Failure::Append {
            name: name.clone(),
            error,
        })?;
    write_line(&file, line, &name)?;
    drop(file);

    emit(out, format!("{}\n", chain.head()).as_bytes())?;
    Ok(Exit::Held)
}

/// Reads and strictly parses the payload from `--payload` or `--payload-file`.
fn read_payload(args: &AppendArgs, file: &str) -> Result<Value, Failure> {
    let (origin, bytes) = match (&args.payload, &args.payload_file) {
        (Some(text), _) => (String::from("--payload"), text.as_encoded_bytes().to_vec()),
        (None, Some(path)) => {
            let source = Source::from_arg(path);
            let bytes = source
                .read_all()
                .map_err(|reason| Failure::PayloadUnreadable {
                    name: source.name(),
                    reason,
                })?;
            (source.name(), bytes)
        }
        // clap requires exactly one of the two; an empty payload is refused as JSON.
        (None, None) => (String::from("--payload"), Vec::new()),
    };
    json::parse(&bytes).map_err(|e| {
        let (line, column) = e.line_column(&bytes);
        Failure::Payload {
            file: file.to_owned(),
            origin,
            line,
            column,
            kind: e.kind,
        }
    })
}

/// Writes `line` at the end of the file with one write, then syncs; on failure cuts
/// the file back to its length before the write.
fn write_line(file: &File, line: &[u8], name: &str) -> Result<(), Failure> {
    let before = file
        .metadata()
        .map(|m| m.len())
        .map_err(|reason| Failure::Unreadable {
            name: name.to_owned(),
            reason,
        })?;
    let mut handle = file;
    if let Err(reason) = handle.write_all(line).and_then(|()| file.sync_data()) {
        let restore = file.set_len(before).and_then(|()| file.sync_data()).err();
        return Err(Failure::Write {
            name: name.to_owned(),
            reason,
            restore,
        });
    }
    Ok(())
}
