//! Usage errors, `--help` and `--version`: clap's message, with one more kind of
//! suggestion, escaped as any outside text.

use std::ffi::OsString;
use std::io::{self, Write};

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

use crate::args::Cli;
use crate::terminal;

/// Prints `error` (help and version on stdout, the rest on stderr) and returns its
/// exit status: 2 for bad usage, 0 for `--help` and `--version`. `args` are the
/// command line's arguments after the program's name.
pub fn explain(mut error: clap::Error, args: &[OsString]) -> u8 {
    suggest_a_longer_option(&mut error, args);
    // The message quotes the command line, so it is escaped as any outside text.
    let text = terminal::escape_lines(&error.render().to_string());
    let _ = if error.use_stderr() {
        io::stderr().lock().write_all(text.as_bytes())
    } else {
        io::stdout().lock().write_all(text.as_bytes())
    };
    u8::try_from(error.exit_code()).unwrap_or(2)
}

/// clap suggests an option spelled like the unknown one (Jaro similarity above 0.7:
/// `--max-step` for `--max-stpes`); an option given without the first words of its
/// name (`--steps` for `--max-steps`) is too far from it for that, and may be near
/// another (`--system`). So when the command has exactly one option whose name ends
/// with the unknown one's after a `-`, that is the suggestion, and the usage shown is
/// the command's own.
fn suggest_a_longer_option(error: &mut clap::Error, args: &[OsString]) {
    if error.kind() != ErrorKind::UnknownArgument {
        return;
    }
    let Some(ContextValue::String(given)) = error.get(ContextKind::InvalidArg) else {
        return;
    };
    let Some(name) = given.strip_prefix("--") else {
        return;
    };
    let ending = format!("-{}", name.split_once('=').map_or(name, |(name, _)| name));
    let mut command = Cli::command();
    command.build();
    let Some(sub) = args
        .first()
        .and_then(|first| command.find_subcommand_mut(first))
    else {
        return;
    };
    let longer: Vec<String> = sub
        .get_arguments()
        .filter_map(|arg| arg.get_long())
        .filter(|long| long.ends_with(&ending))
        .map(|long| format!("--{long}"))
        .collect();
    let [suggestion] = longer.as_slice() else {
        return;
    };
    let suggestion = suggestion.clone();
    error.insert(ContextKind::SuggestedArg, ContextValue::String(suggestion));
    error.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(sub.render_usage()),
    );
}
