//! `verify --requests` and `export --requests`: each turn's request body rebuilt from
//! the transcript alone (`agentloop_core::export::rebuild_requests`), checked
//! against the `request_sha256` its `assistant` record holds, or printed.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentloop_core::export::{check_requests, rebuild_requests, RebuiltRequest};

use super::{emit, flush, say_line};
use crate::diag::plural;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::lines::{verified_records, Check};

/// `verify --requests`: for each file in order, one line — every request matches its
/// record (0), or the first turn that does not or cannot be proven (1).
pub fn verify(files: &[PathBuf], out: &mut dyn Write) -> Result<Exit, Failure> {
    let mut worst = Exit::Held;
    for file in files {
        let source = Source::from_arg(file);
        let name = source.name();
        let line = match rebuilt(source, "no request was checked") {
            Err(Failure::Requests { name, error }) => {
                worst = worst.max(Exit::Fault);
                format!("{name}: requests not provable: {error}")
            }
            Err(other) => return Err(other),
            Ok(rebuilt) => match check_requests(&rebuilt) {
                Ok(n) => format!(
                    "{name}: ok, {} rebuilt from the transcript, each matching its \
                     request_sha256",
                    plural(n as u64, "request")
                ),
                Err(mismatch) => {
                    worst = worst.max(Exit::Fault);
                    format!("{name}: {mismatch}")
                }
            },
        };
        say_line(out, &line)?;
        flush(out)?;
    }
    Ok(worst)
}

/// `export --requests`: each turn's request body, one line each (canonical JSON).
pub fn export(file: &Path, out: &mut dyn Write) -> Result<Exit, Failure> {
    for request in rebuilt(Source::from_arg(file), "nothing was exported")? {
        emit(out, &request.body)?;
        emit(out, b"\n")?;
    }
    flush(out)?;
    Ok(Exit::Held)
}

/// Verifies the file (its chain must hold), reads its records and rebuilds each turn's
/// request; `consequence` says what did not happen if the file does not verify.
fn rebuilt(source: Source<'_>, consequence: &'static str) -> Result<Vec<RebuiltRequest>, Failure> {
    let (name, records) = verified_records(source, consequence, Check::Chain)?;
    rebuild_requests(&records, None).map_err(|error| Failure::Requests {
        name,
        error: Box::new(error),
    })
}
