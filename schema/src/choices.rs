//! The alternatives of an `anyOf` or `oneOf` that accept a fixed set of values (a
//! `const` or an `enum`, as generators write a labelled enum: `oneOf` of
//! `{"const": "a", "title": "A"}`), indexed by value: which of them accept a value is
//! found by a binary search, in O(log n) comparisons, instead of trying each
//! alternative in turn (n alternatives × m values was n·m).

use alloc::vec::Vec;
use core::cmp::Ordering;

use super::order::{cmp_values, holds_nan, weight, Lookup};
use super::tree::{Keywords, Node, NodeId, SCAN_AT_MOST};
use super::validate::leaf_accepts;
use agentloop_json::Value;

/// The alternatives of one `anyOf` or `oneOf` that accept a fixed set of values,
/// indexed by value, and the positions of the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Choices {
    /// `(value, position of the alternative)` for each value an alternative accepts,
    /// sorted by value ([`cmp_values`]), then position.
    index: Vec<(Value, usize)>,
    /// The positions of the other alternatives, in order.
    others: Vec<usize>,
    /// The work a lookup in the index takes.
    cost: Lookup,
}

impl Choices {
    /// The index of `alternatives` (nodes of `nodes`), when more than [`SCAN_AT_MOST`] of
    /// them accept a fixed set of values.
    pub(crate) fn new(nodes: &[Node], alternatives: &[NodeId]) -> Option<Choices> {
        let mut index = Vec::new();
        let mut others = Vec::new();
        let mut fixed = 0;
        for (position, &node) in alternatives.iter().enumerate() {
            match nodes.get(node).and_then(accepted) {
                Some(values) => {
                    fixed += 1;
                    index.extend(values.into_iter().map(|v| (v, position)));
                }
                None => others.push(position),
            }
        }
        if fixed <= SCAN_AT_MOST {
            return None;
        }
        index.sort_by(|a, b| cmp_values(&a.0, &b.0).then(a.1.cmp(&b.1)));
        let cost = Lookup {
            // A binary search for the first equal value, and one for the last.
            compares: 2 * (u64::from(usize::BITS - index.len().leading_zeros()) + 1),
            heaviest: index.iter().map(|(v, _)| weight(v)).max().unwrap_or(0),
        };
        Some(Choices {
            index,
            others,
            cost,
        })
    }

    /// The steps of looking `value` up ([`Choices::accepting`]).
    pub(crate) fn steps(&self, value: &Value) -> u64 {
        self.cost.steps(value)
    }

    /// The positions of the alternatives that are not in the index, in order.
    pub(crate) fn others(&self) -> &[usize] {
        &self.others
    }

    /// The positions, in order, of the indexed alternatives that accept `value` (one
    /// may repeat: an `enum` may list a value twice).
    pub(crate) fn accepting<'a>(&'a self, value: &'a Value) -> impl Iterator<Item = usize> + 'a {
        let start = self
            .index
            .partition_point(|(v, _)| cmp_values(v, value) == Ordering::Less);
        let equal = self.index.get(start..).unwrap_or_default();
        let end = equal.partition_point(|(v, _)| cmp_values(v, value) == Ordering::Equal);
        equal
            .get(..end)
            .unwrap_or_default()
            .iter()
            // A NaN (only in a hand-built instance) equals nothing.
            .filter(move |(v, _)| v == value)
            .map(|&(_, position)| position)
    }
}

/// The values the subschema `node` accepts, when it is a fixed set: `false` (none), or a
/// leaf with a `const` or an `enum` (the values among them its other keywords accept,
/// since JSON-equal values pass the same bounds). A value holding a NaN (only in a
/// hand-built schema) equals nothing, and is left out.
fn accepted(node: &Node) -> Option<Vec<Value>> {
    let k: &Keywords = match node {
        Node::Bool(false) => return Some(Vec::new()),
        Node::Bool(true) => return None,
        Node::Keywords(k) => k,
    };
    if !k.flags.leaf {
        return None;
    }
    let candidates: &[Value] = match (k.constant.as_deref(), k.enumeration.as_deref()) {
        (Some(c), _) => core::slice::from_ref(c),
        (None, Some(e)) => e.values(),
        (None, None) => return None,
    };
    Some(
        candidates
            .iter()
            .filter(|v| !holds_nan(v) && leaf_accepts(k, v))
            .cloned()
            .collect(),
    )
}
