//! `agentloop view`: one self-contained HTML page for one transcript (`crate::view`),
//! verified as the page is made.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use agentloop_core::verify::{for_each_line, Options, Verifier};
use agentloop_core::Anchor;

use super::emit;
use crate::args::ViewArgs;
use crate::atomic::write_atomically;
use crate::exit::Exit;
use crate::failure::{Failure, ViewFailure};
use crate::input::{same_file, Source};
use crate::view::{self, Rows};

/// Reads and verifies the transcript in one pass (standard input works too), then
/// writes its page: atomically to `--out`, or to standard output for `-`. The exit
/// status is the file's verdict (0 verifies, 1 faults); no page at all is exit 2.
pub fn run(args: &ViewArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let source = Source::from_arg(&args.file);
    let name = source.name();
    let to_stdout = args.out.as_os_str() == "-";
    if !to_stdout {
        refuse_the_input(&args.out, source)?;
    }
    let options = Options {
        anchor: args.anchor.unwrap_or(Anchor::GENESIS),
        ..Options::default()
    };
    let unreadable = |reason| Failure::Unreadable {
        name: name.clone(),
        reason,
    };
    let reader = source.open().map_err(unreadable)?;
    let mut verifier = Verifier::new(options);
    let mut rows = Rows::default();
    for_each_line(reader, options.max_line_bytes, |event| {
        verifier.push_event(event);
        rows.push(event);
        Ok::<(), io::Error>(())
    })
    .map_err(unreadable)?;
    if rows.len() > 0 && !rows.any_record() {
        return Err(Failure::View(ViewFailure::NotATranscript {
            name,
            lines: rows.len() as u64,
        }));
    }
    let report = verifier.finish();
    let page =
        view::page(&name, &source.json_name(), rows, &report).map_err(|error| Failure::Encode {
            name: name.clone(),
            error,
        })?;
    if to_stdout {
        emit(out, &page)?;
    } else {
        write_atomically(&args.out, &page).map_err(|reason| ViewFailure::Write {
            name: args.out.display().to_string(),
            reason,
        })?;
    }
    Ok(Exit::of_report(&report))
}

/// Refuses an `--out` that is the transcript itself (by identity, not by name): the
/// rename would replace the transcript with its page.
fn refuse_the_input(out: &Path, source: Source) -> Result<(), Failure> {
    let (Ok(target), Ok(input)) = (fs::metadata(out), source.metadata()) else {
        return Ok(());
    };
    if same_file(&target, &input) {
        return Err(Failure::View(ViewFailure::OutIsInput {
            out: out.display().to_string(),
            input: source.name(),
        }));
    }
    Ok(())
}
