//! Repair: the one operation that removes bytes from a transcript, and only a torn
//! tail — an incomplete last line left by an append that did not finish.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::string::ToString;

use super::lock::LockGuard;
use super::tail::{complete_len, verify_range};
use super::{sync_parent, RepairError, WriteError, WriterOptions};
use crate::hash::Hash;

/// What [`repair`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// Complete records in the file (after the repair).
    pub count: u64,
    /// The file's head: the hash of its last record (the anchor's `prev0` if empty).
    pub head: Hash,
    /// The torn tail it removed, or `None` when the file had none (nothing changed).
    pub removed: Option<Removed>,
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

/// Repairs a torn tail: if the file's last line is incomplete and every complete line
/// before it verifies (with `options.verify`), copies the incomplete bytes to the new
/// side file `FILE.torn-OFFSET`, syncs it, then cuts the file to `OFFSET` (its last
/// complete record) and syncs it. All of it under the file's lock (`options.lock`).
///
/// A file without a torn tail that verifies is left as it is (`removed: None`). A file
/// whose complete records have faults is refused ([`RepairError::DoesNotVerify`]), as is
/// an existing side file ([`RepairError::SideFileExists`]): nothing is changed then.
pub fn repair(path: &Path, options: &WriterOptions) -> Result<Repaired, RepairError> {
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
            removed: None,
        });
    }
    let side_file = side_file_name(path, offset);
    move_aside(&file, offset, len, &side_file)?;
    file.set_len(offset).map_err(RepairError::Write)?;
    file.sync_all().map_err(RepairError::Write)?;
    Ok(Repaired {
        count: range.count,
        head: range.head,
        removed: Some(Removed {
            offset,
            len: len - offset,
            side_file,
        }),
    })
}

/// `FILE.torn-OFFSET`, beside the transcript.
fn side_file_name(path: &Path, offset: u64) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(std::format!(".torn-{offset}"));
    PathBuf::from(name)
}

/// Copies `[offset, len)` of `file` into the new file `side`, synced with its
/// directory entry, before anything is cut.
fn move_aside(file: &File, offset: u64, len: u64, side: &Path) -> Result<(), RepairError> {
    let mut out = match OpenOptions::new().write(true).create_new(true).open(side) {
        Ok(out) => out,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Err(RepairError::SideFileExists(side.to_path_buf()))
        }
        Err(e) => return Err(RepairError::Write(e)),
    };
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(offset))
        .map_err(RepairError::Open)?;
    let torn = len - offset;
    let copied = io::copy(&mut reader.take(torn), &mut out).map_err(RepairError::Write)?;
    if copied != torn {
        return Err(RepairError::Write(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            std::format!("copied {copied} of the {torn} torn bytes to the side file"),
        )));
    }
    out.sync_all().map_err(RepairError::Write)?;
    sync_parent(side).map_err(RepairError::Write)
}
