//! What the streaming verifier reports: fixed-size details, faults, the report.

use core::fmt;

use heapless::Vec;

use crate::fault_kind::FaultKind;
use crate::hash::Hash;

pub(crate) mod detail;
pub(crate) mod found;

pub use detail::{Finding, StreamDetail};
use found::Spelled;
pub use found::{name_start, Found, EXCERPT_BYTES};

/// Line faults a [`StreamReport`] keeps; the rest are counted in
/// [`StreamReport::faults_omitted`]. A checkpoint fault is always kept (one more slot).
pub const MAX_FAULTS: usize = 8;

/// The bytes of the first unexpected member's name kept for a detail sentence.
pub const NAME_BYTES: usize = 24;

/// One fault: where, what kind, and a detail whose `Display` is a sentence.
///
/// The one fault type of both verifiers: the streaming verifier's detail is a
/// fixed-size [`StreamDetail`]; the allocating verifier's (`verify::Fault`, this type with
/// `verify::Detail`) is the same [`StreamDetail`] for every fault the record and chain checks
/// find, or a sentence from a layer above (an unreadable input, a checkpoint's
/// signature, the loop audit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamFault<D = StreamDetail> {
    /// 0-based position of the record (the line) in the transcript.
    pub index: Option<u64>,
    /// 1-based line number (`None` for `truncated`: that record is not in the input).
    pub line: Option<u64>,
    /// What is wrong.
    pub kind: FaultKind,
    /// What was expected and what was found.
    pub detail: D,
}

/// A richer fault detail that holds any [`StreamDetail`]: agentloop-core's
/// `verify::Detail` (`Detail::check`). It lets `StreamFault::<D>::from` widen a streaming
/// fault into that verifier's fault with the same place, kind and sentence.
pub trait FromStreamDetail {
    /// The detail that says what `detail` says.
    fn from_stream_detail(detail: StreamDetail) -> Self;
}

impl<D: FromStreamDetail> From<StreamFault> for StreamFault<D> {
    fn from(fault: StreamFault) -> Self {
        StreamFault {
            index: fault.index,
            line: fault.line,
            kind: fault.kind,
            detail: D::from_stream_detail(fault.detail),
        }
    }
}

impl<D: fmt::Display> fmt::Display for StreamFault<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.index) {
            (Some(line), _) => write!(f, "line {line}: ")?,
            (None, Some(index)) => write!(f, "record {index}: ")?,
            (None, None) => {}
        }
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// The result of a streaming verification.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamReport {
    /// Records read (complete lines; a torn tail is not counted).
    pub count: u64,
    /// The stored `hash` of the last record (`prev0` for an empty transcript); `None`
    /// when the last record has no well-formed hash or was not read to the end.
    /// Not meaningful when there are faults.
    pub head: Option<Hash>,
    /// The RFC 6962 Merkle root of all records read (leaf `i`: record `i`'s stored
    /// `hash`); `None` when a record has no well-formed hash. Not meaningful when
    /// there are faults.
    pub root: Option<Hash>,
    /// The stored `hash` of record 0, if it is well-formed: what a default checkpoint
    /// origin names (`agentloop/transcript/<hex>`), as in `verify::Report`.
    pub first: Option<Hash>,
    /// Faults in line order: at most [`MAX_FAULTS`] line faults, then a checkpoint
    /// fault in its place (always kept).
    pub faults: Vec<StreamFault, { MAX_FAULTS + 1 }, u8>,
    /// Faults found but left out of `faults`.
    pub faults_omitted: u64,
    /// With a checkpoint: how many records lie beyond it (information, not a fault).
    pub beyond_checkpoint: Option<u64>,
}

impl StreamReport {
    /// Whether the transcript verified: no fault at all.
    pub fn ok(&self) -> bool {
        self.faults.is_empty() && self.faults_omitted == 0
    }
}
