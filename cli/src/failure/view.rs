//! Failures of `agentloop view`: no page is written.

use std::fmt;
use std::io;

use super::size_hint;

/// Why `view` wrote no page.
#[derive(Debug)]
pub enum ViewFailure {
    /// The input has lines but none of them is a record: it is not a transcript.
    NotATranscript {
        /// The input, as named on the command line.
        name: String,
        /// How many lines it has.
        lines: u64,
    },
    /// `--out` is the transcript itself: writing the page would replace it.
    OutIsInput {
        /// `--out`, as named on the command line.
        out: String,
        /// The transcript, as named on the command line.
        input: String,
    },
    /// The page could not be written.
    Write {
        /// `--out`, as named on the command line.
        name: String,
        /// Why.
        reason: io::Error,
    },
}

impl fmt::Display for ViewFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewFailure::NotATranscript { name, lines } => write!(
                f,
                "{name}: not a transcript: none of its {lines} lines is a record (a JSON \
                 object with a hash, an integer seq, a kind and a payload); no page was written"
            ),
            ViewFailure::OutIsInput { out, input } => write!(
                f,
                "--out {out}: it is the transcript {input} itself (the same file); the page \
                 would replace it, so nothing was written"
            ),
            ViewFailure::Write { name, reason } => write!(
                f,
                "{name}: cannot write the page: {reason}{}",
                size_hint(reason)
            ),
        }
    }
}
