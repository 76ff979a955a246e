//! Where a run's records are appended: a [`Log`] builds each record's line from its
//! kind and payload — hashing it once — and keeps it, in memory
//! ([`crate::chain::Chain`]) or in a file (`durable::Writer`). Public as part of
//! [`crate::chain`].

use core::fmt;

use crate::anchor::Anchor;
use crate::hash::Hash;
use crate::json::Value;
use crate::sink::SinkError;
use crate::stream::AppendError;

/// A record a [`Log`] appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Logged<'a> {
    /// Its canonical line, `\n` included.
    pub line: &'a [u8],
    /// Its `seq`.
    pub seq: u64,
    /// Its `hash` (the log's new head).
    pub hash: Hash,
}

/// Why a [`Log`] did not append a record. Nothing was appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogError {
    /// The record was refused as the chain refuses it (an empty kind, a payload no
    /// verifier would read back, a line past the limit, seq exhausted).
    Append(AppendError),
    /// The record could not be kept where the log keeps it (a write failed; another
    /// writer appended in between); the log may say more (`durable::Writer::last_error`).
    Sink(SinkError),
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogError::Append(e) => write!(f, "a record could not be appended: {e}"),
            LogError::Sink(e) => write!(f, "a record could not be written: {e}"),
        }
    }
}

impl core::error::Error for LogError {}

/// A transcript being written: each record appended continues it — `seq` = the next
/// one, `prev` = the head — and its line is built and hashed once, by the log.
pub trait Log {
    /// Appends the record `(kind, payload)` at [`Log::next`] and returns its line. A
    /// log that cannot append it exactly there (another writer appended in between)
    /// refuses it, so a run's records are never split.
    fn append(&mut self, kind: &str, payload: &Value) -> Result<Logged<'_>, LogError>;

    /// Where the next record continues: its `seq` and its `prev` (the head).
    fn next(&self) -> Anchor;
}

impl<L: Log + ?Sized> Log for &mut L {
    fn append(&mut self, kind: &str, payload: &Value) -> Result<Logged<'_>, LogError> {
        (**self).append(kind, payload)
    }

    fn next(&self) -> Anchor {
        (**self).next()
    }
}
