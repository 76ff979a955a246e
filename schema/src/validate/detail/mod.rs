//! The detailed pass: every violation with its path and message, in the documented
//! order: the assertions ([`assertions`]), the children, the in-place applicators and
//! the unevaluated ones ([`unevaluated`]), collected in a [`Found`] list ([`found`]).

mod assertions;
mod found;
mod unevaluated;

use alloc::boxed::Box;

pub(super) use found::Found;

use super::members::{each_present, present_cost};
use super::meter::cost;
use super::{Engine, Scope, MAX_NESTING};
use crate::memo::Memo;
use crate::message::{self, Context};
use crate::tree::{Keywords, Node, NodeId};
use agentloop_json::__private::path::Location;
use agentloop_json::{Object, Value};

impl Engine<'_> {
    // ---- The detailed pass ----

    /// Applies `node` to `value` (at `at`), recording its violations; returns whether
    /// the value is valid.
    // The place, the scope, why a `false` schema applies and the depth travel
    // together down the instance.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn detail(
        &mut self,
        node: NodeId,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        context: Context<'_>,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        if !self.meter.spend(1) {
            return false;
        }
        if depth >= MAX_NESTING {
            out.fail(at, message::too_deep(MAX_NESTING));
            return false;
        }
        let tree = self.tree;
        let k = match tree.nodes.get(node) {
            Some(Node::Keywords(k)) => k,
            Some(Node::Bool(true)) => return true,
            Some(Node::Bool(false)) => {
                out.fail(at, message::not_allowed(context));
                return false;
            }
            None => return false,
        };
        let scope = &self.enter(scope, k.home);
        if !k.flags.shared {
            return self.detail_keywords(k, value, at, scope, context, depth, out);
        }
        if !self.meter.spend(cost::MEMO) {
            return false;
        }
        let key = Self::key(node, value, scope);
        if let Some(&valid) = self.detailed.as_ref().and_then(|m| m.get(key)) {
            return valid; // already reported along another path
        }
        if self
            .checked
            .as_ref()
            .and_then(|m| m.get(key))
            .is_some_and(|v| v.valid)
        {
            return true;
        }
        let valid = self.detail_keywords(k, value, at, scope, context, depth, out);
        self.detailed
            .get_or_insert_with(|| Box::new(Memo::new()))
            .insert(key, valid);
        valid
    }

    /// The keywords of one object schema, in the documented order.
    #[allow(clippy::too_many_arguments)]
    fn detail_keywords(
        &mut self,
        k: &Keywords,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        context: Context<'_>,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let mut ok = self.detail_assertions(k, value, at, scope, depth, out);
        // Children: items and members, each at its own place.
        let children = match value {
            Value::Array(items) => self.detail_items(k, items, at, scope, depth, out),
            Value::Object(members) => self.detail_members(k, members, at, scope, depth, out),
            _ => true,
        };
        if !children {
            ok = false;
        }
        if k.flags.in_place && !self.detail_in_place(k, value, at, scope, context, depth, out) {
            ok = false;
        }
        let unevaluated = match value {
            Value::Object(_) => k.unevaluated_properties,
            Value::Array(_) => k.unevaluated_items,
            _ => None,
        };
        if let Some(schema) = unevaluated {
            if !self.detail_unevaluated(k, schema, value, at, scope, depth, out) {
                ok = false;
            }
        }
        ok
    }

    /// The items of an array, each under its `prefixItems` schema or else `items`.
    fn detail_items(
        &mut self,
        k: &Keywords,
        items: &[Value],
        at: &Location<'_>,
        scope: &Scope,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let mut ok = true;
        for (index, item) in items.iter().enumerate() {
            let schema = match k.prefix_items.get(index) {
                Some(&schema) => Some(schema),
                None => k.items,
            };
            if let Some(schema) = schema {
                let here = Location::Item { parent: at, index };
                if !self.detail(schema, item, &here, scope, Context::Item, depth + 1, out) {
                    ok = false;
                }
            }
        }
        ok
    }

    /// The members of an object, each under its `properties`, `patternProperties` or
    /// else `additionalProperties` schemas, and its name under `propertyNames`.
    fn detail_members(
        &mut self,
        k: &Keywords,
        members: &Object,
        at: &Location<'_>,
        scope: &Scope,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let mut ok = self.meter.spend(members.len() as u64);
        let mut next = 0;
        for (index, (key, member)) in members.iter().enumerate() {
            let here = Location::Member {
                parent: at,
                index,
                key,
            };
            let mut covered = false;
            if let Some(p) = k.property_from(key, &mut next) {
                covered = true;
                let why = Context::Property(key);
                if !self.detail(p.node, member, &here, scope, why, depth + 1, out) {
                    ok = false;
                }
            }
            if !k.pattern_properties.is_empty() {
                let matched = self
                    .matching(&k.pattern_properties, key)
                    .unwrap_or_default();
                covered |= !matched.is_empty();
                for &schema in &matched {
                    let why = Context::Property(key);
                    if !self.detail(schema, member, &here, scope, why, depth + 1, out) {
                        ok = false;
                    }
                }
                self.matched = matched;
            }
            if let (false, Some(schema)) = (covered, k.additional) {
                let why = Context::Additional(key);
                if !self.detail(schema, member, &here, scope, why, depth + 1, out) {
                    ok = false;
                }
            }
            if let Some(schema) = k.property_names {
                if !self.check_name(schema, key, scope, depth) {
                    ok = false;
                    out.fail(&here, message::bad_name(key));
                }
            }
        }
        ok
    }

    /// The in-place applicators, in the documented order.
    #[allow(clippy::too_many_arguments)]
    fn detail_in_place(
        &mut self,
        k: &Keywords,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        context: Context<'_>,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let deeper = depth + 1;
        let mut ok = true;
        for &schema in &k.all_of {
            if !self.detail(schema, value, at, scope, Context::Plain, deeper, out) {
                ok = false;
            }
        }
        if !k.any_of.is_empty() && !self.any_of(k, value, scope, deeper, None) {
            ok = false;
            out.fail(at, message::no_alternative(k.any_of.len()));
        }
        if !k.one_of.is_empty() {
            let matched = self.one_of_matches(k, value, scope, deeper, true, None);
            if matched.len() != 1 {
                ok = false;
                out.fail(at, message::not_one(k.one_of.len(), matched.as_slice()));
            }
        }
        if let Some(schema) = k.not {
            if self.check(schema, value, scope, deeper, None) {
                ok = false;
                out.fail(at, message::matched_not());
            }
        }
        if let Some(condition) = k.condition {
            let branch = if self.check(condition, value, scope, deeper, None) {
                k.then
            } else {
                k.otherwise
            };
            if let Some(schema) = branch {
                if !self.detail(schema, value, at, scope, Context::Plain, deeper, out) {
                    ok = false;
                }
            }
        }
        if let (Value::Object(members), false) = (value, k.dependent_schemas.is_empty()) {
            ok &= self
                .meter
                .spend(present_cost(&k.dependent_schemas, members));
            each_present(&k.dependent_schemas, members, |_, &schema| {
                ok &= self.detail(schema, value, at, scope, Context::Plain, deeper, out);
                true
            });
        }
        if let Some(target) = k.reference {
            if !self.detail(target, value, at, scope, context, deeper, out) {
                ok = false;
            }
        }
        if let Some(target) = self.dynamic_target(k, scope) {
            if !self.detail(target, value, at, scope, context, deeper, out) {
                ok = false;
            }
        }
        ok
    }
}
