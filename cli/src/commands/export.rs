//! `agentloop export`: a transcript's conversation as a provider's message history
//! (`agentloop_core::export`), the `messages` the live loop sends.

use std::io::Write;

use agentloop_core::export;
use agentloop_core::provider::Provider;

use super::emit;
use crate::args::ExportArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::lines::verified_records;
use crate::report_json::to_line;

/// Verifies the file, reads its records back as the loop's conversation and prints it
/// in the provider's shape, as one line of canonical JSON.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let Some(format) = args.format else {
        return super::requests::export(&args.file, out);
    };
    let (name, records) = verified_records(Source::from_arg(&args.file), "nothing was exported")?;
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
