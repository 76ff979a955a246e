//! `agentloop export`: a transcript's conversation as a provider's message history
//! (`agentloop_core::export`), the `messages` the live loop sends.

use std::io::Write;

use agentloop_core::export::{self, parse_records};
use agentloop_core::provider::Provider;
use agentloop_core::verify::Options;

use super::emit;
use crate::args::ExportArgs;
use crate::exit::Exit;
use crate::failure::{Failure, RunFailure};
use crate::input::Source;
use crate::lines::{read_transcript, Transcript};
use crate::report_json::to_line;

/// Verifies the file, reads its records back as the loop's conversation and prints it
/// in the provider's shape, as one line of canonical JSON.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let Some(format) = args.format else {
        return super::requests::export(&args.file, out);
    };
    let source = Source::from_arg(&args.file);
    let name = source.name();
    // The bytes read are the bytes verified (standard input cannot be read twice).
    let Transcript { bytes, report } = read_transcript(source, &Options::default())?;
    if !report.ok() {
        return Err(Failure::does_not_verify(
            &name,
            &report,
            "nothing was exported",
        ));
    }
    let records = parse_records(&bytes).map_err(|e| {
        Failure::Run(RunFailure::RecordUnreadable {
            name: name.clone(),
            index: e.index,
            error: e.error,
        })
    })?;
    let history = match format {
        Provider::OpenAi => export::openai_messages(&records),
        Provider::Anthropic => export::anthropic_messages(&records),
    }
    .map_err(|error| Failure::Export {
        name: name.clone(),
        error,
    })?;
    let line = to_line(&history).map_err(|error| Failure::Encode { name, error })?;
    emit(out, &line)?;
    Ok(Exit::Held)
}
