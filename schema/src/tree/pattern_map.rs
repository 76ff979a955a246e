//! A compiled `patternProperties`: each pattern with its schema, and the schemas whose
//! pattern matches a member name. A few patterns are tried one by one; many are also
//! compiled into one automaton ([`PatternGroup`]) that reads the name once and says
//! which of them match, so a member costs its name's length, not the pattern count
//! times it.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::{NodeId, SCAN_AT_MOST};
use crate::pattern::{Pattern, PatternGroup, Unfinished};

/// Above this many patterns, a `patternProperties` compiles those that may join into a
/// [`PatternGroup`].
pub(crate) const GROUP_ABOVE: usize = SCAN_AT_MOST;

/// The entries of a `patternProperties`, in canonical key order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PatternMap {
    entries: Vec<Entry>,
    /// The automaton of the entries that joined it, if any did.
    group: Option<Box<Group>>,
}

/// One pattern and its schema.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// The pattern as written (what equality compares).
    source: String,
    node: NodeId,
    /// Its own automaton, or its pattern in the group.
    how: How,
}

/// How an entry's pattern is matched: alone, or as the pattern of this number in the
/// group.
#[derive(Debug, Clone, PartialEq)]
enum How {
    Alone(Pattern),
    Grouped(usize),
}

/// A group and, for each of its patterns in order, the entry it stands for.
#[derive(Debug, Clone)]
struct Group {
    automaton: PatternGroup,
    entries: Vec<usize>,
}

/// Groups are equal when they hold the same entries (whose sources are compared).
impl PartialEq for Group {
    fn eq(&self, other: &Group) -> bool {
        self.entries == other.entries
    }
}

/// The scratch space matching against a group needs (which of its patterns matched, a
/// bit each), kept by the caller across names so that each name does not allocate one.
pub(crate) type Scratch = Vec<u64>;

impl PatternMap {
    /// Whether there are no entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The schemas, in canonical key order.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.entries.iter().map(|e| e.node)
    }

    /// Adds an entry whose pattern is compiled alone.
    pub(crate) fn push_alone(&mut self, pattern: Pattern, node: NodeId) {
        self.entries.push(Entry {
            source: String::from(pattern.source()),
            node,
            how: How::Alone(pattern),
        });
    }

    /// Adds an entry whose pattern is pattern `index` of the group
    /// ([`PatternMap::set_group`]).
    pub(crate) fn push_grouped(&mut self, source: &str, index: usize, node: NodeId) {
        self.entries.push(Entry {
            source: String::from(source),
            node,
            how: How::Grouped(index),
        });
    }

    /// Sets the group the entries pushed with [`PatternMap::push_grouped`] refer to.
    pub(crate) fn set_group(&mut self, automaton: PatternGroup) {
        let entries = (self.entries.iter().enumerate())
            .filter(|(_, e)| matches!(e.how, How::Grouped(_)))
            .map(|(i, _)| i)
            .collect();
        self.group = Some(Box::new(Group { automaton, entries }));
    }

    /// The work of matching `key` alone, in the validator's steps: its length, and each
    /// pattern tried alone ([`PatternMap::matching`] says what more the group took).
    pub(crate) fn cost(&self, key: &str) -> u64 {
        let alone = match &self.group {
            Some(group) => self.entries.len() - group.entries.len(),
            None => self.entries.len(),
        };
        (1 + key.len() / 16 + alone) as u64
    }

    /// The schemas of the entries whose pattern matches `key`, in canonical key order,
    /// into `out` (emptied first); with how many matches the group reported (the steps
    /// reading them took).
    pub(crate) fn matching(
        &self,
        key: &str,
        seen: &mut Scratch,
        out: &mut Vec<NodeId>,
    ) -> Result<u64, Unfinished> {
        out.clear();
        let Some(group) = &self.group else {
            out.extend(self.entries.iter().filter_map(|e| match &e.how {
                How::Alone(p) => p.is_match(key).then_some(e.node),
                How::Grouped(_) => None,
            }));
            return Ok(0);
        };
        // Which patterns of the group matched: a bit each, set as they are reported
        // (once or more each), then read in order. Only the words written are cleared.
        let words = group.automaton.len().div_ceil(64);
        if seen.len() < words {
            seen.resize(words, 0);
        }
        let mut reports = 0u64;
        let mut hits = Vec::new();
        group.automaton.matching(key, |id| {
            reports += 1;
            if let Some(word) = seen.get_mut(id / 64) {
                if *word & (1 << (id % 64)) == 0 {
                    *word |= 1 << (id % 64);
                    hits.push(id);
                }
            }
        })?;
        for &id in &hits {
            if let Some(word) = seen.get_mut(id / 64) {
                *word = 0;
            }
        }
        hits.sort_unstable();
        if group.entries.len() == self.entries.len() {
            // Pattern numbers ascend with the entries they stand for.
            out.extend(
                hits.iter()
                    .filter_map(|&id| group.entries.get(id))
                    .filter_map(|&i| self.entries.get(i).map(|e| e.node)),
            );
        } else {
            out.extend(self.entries.iter().filter_map(|e| {
                let hit = match &e.how {
                    How::Alone(p) => p.is_match(key),
                    How::Grouped(id) => hits.binary_search(id).is_ok(),
                };
                hit.then_some(e.node)
            }));
        }
        Ok(reports)
    }
}
