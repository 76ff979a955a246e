//! A record sink that appends to a file. Public as [`crate::sink::FileSink`].

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use crate::sink::{RecordSink, SinkError};

/// Appends each record line to a file with one `write_all`, then flushes.
///
/// This is the simple writer: it neither takes a lock nor syncs to disk, nor verifies
/// what it appends to, and a crash mid-write can leave a torn last line (the verifier
/// reports it as `torn_tail`). For a transcript that must survive crashes and other
/// writers, use the durable writer, `crate::durable::Writer` (also a [`RecordSink`]).
#[derive(Debug)]
pub struct FileSink {
    file: File,
}

impl FileSink {
    /// Opens `path` for appending, creating it if absent.
    pub fn append_to(path: &Path) -> io::Result<FileSink> {
        let file = OpenOptions::new().append(true).create(true).open(path)?;
        Ok(FileSink { file })
    }

    /// Appends to an already open file (opened for appending or positioned at its end).
    pub fn new(file: File) -> FileSink {
        FileSink { file }
    }

    /// The file, e.g. to sync it when the run is over.
    pub fn into_inner(self) -> File {
        self.file
    }
}

impl RecordSink for FileSink {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        self.file
            .write_all(line)
            .and_then(|()| self.file.flush())
            .map_err(|e| SinkError::Io(e.kind()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_lines_in_order() {
        let path = std::env::temp_dir().join(std::format!(
            "agentloop-core-file-sink-{}.jsonl",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        let mut sink = FileSink::append_to(&path).unwrap();
        sink.record(b"a\n").unwrap();
        sink.record(b"b\n").unwrap();
        drop(sink);
        let mut again = FileSink::append_to(&path).unwrap();
        again.record(b"c\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nb\nc\n");
        let _ = std::fs::remove_file(&path);
    }
}
