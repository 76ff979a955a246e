//! Failures of the durable writer and of `repair`: opening, locking, appending, torn tails.

use std::fmt;
use std::io;

use agentloop_core::chain::AppendError;
use agentloop_core::durable::{RepairError, WriteError};

use crate::diag::{fault_sentence, plural};

use super::size_hint;
use crate::exit::Exit;

/// Failures of the durable writer and of `repair`: opening, locking, appending, torn tails.
#[derive(Debug)]
pub enum WriteFailure {
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
        /// The line is a whole record lacking only its newline.
        complete: bool,
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
}

impl WriteFailure {
    /// The exit status: a record refused or a torn tail is a fault; `repair` of a file
    /// that does not verify exits as its report says; the rest cannot grade.
    pub fn exit(&self) -> Exit {
        match self {
            WriteFailure::Append { .. } | WriteFailure::TornTail { .. } => Exit::Fault,
            WriteFailure::Repair {
                error: RepairError::DoesNotVerify(report),
                ..
            } => Exit::of_report(report),
            WriteFailure::AppendToStdin
            | WriteFailure::Open { .. }
            | WriteFailure::Lock { .. }
            | WriteFailure::Write { .. }
            | WriteFailure::Locked { .. }
            | WriteFailure::Writer { .. }
            | WriteFailure::RepairStdin
            | WriteFailure::Repair { .. } => Exit::CannotGrade,
        }
    }
}

impl fmt::Display for WriteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteFailure::AppendToStdin => {
                f.write_str("append needs a transcript file, and '-' (standard input) is not one")
            }
            WriteFailure::Open { name, reason } => {
                write!(f, "{name}: cannot open it for appending: {reason}")
            }
            WriteFailure::Lock { name, reason } => {
                write!(f, "{name}: cannot take the exclusive lock: {reason}")
            }
            WriteFailure::Append { name, error } => {
                write!(f, "{name}: {error}; nothing was appended")
            }
            WriteFailure::Write {
                name,
                reason,
                restore: None,
            } => write!(
                f,
                "{name}: appending failed: {reason}{}; the file was cut back to its previous \
                 length",
                size_hint(reason)
            ),
            WriteFailure::Write {
                name,
                reason,
                restore: Some(again),
            } => write!(
                f,
                "{name}: appending failed: {reason}{}, and cutting the file back to its \
                 previous length failed too: {again}",
                size_hint(reason)
            ),
            WriteFailure::TornTail {
                name,
                offset,
                len,
                complete: false,
            } => write!(
                f,
                "{name}: torn_tail: the file ends in an incomplete line ({} at offset \
                 {offset}): an earlier append did not finish; nothing was appended \
                 (`agentloop repair {name}` moves that line to a side file)",
                plural(*len, "byte")
            ),
            WriteFailure::TornTail {
                name,
                offset,
                len,
                complete: true,
            } => write!(
                f,
                "{name}: torn_tail: the file's last line ({} at offset {offset}) is a \
                 complete, valid record missing only its newline; nothing was appended \
                 (`agentloop repair {name}` adds the newline)",
                plural(*len, "byte")
            ),
            WriteFailure::Locked { name } => write!(
                f,
                "{name}: another writer holds the exclusive lock; nothing was appended \
                 (--no-wait)"
            ),
            WriteFailure::Writer { name, error } => {
                write!(f, "{name}: {error}; nothing was appended")
            }
            WriteFailure::RepairStdin => {
                f.write_str("repair needs a transcript file, and '-' (standard input) is not one")
            }
            WriteFailure::Repair {
                name,
                error: RepairError::DoesNotVerify(report),
            } => {
                match report.faults.first() {
                    Some(fault) => f.write_str(&fault_sentence(name, fault))?,
                    None => write!(f, "{name}: faults were found")?,
                }
                f.write_str(" (repair removes only a torn tail, so nothing was changed)")
            }
            WriteFailure::Repair { name, error } => {
                write!(f, "{name}: cannot repair: {error}")?;
                match error {
                    RepairError::Write(e) | RepairError::SideFileLeft { error: e, .. } => {
                        f.write_str(size_hint(e))
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}
