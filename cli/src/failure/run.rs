//! Failures during `agentloop run` or its `--resume`: the model thread, the transcript
//! being continued, writing records.

use std::fmt;
use std::io;

use agentloop_core::driver::OpenError;
use agentloop_core::durable::WriteError;
use agentloop_core::json::ParseError;
use agentloop_core::vocabulary::SetupDifference;

use super::size_hint;

/// Failures during `agentloop run` or its `--resume`: the model thread, the transcript
/// being continued, writing records.
#[derive(Debug)]
pub enum RunFailure {
    /// `run`: the model's thread could not be started.
    ModelThread(io::Error),
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
    /// `run`: no `--model`, and nothing recorded says which (`why`: a new run, a
    /// format-1 transcript, …).
    ModelNeeded {
        /// `--out`, as named on the command line.
        name: String,
        /// What needs it.
        why: &'static str,
    },
    /// `run --resume`: a flag says other than the recorded setup.
    SetupFlagDiffers {
        /// `--out`, as named on the command line.
        name: String,
        /// The flag and its value.
        flag: String,
        /// What the setup says.
        recorded: String,
    },
    /// `run --resume`: the setup this run makes (its tools and servers) differs from the
    /// one in force in the transcript.
    SetupDiffers {
        /// `--out`, as named on the command line.
        name: String,
        /// The first difference (recorded, then this run's).
        difference: SetupDifference,
    },
    /// `run --resume --new-setup` of a transcript that does not end with a `stop`.
    NewSetupMidRun {
        /// `--out`, as named on the command line.
        name: String,
    },
    /// `run --resume`: the records cannot be continued.
    ResumeRefused {
        /// `--out`, as named on the command line.
        name: String,
        /// Why.
        error: OpenError,
    },
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
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::ModelThread(reason) => {
                write!(f, "cannot start the thread that asks the model: {reason}")
            }
            RunFailure::NothingToResume(name) => write!(
                f,
                "{name} holds no records to resume, and no --task or --task-file was given to \
                 start a run; nothing was run"
            ),
            RunFailure::ResumeTask { name, what } => {
                write!(f, "{name}: cannot resume it: {what}")
            }
            RunFailure::ResumeDiffers {
                name,
                flag,
                recorded,
            } => write!(
                f,
                "{name}: {flag} differs from its task record, which has {recorded}: a resumed \
                 run keeps the recorded task and budgets (leave the flag out); nothing was run"
            ),
            RunFailure::ModelNeeded { name, why } => write!(
                f,
                "{name}: --model is needed for {why} (give it as openai:NAME or \
                 anthropic:NAME); nothing was run"
            ),
            RunFailure::SetupFlagDiffers {
                name,
                flag,
                recorded,
            } => write!(
                f,
                "{name}: {flag} differs from the setup the transcript records, which has \
                 {recorded}: a resumed run keeps the recorded setup (leave the flag out, or \
                 give --new-setup after a stop); nothing was run"
            ),
            RunFailure::SetupDiffers { name, difference } => write!(
                f,
                "{name}: this run's setup differs from the transcript's: {difference}; give \
                 the same --demo-tools and --mcp servers in the same order (or --new-setup \
                 after a stop); nothing was run"
            ),
            RunFailure::NewSetupMidRun { name } => write!(
                f,
                "{name}: --new-setup is refused: the transcript ends inside a run (its last \
                 record is not a stop), and a setup changes only between runs, stated in the \
                 resume record after a stop; resume without --new-setup; nothing was run"
            ),
            RunFailure::ResumeRefused { name, error } => {
                write!(f, "{name}: cannot resume it: {error}; nothing was run")
            }
            RunFailure::RecordUnreadable { name, index, error } => {
                write!(
                    f,
                    "{name} record {index}: cannot be read as a record: {error}"
                )
            }
            RunFailure::RunWrite { name, seq, error } => write!(
                f,
                "{name}: record seq {seq} could not be written: {error}{}; the run stopped \
                 there (`agentloop run --resume` continues the transcript)",
                match error {
                    WriteError::Write(e) | WriteError::WriteNotUndone { write: e, .. } =>
                        size_hint(e),
                    _ => "",
                }
            ),
            RunFailure::RunRefused {
                name,
                seq: Some(seq),
                why,
            } => write!(
                f,
                "{name}: record seq {seq} was refused: {why}; the run stopped there"
            ),
            RunFailure::RunRefused {
                name,
                seq: None,
                why,
            } => write!(f, "{name}: {why}; the run stopped there"),
            RunFailure::RunClose { name, error } => write!(
                f,
                "{name}: the last sync to disk failed: {error}; records since the last sync \
                 may not survive a crash of the machine"
            ),
        }
    }
}
