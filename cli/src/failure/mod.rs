//! Why a command stopped: each failure is one sentence and an exit status. The
//! failures of one domain (anchors, input, writing, run setup, the run) are an enum of
//! their own, in a file of their own.

use std::fmt;
use std::io;

use agentloop_core::driver::OpenError;
use agentloop_core::durable::WriteError;
use agentloop_core::export::{HistoryError, RequestsError};
use agentloop_core::jcs::EncodeError;
use agentloop_core::json::ParseErrorKind;
use agentloop_core::schema::SchemaError;
use agentloop_core::tools::RegisterError;
use agentloop_core::verify::{Fault, Report};
use agentloop_otel::MapError;

use crate::diag::{fault_sentence, plural};
use crate::exit::Exit;
use crate::input::ReadError;

mod anchor;
mod input;
mod run;
mod setup;
mod view;
mod writing;

pub use anchor::AnchorFailure;
pub use input::InputFailure;
pub use run::RunFailure;
pub use setup::SetupFailure;
pub use view::ViewFailure;
pub use writing::WriteFailure;

/// A command's failure. Its `Display` is the sentence printed after `agentloop: `.
#[derive(Debug)]
pub enum Failure {
    /// Writing to standard output failed (a closed pipe is reported silently; on Unix
    /// SIGPIPE ends the process before this is reached: `signals`).
    Stdout(io::Error),
    /// An input file could not be opened or read.
    Unreadable {
        /// The input, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// An input is longer than the most read of it (`input::DOCUMENT_LIMIT` for a
    /// whole document): it was not read further.
    TooLarge {
        /// The input, as named on the command line.
        name: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The transcript does not verify, so the command refused to act on it.
    DoesNotVerify {
        /// The transcript, as named on the command line.
        name: String,
        /// Its first fault, if the report kept one (boxed: a fault is large beside the other failures).
        first: Option<Box<Fault>>,
        /// How many faults were found in all.
        total: u64,
        /// What the refusal means, e.g. "nothing was appended".
        consequence: &'static str,
        /// The verification's own exit status (2 when unreadable, else 1).
        exit: Exit,
    },
    /// `replay`: the transcript is not a run the loop can replay.
    Replay {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: OpenError,
    },
    /// `replay`: a demo tool was refused at registration (a bug).
    DemoTools(RegisterError),
    /// `demo`: a transcript (or its folder) could not be created or written.
    DemoWrite {
        /// The file or folder, as a path under `--out`.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// A value could not be canonically encoded (only a NaN or infinity can cause this).
    Encode {
        /// The input, as named on the command line.
        name: String,
        /// Why.
        error: EncodeError,
    },
    /// More than one argument names standard input (`-`), which can be read only once:
    /// the arguments, as the usage names them.
    StdinTwice(Vec<&'static str>),
    /// `validate`: the schema or the instance is not I-JSON (so it cannot be graded).
    ValidateJson {
        /// The input, as named on the command line.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// What was wrong.
        kind: ParseErrorKind,
    },
    /// `validate`: the schema was refused (docs/schemas.md says what is).
    SchemaRefused {
        /// The schema file, as named on the command line.
        name: String,
        /// What was refused, and where in the schema.
        error: SchemaError,
    },
    /// `export`: the records are not a run of the loop.
    Export {
        /// The transcript, as named on the command line.
        name: String,
        /// Which record, and what is wrong.
        error: HistoryError,
    },
    /// `export --format otlp`: a record the trace cannot be made of.
    Trace {
        /// The transcript, as named on the command line.
        name: String,
        /// Which record, and what is wrong.
        error: MapError,
    },
    /// `verify --requests`, `export --requests`: the requests cannot be rebuilt from
    /// the transcript (no setup, a setup that builds no request, records the loop does
    /// not write with its tools).
    Requests {
        /// The transcript, as named on the command line.
        name: String,
        /// Why (boxed: a difference holds two records).
        error: Box<RequestsError>,
    },
    /// `validate`: the instance breaks the schema (the violations are on stdout).
    Invalid {
        /// The instance file, as named on the command line.
        instance: String,
        /// The schema file, as named on the command line.
        schema: String,
        /// How many violations were printed.
        violations: usize,
    },

    /// Failures about checkpoints, keys and proofs: reading, signing, writing them.
    Anchor(AnchorFailure),
    /// Failures about the JSON a command was given to append: not JSON, too long, not a
    /// payload.
    Input(InputFailure),
    /// Failures of the durable writer and of `repair`: opening, locking, appending, torn
    /// tails.
    Writing(WriteFailure),
    /// Failures setting up `agentloop run` and `agentloop tools`: the task, budgets,
    /// keys, MCP servers, the output file.
    Setup(SetupFailure),
    /// Failures during `agentloop run` or its `--resume`: the model thread, the
    /// transcript being continued, writing records.
    Run(RunFailure),
    /// `view` wrote no page.
    View(ViewFailure),
}

impl From<AnchorFailure> for Failure {
    fn from(failure: AnchorFailure) -> Failure {
        Failure::Anchor(failure)
    }
}

impl From<InputFailure> for Failure {
    fn from(failure: InputFailure) -> Failure {
        Failure::Input(failure)
    }
}

impl From<WriteFailure> for Failure {
    fn from(failure: WriteFailure) -> Failure {
        Failure::Writing(failure)
    }
}

impl From<SetupFailure> for Failure {
    fn from(failure: SetupFailure) -> Failure {
        Failure::Setup(failure)
    }
}

impl From<RunFailure> for Failure {
    fn from(failure: RunFailure) -> Failure {
        Failure::Run(failure)
    }
}

impl From<ViewFailure> for Failure {
    fn from(failure: ViewFailure) -> Failure {
        Failure::View(failure)
    }
}

impl Failure {
    /// The failure to read the input `name` whole.
    pub fn reading(name: String, error: ReadError) -> Failure {
        match error {
            ReadError::Io(reason) => Failure::Unreadable { name, reason },
            ReadError::TooLarge { limit } => Failure::TooLarge { name, limit },
        }
    }

    /// The refusal to act on a transcript that does not verify, naming its first fault.
    pub fn does_not_verify(name: &str, report: &Report, consequence: &'static str) -> Failure {
        Failure::DoesNotVerify {
            name: name.to_owned(),
            first: report.faults.first().cloned().map(Box::new),
            total: (report.faults.len() as u64).saturating_add(report.faults_omitted),
            consequence,
            exit: Exit::of_report(report),
        }
    }

    /// The failure for an error of the durable writer on `name`; `consequence` says
    /// what did not happen ("nothing was appended").
    pub fn writer(name: &str, error: WriteError, consequence: &'static str) -> Failure {
        let name = name.to_owned();
        match error {
            WriteError::Open(reason) => Failure::Writing(WriteFailure::Open { name, reason }),
            WriteError::Lock(reason) => Failure::Writing(WriteFailure::Lock { name, reason }),
            WriteError::Locked => Failure::Writing(WriteFailure::Locked { name }),
            WriteError::TornTail {
                offset,
                len,
                complete,
            } => Failure::Writing(WriteFailure::TornTail {
                name,
                offset,
                len,
                complete,
            }),
            WriteError::DoesNotVerify(report) => {
                Failure::does_not_verify(&name, &report, consequence)
            }
            WriteError::Record(error) => Failure::Writing(WriteFailure::Append { name, error }),
            WriteError::Write(reason) => Failure::Writing(WriteFailure::Write {
                name,
                reason,
                restore: None,
            }),
            WriteError::WriteNotUndone { write, undo } => Failure::Writing(WriteFailure::Write {
                name,
                reason: write,
                restore: Some(undo),
            }),
            WriteError::Unreadable(e) => Failure::Run(RunFailure::RecordUnreadable {
                name,
                index: e.index,
                error: e.error,
            }),
            error => Failure::Writing(WriteFailure::Writer { name, error }),
        }
    }

    /// The exit status this failure ends the process with.
    pub fn exit(&self) -> Exit {
        match self {
            Failure::Input(failure) => failure.exit(),
            Failure::Writing(failure) => failure.exit(),
            Failure::Encode { .. } | Failure::Invalid { .. } | Failure::Requests { .. } => {
                Exit::Fault
            }
            Failure::DoesNotVerify { exit, .. } => *exit,
            Failure::StdinTwice(_)
            | Failure::ValidateJson { .. }
            | Failure::SchemaRefused { .. }
            | Failure::Stdout(_)
            | Failure::Unreadable { .. }
            | Failure::TooLarge { .. }
            | Failure::Replay { .. }
            | Failure::DemoTools(_)
            | Failure::DemoWrite { .. }
            | Failure::Export { .. }
            | Failure::Trace { .. }
            | Failure::Anchor(_)
            | Failure::Setup(_)
            | Failure::Run(_)
            | Failure::View(_) => Exit::CannotGrade,
        }
    }

    /// Whether to leave stderr silent: a reader that closed the pipe wants no more.
    pub fn is_silent(&self) -> bool {
        matches!(self, Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// What an `EFBIG` ("File too large") means, to follow the system's words.
pub(super) fn size_hint(error: &io::Error) -> &'static str {
    if error.kind() == io::ErrorKind::FileTooLarge {
        " (the file would pass a file-size limit: the process's `ulimit -f`, or the file \
         system's largest file)"
    } else {
        ""
    }
}

/// "is not I-JSON" or "has no canonical encoding", by kind of parse error.
pub(crate) fn parse_verdict(kind: ParseErrorKind) -> &'static str {
    if kind.is_unserialisable() {
        "has no canonical encoding"
    } else {
        "is not I-JSON"
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Stdout(e) => write!(f, "cannot write to standard output: {e}"),
            Failure::Unreadable { name, reason } => write!(f, "{name}: cannot read it: {reason}"),
            Failure::TooLarge { name, limit } => write!(
                f,
                "{name}: cannot read it: {}; it was not read further",
                ReadError::TooLarge { limit: *limit }
            ),
            Failure::DoesNotVerify {
                name,
                first,
                total,
                consequence,
                ..
            } => {
                match first {
                    Some(fault) => f.write_str(&fault_sentence(name, fault))?,
                    None => write!(f, "{name}: faults were found")?,
                }
                let more = total.saturating_sub(1);
                if more > 0 {
                    write!(
                        f,
                        " (and {} more; the file does not verify, so {consequence})",
                        plural(more, "fault")
                    )
                } else {
                    write!(f, " (the file does not verify, so {consequence})")
                }
            }
            Failure::Encode { name, error } => write!(f, "{name}: {error}"),
            Failure::StdinTwice(names) => {
                let (last, rest) = names.split_last().unwrap_or((&"", &[]));
                let (how_many, verb) = if rest.len() > 1 {
                    ("each of", "names")
                } else {
                    ("both", "name")
                };
                write!(
                    f,
                    "standard input ('-') can be read only once, but {how_many} {} and {last} \
                     {verb} it",
                    rest.join(", ")
                )
            }
            Failure::ValidateJson {
                name,
                line,
                column,
                kind,
            } => write!(
                f,
                "{name} line {line} column {column}: the input {}: {kind}; nothing was validated",
                parse_verdict(*kind)
            ),
            Failure::SchemaRefused { name, error } => write!(f, "{name}: {error}"),
            Failure::Invalid {
                instance,
                schema,
                violations,
            } => write!(
                f,
                "{instance} is not valid against the schema {schema}: {}",
                plural(*violations as u64, "violation")
            ),
            Failure::DemoWrite { name, reason } => {
                write!(f, "{name}: cannot write it: {reason}{}", size_hint(reason))
            }
            Failure::DemoTools(e) => write!(f, "a demo tool was refused: {e}"),
            Failure::Replay { name, error } => write!(f, "{name}: cannot replay it: {error}"),
            Failure::Export { name, error } => {
                write!(f, "{name} {error}; nothing was exported")
            }
            Failure::Trace { name, error } => write!(f, "{name}: {error}; nothing was exported"),
            Failure::Requests { name, error } => {
                write!(f, "{name}: its requests cannot be rebuilt: {error}")
            }
            Failure::Anchor(failure) => failure.fmt(f),
            Failure::Input(failure) => failure.fmt(f),
            Failure::Writing(failure) => failure.fmt(f),
            Failure::Setup(failure) => failure.fmt(f),
            Failure::Run(failure) => failure.fmt(f),
            Failure::View(failure) => failure.fmt(f),
        }
    }
}

impl std::error::Error for Failure {}
