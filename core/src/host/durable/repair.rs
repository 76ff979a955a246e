//! Repair: the one operation that removes bytes from a transcript, and only a torn
//! tail — an incomplete last line left by an append that did not finish; or, when that
//! line is a whole record that lacks only its newline, adds the newline.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::ToString;
use std::vec::Vec;

use super::lock::LockGuard;
use super::tail::{complete_len, one_record, verify_range};
use super::{sync_parent, RepairError, WriteError, WriterOptions};
use crate::anchor::Anchor;
use crate::hash::Hash;
use crate::verify::Options;

/// What [`repair`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// Complete records in the file (after the repair).
    pub count: u64,
    /// The file's head: the hash of its last record (the anchor's `prev0` if empty).
    pub head: Hash,
    /// What it did to the file's last line.
    pub tail: TailRepair,
}

/// What [`repair`] did to a transcript's last line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailRepair {
    /// The file ended with a newline (or was empty): nothing changed.
    Untouched,
    /// The incomplete last line was moved to a side file and the file cut back to its
    /// last complete record.
    Removed(Removed),
    /// The last line was a whole record with no fault that continues the chain,
    /// lacking only its newline (the verifier's `torn_tail` says so): the newline was
    /// appended and synced, and the record is counted in [`Repaired::count`] (its hash
    /// is [`Repaired::head`]). Nothing was removed.
    Completed {
        /// Where the record's line starts.
        offset: u64,
        /// Its length in bytes, without the newline added.
        len: u64,
    },
}

/// A torn tail [`repair`] moved out of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// Where the torn line started; the file's length now.
    pub offset: u64,
    /// How many bytes were removed.
    pub len: u64,
    /// The side file now holding exactly those bytes: `FILE.torn-OFFSET`.
    pub side_file: PathBuf,
}

/// The file operations a failure can be injected into (tests simulate a full disk or a
/// failed sync through them).
#[derive(Clone, Copy)]
pub(crate) struct RepairIo {
    /// Copies the torn bytes into the side file; returns how many it copied.
    pub(crate) copy: fn(&mut dyn Read, &mut File) -> io::Result<u64>,
    /// Syncs the side file.
    pub(crate) sync: fn(&File) -> io::Result<()>,
    /// Cuts the transcript to a length.
    pub(crate) cut: fn(&File, u64) -> io::Result<()>,
    /// Syncs the transcript after the cut, or after the newline was added.
    pub(crate) sync_cut: fn(&File) -> io::Result<()>,
    /// Writes the missing newline at the end of the transcript (of this length).
    pub(crate) end_line: fn(&File, u64) -> io::Result<()>,
}

impl RepairIo {
    pub(crate) const REAL: RepairIo = RepairIo {
        copy: |from, to| io::copy(from, to),
        sync: File::sync_all,
        cut: File::set_len,
        sync_cut: File::sync_all,
        end_line: |file, len| {
            let mut writer = file;
            writer.seek(SeekFrom::Start(len))?;
            writer.write_all(b"\n")
        },
    };
}

/// Repairs a torn tail: if the file's last line is incomplete and every complete line
/// before it verifies (with `options.verify`), copies the incomplete bytes to the new
/// side file `FILE.torn-OFFSET`, syncs it, then cuts the file to `OFFSET` (its last
/// complete record) and syncs it ([`TailRepair::Removed`]). All of it under the file's
/// lock (`options.lock`).
///
/// A last line that is a whole record with no fault, continuing the chain, and lacks
/// only its newline is kept: the newline is appended and synced
/// ([`TailRepair::Completed`]; [`RepairError::Newline`] if that fails).
///
/// A file without a torn tail that verifies is left as it is ([`TailRepair::Untouched`]).
/// A file whose complete records have faults is refused ([`RepairError::DoesNotVerify`]),
/// as is an existing side file ([`RepairError::SideFileExists`]): nothing is changed then.
///
/// A repair that fails before the cut (writing or syncing the side file, or the cut
/// itself: a full disk, a file-size limit) removes the side file it created, so the
/// file is as it was and a later repair can run ([`RepairError::Write`]); if even the
/// removal fails, [`RepairError::SideFileLeft`] names the file left. A failed sync
/// after the cut is [`RepairError::CutNotSynced`], which says where the torn bytes are.
pub fn repair(path: &Path, options: &WriterOptions) -> Result<Repaired, RepairError> {
    repair_with(path, options, RepairIo::REAL)
}

pub(crate) fn repair_with(
    path: &Path,
    options: &WriterOptions,
    io: RepairIo,
) -> Result<Repaired, RepairError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(RepairError::Open)?;
    let _guard = LockGuard::take(&file, options.lock).map_err(|e| match e {
        WriteError::Locked => RepairError::Locked,
        WriteError::Lock(e) => RepairError::Open(e),
        other => RepairError::Open(io::Error::other(other.to_string())),
    })?;
    let len = file.metadata().map_err(RepairError::Open)?.len();
    let offset = complete_len(&file, len).map_err(RepairError::Open)?;
    let anchor = options.verify.anchor;
    let range = verify_range(&file, 0, offset, anchor, &options.verify).map_err(|e| match e {
        WriteError::DoesNotVerify(report) => RepairError::DoesNotVerify(report),
        WriteError::Open(e) => RepairError::Open(e),
        // The range ends at a newline, so it has no torn tail of its own.
        other => RepairError::Open(io::Error::other(other.to_string())),
    })?;
    if offset == len {
        return Ok(Repaired {
            count: range.count,
            head: range.head,
            tail: TailRepair::Untouched,
        });
    }
    let next = Anchor {
        seq0: anchor.seq0.saturating_add(range.count),
        prev0: range.head,
    };
    if let Some(head) = unterminated_record(&file, (offset, len), next, &options.verify)? {
        (io.end_line)(&file, len).map_err(|error| RepairError::Newline {
            error,
            written: false,
        })?;
        (io.sync_cut)(&file).map_err(|error| RepairError::Newline {
            error,
            written: true,
        })?;
        return Ok(Repaired {
            count: range.count + 1,
            head,
            tail: TailRepair::Completed {
                offset,
                len: len - offset,
            },
        });
    }
    let side_file = side_file_name(path, offset);
    let mut side = create_side_file(&side_file)?;
    let moved = copy_aside(&file, (offset, len), (&mut side, &side_file), io)
        .and_then(|()| (io.cut)(&file, offset));
    drop(side);
    if let Err(error) = moved {
        return Err(discard(side_file, error));
    }
    if let Err(error) = (io.sync_cut)(&file) {
        return Err(RepairError::CutNotSynced {
            side_file,
            offset,
            error,
        });
    }
    Ok(Repaired {
        count: range.count,
        head: range.head,
        tail: TailRepair::Removed(Removed {
            offset,
            len: len - offset,
            side_file,
        }),
    })
}

/// The hash of the incomplete last line `[offset, len)` when, given its newline, it is
/// a record with no fault that continues the chain at `next` (`None` otherwise, and
/// for a line longer than the line limit, which is not read).
fn unterminated_record(
    file: &File,
    (offset, len): (u64, u64),
    next: Anchor,
    options: &Options,
) -> Result<Option<Hash>, RepairError> {
    if len - offset > options.max_line_bytes as u64 {
        return Ok(None);
    }
    let mut line = Vec::new();
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(offset))
        .and_then(|_| reader.take(len - offset).read_to_end(&mut line))
        .map_err(RepairError::Open)?;
    line.push(b'\n');
    Ok(one_record(&line, next, options).ok())
}

/// `FILE.torn-OFFSET`, beside the transcript.
fn side_file_name(path: &Path, offset: u64) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(std::format!(".torn-{offset}"));
    PathBuf::from(name)
}

/// Creates the side file; refuses to touch one that exists.
fn create_side_file(side: &Path) -> Result<File, RepairError> {
    match OpenOptions::new().write(true).create_new(true).open(side) {
        Ok(out) => Ok(out),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(RepairError::SideFileExists(side.to_path_buf()))
        }
        Err(e) => Err(RepairError::Write(e)),
    }
}

/// Copies `[offset, len)` of `file` into the side file `out` and syncs it with its
/// directory entry, before anything is cut.
fn copy_aside(
    file: &File,
    (offset, len): (u64, u64),
    (out, side): (&mut File, &Path),
    io: RepairIo,
) -> io::Result<()> {
    let mut reader = file;
    reader.seek(SeekFrom::Start(offset))?;
    let torn = len - offset;
    let copied = (io.copy)(&mut reader.take(torn), out)?;
    if copied != torn {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            std::format!("copied {copied} of the {torn} torn bytes to the side file"),
        ));
    }
    (io.sync)(out)?;
    sync_parent(side)
}

/// After a failure before the cut: removes the side file this repair created, so the
/// transcript is as it was and the next repair is not refused by it.
fn discard(side_file: PathBuf, error: io::Error) -> RepairError {
    match std::fs::remove_file(&side_file) {
        Ok(()) => {
            // Best effort: at worst a crash brings back an unfinished side file, which the
            // next repair then names (SideFileExists).
            let _ = sync_parent(&side_file);
            RepairError::Write(error)
        }
        Err(remove) => RepairError::SideFileLeft {
            side_file,
            error,
            remove,
        },
    }
}
