//! Which members or items of a value the keywords applied to it evaluated.

use alloc::vec::Vec;

/// Which members (by position in canonical order) or items (by index) of one value the
/// keywords applied to it evaluated: what `unevaluated*` leaves alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    all: bool,
    bits: Vec<u64>,
}

impl Marks {
    pub(super) fn mark(&mut self, i: usize) {
        if self.all {
            return;
        }
        let word = i / 64;
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (i % 64);
    }

    pub(super) fn mark_all(&mut self) {
        self.all = true;
        self.bits = Vec::new();
    }

    pub(super) fn has(&self, i: usize) -> bool {
        self.all
            || self
                .bits
                .get(i / 64)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub(super) fn merge(&mut self, other: &Marks) {
        if self.all {
            return;
        }
        if other.all {
            self.mark_all();
            return;
        }
        if self.bits.len() < other.bits.len() {
            self.bits.resize(other.bits.len(), 0);
        }
        for (mine, theirs) in self.bits.iter_mut().zip(&other.bits) {
            *mine |= theirs;
        }
    }
}
