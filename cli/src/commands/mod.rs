//! The commands: thin layers over `agentloop_core`, one module each.

pub mod append;
pub mod canon;
pub mod checkpoint;
pub mod demo;
pub mod export;
pub mod keygen;
pub mod prove;
pub mod repair;
pub mod replay;
pub mod requests;
pub mod run;
pub mod show;
pub mod tools;
pub mod validate;
pub mod verify;
pub mod verify_proof;
pub mod view;

use std::io::Write;

use crate::args::Command;
use crate::exit::Exit;
use crate::failure::Failure;
use crate::terminal;

/// Runs `command`, writing its output to `out`. Standard input named by more than one
/// argument is refused first: it can be read only once.
pub fn run(command: &Command, out: &mut dyn Write) -> Result<Exit, Failure> {
    let stdin = command.stdin_arguments();
    if stdin.len() > 1 {
        return Err(Failure::StdinTwice(stdin));
    }
    match command {
        Command::Demo(args) => demo::run(args, out),
        Command::Verify(args) => verify::run(args, out),
        Command::Canon(args) => canon::run(args, out),
        Command::Append(args) => append::run(args, out),
        Command::Checkpoint(args) => checkpoint::run(args, out),
        Command::Keygen(args) => keygen::run(args, out),
        Command::Prove(args) => prove::run(args, out),
        Command::VerifyProof(args) => verify_proof::run(args, out),
        Command::Show(args) => show::run(args, out),
        Command::View(args) => view::run(args, out),
        Command::Validate(args) => validate::run(args, out),
        Command::Repair(args) => repair::run(args, out),
        Command::Replay(args) => replay::run(args, out),
        Command::Run(args) => run::run(args, out),
        Command::Export(args) => export::run(args, out),
        Command::Tools(args) => tools::run(args, out),
    }
}

/// Writes `bytes` to standard output.
fn emit(out: &mut dyn Write, bytes: &[u8]) -> Result<(), Failure> {
    out.write_all(bytes).map_err(Failure::Stdout)
}

/// Writes one line of text for a person to standard output: `line` escaped by the
/// one rule of [`terminal`] (it may hold file names and record content), then a
/// newline.
fn say_line(out: &mut dyn Write, line: &str) -> Result<(), Failure> {
    emit(out, terminal::escape(line).as_bytes())?;
    emit(out, b"\n")
}

/// Pushes what was written so far out of the buffer.
fn flush(out: &mut dyn Write) -> Result<(), Failure> {
    out.flush().map_err(Failure::Stdout)
}
