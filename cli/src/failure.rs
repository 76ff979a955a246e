//! Why a command stopped: each failure is one sentence and an exit status.

use std::fmt;
use std::io;

use agentloop_core::agent::{BudgetError, ResumeError};
use agentloop_core::chain::AppendError;
use agentloop_core::driver::ResumeRunError;
use agentloop_core::durable::{RepairError, WriteError};
use agentloop_core::export::HistoryError;
use agentloop_core::jcs::EncodeError;
use agentloop_core::json::ParseError;
use agentloop_core::json::ParseErrorKind;
use agentloop_core::merkle::ProofError;
use agentloop_core::note::KeyError;
use agentloop_core::schema::SchemaError;
use agentloop_core::tlog::{Malformed, ProofTextError};
use agentloop_core::tools::RegisterError;
use agentloop_core::verify::{Fault, Report};
use agentloop_http::BuildError;

use crate::diag::{fault_sentence, plural};
use crate::exit::Exit;

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
    /// The checkpoint file could not be opened or read.
    CheckpointUnreadable {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// The checkpoint file is longer than any checkpoint can be.
    CheckpointTooLarge {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// The largest accepted size in bytes.
        limit: u64,
    },
    /// The checkpoint file is not a checkpoint (`checkpoint_malformed`).
    CheckpointMalformed {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// What is wrong with it.
        error: Malformed,
    },
    /// A key file could not be read.
    KeyUnreadable {
        /// The key file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// A key (given with `--key` or in a key file) is not a note key.
    KeyMalformed {
        /// `--key` or the key file, as named on the command line.
        name: String,
        /// The 1-based line in the file, if any.
        line: Option<usize>,
        /// What is wrong.
        error: String,
    },
    /// A key of the other kind: a signer key where a verifier key is wanted, or the
    /// reverse.
    KeyKind {
        /// `--key` or the key file, as named on the command line.
        name: String,
        /// The 1-based line in the file, if any.
        line: Option<usize>,
        /// Which kind was given ([`KeyError::SignerKeyGiven`] or
        /// [`KeyError::VerifierKeyGiven`]).
        error: KeyError,
    },
    /// `keygen`: the operating system gave no randomness.
    Random(String),
    /// `checkpoint`, `prove`: the key cannot sign this checkpoint text.
    Sign {
        /// What was refused.
        error: String,
    },
    /// `checkpoint --out`: the checkpoint could not be written.
    CheckpointWrite {
        /// The file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// `checkpoint --out`: the file to write is the transcript itself.
    OutIsInput {
        /// `--out`, as named on the command line.
        out: String,
        /// The transcript, as named on the command line.
        input: String,
    },
    /// `verify-proof`: the proof file is not a proof.
    ProofMalformed {
        /// The proof file, as named on the command line.
        name: String,
        /// What is wrong.
        error: ProofTextError,
    },
    /// `prove`: the proof asked for cannot be made (index or size out of range).
    Prove {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: ProofError,
    },
    /// `prove`: the checkpoint given is not a C2SP checkpoint, or not of this
    /// transcript.
    ProveCheckpoint {
        /// The checkpoint file, as named on the command line.
        name: String,
        /// Why.
        reason: String,
    },
    /// A JSON input is not I-JSON or has no canonical encoding.
    Json {
        /// The input, as named on the command line.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// What was wrong.
        kind: ParseErrorKind,
    },
    /// `canon --jsonl`: a line is longer than the line limit (it is not read further).
    LineTooLong {
        /// The input, as named on the command line.
        name: String,
        /// 1-based line.
        line: usize,
        /// The limit in bytes (`verify::MAX_LINE_BYTES`).
        limit: usize,
    },
    /// `append`: the payload is not I-JSON or has no canonical encoding.
    Payload {
        /// The transcript, as named on the command line.
        file: String,
        /// Where the payload came from: `--payload` or the payload file's name.
        origin: String,
        /// 1-based line in the payload.
        line: usize,
        /// 1-based column in the payload, in bytes.
        column: usize,
        /// What was wrong.
        kind: ParseErrorKind,
    },
    /// `append`: the payload file could not be read.
    PayloadUnreadable {
        /// The payload file, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// `append -`: standard input is not a file one can append to.
    AppendToStdin,
    /// `append`: the transcript could not be opened (or created) for appending.
    Open {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// `append`: the exclusive lock could not be taken.
    Lock {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
    /// The transcript does not verify, so the command refused to act on it.
    DoesNotVerify {
        /// The transcript, as named on the command line.
        name: String,
        /// Its first fault, if the report kept one.
        first: Option<Fault>,
        /// How many faults were found in all.
        total: u64,
        /// What the refusal means, e.g. "nothing was appended".
        consequence: &'static str,
        /// The verification's own exit status (2 when unreadable, else 1).
        exit: Exit,
    },
    /// `append`: the chain refused the record (e.g. seq exhausted).
    Append {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: AppendError,
    },
    /// `append`: writing or syncing the new line failed.
    Write {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
        /// Why cutting the file back to its previous length failed too, if it did.
        restore: Option<io::Error>,
    },
    /// `append`: the transcript ends in an incomplete line; nothing was appended.
    TornTail {
        /// The transcript, as named on the command line.
        name: String,
        /// Where the incomplete line starts.
        offset: u64,
        /// Its length in bytes.
        len: u64,
    },
    /// `append`: another writer holds the lock, and `--no-wait` was given.
    Locked {
        /// The transcript, as named on the command line.
        name: String,
    },
    /// `append`: the durable writer refused for another reason (the file shrank or
    /// changed under it, or an earlier failure).
    Writer {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: WriteError,
    },
    /// `repair -`: standard input is not a file one can repair.
    RepairStdin,
    /// `repair`: the file could not be repaired (the records before the tail do not
    /// verify, the side file exists, reading or writing failed).
    Repair {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: RepairError,
    },
    /// `replay`: the transcript is not a run the loop can replay.
    Replay {
        /// The transcript, as named on the command line.
        name: String,
        /// Why.
        error: ResumeRunError,
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
    /// `run --out -`: standard output is not a transcript file.
    RunToStdin,
    /// `run`: the task file is not UTF-8.
    TaskNotUtf8 {
        /// The task file, as named on the command line.
        name: String,
        /// Where its first byte that is not UTF-8 is.
        offset: usize,
    },
    /// `run`: `--tool-limit` names one tool twice.
    ToolLimitTwice(String),
    /// `run`: a `--tool-limit` for a tool that is not offered.
    UnknownToolLimit {
        /// The tool named.
        name: String,
        /// The tools offered.
        tools: Vec<String>,
    },
    /// `run`: the budgets cannot be applied (an empty sentinel, a limit over 2^53 − 1).
    Budgets(BudgetError),
    /// `run`: the API key's variable is not set.
    KeyNotSet {
        /// The variable.
        variable: String,
        /// Whether it was named by `--api-key-env` (else it is the provider's default).
        named: bool,
    },
    /// `run`: the HTTP model could not be made (a bad base URL).
    Model(BuildError),
    /// `run`: the model's thread could not be started.
    ModelThread(io::Error),
    /// `run` without `--resume`: `--out` already holds bytes.
    OutNotEmpty {
        /// `--out`, as named on the command line.
        name: String,
        /// Its length in bytes.
        len: u64,
    },
    /// `run --resume` with an empty or absent `--out` and no task to start it with.
    NothingToResume(String),
    /// `run --resume`: the task record is not one the loop writes.
    ResumeTask {
        /// `--out`, as named on the command line.
        name: String,
        /// What is wrong with it.
        what: String,
    },
    /// `run --resume`: a flag says other than the task record.
    ResumeDiffers {
        /// `--out`, as named on the command line.
        name: String,
        /// The flag and its value.
        flag: String,
        /// What the task record says.
        recorded: String,
    },
    /// `run --resume`: the records cannot be continued.
    ResumeRefused {
        /// `--out`, as named on the command line.
        name: String,
        /// Why.
        error: ResumeError,
    },
    /// `run --resume`: the file changed between its verification and its reading.
    ResumeChanged(String),
    /// A verified line could not be read as a record (0-based index).
    RecordUnreadable {
        /// The transcript, as named on the command line.
        name: String,
        /// The record's 0-based index.
        index: usize,
        /// Why.
        error: ParseError,
    },
    /// `run`: a record could not be written; the run stopped before it.
    RunWrite {
        /// `--out`, as named on the command line.
        name: String,
        /// The record's seq.
        seq: u64,
        /// Why.
        error: WriteError,
    },
    /// `run`: the chain refused a record, or the loop was fed out of turn (a bug).
    RunRefused {
        /// `--out`, as named on the command line.
        name: String,
        /// The record's seq, when a record was refused.
        seq: Option<u64>,
        /// Why.
        why: String,
    },
    /// `run`: the last sync (on closing the transcript) failed.
    RunClose {
        /// `--out`, as named on the command line.
        name: String,
        /// Why.
        error: WriteError,
    },
    /// `run`, `tools`: an `--mcp-env` variable is not set.
    McpEnvNotSet(String),
    /// `run`, `tools`: an MCP server could not be started, or its tools listed.
    Mcp {
        /// The server's index (0 for the first `--mcp`).
        index: usize,
        /// Its command line, as given.
        command: String,
        /// What went wrong.
        error: String,
    },
    /// `run`: the tool map (`FILE.tools.json`) could not be read or written.
    ToolsMap {
        /// The map's file.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// `run --resume`: the tools are named otherwise than the run recorded.
    ToolsMapDiffers {
        /// The map's file.
        name: String,
    },
    /// `export`: the records are not a run of the loop.
    Export {
        /// The transcript, as named on the command line.
        name: String,
        /// Which record, and what is wrong.
        error: HistoryError,
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
}

impl Failure {
    /// The refusal to act on a transcript that does not verify, naming its first fault.
    pub fn does_not_verify(name: &str, report: &Report, consequence: &'static str) -> Failure {
        Failure::DoesNotVerify {
            name: name.to_owned(),
            first: report.faults.first().cloned(),
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
            WriteError::Open(reason) => Failure::Open { name, reason },
            WriteError::Lock(reason) => Failure::Lock { name, reason },
            WriteError::Locked => Failure::Locked { name },
            WriteError::TornTail { offset, len } => Failure::TornTail { name, offset, len },
            WriteError::DoesNotVerify(report) => {
                Failure::does_not_verify(&name, &report, consequence)
            }
            WriteError::Record(error) => Failure::Append { name, error },
            WriteError::Write(reason) => Failure::Write {
                name,
                reason,
                restore: None,
            },
            WriteError::WriteNotUndone { write, undo } => Failure::Write {
                name,
                reason: write,
                restore: Some(undo),
            },
            error => Failure::Writer { name, error },
        }
    }

    /// The exit status this failure ends the process with.
    pub fn exit(&self) -> Exit {
        match self {
            Failure::Json { .. }
            | Failure::LineTooLong { .. }
            | Failure::Payload { .. }
            | Failure::Append { .. }
            | Failure::Encode { .. }
            | Failure::TornTail { .. }
            | Failure::Invalid { .. } => Exit::Fault,
            Failure::Repair {
                error: RepairError::DoesNotVerify(report),
                ..
            } => Exit::of_report(report),
            Failure::DoesNotVerify { exit, .. } => *exit,
            Failure::StdinTwice(_)
            | Failure::ValidateJson { .. }
            | Failure::SchemaRefused { .. } => Exit::CannotGrade,
            Failure::Stdout(_)
            | Failure::Unreadable { .. }
            | Failure::CheckpointUnreadable { .. }
            | Failure::CheckpointTooLarge { .. }
            | Failure::CheckpointMalformed { .. }
            | Failure::KeyUnreadable { .. }
            | Failure::KeyMalformed { .. }
            | Failure::KeyKind { .. }
            | Failure::Random(_)
            | Failure::CheckpointWrite { .. }
            | Failure::OutIsInput { .. }
            | Failure::Sign { .. }
            | Failure::ProofMalformed { .. }
            | Failure::Prove { .. }
            | Failure::ProveCheckpoint { .. }
            | Failure::PayloadUnreadable { .. }
            | Failure::AppendToStdin
            | Failure::Open { .. }
            | Failure::Lock { .. }
            | Failure::Write { .. }
            | Failure::Locked { .. }
            | Failure::Writer { .. }
            | Failure::RepairStdin
            | Failure::Repair { .. }
            | Failure::Replay { .. }
            | Failure::DemoTools(_)
            | Failure::DemoWrite { .. }
            | Failure::RunToStdin
            | Failure::TaskNotUtf8 { .. }
            | Failure::ToolLimitTwice(_)
            | Failure::UnknownToolLimit { .. }
            | Failure::Budgets(_)
            | Failure::KeyNotSet { .. }
            | Failure::Model(_)
            | Failure::ModelThread(_)
            | Failure::OutNotEmpty { .. }
            | Failure::NothingToResume(_)
            | Failure::ResumeTask { .. }
            | Failure::ResumeDiffers { .. }
            | Failure::ResumeRefused { .. }
            | Failure::ResumeChanged(_)
            | Failure::RecordUnreadable { .. }
            | Failure::RunWrite { .. }
            | Failure::RunRefused { .. }
            | Failure::RunClose { .. }
            | Failure::Export { .. }
            | Failure::McpEnvNotSet(_)
            | Failure::Mcp { .. }
            | Failure::ToolsMap { .. }
            | Failure::ToolsMapDiffers { .. } => Exit::CannotGrade,
        }
    }

    /// Whether to leave stderr silent: a reader that closed the pipe wants no more.
    pub fn is_silent(&self) -> bool {
        matches!(self, Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// What an `EFBIG` ("File too large") means, to follow the system's words.
fn size_hint(error: &io::Error) -> &'static str {
    if error.kind() == io::ErrorKind::FileTooLarge {
        " (the file would pass a file-size limit: the process's `ulimit -f`, or the file \
         system's largest file)"
    } else {
        ""
    }
}

/// "is not I-JSON" or "has no canonical encoding", by kind of parse error.
fn parse_verdict(kind: ParseErrorKind) -> &'static str {
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
            Failure::CheckpointUnreadable { name, reason } => {
                write!(f, "{name}: cannot read the checkpoint: {reason}")
            }
            Failure::CheckpointTooLarge { name, limit } => write!(
                f,
                "{name}: checkpoint_malformed: the checkpoint is longer than {limit} bytes"
            ),
            Failure::CheckpointMalformed { name, error } => {
                write!(f, "{name}: checkpoint_malformed: {error}")
            }
            Failure::KeyUnreadable { name, reason } => {
                write!(f, "{name}: cannot read the key file: {reason}")
            }
            Failure::KeyMalformed {
                name,
                line: Some(line),
                error,
            } => write!(f, "{name} line {line}: not a note key: {error}"),
            Failure::KeyMalformed {
                name,
                line: None,
                error,
            } => write!(f, "{name}: not a note key: {error}"),
            Failure::KeyKind {
                name,
                line: Some(line),
                error,
            } => write!(f, "{name} line {line}: {error}"),
            Failure::KeyKind {
                name,
                line: None,
                error,
            } => write!(f, "{name}: {error}"),
            Failure::Random(error) => {
                write!(
                    f,
                    "the operating system gave no randomness for the key: {error}"
                )
            }
            Failure::CheckpointWrite { name, reason } => write!(
                f,
                "{name}: cannot write the checkpoint: {reason}{}; the file was left as it was",
                size_hint(reason)
            ),
            Failure::OutIsInput { out, input } => write!(
                f,
                "--out {out}: it is the transcript {input} itself (the same file); the \
                 checkpoint would replace it, so nothing was written"
            ),
            Failure::Sign { error } => write!(f, "cannot sign the checkpoint: {error}"),
            Failure::ProofMalformed { name, error } => {
                write!(f, "{name}: not a proof: {error}")
            }
            Failure::Prove { name, error } => {
                write!(f, "{name}: cannot make that proof: {error}")
            }
            Failure::ProveCheckpoint { name, reason } => write!(f, "{name}: {reason}"),
            Failure::Json {
                name,
                line,
                column,
                kind,
            } => write!(
                f,
                "{name} line {line} column {column}: the input {}: {kind}",
                parse_verdict(*kind)
            ),
            Failure::LineTooLong { name, line, limit } => write!(
                f,
                "{name} line {line}: the line is longer than the limit of {limit} bytes"
            ),
            Failure::Payload {
                file,
                origin,
                line,
                column,
                kind,
            } => write!(
                f,
                "{file}: the payload ({origin} line {line} column {column}) {}: {kind}; \
                 nothing was appended",
                parse_verdict(*kind)
            ),
            Failure::PayloadUnreadable { name, reason } => {
                write!(f, "{name}: cannot read the payload: {reason}")
            }
            Failure::AppendToStdin => {
                f.write_str("append needs a transcript file, and '-' (standard input) is not one")
            }
            Failure::Open { name, reason } => {
                write!(f, "{name}: cannot open it for appending: {reason}")
            }
            Failure::Lock { name, reason } => {
                write!(f, "{name}: cannot take the exclusive lock: {reason}")
            }
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
            Failure::Append { name, error } => write!(f, "{name}: {error}; nothing was appended"),
            Failure::Write {
                name,
                reason,
                restore: None,
            } => write!(
                f,
                "{name}: appending failed: {reason}{}; the file was cut back to its previous \
                 length",
                size_hint(reason)
            ),
            Failure::Write {
                name,
                reason,
                restore: Some(again),
            } => write!(
                f,
                "{name}: appending failed: {reason}{}, and cutting the file back to its \
                 previous length failed too: {again}",
                size_hint(reason)
            ),
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
            Failure::TornTail { name, offset, len } => write!(
                f,
                "{name}: torn_tail: the file ends in an incomplete line ({} at offset \
                 {offset}): an earlier append did not finish; nothing was appended \
                 (`agentloop repair {name}` moves that line to a side file)",
                plural(*len, "byte")
            ),
            Failure::Locked { name } => write!(
                f,
                "{name}: another writer holds the exclusive lock; nothing was appended \
                 (--no-wait)"
            ),
            Failure::Writer { name, error } => write!(f, "{name}: {error}; nothing was appended"),
            Failure::RepairStdin => {
                f.write_str("repair needs a transcript file, and '-' (standard input) is not one")
            }
            Failure::Repair {
                name,
                error: RepairError::DoesNotVerify(report),
            } => {
                match report.faults.first() {
                    Some(fault) => f.write_str(&fault_sentence(name, fault))?,
                    None => write!(f, "{name}: faults were found")?,
                }
                f.write_str(" (repair removes only a torn tail, so nothing was changed)")
            }
            Failure::Repair { name, error } => {
                write!(f, "{name}: cannot repair: {error}")?;
                match error {
                    RepairError::Write(e) | RepairError::SideFileLeft { error: e, .. } => {
                        f.write_str(size_hint(e))
                    }
                    _ => Ok(()),
                }
            }
            Failure::DemoWrite { name, reason } => {
                write!(f, "{name}: cannot write it: {reason}{}", size_hint(reason))
            }
            Failure::DemoTools(e) => write!(f, "a demo tool was refused: {e}"),
            Failure::Replay { name, error } => write!(f, "{name}: cannot replay it: {error}"),
            Failure::RunToStdin => f.write_str(
                "run writes its transcript to a file, and '-' (standard output) is not one",
            ),
            Failure::TaskNotUtf8 { name, offset } => write!(
                f,
                "{name}: the task is not UTF-8 text (byte {offset} starts no character); \
                 nothing was run"
            ),
            Failure::ToolLimitTwice(tool) => write!(
                f,
                "--tool-limit names the tool {} twice: give each tool one limit",
                crate::record_line::quoted(tool)
            ),
            Failure::UnknownToolLimit { name, tools } => {
                let offered = if tools.is_empty() {
                    String::from(
                        "no tools are offered (--demo-tools offers add, echo, fail, greet)",
                    )
                } else {
                    format!("the tools are {}", tools.join(", "))
                };
                write!(
                    f,
                    "a limit is set for the tool {} (by --tool-limit, or a resumed run's task \
                     record), but no tool of that name is offered; {offered}",
                    crate::record_line::quoted(name)
                )
            }
            Failure::Budgets(error) => write!(f, "the budgets cannot be applied: {error}"),
            Failure::KeyNotSet {
                variable,
                named: true,
            } => write!(
                f,
                "the API key variable {variable} (--api-key-env) is not set, or is empty; \
                 nothing was run"
            ),
            Failure::KeyNotSet {
                variable,
                named: false,
            } => write!(
                f,
                "the API key variable {variable} is not set, or is empty: set it, name another \
                 with --api-key-env VAR, or send no key with --api-key-env ''; nothing was run"
            ),
            Failure::Model(error) => write!(f, "--base-url: {error}"),
            Failure::ModelThread(reason) => {
                write!(f, "cannot start the thread that asks the model: {reason}")
            }
            Failure::OutNotEmpty { name, len } => write!(
                f,
                "{name} already holds {}: --resume continues the transcript in it, or give \
                 another --out; nothing was run",
                plural(*len, "byte")
            ),
            Failure::NothingToResume(name) => write!(
                f,
                "{name} holds no records to resume, and no --task or --task-file was given to \
                 start a run; nothing was run"
            ),
            Failure::ResumeTask { name, what } => {
                write!(f, "{name}: cannot resume it: {what}")
            }
            Failure::ResumeDiffers {
                name,
                flag,
                recorded,
            } => write!(
                f,
                "{name}: {flag} differs from its task record, which has {recorded}: a resumed \
                 run keeps the recorded task and budgets (leave the flag out); nothing was run"
            ),
            Failure::ResumeRefused { name, error } => {
                write!(f, "{name}: cannot resume it: {error}; nothing was run")
            }
            Failure::ResumeChanged(name) => write!(
                f,
                "{name}: the file changed while it was being read for resuming (another writer \
                 appended); nothing was run"
            ),
            Failure::RecordUnreadable { name, index, error } => {
                write!(
                    f,
                    "{name} record {index}: cannot be read as a record: {error}"
                )
            }
            Failure::RunWrite { name, seq, error } => write!(
                f,
                "{name}: record seq {seq} could not be written: {error}{}; the run stopped \
                 there (`agentloop run --resume` continues the transcript)",
                match error {
                    WriteError::Write(e) | WriteError::WriteNotUndone { write: e, .. } =>
                        size_hint(e),
                    _ => "",
                }
            ),
            Failure::RunRefused {
                name,
                seq: Some(seq),
                why,
            } => write!(
                f,
                "{name}: record seq {seq} was refused: {why}; the run stopped there"
            ),
            Failure::RunRefused {
                name,
                seq: None,
                why,
            } => write!(f, "{name}: {why}; the run stopped there"),
            Failure::RunClose { name, error } => write!(
                f,
                "{name}: the last sync to disk failed: {error}; records since the last sync \
                 may not survive a crash of the machine"
            ),
            Failure::Export { name, error } => {
                write!(f, "{name} {error}; nothing was exported")
            }
            Failure::McpEnvNotSet(name) => write!(
                f,
                "--mcp-env {name}: the variable is not set, so it cannot be passed to the MCP \
                 servers"
            ),
            Failure::Mcp {
                index,
                command,
                error,
            } => write!(
                f,
                "MCP server {index} (--mcp {}): {error}",
                crate::record_line::quoted(command)
            ),
            Failure::ToolsMap { name, reason } => write!(f, "{name}: {reason}; nothing was run"),
            Failure::ToolsMapDiffers { name } => write!(
                f,
                "{name}: the tools are offered under other names, or from other servers, than \
                 when the run began (the file records how they were named): give the same \
                 --demo-tools and --mcp servers, in the same order; nothing was run"
            ),
        }
    }
}

impl std::error::Error for Failure {}
