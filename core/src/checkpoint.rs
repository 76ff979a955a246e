//! Checkpoints: `(count, head)` held outside the transcript, the only way to detect a
//! cut tail (SPEC section 3), and what one says about a transcript once it is read.
//! Needs no allocator; the text form (`Checkpoint::parse`, `Checkpoint::to_text`)
//! comes with the `alloc` feature.

use crate::hash::Hash;

/// An external expectation: the transcript has at least `count` records, and record
/// `count − 1` carries `head`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// How many records the transcript had.
    pub count: u64,
    /// The `hash` of record `count − 1` (for `count == 0`, the anchor's `prev0`).
    pub head: Option<Hash>,
}

/// What a checkpoint says about a transcript whose records are all read: the facts
/// each verifier words as its own `truncated` or `head_mismatch` fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The transcript has fewer records than the checkpoint covers: `truncated`.
    Truncated,
    /// The transcript reaches the checkpoint, with `beyond` records past it.
    Reached {
        /// Records past the checkpoint.
        beyond: u64,
        /// Set when record `count − 1` does not carry the checkpoint's head.
        mismatch: Option<HeadMismatch>,
    },
}

/// A `head_mismatch`: where, what the checkpoint expects and what was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeadMismatch {
    /// The record at fault, `count − 1` (`None` for a checkpoint of count 0).
    pub index: Option<u64>,
    /// The checkpoint's head.
    pub head: Hash,
    /// The stored hash of record `count − 1` (the anchor's `prev0` for count 0), if
    /// well-formed.
    pub found: Option<Hash>,
}

impl Checkpoint {
    /// Judges a transcript of `count` records against the checkpoint, given the stored
    /// hash of record `self.count − 1` (`at_checkpoint`, if it was read and well-formed)
    /// and the anchor's `prev0` (what a checkpoint of count 0 names).
    pub(crate) fn verdict(self, count: u64, at_checkpoint: Option<Hash>, prev0: Hash) -> Verdict {
        if count < self.count {
            return Verdict::Truncated;
        }
        let found = if self.count == 0 {
            Some(prev0)
        } else {
            at_checkpoint
        };
        let mismatch = match self.head {
            Some(head) if found != Some(head) => Some(HeadMismatch {
                index: self.count.checked_sub(1),
                head,
                found,
            }),
            _ => None,
        };
        Verdict::Reached {
            beyond: count - self.count,
            mismatch,
        }
    }
}
