//! Opening or creating the transcript file, and syncing its directory entry.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for reading and appending; creates it if absent (and says so).
pub(crate) fn open_or_create(path: &Path) -> io::Result<(File, bool)> {
    let mut options = OpenOptions::new();
    options.read(true).append(true);
    match options.clone().create_new(true).open(path) {
        Ok(file) => Ok((file, true)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok((options.open(path)?, false)),
        Err(e) => Err(e),
    }
}

/// Syncs the directory holding `path`, so a file created or renamed in it survives a
/// crash (Unix; elsewhere a directory cannot be opened and this does nothing).
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(parent)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
