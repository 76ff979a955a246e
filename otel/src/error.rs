//! Why records could not be mapped to spans.

use core::fmt;

use agentloop_core::vocabulary::PayloadError;

/// A record the mapping could not read as the loop writes it. Nothing is sent or
/// written for a transcript that has one (the file export); the live export stops
/// mapping at it.
#[derive(Debug, Clone, PartialEq)]
pub enum MapError {
    /// Record `index` (0-based position) is not an object with a 64-hex `hash`, an
    /// integer `seq`, a string `kind` and a `payload`.
    NotARecord {
        /// Its position in the transcript.
        index: usize,
    },
    /// A kind the loop does not write.
    UnknownKind {
        /// The record's `seq`.
        seq: u64,
        /// Its kind.
        kind: String,
    },
    /// A payload its type does not decode.
    Payload {
        /// The record's `seq`.
        seq: u64,
        /// Why.
        error: PayloadError,
    },
    /// An `assistant`, `tool` or `stop` record with no run open (no `task` or `resume`
    /// record since the last `stop`).
    OutsideARun {
        /// The record's `seq`.
        seq: u64,
        /// Its kind.
        kind: String,
    },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::NotARecord { index } => write!(
                f,
                "record {index} is not a record (an object with hash, kind, payload and seq)"
            ),
            MapError::UnknownKind { seq, kind } => write!(
                f,
                "record at seq {seq}: kind {kind:?} is not one the loop writes (task, assistant, \
                 tool, stop, resume, setup)"
            ),
            MapError::Payload { seq, error } => write!(f, "record at seq {seq}: {error}"),
            MapError::OutsideARun { seq, kind } => write!(
                f,
                "record at seq {seq}: a {kind} record outside a run (no task or resume record \
                 opened one)"
            ),
        }
    }
}

impl std::error::Error for MapError {}
