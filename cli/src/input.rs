//! Where input comes from: a named file, or standard input for `-`.

use std::fs::File;
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
