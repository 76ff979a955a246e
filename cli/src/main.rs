//! `agentloop`: run a budgeted agent tool loop against a model, writing a hash-chained
//! JSONL transcript; verify, canonicalise, append to and inspect such transcripts (SPEC
//! section 6).
//!
//! Exit status: 0 the claim held, 1 a graded fault, 2 could not grade; errors go to
//! stderr as one sentence, `agentloop: <file> line <n>: <what was wrong>`. A standard
//! output whose reader has gone ends the process by SIGPIPE, quietly, as `cat` (see
//! `signals`).
// Denied, not forbidden: `signals` holds the one exception (the standard library cannot
// set a signal's disposition), allowed there alone, with its SAFETY argument.
#![forbid(unsafe_code)]

mod args;
mod atomic;
mod commands;
mod diag;
mod exit;
mod failure;
mod input;
mod keys;
mod lines;
mod lock_wait;
mod record_line;
mod report_json;
mod report_text;
mod signals;
mod terminal;
mod tools_map;
mod toolset;
mod usage;
mod view;

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::args::Cli;

fn main() -> ExitCode {
    signals::init();
    let args: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        // Usage errors exit 2; --help and --version exit 0.
        Err(e) => return ExitCode::from(usage::explain(e, args.get(1..).unwrap_or_default())),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = commands::run(&cli.command, &mut out).and_then(|exit| {
        out.flush().map_err(failure::Failure::Stdout)?;
        Ok(exit)
    });
    match result {
        Ok(exit) => exit.into(),
        Err(failure) => {
            // Whatever was printed before the failure goes out before the sentence.
            let _ = out.flush();
            if failure.is_silent() {
                // The reader left: end as `cat` does, by SIGPIPE.
                signals::die_of_broken_pipe();
            } else {
                diag::say(&failure);
            }
            failure.exit().into()
        }
    }
}
