//! Where input comes from: a named file, or standard input for `-`.

use std::fs::{self, File, Metadata};
use std::io::{self, BufReader, Read};
use std::path::Path;

/// Buffer size for reading inputs.
const BUFFER: usize = 1 << 16;

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

    /// Reads the whole input.
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        self.read_at_most(u64::MAX)
    }

    /// Reads the input, but no more than `limit` bytes (a longer input is cut there).
    pub fn read_at_most(&self, limit: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open()?.take(limit).read_to_end(&mut bytes)?;
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
