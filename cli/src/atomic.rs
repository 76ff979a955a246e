//! Replacing a file atomically: what `demo` writes and what `checkpoint --out` anchors.
//!
//! A checkpoint written so can lag the transcript (an older checkpoint is still true of
//! a grown transcript) but never lead it or be seen half-written: readers see the old
//! file or the new one, and after a crash the rename is durable once the folder is
//! synced.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes` atomically: writes a temporary file beside it, syncs
/// it, renames it over `path`, then syncs the folder so the rename itself is durable.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    // A file of this name is left over from a process that had our id and died.
    let _ = fs::remove_file(&tmp);
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
        return written;
    }
    // Not every platform can open and sync a folder; the data itself is synced.
    if let Ok(folder) = File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}
