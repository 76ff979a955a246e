//! The list the detailed pass collects violations in: each with the order key of its
//! value, sorted into document order and without repeats at the end.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::super::meter::{cost, Meter};
use crate::tree::SCAN_AT_MOST;
use crate::{work, Violation};
use agentloop_json::__private::path::Location;

/// Ends each violation's order key in [`Found::orders`] (positions are never this
/// large).
const END_OF_KEY: usize = usize::MAX;

/// The violations the detailed pass found, with the order keys of their values.
pub(in super::super) struct Found<'m> {
    /// The steps of the pass, which each violation is charged to.
    meter: &'m Meter,
    /// Where paths start (`$`, `$.add`).
    root: String,
    found: Vec<Violation>,
    /// The order key of each of `found` (the value's positions from the root, see
    /// [`Location::push_order`]), one after another, each ended by [`END_OF_KEY`].
    orders: Vec<usize>,
}

impl<'m> Found<'m> {
    pub(in super::super) fn new(root: &str, meter: &'m Meter) -> Self {
        Found {
            meter,
            root: String::from(root),
            found: Vec::new(),
            orders: Vec::new(),
        }
    }

    /// Records a violation at `at` (nothing once the steps have run out: the list is
    /// then not the answer).
    pub(super) fn fail(&mut self, at: &Location<'_>, message: String) {
        if !self.meter.spend(cost::VIOLATION) || !self.meter.bytes(message.len()) {
            return;
        }
        let path = at.spell(&self.root);
        if !self.meter.bytes(path.len()) {
            return;
        }
        at.push_order(&mut self.orders);
        self.orders.push(END_OF_KEY);
        self.found.push(Violation { path, message });
    }

    /// The violations in document order of their values (stable, so violations of one
    /// value keep the keyword order), without exact repeats.
    pub(in super::super) fn finish(self) -> Vec<Violation> {
        // (`split` also yields the empty slice after the last end.)
        let keys = || {
            self.orders
                .split(|&p| p == END_OF_KEY)
                .take(self.found.len())
        };
        // Usually found in order already (a `$ref` or `anyOf` applied after the members
        // is what can report a value after its members) and without repeats: then the
        // list is the answer as it is.
        let mut in_order = true;
        let mut group_start = 0;
        for (i, (previous, key)) in keys().zip(keys().skip(1)).enumerate() {
            match previous.cmp(key) {
                Ordering::Less => {
                    if has_repeat(&self.found[group_start..=i]) {
                        in_order = false;
                        break;
                    }
                    group_start = i + 1;
                }
                Ordering::Equal => {}
                Ordering::Greater => {
                    in_order = false;
                    break;
                }
            }
        }
        if in_order && !has_repeat(&self.found[group_start..]) {
            return self.found;
        }
        let mut found: Vec<(&[usize], Violation)> = keys().zip(self.found).collect();
        found.sort_by(|a, b| {
            work::comparison();
            a.0.cmp(b.0)
        });
        let (keys, found): (Vec<&[usize]>, Vec<Violation>) = found.into_iter().unzip();
        without_repeats(&keys, found)
    }
}

/// `found` (sorted by their order `keys`, one each) without the violations that repeat
/// an earlier one of the same value.
fn without_repeats(keys: &[&[usize]], found: Vec<Violation>) -> Vec<Violation> {
    let mut keep = vec![true; found.len()];
    let mut start = 0;
    for group in keys.chunk_by(|a, b| a == b) {
        let end = start + group.len();
        if let Some(violations) = found.get(start..end) {
            find_repeats(violations, |i| keep[start + i] = false);
        }
        start = end;
    }
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(violation, keep)| keep.then_some(violation))
        .collect()
}

/// Whether one of `group` (violations of one value) repeats an earlier one.
fn has_repeat(group: &[Violation]) -> bool {
    if group.len() < 2 {
        return false; // the usual case: one violation of a value
    }
    let mut found = false;
    find_repeats(group, |_| found = true);
    found
}

/// Calls `repeat(i)` for each of `group` (violations of one value) that repeats an
/// earlier one. A few are compared pairwise; many are sorted (stably, so the first of
/// equal violations stays first) and compared with their neighbour, so that one value
/// with n violations (n missing `required` names) costs n log n comparisons, not n².
fn find_repeats(group: &[Violation], mut repeat: impl FnMut(usize)) {
    if group.len() <= SCAN_AT_MOST {
        for (i, violation) in group.iter().enumerate() {
            if group[..i].iter().any(|earlier| {
                work::comparison();
                earlier == violation
            }) {
                repeat(i);
            }
        }
        return;
    }
    let mut order: Vec<usize> = (0..group.len()).collect();
    let text = |i: usize| {
        group
            .get(i)
            .map_or(("", ""), |v| (v.path.as_str(), v.message.as_str()))
    };
    order.sort_by(|&a, &b| {
        work::comparison();
        text(a).cmp(&text(b))
    });
    for pair in order.windows(2) {
        if let [first, second] = *pair {
            work::comparison();
            if text(first) == text(second) {
                repeat(second);
            }
        }
    }
}
