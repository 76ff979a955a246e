//! The check pass: whether a value is valid, stopping at the first failure, recording
//! nothing but the marks `unevaluated*` reads where they are asked for.

use alloc::boxed::Box;

use super::marks::Marks;
use super::meter::{cost, Meter};
use super::{
    enum_const_ok, first_repeat, leaf_within, numbers_ok, repeat_cost, strings_within, Engine, Key,
    Scope, Verdict, MAX_NESTING,
};
use crate::choices::Choices;
use crate::memo::Memo;
use crate::tree::{Keywords, Node, NodeId};
use crate::work;
use agentloop_json::Value;

/// A leaf node's verdict: `type`, `enum`, `const`, and the number or string keywords
/// ([`leaf_accepts`]). Its one step was taken by whatever applied it (a walk of items or
/// members, the alternatives tried); more is charged when comparing with `enum` and
/// `const` costs more ([`charge_equality`]), or a long string is read.
#[inline(always)]
pub(super) fn leaf_ok(k: &Keywords, value: &Value, meter: &Meter) -> bool {
    (!k.flags.costly || charge_equality(k, value, meter))
        && leaf_within(k, value, |length| meter.bytes(length))
}

/// Takes the steps of comparing `value` with `k`'s `enum` and `const`. `false` when
/// they run out.
#[inline(never)]
pub(super) fn charge_equality(k: &Keywords, value: &Value, meter: &Meter) -> bool {
    meter.spend(k.equality.steps(value))
}

/// Whether one of the alternatives of `k`'s `anyOf` that accept fixed values (a
/// `const`, an `enum`: [`crate::choices::Choices`]) accepts `value`, from their
/// index; `None` when there is no index, or when the alternatives, `deeper` schemas
/// deep, are past the nesting bound (where each gets its own verdict, false).
#[inline]
pub(super) fn any_of_fixed(
    k: &Keywords,
    value: &Value,
    deeper: usize,
    meter: &Meter,
) -> Option<bool> {
    let choices = k.any_of_choices.as_deref()?;
    if deeper >= MAX_NESTING || work::general_only() {
        return None;
    }
    Some(meter.spend(choices.steps(value)) && choices.accepting(value).next().is_some())
}

impl Engine<'_> {
    /// Whether `value` is valid against `node`; with `marks`, also which members or
    /// items of `value` it evaluated (meaningful only when valid).
    ///
    /// Inlined where it is called: a leaf node (`type`, `enum`, `const`, number and
    /// string keywords, as most tool parameters are) or a boolean schema is decided
    /// here, as is a value `type` rules out, without a call ([`Engine::check_node`]
    /// decides the same for every node; a test holds the two equal).
    #[inline(always)]
    pub(super) fn check(
        &mut self,
        node: NodeId,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        if depth < MAX_NESTING && !work::general_only() {
            match self.tree.nodes.get(node) {
                Some(Node::Keywords(k)) if k.flags.leaf => return leaf_ok(k, value, self.meter),
                // Whatever else the node holds, the first thing it asks is the type.
                Some(Node::Keywords(k)) if !k.type_matches(value) => return false,
                Some(Node::Bool(b)) => return *b,
                _ => {}
            }
        }
        self.check_node(node, value, scope, depth, marks)
    }

    /// [`Engine::check`] without the inline cases.
    #[inline(never)]
    pub(super) fn check_node(
        &mut self,
        node: NodeId,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        let tree = self.tree;
        let (mut node, mut depth) = (node, depth);
        let k = loop {
            if depth >= MAX_NESTING {
                return false;
            }
            match tree.nodes.get(node) {
                Some(Node::Keywords(k)) => {
                    // `type`, `enum`, `const`, numbers and strings alone: inline.
                    if k.flags.leaf && !work::general_only() {
                        return leaf_ok(k, value, self.meter);
                    }
                    // `{"$ref": …}` alone (no dynamic scope to follow): the target
                    // decides, one level deeper.
                    match k.only_ref {
                        Some(target) if !self.dynamic => {
                            if !self.meter.spend(1) {
                                return false;
                            }
                            node = target;
                            depth += 1;
                        }
                        _ => break k,
                    }
                }
                Some(Node::Bool(b)) => return *b,
                // A compiled tree only holds ids of its own nodes.
                None => return false,
            }
        };
        let memo = k.flags.revisit || self.detailing && k.flags.shared;
        // `anyOf` alone, nothing to remember or mark, no dynamic scope: what
        // [`Engine::keywords`] would do, without the keywords that are not there.
        if k.flags.only_any_of && !memo && !self.dynamic && marks.is_none() && !work::general_only()
        {
            return self.any_of(k, value, scope, depth + 1, None);
        }
        let scope = &self.enter(scope, k.home);
        if !memo {
            return self.keywords(k, value, scope, depth, marks);
        }
        if !self.meter.spend(cost::MEMO) {
            return false;
        }
        let key = Self::key(node, value, scope);
        if let Some(seen) = self.checked.as_ref().and_then(|m| m.get(key)) {
            match (marks, &seen.marks) {
                (None, _) => return seen.valid,
                (Some(marks), Some(seen_marks)) => {
                    if seen.valid {
                        marks.merge(seen_marks);
                    }
                    return seen.valid;
                }
                // Decided before without marks: decide again, collecting them.
                (Some(_), None) if !seen.valid => return false,
                (Some(marks), None) => {
                    return self.remember(k, key, value, scope, depth, Some(marks))
                }
            }
        }
        self.remember(k, key, value, scope, depth, marks)
    }

    /// [`Engine::keywords`] for a shared node, remembered under `key`.
    fn remember(
        &mut self,
        k: &Keywords,
        key: Key,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        let (valid, kept) = match marks {
            None => (self.keywords(k, value, scope, depth, None), None),
            Some(marks) => {
                let mut own = Marks::default();
                let valid = self.keywords(k, value, scope, depth, Some(&mut own));
                if valid {
                    marks.merge(&own);
                }
                (valid, Some(own))
            }
        };
        self.checked
            .get_or_insert_with(|| Box::new(Memo::new()))
            .insert(key, Verdict { valid, marks: kept });
        valid
    }

    /// Whether `value` satisfies the keywords of one object schema.
    #[inline(never)]
    fn keywords(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        work::application();
        if !k.type_matches(value)
            || (k.flags.costly && !charge_equality(k, value, self.meter))
            || !enum_const_ok(k, value)
        {
            return false;
        }
        let unevaluated = match value {
            Value::Object(_) => k.unevaluated_properties,
            Value::Array(_) => k.unevaluated_items,
            _ => None,
        };
        let Some(unevaluated) = unevaluated else {
            return self.assertions(k, value, scope, depth, marks);
        };
        // `unevaluated*`: the other keywords first, marking what they evaluate.
        let mut own = Marks::default();
        if !self.meter.spend(children(value))
            || !self.assertions(k, value, scope, depth, Some(&mut own))
        {
            return false;
        }
        let ok = match value {
            Value::Object(members) => members.iter().enumerate().all(|(i, (_, member))| {
                own.has(i) || self.check(unevaluated, member, scope, depth + 1, None)
            }),
            Value::Array(items) => items.iter().enumerate().all(|(i, item)| {
                own.has(i) || self.check(unevaluated, item, scope, depth + 1, None)
            }),
            _ => true,
        };
        if ok {
            if let Some(marks) = marks {
                marks.mark_all();
            }
        }
        ok
    }

    /// Everything of `k` but `type`, `enum`, `const` and `unevaluated*`.
    #[inline(always)]
    fn assertions(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let ok = match value {
            Value::Number(n) => !k.flags.numbers || numbers_ok(k, *n),
            Value::String(s) => !k.flags.strings || strings_within(k, s, self.meter),
            Value::Array(items) => {
                !k.flags.arrays || self.array(k, items, scope, depth, marks.as_deref_mut())
            }
            Value::Object(members) => {
                !k.flags.objects || self.object(k, members, scope, depth, marks.as_deref_mut())
            }
            _ => true,
        };
        ok && (!k.flags.in_place || self.in_place(k, value, scope, depth, marks))
    }

    /// The array keywords.
    fn array(
        &mut self,
        k: &Keywords,
        items: &[Value],
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let count = items.len() as u64;
        if k.min_items.is_some_and(|m| count < m.limit)
            || k.max_items.is_some_and(|m| count > m.limit)
            || !self.meter.spend(walks(k).saturating_mul(count))
            || (k.unique_items
                && (!self.meter.spend(repeat_cost(items)) || first_repeat(items).is_some()))
        {
            return false;
        }
        for (i, (&schema, item)) in k.prefix_items.iter().zip(items).enumerate() {
            if !self.check(schema, item, scope, depth + 1, None) {
                return false;
            }
            if let Some(marks) = marks.as_deref_mut() {
                marks.mark(i);
            }
        }
        if let Some(schema) = k.items {
            for item in items.iter().skip(k.prefix_items.len()) {
                if !self.check(schema, item, scope, depth + 1, None) {
                    return false;
                }
            }
            if let Some(marks) = marks.as_deref_mut() {
                marks.mark_all();
            }
        }
        if let Some(schema) = k.contains {
            let min = k.min_contains.map_or(1, |m| m.limit);
            let max = k.max_contains.map(|m| m.limit);
            let mut found = 0u64;
            for (i, item) in items.iter().enumerate() {
                if self.check(schema, item, scope, depth + 1, None) {
                    found += 1;
                    match marks.as_deref_mut() {
                        Some(marks) => marks.mark(i),
                        // Enough found, and no upper bound to watch.
                        None if max.is_none() && found >= min => break,
                        None => {}
                    }
                    if max.is_some_and(|max| found > max) {
                        return false;
                    }
                }
            }
            if found < min {
                return false;
            }
        }
        true
    }
}

/// The steps of trying the alternatives of an `anyOf` or `oneOf` one by one: those
/// not in the index of fixed values, if it has one (which costs its own lookup).
#[inline]
pub(super) fn alternatives(list: &[NodeId], choices: Option<&Choices>) -> u64 {
    choices.map_or(list.len(), |c| c.others().len()) as u64
}

/// How many times `k`'s array keywords walk an array's items: `prefixItems` and
/// `items` once, `contains` once more (each item checked, a step each).
#[inline]
pub(super) fn walks(k: &Keywords) -> u64 {
    u64::from(!k.prefix_items.is_empty() || k.items.is_some()) + u64::from(k.contains.is_some())
}

/// The steps of walking the members or items of `value` (none for another value).
pub(super) fn children(value: &Value) -> u64 {
    match value {
        Value::Object(members) => members.len() as u64,
        Value::Array(items) => items.len() as u64,
        _ => 0,
    }
}
