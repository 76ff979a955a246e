//! Remembered verdicts of shared nodes for one validation run, keyed by (node, address
//! of the value, dynamic scope).
//!
//! A tool-argument schema reaches only a handful of shared (`$ref` target) nodes per
//! call, so the first [`INLINE`] entries live in an array on the stack and a run that
//! needs no more allocates nothing; beyond that they spill into a `BTreeMap`, which
//! keeps lookups logarithmic however large the instance.

use alloc::collections::BTreeMap;

use super::tree::NodeId;

/// (node, address of the value, dynamic scope): a shared node applied to one value of
/// the instance in one dynamic scope. The instance is borrowed for the whole run, so
/// each value keeps its address.
pub(crate) type Key = (NodeId, usize, u32);

/// Entries kept before spilling into the map.
const INLINE: usize = 8;

/// A map from [`Key`] to `T` that starts on the stack.
pub(crate) struct Memo<T> {
    inline: [(Key, Option<T>); INLINE],
    used: usize,
    spilled: BTreeMap<Key, T>,
}

impl<T: Clone> Memo<T> {
    /// An empty memo (allocates nothing).
    pub(crate) fn new() -> Self {
        Memo {
            inline: core::array::from_fn(|_| ((0, 0, 0), None)),
            used: 0,
            spilled: BTreeMap::new(),
        }
    }

    /// The entry remembered for `key`.
    pub(crate) fn get(&self, key: Key) -> Option<&T> {
        let inline = self.inline[..self.used].iter().find(|(k, _)| *k == key);
        match inline {
            Some((_, entry)) => entry.as_ref(),
            None => self.spilled.get(&key),
        }
    }

    /// Remembers `entry` for `key` (replacing an earlier one).
    pub(crate) fn insert(&mut self, key: Key, entry: T) {
        if let Some(slot) = self.inline[..self.used].iter_mut().find(|(k, _)| *k == key) {
            slot.1 = Some(entry);
        } else if self.used < INLINE {
            self.inline[self.used] = (key, Some(entry));
            self.used += 1;
        } else {
            self.spilled.insert(key, entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_entries_stay_inline_and_the_rest_spill() {
        let mut memo: Memo<bool> = Memo::new();
        for i in 0..INLINE {
            memo.insert((i, 0, 0), i % 2 == 0);
        }
        assert!(memo.spilled.is_empty());
        memo.insert((INLINE, 0, 0), true);
        assert_eq!(memo.spilled.len(), 1);
        for i in 0..=INLINE {
            assert_eq!(memo.get((i, 0, 0)), Some(&(i % 2 == 0 || i == INLINE)));
        }
        assert_eq!(memo.get((0, 0, 1)), None, "another scope is another key");
        memo.insert((0, 0, 0), false);
        assert_eq!(memo.get((0, 0, 0)), Some(&false));
    }
}
