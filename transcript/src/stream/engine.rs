//! The record and chain checks, once, for both verifiers: fixed state, no allocation.
//!
//! An [`Engine`] takes each line's outcome in order — a line that could not be read as a
//! record ([`Engine::unread`]), the [`Facts`] of a record ([`Engine::record`]), or the
//! facts of a line the fast path sealed ([`Engine::sealed`]) — and keeps what the chain
//! needs between records: the count, the `seq` the next record must carry, the stored
//! hash it must name as `prev`, the Merkle tree, the hash at the checkpoint's count.
//! [`Engine::finish`] applies the checkpoint. Faults go into a [`Faults`] list, which
//! keeps at most the engine's cap and counts the rest.
//!
//! The streaming verifier ([`super::StreamVerifier`]) gets the facts from the bytes as
//! they arrive; the allocating one (`verify::Verifier`) from the fast path or from a
//! parsed value. So the order of the checks, the seq counting, the `prev` and hash
//! verdicts, the checkpoint's and every detail are the same in both by construction.

use heapless::String;

use super::report::{Finding, Found, StreamFault, NAME_BYTES};
use super::{checkpoint_outcome, NumberProblem, Place, Sealed};
use crate::anchor::{seq_of, Anchor};
use crate::checkpoint::{Checkpoint, Tree};
use crate::fault_kind::FaultKind;
use crate::hash::Hash;

/// A report's fault list, as the engine fills it.
pub trait Faults {
    /// Faults kept so far.
    fn kept(&self) -> usize;
    /// Keeps a fault (the engine has checked the cap).
    fn keep(&mut self, fault: StreamFault);
    /// Puts a checkpoint's fault in its place, whatever the cap.
    fn place(&mut self, place: Place, fault: StreamFault);
}

impl<const N: usize> Faults for heapless::Vec<StreamFault, N, u8> {
    fn kept(&self) -> usize {
        self.len()
    }

    fn keep(&mut self, fault: StreamFault) {
        let _ = self.push(fault);
    }

    fn place(&mut self, place: Place, fault: StreamFault) {
        let at = place.index(self, &fault);
        let _ = self.insert(at, fault);
    }
}

/// Where a fault is: the record's 0-based index and, when read from lines, its 1-based
/// line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    /// 0-based index of the record.
    pub index: u64,
    /// 1-based line number (`None` for records given already parsed).
    pub line: Option<u64>,
}

/// What a record holds, as far as the checks need it.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// Bit `i` set: member `record::FIELDS[i]` is absent.
    pub absent: u8,
    /// A present `kind` that is not a non-empty string.
    pub kind: Option<Found>,
    /// Members other than the five.
    pub unexpected: u64,
    /// The first of them, its name's start.
    pub first_unexpected: String<NAME_BYTES>,
    /// The first number with no canonical encoding (then the hash is not computed).
    pub unserialisable: Option<NumberProblem>,
    /// `hash`: 64 lowercase hex digits, or what it was.
    pub hash: Option<Result<Hash, Found>>,
    /// SHA-256 of the canonical encoding of the record without `hash`, if it has one.
    pub computed: Option<Hash>,
    /// `seq`: a finite number, or what it was.
    pub seq: Option<Result<f64, Found>>,
    /// `prev`: 64 lowercase hex digits, or what it was.
    pub prev: Option<Result<Hash, Found>>,
}

/// What [`Engine::finish`] found besides the faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// Records read.
    pub count: u64,
    /// The stored hash of the last record (`prev0` before any), if well-formed.
    pub head: Option<Hash>,
    /// The Merkle root of every record, if each had a well-formed hash.
    pub root: Option<Hash>,
    /// The stored hash of record 0, if well-formed.
    pub first: Option<Hash>,
    /// Faults found but not kept.
    pub faults_omitted: u64,
    /// With a checkpoint the transcript reaches: records beyond it.
    pub beyond_checkpoint: Option<u64>,
}

/// The chain's state between records and the checks of each record.
#[derive(Debug, Clone)]
pub struct Engine {
    prev0: Hash,
    checkpoint: Option<Checkpoint>,
    max_faults: usize,
    count: u64,
    /// The `seq` the next record must carry (past `MAX_SEQ` once the chain has reached
    /// it: then no record is right).
    expected_seq: u64,
    /// The stored hash of the record before, if it had a well-formed one.
    prev: Option<Hash>,
    at_checkpoint: Option<Hash>,
    /// The Merkle tree of the records read (RFC 6962), in fixed space.
    tree: Tree,
    faults_omitted: u64,
}

impl Engine {
    /// An engine before the first record, keeping at most `max_faults` record faults.
    pub fn new(anchor: Anchor, checkpoint: Option<Checkpoint>, max_faults: usize) -> Self {
        Engine {
            prev0: anchor.prev0,
            checkpoint,
            max_faults,
            count: 0,
            expected_seq: anchor.seq0,
            prev: Some(anchor.prev0),
            at_checkpoint: None,
            tree: Tree::new(),
            faults_omitted: 0,
        }
    }

    /// Records counted so far.
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Counts the next record and says where it is.
    #[inline]
    pub fn next(&mut self, lines: bool) -> At {
        let index = self.count;
        self.count += 1;
        At {
            index,
            line: lines.then_some(index + 1),
        }
    }

    /// Keeps a fault, or counts it when the cap is reached.
    pub fn fault(&mut self, faults: &mut impl Faults, at: At, kind: FaultKind, detail: Finding) {
        if faults.kept() < self.max_faults {
            faults.keep(StreamFault {
                index: Some(at.index),
                line: at.line,
                kind,
                detail: detail.into(),
            });
        } else {
            self.faults_omitted += 1;
        }
    }

    /// A record that could not be read (its fault already given): its hash is unknown,
    /// so the next `prev` is not checked, and `seq` counting goes on by one.
    pub fn unread(&mut self) {
        self.expected_seq = self.expected_seq.saturating_add(1);
        self.done(None);
    }

    /// The checks of one record, in the SPEC's table order: members, unexpected members,
    /// numbers with no canonical encoding, `hash`, `seq`, `prev`.
    pub fn record(&mut self, faults: &mut impl Faults, at: At, facts: Facts) {
        if facts.absent != 0 || facts.kind.is_some() {
            let detail = Finding::Missing {
                absent: facts.absent,
                kind: facts.kind,
            };
            self.fault(faults, at, FaultKind::MissingFields, detail);
        }
        if facts.unexpected > 0 {
            let detail = Finding::Unexpected {
                count: facts.unexpected,
                first: facts.first_unexpected,
            };
            self.fault(faults, at, FaultKind::UnexpectedFields, detail);
        }
        if let Some(problem) = facts.unserialisable {
            let detail = Finding::Unserialisable { problem };
            self.fault(faults, at, FaultKind::UnserialisablePayload, detail);
        }
        let stored = match facts.hash {
            None => None,
            Some(Err(found)) => {
                let detail = Finding::HashMalformed { found };
                self.fault(faults, at, FaultKind::HashMismatch, detail);
                None
            }
            Some(Ok(stored)) => {
                if let Some(computed) = facts.computed {
                    self.compare_hash(faults, at, stored, computed);
                }
                Some(stored)
            }
        };
        match facts.seq {
            None => self.expected_seq = self.expected_seq.saturating_add(1),
            Some(Ok(n)) => self.seq_number(faults, at, n),
            Some(Err(found)) => {
                let expected = self.expected_seq;
                let detail = Finding::SeqGap { expected, found };
                self.fault(faults, at, FaultKind::SeqGap, detail);
                self.expected_seq = expected.saturating_add(1);
            }
        }
        match facts.prev {
            None => {}
            Some(Err(found)) => {
                let detail = Finding::PrevMalformed { found };
                self.fault(faults, at, FaultKind::PrevMismatch, detail);
            }
            Some(Ok(prev)) => self.prev_hash(faults, at, prev),
        }
        self.done(stored);
    }

    /// The checks left for a line the fast path sealed: its members are all there,
    /// well-formed, and it is canonical, so only the hash, `seq` and `prev` can be
    /// wrong (as [`Engine::record`] would find them).
    #[inline]
    pub fn sealed(&mut self, faults: &mut impl Faults, at: At, sealed: &Sealed) {
        self.compare_hash(faults, at, sealed.stored, sealed.computed);
        self.seq_number(faults, at, sealed.seq);
        self.prev_hash(faults, at, sealed.prev);
        self.done(Some(sealed.stored));
    }

    /// The input ended with `len` bytes and no `\n`: a torn last append (not counted);
    /// `complete` when those bytes, given a `\n`, would be a record with no fault.
    pub fn torn_tail(&mut self, faults: &mut impl Faults, len: u64, complete: bool) {
        let at = At {
            index: self.count,
            line: Some(self.count + 1),
        };
        let detail = if complete {
            Finding::UnterminatedRecord { len }
        } else {
            Finding::TornTail { len }
        };
        self.fault(faults, at, FaultKind::TornTail, detail);
    }

    /// Faults found but not kept (past the cap).
    #[inline]
    pub fn faults_omitted(&self) -> u64 {
        self.faults_omitted
    }

    /// Applies the checkpoint, if any: its fault is put in its place, whatever the cap.
    pub fn finish(&self, faults: &mut impl Faults) -> Ending {
        let mut beyond_checkpoint = None;
        if let Some(cp) = self.checkpoint {
            let verdict = cp.verdict(self.count, self.at_checkpoint, self.prev0, &self.tree);
            let (fault, beyond) = checkpoint_outcome(cp, self.count, verdict);
            beyond_checkpoint = beyond;
            if let Some((place, fault)) = fault {
                faults.place(place, fault);
            }
        }
        Ending {
            count: self.count,
            head: self.prev,
            root: self.tree.root(),
            first: self.tree.first(),
            faults_omitted: self.faults_omitted,
            beyond_checkpoint,
        }
    }

    fn compare_hash(&mut self, faults: &mut impl Faults, at: At, stored: Hash, computed: Hash) {
        if computed != stored {
            let detail = Finding::HashDiffers { stored, computed };
            self.fault(faults, at, FaultKind::HashMismatch, detail);
        }
    }

    /// A finite `seq`: compared with the one expected. Counting goes on from a `seq`
    /// that is an integer from 0 to `MAX_SEQ`; any other number (a fraction, a
    /// negative, past the limit) is always a `seq_gap` and gives nothing to count on
    /// from, so the expectation moves on by one.
    fn seq_number(&mut self, faults: &mut impl Faults, at: At, n: f64) {
        let expected = self.expected_seq;
        let seq = seq_of(n);
        if seq != Some(expected) {
            let detail = Finding::SeqGap {
                expected,
                found: Found::Number(n),
            };
            self.fault(faults, at, FaultKind::SeqGap, detail);
        }
        self.expected_seq = match seq {
            Some(seq) => seq + 1,
            None => expected.saturating_add(1),
        };
    }

    /// A well-formed `prev`: compared with the stored hash of the record before, if known.
    fn prev_hash(&mut self, faults: &mut impl Faults, at: At, found: Hash) {
        if let Some(expected) = self.prev {
            if found != expected {
                let detail = Finding::PrevDiffers {
                    expected,
                    found,
                    index: at.index,
                };
                self.fault(faults, at, FaultKind::PrevMismatch, detail);
            }
        }
    }

    /// The last step for every record, in order: its stored hash (if well-formed)
    /// becomes the `prev` the next record must carry, and a leaf of the Merkle tree.
    fn done(&mut self, stored: Option<Hash>) {
        self.prev = stored;
        self.tree.push(self.count, stored, self.checkpoint);
        if self.checkpoint.is_some_and(|cp| cp.count == self.count) {
            self.at_checkpoint = stored;
        }
    }
}
