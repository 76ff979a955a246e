//! What a verifier reports: faults and the report.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::hash::Hash;

/// One fault: where, what kind, and a [`Detail`] naming what was expected and found.
///
/// The streaming verifier's fault type ([`crate::stream::StreamFault`]) with this module's
/// [`Detail`]: a fault the record and chain checks found carries the same fixed-size
/// detail, and so the same sentence, in both verifiers.
pub type Fault = crate::stream::StreamFault<Detail>;

/// What a fault of a [`Report`] found; its `Display` is the detail sentence.
///
/// For every fault the record and chain checks find (all the verifier itself finds but
/// `unreadable`), the fixed-size detail both verifiers report ([`Detail::check`]);
/// otherwise a sentence from outside those checks: the input could not be read
/// (`unreadable`), a checkpoint's own faults and their judging (`tlog`), the loop audit
/// (`loop_malformed`). Made from either with `From`.
#[derive(Clone, PartialEq, Eq)]
pub struct Detail(Said);

/// What a [`Detail`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Said {
    /// What the record and chain checks found.
    Check(crate::stream::StreamDetail),
    /// A sentence from outside the record checks.
    Text(String),
}

impl Detail {
    /// The fixed-size detail, when the record and chain checks found the fault.
    pub fn check(&self) -> Option<&crate::stream::StreamDetail> {
        match &self.0 {
            Said::Check(detail) => Some(detail),
            Said::Text(_) => None,
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Said::Check(detail) => detail.fmt(f),
            Said::Text(text) => f.write_str(text),
        }
    }
}

/// As what it holds (`Check(…)`, `Text("…")`).
impl fmt::Debug for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<crate::stream::StreamDetail> for Detail {
    fn from(detail: crate::stream::StreamDetail) -> Self {
        Detail(Said::Check(detail))
    }
}

impl From<String> for Detail {
    fn from(text: String) -> Self {
        Detail(Said::Text(text))
    }
}

impl From<&str> for Detail {
    fn from(text: &str) -> Self {
        Detail(Said::Text(String::from(text)))
    }
}

/// The facts of a fault the record and chain checks found, as a detail.
impl From<crate::finding::Finding> for Detail {
    fn from(finding: crate::finding::Finding) -> Self {
        Detail(Said::Check(finding.into()))
    }
}

/// A streaming fault's detail as this verifier's: `Fault::from(stream_fault)` keeps its
/// place, kind and sentence.
impl crate::finding::FromStreamDetail for Detail {
    fn from_stream_detail(detail: crate::stream::StreamDetail) -> Self {
        Detail(Said::Check(detail))
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
