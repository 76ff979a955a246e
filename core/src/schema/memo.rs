//! Remembered verdicts of shared nodes for one validation run, keyed by (node, address
//! of the value).
//!
//! A tool-argument schema reaches only a handful of shared (`$ref` target) nodes per
//! call, so the first [`INLINE`] entries live in an array on the stack and a run that
//! needs no more allocates nothing; beyond that they spill into a `BTreeMap`, which
//! keeps lookups logarithmic however large the instance.

use alloc::collections::BTreeMap;

use super::tree::NodeId;

/// (node, address of the value): a shared node applied to one value of the instance.
/// The instance is borrowed for the whole run, so each value keeps its address.
pub(crate) type Key = (NodeId, usize);

/// Entries kept before spilling into the map.
const INLINE: usize = 8;

/// A map from [`Key`] to a verdict that starts on the stack.
pub(crate) struct Memo {
    inline: [(Key, bool); INLINE],
    used: usize,
    spilled: BTreeMap<Key, bool>,
}

impl Memo {
    /// An empty memo (allocates nothing).
    pub(crate) fn new() -> Self {
        Memo {
            inline: [((0, 0), false); INLINE],
            used: 0,
            spilled: BTreeMap::new(),
        }
    }

    /// The verdict remembered for `key`.
    pub(crate) fn get(&self, key: Key) -> Option<bool> {
        let inline = self.inline[..self.used].iter().find(|(k, _)| *k == key);
        match inline {
            Some(&(_, ok)) => Some(ok),
            None => self.spilled.get(&key).copied(),
        }
    }

    /// Remembers `ok` for `key` (replacing an earlier verdict).
    pub(crate) fn insert(&mut self, key: Key, ok: bool) {
        if let Some(entry) = self.inline[..self.used].iter_mut().find(|(k, _)| *k == key) {
            entry.1 = ok;
        } else if self.used < INLINE {
            self.inline[self.used] = (key, ok);
            self.used += 1;
        } else {
            self.spilled.insert(key, ok);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_past_the_inline_entries() {
        let mut memo = Memo::new();
        for n in 0..3 * INLINE {
            assert_eq!(memo.get((n, 7)), None);
            memo.insert((n, 7), n % 2 == 0);
        }
        for n in 0..3 * INLINE {
            assert_eq!(memo.get((n, 7)), Some(n % 2 == 0), "{n}");
            assert_eq!(memo.get((n, 8)), None);
        }
        memo.insert((1, 7), true);
        memo.insert((2 * INLINE + 1, 7), true);
        assert_eq!(memo.get((1, 7)), Some(true));
        assert_eq!(memo.get((2 * INLINE + 1, 7)), Some(true));
    }

    #[test]
    fn the_first_entries_stay_inline_and_allocate_nothing() {
        let mut memo = Memo::new();
        for n in 0..INLINE {
            memo.insert((n, 7), true);
            // Replacing a verdict takes no new entry.
            memo.insert((n, 7), false);
        }
        assert_eq!(memo.used, INLINE);
        assert!(memo.spilled.is_empty(), "a map node was allocated");
        memo.insert((INLINE, 7), true);
        assert_eq!((memo.used, memo.spilled.len()), (INLINE, 1));
        assert_eq!(memo.get((0, 7)), Some(false));
    }
}
