//! `agentloop export`: a transcript's conversation as a provider's message history
//! (`agentloop_core::export`), the `messages` the live loop sends; or the run as
//! OpenTelemetry GenAI spans (`agentloop_otel::file_trace`), OTLP/JSON.

use std::io::Write;

use agentloop_core::export;
use agentloop_otel::{file_trace, Content};

use super::emit;
use crate::args::{ExportArgs, ExportFormat};
use crate::exit::Exit;
use crate::failure::{Failure, SetupFailure};
use crate::input::Source;
use crate::lines::{verified_records, Check};
use crate::report_json::to_line;

/// What an export that is not written says.
const NOTHING: &str = "nothing was exported";

/// Verifies the file, reads its records back as the loop's conversation and prints it
/// in the provider's shape, or as the run's trace, as one line of canonical JSON.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let Some(format) = args.format else {
        return super::requests::export(&args.file, out);
    };
    let source = Source::from_arg(&args.file);
    let (name, value) = match format {
        ExportFormat::History(provider) => {
            if args.otlp_content {
                return Err(Failure::Setup(SetupFailure::OtlpContentWithoutOtlp));
            }
            let (name, records) = verified_records(source, NOTHING, Check::Chain)?;
            let history = export::history(provider, &records).map_err(|error| Failure::Export {
                name: name.clone(),
                error,
            })?;
            (name, history)
        }
        ExportFormat::Otlp => {
            let (name, records) = verified_records(source, NOTHING, Check::ChainAndLoop)?;
            let content = match args.otlp_content {
                true => Content::Recorded,
                false => Content::Omitted,
            };
            let trace = file_trace(&records, content).map_err(|error| Failure::Trace {
                name: name.clone(),
                error,
            })?;
            (name, trace)
        }
    };
    let line = to_line(&value).map_err(|error| Failure::Encode { name, error })?;
    emit(out, &line)?;
    Ok(Exit::Held)
}
