//! Where input comes from: a named file, or standard input for `-`; and how much of
//! it is read.

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, BufReader, Read};
use std::path::Path;

use agentloop_core::verify::MAX_LINE_BYTES;

/// Buffer size for reading inputs.
const BUFFER: usize = 1 << 16;

/// The most bytes read of a whole document — a task file, a schema, an instance, a
/// payload file, a document to canonicalise: the verifier's line limit, 16 MiB. What
/// such a document holds goes into one record line (a task, a payload, tool arguments,
/// a tool's schema) or is hashed as one, so a longer one has no use; a longer input is
/// refused after reading one byte past the limit, whatever it is (`/dev/zero`).
pub const DOCUMENT_LIMIT: u64 = MAX_LINE_BYTES as u64;

/// Why an input was not read whole.
#[derive(Debug)]
pub enum ReadError {
    /// Opening or reading failed.
    Io(io::Error),
    /// The input is longer than the limit: reading stopped one byte past it.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge { limit } => {
                write!(f, "it is longer than the limit of {}", size(*limit))
            }
        }
    }
}

/// `16777216 bytes (16 MiB)`: a limit in bytes, and in KiB or MiB when it is a whole
/// number of them.
pub fn size(bytes: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    match bytes {
        b if b >= MIB && b % MIB == 0 => format!("{b} bytes ({} MiB)", b / MIB),
        b if b >= KIB && b % KIB == 0 => format!("{b} bytes ({} KiB)", b / KIB),
        b => format!("{b} bytes"),
    }
}

/// An input named on the command line.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// `-`: standard input.
    Stdin,
    /// A file path, as the user gave it.
    Path(&'a Path),
}

impl<'a> Source<'a> {
    /// The source a command-line argument names (`-` is standard input).
    pub fn from_arg(arg: &'a Path) -> Source<'a> {
        if arg.as_os_str() == "-" {
            Source::Stdin
        } else {
            Source::Path(arg)
        }
    }

    /// The name used in sentences: the path as given, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => String::from("<stdin>"),
            Source::Path(path) => path.display().to_string(),
        }
    }

    /// The name used in JSON output: the path as given, or `-`.
    pub fn json_name(&self) -> String {
        match self {
            Source::Stdin => String::from("-"),
            Source::Path(path) => path.display().to_string(),
        }
    }

    /// Opens the input for buffered, streaming reads.
    pub fn open(&self) -> io::Result<BufReader<Box<dyn Read>>> {
        let inner: Box<dyn Read> = match self {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::Path(path) => Box::new(File::open(path)?),
        };
        Ok(BufReader::with_capacity(BUFFER, inner))
    }

    /// The input's file metadata (for standard input, of whatever it was opened on),
    /// to tell whether another path names the same file.
    pub fn metadata(&self) -> io::Result<Metadata> {
        match self {
            Source::Path(path) => fs::metadata(path),
            #[cfg(unix)]
            Source::Stdin => {
                use std::os::fd::AsFd;
                // A duplicate of descriptor 0, closed again when the File drops.
                File::from(io::stdin().as_fd().try_clone_to_owned()?).metadata()
            }
            #[cfg(not(unix))]
            Source::Stdin => Err(io::Error::from(io::ErrorKind::Unsupported)),
        }
    }

    /// Reads a whole document: [`Source::read_bounded`] with [`DOCUMENT_LIMIT`].
    pub fn read_document(&self) -> Result<Vec<u8>, ReadError> {
        self.read_bounded(DOCUMENT_LIMIT)
    }

    /// Reads the whole input, refusing one longer than `limit` bytes
    /// ([`ReadError::TooLarge`]): at most `limit + 1` bytes are read, and held.
    pub fn read_bounded(&self, limit: u64) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        self.open()
            .and_then(|reader| reader.take(limit.saturating_add(1)).read_to_end(&mut bytes))
            .map_err(ReadError::Io)?;
        if bytes.len() as u64 > limit {
            return Err(ReadError::TooLarge { limit });
        }
        Ok(bytes)
    }
}

/// Whether `a` and `b` are one file: the same device and inode on Unix, whatever names
/// lead to it (`t`, `./t`, a hard link, a symbolic link). Elsewhere: never (no identity
/// to compare).
pub fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_longer_input_is_refused_one_byte_past_the_limit() {
        let dir = std::env::temp_dir().join(format!("agentloop-input-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("doc");
        fs::write(&path, b"12345").unwrap();
        let source = Source::Path(&path);
        assert_eq!(source.read_bounded(5).unwrap(), b"12345");
        assert!(matches!(
            source.read_bounded(4),
            Err(ReadError::TooLarge { limit: 4 })
        ));
        let zero = Source::Path(Path::new("/dev/zero"));
        let refused = zero.read_document().unwrap_err();
        assert_eq!(
            refused.to_string(),
            "it is longer than the limit of 16777216 bytes (16 MiB)"
        );
        assert!(matches!(
            Source::Path(&dir.join("missing")).read_document(),
            Err(ReadError::Io(_))
        ));
        assert_eq!(size(65536), "65536 bytes (64 KiB)");
        assert_eq!(size(1000), "1000 bytes");
        fs::remove_dir_all(&dir).unwrap();
    }
}
