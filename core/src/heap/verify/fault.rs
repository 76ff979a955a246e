//! What a verifier reports: faults and the report.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::fault_kind::FaultKind;
use crate::hash::Hash;

/// One fault: where, what kind, and a sentence naming what was expected and found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// 0-based position of the record in the transcript (`None` for file-level faults
    /// such as `unreadable`).
    pub index: Option<u64>,
    /// 1-based line number, where the records were read from lines.
    pub line: Option<u64>,
    /// What is wrong.
    pub kind: FaultKind,
    /// What was expected and what was found.
    pub detail: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.index) {
            (Some(line), _) => write!(f, "line {line}: ")?,
            (None, Some(index)) => write!(f, "record {index}: ")?,
            (None, None) => {}
        }
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// The result of verifying a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Records read (complete lines; a torn tail is not counted).
    pub count: u64,
    /// The stored `hash` of the last record (`prev0` for an empty transcript); `None`
    /// when the last record has no well-formed hash or the input could not be read.
    /// Not meaningful when there are faults.
    pub head: Option<Hash>,
    /// The RFC 6962 Merkle root of all records read (leaf `i`: record `i`'s stored
    /// `hash`); `None` when a record has no well-formed hash or the input could not be
    /// read. Not meaningful when there are faults.
    pub root: Option<Hash>,
    /// The stored `hash` of record 0, if it is well-formed: what a default checkpoint
    /// origin names (`agentloop/transcript/<hex>`).
    pub first: Option<Hash>,
    /// Faults in record order, at most [`super::Options::max_faults`] of them (checkpoint
    /// faults always kept).
    pub faults: Vec<Fault>,
    /// Faults found but left out of `faults` to bound memory.
    pub faults_omitted: u64,
    /// With a checkpoint: how many records lie beyond it (information, not a fault).
    pub beyond_checkpoint: Option<u64>,
}

impl Report {
    /// Whether the transcript verified: no fault at all.
    pub fn ok(&self) -> bool {
        self.faults.is_empty() && self.faults_omitted == 0
    }
}
