//! Writing one record line: one write at the end of the file, a sync if the policy
//! asks for one, and — if either fails — cutting the file back to its length before
//! the write. Runs under the lock, so the bytes it cuts are its own.

use std::fs::File;
use std::io::{self, Write};

use super::options::SyncCounter;
use super::WriteError;

/// The file operations a failure can be injected into (tests simulate a short write
/// or a full disk through them).
#[derive(Clone, Copy)]
pub(crate) struct Io {
    pub(crate) write: fn(&File, &[u8]) -> io::Result<()>,
    pub(crate) sync: fn(&File) -> io::Result<()>,
}

impl Io {
    pub(crate) const REAL: Io = Io {
        write: |mut file, line| file.write_all(line),
        sync: File::sync_data,
    };
}

/// A failed write: the error, and whether the writer must stop appending.
pub(crate) struct Failed {
    pub(crate) error: WriteError,
    pub(crate) breaks: bool,
}

/// Writes `line` at the end of the file and syncs if due; on failure cuts the file
/// back to `len_before`. Called under the lock, so the bytes past `len_before` are this
/// writer's own. Returns the bytes written.
pub(crate) fn write_line(
    file: &File,
    line: &[u8],
    len_before: u64,
    counter: &mut SyncCounter,
    io: Io,
) -> Result<u64, Failed> {
    if let Err(error) = (io.write)(file, line) {
        let undo = file.set_len(len_before);
        let breaks = undo.is_err();
        return Err(Failed {
            error: WriteError::write_failed(error, undo),
            breaks,
        });
    }
    if counter.due_with_next() {
        if let Err(error) = (io.sync)(file) {
            // After a failed sync the kernel may have dropped the data of earlier
            // unsynced records as well: this writer can no longer vouch for the file.
            let undo = file.set_len(len_before);
            return Err(Failed {
                error: WriteError::write_failed(error, undo),
                breaks: true,
            });
        }
        counter.synced();
    } else {
        counter.written();
    }
    Ok(line.len() as u64)
}
