//! `agentloop-standin`: serves a script file on loopback, for tests in any language.
//!
//! ```text
//! agentloop-standin [--exit-when-done] [--lifetime SECONDS] SCRIPT.json REQUESTS_DIR
//! agentloop-standin --help
//! ```
//!
//! Prints `http://127.0.0.1:PORT` as its first line on stdout (flushed), then answers
//! each request with the script's next exchange (see `agentloop_standin::script` for
//! the file format) and writes each request to `REQUESTS_DIR` as `NNNN.head` and
//! `NNNN.body` (`agentloop_standin::read_requests` reads them back). It stops when
//! killed, after `--lifetime` seconds (300 by default: a forgotten server ends by
//! itself), or, with `--exit-when-done`, once every scripted exchange has been
//! answered. On stopping it prints a summary on stderr. Exit status: 0; 1 when
//! `--exit-when-done` was given and the lifetime ended first; 2 on bad usage or an
//! unreadable script.

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentloop_standin::{script, Server};

const USAGE: &str =
    "usage: agentloop-standin [--exit-when-done] [--lifetime SECONDS] SCRIPT.json REQUESTS_DIR";

/// What `--help` prints after [`USAGE`].
const HELP: &str = "\
Serves the exchanges of SCRIPT.json on loopback, one per request, as the OpenAI and
Anthropic HTTP APIs would answer, and writes each request it gets to REQUESTS_DIR
(NNNN.head and NNNN.body). Its first line on stdout is its URL, http://127.0.0.1:PORT.

SCRIPT.json is a JSON array of exchanges, each with any of: status (200 when absent),
headers (an object of strings), one of body (a string), json (any JSON) or body_hex,
delay_ms and cut_after (send that many bytes of the body, then close). Example:
docs/examples/standin-add.json.

Options:
  --exit-when-done    exit once every exchange has been answered
  --lifetime SECONDS  stop after SECONDS (300 by default: a forgotten server ends)
  -h, --help          print this help and exit

Exit status: 0; 1 when --exit-when-done was given and the lifetime ended first;
2 on bad usage or an unreadable script.";

/// What the command line asks for.
enum Request {
    /// `--help`: print the usage and what the program does.
    Help,
    /// Serve a script.
    Serve(Args),
}

struct Args {
    exit_when_done: bool,
    lifetime: Duration,
    script: PathBuf,
    requests: PathBuf,
}

/// Why the command line was refused.
enum UsageError {
    /// `--lifetime` was the last argument.
    LifetimeMissing,
    /// `--lifetime` was followed by something other than a positive integer.
    LifetimeNotPositive(OsString),
    /// An option this program does not have.
    UnknownOption(String),
    /// Not exactly two paths (the script and the requests folder).
    PathCount(usize),
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::LifetimeMissing => f.write_str("--lifetime needs a number of seconds"),
            UsageError::LifetimeNotPositive(value) => {
                write!(f, "--lifetime {value:?} is not a positive integer")
            }
            UsageError::UnknownOption(flag) => write!(f, "unknown option {flag}"),
            UsageError::PathCount(n) => {
                write!(f, "expected SCRIPT.json and REQUESTS_DIR, got {n} paths")
            }
        }
    }
}

fn parse_args(mut args: impl Iterator<Item = OsString>) -> Result<Request, UsageError> {
    let mut exit_when_done = false;
    let mut lifetime = Duration::from_secs(300);
    let mut paths = Vec::new();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(Request::Help),
            Some("--exit-when-done") => exit_when_done = true,
            Some("--lifetime") => {
                let value = args.next().ok_or(UsageError::LifetimeMissing)?;
                let seconds: u64 = value
                    .to_str()
                    .and_then(|s| s.parse().ok())
                    .filter(|&s| s > 0)
                    .ok_or(UsageError::LifetimeNotPositive(value))?;
                lifetime = Duration::from_secs(seconds);
            }
            Some(flag) if flag.starts_with("--") => {
                return Err(UsageError::UnknownOption(flag.to_owned()))
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let [script, requests] =
        <[PathBuf; 2]>::try_from(paths).map_err(|paths| UsageError::PathCount(paths.len()))?;
    Ok(Request::Serve(Args {
        exit_when_done,
        lifetime,
        script,
        requests,
    }))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args_os().skip(1)) {
        Ok(Request::Serve(args)) => args,
        Ok(Request::Help) => {
            return match writeln!(std::io::stdout(), "{USAGE}\n\n{HELP}") {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("agentloop-standin: cannot write the help to stdout: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Err(e) => {
            eprintln!("agentloop-standin: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let text = match std::fs::read_to_string(&args.script) {
        Ok(text) => text,
        Err(e) => {
            eprintln!(
                "agentloop-standin: cannot read {}: {e}",
                args.script.display()
            );
            return ExitCode::from(2);
        }
    };
    let exchanges = match script::parse(&text) {
        Ok(exchanges) => exchanges,
        Err(e) => {
            eprintln!("agentloop-standin: {}: {e}", args.script.display());
            return ExitCode::from(2);
        }
    };
    let server = match Server::start_recording(exchanges, &args.requests) {
        Ok(server) => server,
        Err(e) => {
            eprintln!(
                "agentloop-standin: cannot start (requests to {}): {e}",
                args.requests.display()
            );
            return ExitCode::from(2);
        }
    };
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "{}", server.url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        eprintln!("agentloop-standin: cannot write the URL to stdout");
        return ExitCode::from(2);
    }

    // Counted steps, not a clock: the lifetime is a bound, not a measurement.
    let step = Duration::from_millis(10);
    let mut waited = Duration::ZERO;
    let mut done = false;
    while waited < args.lifetime {
        if args.exit_when_done && server.done() {
            done = true;
            break;
        }
        std::thread::sleep(step);
        waited += step;
    }
    let (received, left) = (server.requests().len(), server.remaining());
    server.stop();
    eprintln!("agentloop-standin: {received} requests received, {left} scripted exchanges left");
    if args.exit_when_done && !done {
        eprintln!("agentloop-standin: the lifetime ended before the script was used up");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
