//! Why the durable writer or repair refused or failed.

use core::fmt;
use std::boxed::Box;
use std::io;

use crate::chain::AppendError;
use crate::export::ParseRecordsError;
use crate::verify::Report;

/// Why a [`super::Writer`] did not open, or did not append a record.
///
/// After any of them the file holds exactly what it held before the call (a failed
/// write is cut back by the writer itself), except where a variant says otherwise.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteError {
    /// The file could not be opened, created, measured or read.
    Open(io::Error),
    /// Another writer holds the lock and the options said not to wait
    /// ([`super::LockWait::Fail`]).
    Locked,
    /// Taking or releasing the lock failed.
    Lock(io::Error),
    /// The file ends in an incomplete line (`torn_tail`): an earlier append did not
    /// finish. Nothing is appended until [`super::repair`] moves those bytes aside (or
    /// adds the newline, when they are a whole record lacking only that).
    TornTail {
        /// Where the incomplete line starts: the length of the complete records.
        offset: u64,
        /// How many bytes the incomplete line has.
        len: u64,
        /// The line is a record with no fault that continues the chain, lacking only
        /// its newline.
        complete: bool,
    },
    /// The file (on open), or the bytes another writer appended since this writer's
    /// last append, do not verify; the report says where and why.
    DoesNotVerify(Box<Report>),
    /// The file is shorter than after this writer's last append: someone cut it. The
    /// writer refuses to continue (it never truncates or rewrites).
    Shrank {
        /// The length after this writer's last append.
        expected: u64,
        /// The length found.
        found: u64,
    },
    /// The record was refused (empty kind, payload with no canonical encoding, seq
    /// exhausted, a line longer than the line limit); nothing was written.
    Record(AppendError),
    /// A record line given to [`super::Writer::append_line`] does not continue the
    /// file's chain (wrong `seq` or `prev`, or not a canonical record): the caller's
    /// chain is behind the file, usually because another writer appended in between.
    Diverged(Box<Report>),
    /// Another writer appended to the file since this writer's last append, so a record
    /// appended as the next of a run (the writer as a `chain::Log`) would not follow
    /// the run's own records: it was not written (a run's records are never split).
    Interleaved {
        /// The `seq` the record was to have.
        seq: u64,
        /// The file's next `seq` now.
        next: u64,
    },
    /// Writing the line (or syncing it) failed; the file was cut back to its length
    /// before this append, so it holds none of the line.
    Write(io::Error),
    /// Writing failed and cutting the file back failed too: the file may end in a
    /// partial line (a `torn_tail` that [`super::repair`] removes). The writer refuses
    /// every later append.
    WriteNotUndone {
        /// Why the write failed.
        write: io::Error,
        /// Why cutting back failed.
        undo: io::Error,
    },
    /// An earlier write or sync failed in a way that leaves the file's state unknown to
    /// this writer; open the file again (which verifies it).
    Broken,
    /// A line of the file verified but could not be read as a record
    /// ([`super::Writer::open_resumable`]); the writer was not opened.
    Unreadable(ParseRecordsError),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Open(e) => write!(f, "cannot open or read the transcript: {e}"),
            WriteError::Locked => {
                f.write_str("another writer holds the transcript's lock (not waiting, as asked)")
            }
            WriteError::Lock(e) => write!(f, "cannot take or release the transcript's lock: {e}"),
            WriteError::TornTail {
                offset,
                len,
                complete: false,
            } => write!(
                f,
                "torn_tail: the transcript ends in an incomplete line ({len} bytes at offset \
                 {offset}); nothing is appended until it is repaired (agentloop repair)"
            ),
            WriteError::TornTail {
                offset,
                len,
                complete: true,
            } => write!(
                f,
                "torn_tail: the transcript's last line ({len} bytes at offset {offset}) is a \
                 complete, valid record missing only its newline; nothing is appended until \
                 it is repaired (agentloop repair adds the newline)"
            ),
            WriteError::DoesNotVerify(report) => match report.faults.first() {
                Some(fault) => write!(f, "the transcript does not verify: {fault}"),
                None => f.write_str("the transcript does not verify"),
            },
            WriteError::Shrank { expected, found } => write!(
                f,
                "the transcript is {found} bytes long, shorter than the {expected} bytes it had \
                 after this writer's last append: it was cut by someone else"
            ),
            WriteError::Record(e) => write!(f, "{e}"),
            WriteError::Interleaved { seq, next } => write!(
                f,
                "another writer appended to the transcript in between: its next record is seq \
                 {next}, not {seq}, so the record was not written (a run's records are never \
                 split)"
            ),
            WriteError::Diverged(report) => match report.faults.first() {
                Some(fault) => write!(
                    f,
                    "the record does not continue the transcript's chain (another writer \
                     appended in between?): {}: {}",
                    fault.kind, fault.detail
                ),
                None => f.write_str("the record does not continue the transcript's chain"),
            },
            WriteError::Write(e) => write!(
                f,
                "writing the record failed: {e}; the file was cut back to its length before \
                 the append"
            ),
            WriteError::WriteNotUndone { write, undo } => write!(
                f,
                "writing the record failed: {write}, and cutting the file back failed too: \
                 {undo}; it may end in a torn_tail"
            ),
            WriteError::Broken => f.write_str(
                "an earlier write or sync failed, so this writer appends no more; open the \
                 transcript again",
            ),
            WriteError::Unreadable(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Open(e) | WriteError::Lock(e) | WriteError::Write(e) => Some(e),
            WriteError::WriteNotUndone { write, .. } => Some(write),
            WriteError::Record(e) => Some(e),
            WriteError::Unreadable(e) => Some(e),
            _ => None,
        }
    }
}

/// Why [`super::repair`] did not repair.
#[derive(Debug)]
#[non_exhaustive]
pub enum RepairError {
    /// The file could not be opened, locked or read.
    Open(io::Error),
    /// Another writer holds the lock and the options said not to wait.
    Locked,
    /// The complete records before the tail have faults of their own: repair only
    /// removes a torn tail, so it changed nothing. The report says what is wrong.
    DoesNotVerify(Box<Report>),
    /// The side file for the torn bytes already exists; nothing was changed (an earlier
    /// repair's evidence is never overwritten).
    SideFileExists(std::path::PathBuf),
    /// Writing or syncing the side file, or cutting the transcript, failed; nothing was
    /// changed (the side file this repair had created was removed again).
    Write(io::Error),
    /// As [`RepairError::Write`], and removing the unfinished side file failed too: the
    /// transcript is unchanged, but `side_file` is left, and the next repair refuses
    /// until it is removed.
    SideFileLeft {
        /// The side file left behind.
        side_file: std::path::PathBuf,
        /// Why the repair failed.
        error: io::Error,
        /// Why removing the side file failed.
        remove: io::Error,
    },
    /// The last line is a whole record lacking only its newline, and adding the
    /// newline failed: `written` false, before anything was written (nothing changed);
    /// `written` true, syncing the transcript after the newline was written (after a
    /// crash the line may lack it again, and a repair adds it again).
    Newline {
        /// Why.
        error: io::Error,
        /// Whether the newline was written before the failure.
        written: bool,
    },
    /// The torn bytes were moved to `side_file` and the transcript was cut to `offset`,
    /// but syncing the cut failed: after a crash the torn tail may be back (the next
    /// repair then refuses until `side_file` is moved away).
    CutNotSynced {
        /// The side file holding the torn bytes (synced).
        side_file: std::path::PathBuf,
        /// The transcript's length after the cut.
        offset: u64,
        /// Why the sync failed.
        error: io::Error,
    },
}

impl fmt::Display for RepairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RepairError::Open(e) => write!(f, "cannot open or read the transcript: {e}"),
            RepairError::Locked => {
                f.write_str("another writer holds the transcript's lock (not waiting, as asked)")
            }
            RepairError::DoesNotVerify(report) => match report.faults.first() {
                Some(fault) => write!(
                    f,
                    "the records before the tail do not verify ({fault}); repair only removes \
                     a torn tail, so nothing was changed"
                ),
                None => {
                    f.write_str("the records before the tail do not verify; nothing was changed")
                }
            },
            RepairError::SideFileExists(path) => write!(
                f,
                "the side file {} already exists; nothing was changed",
                path.display()
            ),
            RepairError::Write(e) => write!(
                f,
                "writing the side file or cutting the transcript failed: {e}; nothing was changed"
            ),
            RepairError::SideFileLeft {
                side_file,
                error,
                remove,
            } => write!(
                f,
                "writing the side file or cutting the transcript failed: {error}; the \
                 transcript was not changed, but the unfinished side file {} could not be \
                 removed ({remove}): remove it before repairing again",
                side_file.display()
            ),
            RepairError::Newline {
                error,
                written: false,
            } => write!(
                f,
                "the last line is a complete, valid record missing only its newline, and \
                 adding the newline failed: {error}; nothing was changed"
            ),
            RepairError::Newline {
                error,
                written: true,
            } => write!(
                f,
                "the newline was added after the last record, but syncing the transcript \
                 failed: {error}; after a crash the record may lack it again (repair again)"
            ),
            RepairError::CutNotSynced {
                side_file,
                offset,
                error,
            } => write!(
                f,
                "the torn tail was moved to {} and the transcript cut to {offset} bytes, but \
                 syncing the transcript failed: {error}; after a crash the torn tail may be \
                 back (move {} away before repairing again)",
                side_file.display(),
                side_file.display()
            ),
        }
    }
}

impl std::error::Error for RepairError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RepairError::Open(e)
            | RepairError::Write(e)
            | RepairError::Newline { error: e, .. }
            | RepairError::SideFileLeft { error: e, .. }
            | RepairError::CutNotSynced { error: e, .. } => Some(e),
            _ => None,
        }
    }
}

impl WriteError {
    /// The error for a failed write, after trying to cut the file back.
    pub(crate) fn write_failed(write: io::Error, undo: Result<(), io::Error>) -> WriteError {
        match undo {
            Ok(()) => WriteError::Write(write),
            Err(undo) => WriteError::WriteNotUndone { write, undo },
        }
    }
}
