//! Checkpoints: `(count, head)` — and with a C2SP checkpoint the Merkle root and the
//! transcript it names — held outside the transcript, the only way to detect a cut
//! tail (SPEC section 3), and what one says about a transcript once it is read.
//! Needs no allocator; `Checkpoint::to_text` comes with the `alloc` feature, reading the
//! text forms with agentloop-core (`verify::ParseCheckpoint`, `tlog`).

use crate::hash::Hash;
use crate::merkle::{empty_root, record_leaf, CompactRange};

/// An external expectation: the transcript has at least `count` records, and record
/// `count − 1` carries `head`; the Merkle tree of its first `count` records has `root`,
/// and its record 0 carries `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checkpoint {
    /// How many records the transcript had.
    pub count: u64,
    /// The `hash` of record `count − 1` (for `count == 0`, the anchor's `prev0`).
    pub head: Option<Hash>,
    /// The RFC 6962 Merkle root of records `0..count` (leaf `i`: record `i`'s `hash`).
    pub root: Option<Hash>,
    /// The `hash` of record 0, which a default origin names
    /// (`agentloop/transcript/<hex>`): another transcript is
    /// `checkpoint_origin_mismatch`.
    pub first: Option<Hash>,
}

/// What a checkpoint says about a transcript whose records are all read: the facts
/// each verifier words as its own fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Record 0 is not the one the checkpoint's origin names: the checkpoint is for
    /// another transcript, and nothing else is judged (`checkpoint_origin_mismatch`).
    OriginMismatch {
        /// The hash the origin names.
        expected: Hash,
        /// The stored hash of record 0, if well-formed.
        found: Option<Hash>,
    },
    /// The transcript has fewer records than the checkpoint covers: `truncated`.
    Truncated,
    /// The transcript reaches the checkpoint, with `beyond` records past it.
    Reached {
        /// Records past the checkpoint.
        beyond: u64,
        /// Set when record `count − 1` does not carry the checkpoint's head, or the
        /// first `count` records do not give its root.
        mismatch: Option<HeadMismatch>,
    },
}

/// A `head_mismatch`: where, what the checkpoint expects and what was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadMismatch {
    /// The record at fault, `count − 1` (`None` for a checkpoint of count 0).
    pub index: Option<u64>,
    /// The checkpoint's head, when it is the head that differs.
    pub head: Option<Hash>,
    /// The stored hash of record `count − 1` (the anchor's `prev0` for count 0), if
    /// well-formed.
    pub found: Option<Hash>,
    /// When the head agrees (or is not given) but the root differs: the checkpoint's
    /// root and the one the records give (`None`: a record has no well-formed hash).
    pub root: Option<(Hash, Option<Hash>)>,
}

/// The Merkle tree both verifiers grow, one leaf per record, in fixed space.
#[derive(Debug, Clone)]
pub struct Tree {
    range: CompactRange,
    /// Cleared at the first record without a well-formed hash: no root after it.
    complete: bool,
    first: Option<Hash>,
    at_checkpoint: Option<Hash>,
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

impl Tree {
    /// The tree of no records.
    pub fn new() -> Self {
        Tree {
            range: CompactRange::new(),
            complete: true,
            first: None,
            at_checkpoint: None,
        }
    }

    /// Adds record `count − 1` (`count` counts it), whose stored hash is `stored`.
    pub fn push(&mut self, count: u64, stored: Option<Hash>, cp: Option<Checkpoint>) {
        if count == 1 {
            self.first = stored;
        }
        match stored {
            Some(hash) if self.complete => {
                // A transcript never reaches 2^64 − 1 records (seq stops at 2^53).
                self.complete = self.range.push(record_leaf(&hash)).is_ok();
            }
            _ => self.complete = false,
        }
        if cp.is_some_and(|cp| cp.count == count) {
            self.at_checkpoint = self.root();
        }
    }

    /// The stored hash of record 0, if it was read and well-formed.
    pub fn first(&self) -> Option<Hash> {
        self.first
    }

    /// The Merkle root of every record read, if each had a well-formed hash.
    pub fn root(&self) -> Option<Hash> {
        self.complete.then(|| self.range.root())
    }
}

impl Checkpoint {
    /// Judges a transcript of `count` records against the checkpoint, given the stored
    /// hash of record `self.count − 1` (`at_checkpoint`, if it was read and well-formed),
    /// the anchor's `prev0` (what a checkpoint of count 0 names) and the records' tree.
    #[doc(hidden)]
    pub fn verdict(
        self,
        count: u64,
        at_checkpoint: Option<Hash>,
        prev0: Hash,
        tree: &Tree,
    ) -> Verdict {
        if let Some(expected) = self.first {
            if count > 0 && tree.first != Some(expected) {
                return Verdict::OriginMismatch {
                    expected,
                    found: tree.first,
                };
            }
        }
        if count < self.count {
            return Verdict::Truncated;
        }
        let found = if self.count == 0 {
            Some(prev0)
        } else {
            at_checkpoint
        };
        let root_found = if self.count == 0 {
            Some(empty_root())
        } else {
            tree.at_checkpoint
        };
        let head_differs = self.head.is_some_and(|head| found != Some(head));
        let root_differs = self.root.filter(|root| root_found != Some(*root));
        let mismatch = (head_differs || root_differs.is_some()).then_some(HeadMismatch {
            index: self.count.checked_sub(1),
            head: self.head.filter(|_| head_differs),
            found,
            root: root_differs
                .filter(|_| !head_differs)
                .map(|root| (root, root_found)),
        });
        Verdict::Reached {
            beyond: count - self.count,
            mismatch,
        }
    }
}
