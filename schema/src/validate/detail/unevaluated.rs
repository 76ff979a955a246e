//! `unevaluatedProperties` and `unevaluatedItems` in the detailed pass: what a node's
//! own keywords and the in-place subschemas that hold evaluated, and the schema applied
//! to the rest.

use super::super::check::children;
use super::super::in_place::in_place_steps;
use super::super::marks::Marks;
use super::super::members::{each_present, present_cost};
use super::super::{Engine, Scope};
use super::Found;
use crate::message::Context;
use crate::tree::{Keywords, NodeId};
use agentloop_json::__private::path::Location;
use agentloop_json::Value;

impl Engine<'_> {
    /// `unevaluatedProperties` / `unevaluatedItems` `schema` of `k`: applied to each
    /// member or item that neither `k`'s own keywords nor a subschema it applied in
    /// place (and that held) evaluated.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn detail_unevaluated(
        &mut self,
        k: &Keywords,
        schema: NodeId,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let mut marks = Marks::default();
        if !self.meter.spend(children(value)) || !self.own_marks(k, value, scope, depth, &mut marks)
        {
            return true;
        }
        // What the in-place subschemas that hold evaluate.
        let mut in_place = Marks::default();
        if k.flags.in_place && self.in_place_marks(k, value, scope, depth, &mut in_place) {
            marks.merge(&in_place);
        }
        let mut ok = true;
        match value {
            Value::Object(members) => {
                for (index, (key, member)) in members.iter().enumerate() {
                    if marks.has(index) {
                        continue;
                    }
                    let here = Location::Member {
                        parent: at,
                        index,
                        key,
                    };
                    let why = Context::UnevaluatedProperty(key);
                    if !self.detail(schema, member, &here, scope, why, depth + 1, out) {
                        ok = false;
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if marks.has(index) {
                        continue;
                    }
                    let here = Location::Item { parent: at, index };
                    let why = Context::UnevaluatedItem;
                    if !self.detail(schema, item, &here, scope, why, depth + 1, out) {
                        ok = false;
                    }
                }
            }
            _ => {}
        }
        ok
    }

    /// The marks of what `k`'s own keywords evaluate in `value` (an object's members, an
    /// array's items), whatever their verdict: a member that already failed its
    /// `properties` schema is not reported again. `false` when `value` is neither.
    fn own_marks(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: &mut Marks,
    ) -> bool {
        match value {
            Value::Object(members) => {
                let mut next = 0;
                for (i, (key, _)) in members.iter().enumerate() {
                    let named = k.property_from(key, &mut next).is_some();
                    if named || k.additional.is_some() || self.some_pattern_matches(k, key) {
                        marks.mark(i);
                    }
                }
            }
            Value::Array(items) => {
                if k.items.is_some() {
                    marks.mark_all();
                }
                for i in 0..k.prefix_items.len().min(items.len()) {
                    marks.mark(i);
                }
                if let Some(contains) = k.contains {
                    for (i, item) in items.iter().enumerate() {
                        if self.check(contains, item, scope, depth + 1, None) {
                            marks.mark(i);
                        }
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// The marks `k`'s in-place applicators leave where each one holds (each
    /// alternative of `anyOf` that matches; the branch of `if` taken, …); `true` when
    /// any may have left some.
    fn in_place_marks(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: &mut Marks,
    ) -> bool {
        let deeper = depth + 1;
        let steps = in_place_steps(k)
            .saturating_add(k.any_of.len() as u64)
            .saturating_add(k.one_of.len() as u64);
        if !self.meter.spend(steps) {
            return false;
        }
        let take = |engine: &mut Self, schema: NodeId, marks: &mut Marks| {
            let mut own = Marks::default();
            let valid = engine.check(schema, value, scope, deeper, Some(&mut own));
            if valid {
                marks.merge(&own);
            }
            valid
        };
        for &schema in k.all_of.iter().chain(&k.any_of) {
            take(self, schema, marks);
        }
        let mut one = Marks::default();
        let mut matched = 0;
        for &schema in &k.one_of {
            let mut own = Marks::default();
            if take(self, schema, &mut own) {
                matched += 1;
                one = own;
            }
        }
        if matched == 1 {
            marks.merge(&one);
        }
        if let Some(condition) = k.condition {
            let branch = if take(self, condition, marks) {
                k.then
            } else {
                k.otherwise
            };
            if let Some(schema) = branch {
                take(self, schema, marks);
            }
        }
        if let (Value::Object(members), false) = (value, k.dependent_schemas.is_empty()) {
            self.meter
                .spend(present_cost(&k.dependent_schemas, members));
            each_present(&k.dependent_schemas, members, |_, &schema| {
                take(self, schema, marks);
                true
            });
        }
        if let Some(target) = k.reference {
            take(self, target, marks);
        }
        if let Some(target) = self.dynamic_target(k, scope) {
            take(self, target, marks);
        }
        true
    }

    /// Whether a `patternProperties` pattern of `k` matches `key`.
    fn some_pattern_matches(&mut self, k: &Keywords, key: &str) -> bool {
        if k.pattern_properties.is_empty() {
            return false;
        }
        let matched = self
            .matching(&k.pattern_properties, key)
            .unwrap_or_default();
        let some = !matched.is_empty();
        self.matched = matched;
        some
    }
}
