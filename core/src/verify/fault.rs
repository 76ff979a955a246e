//! What a verifier reports: fault kinds (SPEC section 3), faults and the report.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::hash::Hash;

/// The kinds of fault a verifier reports, with the names SPEC section 3 gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FaultKind {
    /// The line is JSON but not an object.
    NotAnObject,
    /// A required member is absent, or `kind` is not a non-empty string.
    MissingFields,
    /// A member other than the five of a record.
    UnexpectedFields,
    /// A number in the record has no canonical encoding, so no hash can be computed.
    UnserialisablePayload,
    /// The stored `hash` is malformed or not the SHA-256 of the record.
    HashMismatch,
    /// `seq` is not the previous record's `seq` + 1 (or is not a number).
    SeqGap,
    /// `prev` is malformed or not the stored `hash` of the record before.
    PrevMismatch,
    /// The line's bytes are not the canonical encoding of its content.
    NotCanonical,
    /// The line is not I-JSON the parser accepts (or is empty, or too long).
    BadJson,
    /// The last line has no terminating newline.
    TornTail,
    /// The file cannot be opened or read.
    Unreadable,
    /// The transcript has fewer records than the checkpoint.
    Truncated,
    /// Record `count − 1` does not carry the checkpoint's head.
    HeadMismatch,
    /// The transcript is not a well-formed run of the loop (`verify --loop`; see
    /// [`crate::audit`]). Not a chain fault: the SPEC allows new kinds.
    LoopMalformed,
}

impl FaultKind {
    /// Every kind, in the order the SPEC lists them (then the loop audit's).
    pub const ALL: [FaultKind; 14] = [
        FaultKind::NotAnObject,
        FaultKind::MissingFields,
        FaultKind::UnexpectedFields,
        FaultKind::UnserialisablePayload,
        FaultKind::HashMismatch,
        FaultKind::SeqGap,
        FaultKind::PrevMismatch,
        FaultKind::NotCanonical,
        FaultKind::BadJson,
        FaultKind::TornTail,
        FaultKind::Unreadable,
        FaultKind::Truncated,
        FaultKind::HeadMismatch,
        FaultKind::LoopMalformed,
    ];

    /// The SPEC's name for the kind, e.g. `"hash_mismatch"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::NotAnObject => "not_an_object",
            FaultKind::MissingFields => "missing_fields",
            FaultKind::UnexpectedFields => "unexpected_fields",
            FaultKind::UnserialisablePayload => "unserialisable_payload",
            FaultKind::HashMismatch => "hash_mismatch",
            FaultKind::SeqGap => "seq_gap",
            FaultKind::PrevMismatch => "prev_mismatch",
            FaultKind::NotCanonical => "not_canonical",
            FaultKind::BadJson => "bad_json",
            FaultKind::TornTail => "torn_tail",
            FaultKind::Unreadable => "unreadable",
            FaultKind::Truncated => "truncated",
            FaultKind::HeadMismatch => "head_mismatch",
            FaultKind::LoopMalformed => "loop_malformed",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
