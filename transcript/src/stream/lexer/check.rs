//! [`check_canonical`]: a whole document at once.

use core::fmt;

use super::events::Observer;
use super::{Lexer, NumberProblem, Stop};

/// Where a canonical-form check of a whole document stopped, and why: its `Display` is
/// the sentence (not JSON, not canonical, past a limit of the checker, or a number with
/// no canonical form, at which byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckError {
    /// 0-based byte offset of the byte that stopped it (the length for an early end).
    pub(crate) offset: usize,
    /// Why: not JSON, not canonical, past a limit, or a number with no canonical form.
    pub(crate) reason: CheckReason,
}

impl CheckError {
    /// 0-based byte offset of the byte that stopped the check (the length for an early
    /// end; for a number with no canonical form, the end of that number).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the check stopped at a fixed limit of the checker (a key, or the keys of
    /// the open objects, too long), not at a fault of the document: canonical bytes past
    /// a limit are refused all the same.
    pub fn past_limit(&self) -> bool {
        matches!(self.reason, CheckReason::Stop(Stop::Limit(_)))
    }

    /// Why, as the checker's kinds (agentloop-core's tests read them).
    #[doc(hidden)]
    pub fn reason(&self) -> CheckReason {
        self.reason
    }
}

/// Why a document is not accepted as canonical.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckReason {
    /// Stopped reading (see [`Stop`]).
    Stop(Stop),
    /// A number has no canonical encoding.
    Unserialisable(NumberProblem),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            CheckReason::Stop(Stop::Bad(s)) => write!(f, "not JSON: {s}")?,
            CheckReason::Stop(Stop::NotCanonical(d)) => {
                write!(f, "not in canonical (RFC 8785) form: {d}")?
            }
            CheckReason::Stop(Stop::Limit(l)) => write!(f, "past a limit: {l}")?,
            CheckReason::Unserialisable(p) => write!(f, "no canonical encoding: {p}")?,
        }
        write!(f, " at byte {}", self.offset)
    }
}

impl core::error::Error for CheckError {}

/// The first number with no canonical encoding, and where it ended.
#[derive(Default)]
struct FirstProblem {
    first: Option<(NumberProblem, usize)>,
    /// Set once the whole input was read: the offset a problem found at the end gets.
    ending: Option<usize>,
}

impl Observer for FirstProblem {
    fn unserialisable(&mut self, problem: NumberProblem, offset: usize) {
        let offset = self.ending.unwrap_or(offset);
        self.first.get_or_insert((problem, offset));
    }
}

/// Checks that `bytes` are exactly the canonical encoding of one JSON document nested
/// at most `max_depth` deep, within the checker's limits. No allocation.
pub fn check_canonical(bytes: &[u8], max_depth: usize) -> Result<(), CheckError> {
    let mut lexer = Lexer::new(max_depth);
    let mut first = FirstProblem::default();
    lexer
        .push(bytes, &mut first)
        .map_err(|(offset, stop)| CheckError {
            offset,
            reason: CheckReason::Stop(stop),
        })?;
    first.ending = Some(bytes.len());
    lexer.end(&mut first).map_err(|stop| CheckError {
        offset: bytes.len(),
        reason: CheckReason::Stop(stop),
    })?;
    match first.first {
        Some((problem, offset)) => Err(CheckError {
            offset,
            reason: CheckReason::Unserialisable(problem),
        }),
        None => Ok(()),
    }
}
