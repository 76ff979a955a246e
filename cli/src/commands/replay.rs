//! `agentloop replay`: runs a transcript's tool calls again with the demo tools and
//! names the first record that comes out differently (`agentloop_core::driver::replay`).

use std::io::Write;

use agentloop_core::driver;
use agentloop_core::verify::Options;

use super::say_line;
use crate::args::ReplayArgs;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::input::Source;
use crate::lines::{read_transcript, Transcript};

/// Verifies the file, replays it, prints one line: the same, or the first difference.
pub fn run(args: &ReplayArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let name = source.name();
    // The bytes read are the bytes verified (standard input cannot be read twice).
    let Transcript { bytes, report } = read_transcript(source, &Options::default())?;
    if !report.ok() {
        return Err(Failure::does_not_verify(
            &name,
            &report,
            "nothing was replayed",
        ));
    }
    let mut tools = agentloop_core::demo::toolbox().map_err(Failure::DemoTools)?;
    let replayed = driver::replay(&bytes, &mut tools).map_err(|error| Failure::Replay {
        name: name.clone(),
        error,
    })?;
    let line = match &replayed.difference {
        None => format!(
            "{name}: same, {} records replayed with the demo tools",
            replayed.records
        ),
        Some(d) => format!("{name}: line {}: {d}", d.index + 1),
    };
    say_line(out, &line)?;
    Ok(if replayed.same() {
        Exit::Held
    } else {
        Exit::Fault
    })
}
