//! The check pass's in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, `dependentSchemas`, `$ref`, `$dynamicRef`.

use super::check::{alternatives, any_of_fixed};
use super::marks::Marks;
use super::members::{each_present, present_cost};
use super::{Engine, Scope, MAX_NESTING};
use crate::tree::Keywords;
use crate::work;
use agentloop_json::Value;

impl Engine<'_> {
    /// The in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
    /// `dependentSchemas`, `$ref`, `$dynamicRef`.
    #[inline]
    pub(super) fn in_place(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        if !self.meter.spend(in_place_steps(k)) {
            return false;
        }
        let deeper = depth + 1;
        for &schema in &k.all_of {
            if !self.check(schema, value, scope, deeper, marks.as_deref_mut()) {
                return false;
            }
        }
        if !k.any_of.is_empty() && !self.any_of(k, value, scope, deeper, marks.as_deref_mut()) {
            return false;
        }
        if !k.one_of.is_empty() && !self.one_of(k, value, scope, deeper, marks.as_deref_mut()) {
            return false;
        }
        if let Some(schema) = k.not {
            if self.check(schema, value, scope, deeper, None) {
                return false;
            }
        }
        if let Some(condition) = k.condition {
            let mut own = Marks::default();
            let collect = marks.is_some().then_some(&mut own);
            let branch = if self.check(condition, value, scope, deeper, collect) {
                if let Some(marks) = marks.as_deref_mut() {
                    marks.merge(&own);
                }
                k.then
            } else {
                k.otherwise
            };
            if let Some(schema) = branch {
                if !self.check(schema, value, scope, deeper, marks.as_deref_mut()) {
                    return false;
                }
            }
        }
        if let (Value::Object(members), false) = (value, k.dependent_schemas.is_empty()) {
            if !self
                .meter
                .spend(present_cost(&k.dependent_schemas, members))
                || !each_present(&k.dependent_schemas, members, |_, &schema| {
                    self.check(schema, value, scope, deeper, marks.as_deref_mut())
                })
            {
                return false;
            }
        }
        if let Some(target) = k.reference {
            if !self.check(target, value, scope, deeper, marks.as_deref_mut()) {
                return false;
            }
        }
        if let Some(target) = self.dynamic_target(k, scope) {
            if !self.check(target, value, scope, deeper, marks) {
                return false;
            }
        }
        true
    }

    /// `anyOf` (non-empty): whether an alternative holds; with `marks`, every one that
    /// holds leaves its marks (an alternative that accepts fixed values, found in the
    /// index, evaluates nothing and leaves none).
    #[inline]
    pub(super) fn any_of(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        deeper: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        if !self
            .meter
            .spend(alternatives(&k.any_of, k.any_of_choices.as_deref()))
        {
            return false;
        }
        let fixed = any_of_fixed(k, value, deeper, self.meter);
        let (mut any, positions) = match (fixed, &k.any_of_choices) {
            (Some(found), Some(choices)) => (found, Some(choices.others())),
            _ => (false, None),
        };
        if any && marks.is_none() {
            return true;
        }
        let count = positions.map_or(k.any_of.len(), <[usize]>::len);
        let schema = |n: usize| {
            let i = positions.map_or(Some(n), |p| p.get(n).copied())?;
            k.any_of.get(i).copied()
        };
        match marks {
            // Every alternative that matches leaves its marks.
            Some(marks) => {
                for schema in (0..count).filter_map(schema) {
                    let mut own = Marks::default();
                    if self.check(schema, value, scope, deeper, Some(&mut own)) {
                        any = true;
                        marks.merge(&own);
                    }
                }
                any
            }
            None => (0..count)
                .filter_map(schema)
                .any(|schema| self.check(schema, value, scope, deeper, None)),
        }
    }

    /// `oneOf` (non-empty): whether exactly one alternative holds; with `marks`, it
    /// leaves its marks.
    #[inline]
    fn one_of(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        deeper: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        let mut kept = Marks::default();
        let matched = match marks {
            Some(_) => self.one_of_matches(k, value, scope, deeper, false, Some(&mut kept)),
            None => self.one_of_matches(k, value, scope, deeper, false, None),
        };
        if matched.len() != 1 {
            return false;
        }
        if let Some(marks) = marks {
            marks.merge(&kept);
        }
        true
    }

    /// The alternatives of `k`'s `oneOf` that `value` matches: with `exact`, the first
    /// two in order (fewer when fewer match: what a violation names); else any two, as
    /// soon as there are two (what a verdict needs). With `kept`, the marks of the last
    /// one found there (none for one found in the index of fixed values, which
    /// evaluates nothing): when exactly one matched, its marks.
    pub(super) fn one_of_matches(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        deeper: usize,
        exact: bool,
        mut kept: Option<&mut Marks>,
    ) -> Matched {
        let mut matched = Matched::default();
        if !self
            .meter
            .spend(alternatives(&k.one_of, k.one_of_choices.as_deref()))
        {
            return matched;
        }
        let indexed =
            (k.one_of_choices.as_deref()).filter(|_| deeper < MAX_NESTING && !work::general_only());
        if let Some(choices) = indexed {
            if !self.meter.spend(choices.steps(value)) {
                return matched;
            }
            // Positions ascend: the first two are the least.
            for position in choices.accepting(value) {
                matched.insert(position);
                if matched.len() == 2 {
                    break;
                }
            }
            if let (Some(kept), true) = (kept.as_deref_mut(), matched.len() > 0) {
                *kept = Marks::default();
            }
        }
        let positions = indexed.map(|c| c.others());
        let count = positions.map_or(k.one_of.len(), <[usize]>::len);
        for n in 0..count {
            let Some(i) = positions.map_or(Some(n), |p| p.get(n).copied()) else {
                continue;
            };
            if matched.len() == 2 && !(exact && i < matched.found[1]) {
                break;
            }
            let Some(&schema) = k.one_of.get(i) else {
                continue;
            };
            let mut own = Marks::default();
            let collect = kept.is_some().then_some(&mut own);
            if self.check(schema, value, scope, deeper, collect) {
                matched.insert(i);
                if let Some(kept) = kept.as_deref_mut() {
                    *kept = own;
                }
            }
        }
        matched
    }
}

/// The positions of up to two alternatives that matched, in order.
#[derive(Debug, Default)]
pub(super) struct Matched {
    found: [usize; 2],
    len: usize,
}

impl Matched {
    /// How many (at most 2).
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The positions, in order.
    pub(super) fn as_slice(&self) -> &[usize] {
        &self.found[..self.len]
    }

    /// Adds `position`, keeping the two least (once each).
    fn insert(&mut self, position: usize) {
        if self.as_slice().contains(&position) {
            return;
        }
        match self.len {
            0 => {
                self.found[0] = position;
                self.len = 1;
            }
            1 => {
                self.found = if position < self.found[0] {
                    [position, self.found[0]]
                } else {
                    [self.found[0], position]
                };
                self.len = 2;
            }
            _ if position < self.found[0] => self.found = [position, self.found[0]],
            _ if position < self.found[1] => self.found[1] = position,
            _ => {}
        }
    }
}

/// The steps of `k`'s in-place applicators but `anyOf`, `oneOf` and
/// `dependentSchemas` (which take their own): each subschema applied to the value.
pub(super) fn in_place_steps(k: &Keywords) -> u64 {
    let single = [k.not, k.condition, k.then, k.otherwise, k.reference];
    let present =
        single.iter().filter(|n| n.is_some()).count() + usize::from(k.dynamic_reference.is_some());
    (k.all_of.len() + present) as u64
}
