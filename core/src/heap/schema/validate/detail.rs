//! The detailed pass: every violation with its path and message, in the documented
//! order, and the list they are collected in.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::marks::Marks;
use super::{first_repeat, has_member, Engine, Scope, MAX_NESTING};
use crate::json::path::Location;
use crate::json::Value;
use crate::schema::decimal::is_multiple_of;
use crate::schema::memo::Memo;
use crate::schema::message::{self, Context};
use crate::schema::tree::{Count, Keywords, Node, NodeId, SCAN_AT_MOST};
use crate::schema::{work, Violation};

/// Ends each violation's order key in [`Found::orders`] (positions are never this
/// large).
const END_OF_KEY: usize = usize::MAX;

/// The violations the detailed pass found, with the order keys of their values.
pub(super) struct Found {
    /// Where paths start (`$`, `$.add`).
    root: String,
    found: Vec<Violation>,
    /// The order key of each of `found` (the value's positions from the root, see
    /// [`Location::push_order`]), one after another, each ended by [`END_OF_KEY`].
    orders: Vec<usize>,
}

impl Found {
    pub(super) fn new(root: &str) -> Self {
        Found {
            root: String::from(root),
            found: Vec::new(),
            orders: Vec::new(),
        }
    }

    /// Records a violation at `at`.
    fn fail(&mut self, at: &Location<'_>, message: String) {
        at.push_order(&mut self.orders);
        self.orders.push(END_OF_KEY);
        self.found.push(Violation {
            path: at.spell(&self.root),
            message,
        });
    }

    /// The violations in document order of their values (stable, so violations of one
    /// value keep the keyword order), without exact repeats.
    pub(super) fn finish(self) -> Vec<Violation> {
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
        out: &mut Found,
    ) -> bool {
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
        out: &mut Found,
    ) -> bool {
        let mut ok = true;
        let mut fail = |out: &mut Found, message: String| {
            ok = false;
            out.fail(at, message);
        };
        if !k.type_matches(value) {
            fail(out, message::wrong_type(&k.types, value));
        }
        if let Some(e) = &k.enumeration {
            if !e.contains(value) {
                fail(out, message::not_in_enum(e.values(), value));
            }
        }
        if let Some(constant) = &k.constant {
            if constant != value {
                fail(out, message::not_const(constant, value));
            }
        }
        match value {
            Value::Number(n) => {
                for m in number_messages(k, *n) {
                    fail(out, m);
                }
            }
            Value::String(s) if k.flags.strings => {
                let length = s.chars().count();
                if let Some(m) = k.min_length {
                    if (length as u64) < m.limit {
                        fail(
                            out,
                            message::wrong_count("at least", m, "character", length),
                        );
                    }
                }
                if let Some(m) = k.max_length {
                    if (length as u64) > m.limit {
                        fail(out, message::wrong_count("at most", m, "character", length));
                    }
                }
                if let Some(p) = &k.pattern {
                    if !p.is_match(s) {
                        fail(out, message::no_match(p.source(), value));
                    }
                }
            }
            Value::Array(items) => {
                let count = items.len();
                if let Some(m) = k.min_items {
                    if (count as u64) < m.limit {
                        fail(out, message::wrong_count("at least", m, "item", count));
                    }
                }
                if let Some(m) = k.max_items {
                    if (count as u64) > m.limit {
                        fail(out, message::wrong_count("at most", m, "item", count));
                    }
                }
                if k.unique_items {
                    if let Some((i, j)) = first_repeat(items) {
                        fail(out, message::not_unique(i, j));
                    }
                }
                if let Some(schema) = k.contains {
                    let found = items
                        .iter()
                        .filter(|item| self.check(schema, item, scope, depth + 1, None))
                        .count();
                    let min = k.min_contains.unwrap_or(Count {
                        limit: 1,
                        written: 1.0,
                    });
                    if (found as u64) < min.limit {
                        fail(out, message::contains_count("at least", min, found));
                    }
                    if let Some(max) = k.max_contains {
                        if (found as u64) > max.limit {
                            fail(out, message::contains_count("at most", max, found));
                        }
                    }
                }
            }
            Value::Object(members) => {
                for name in &k.required {
                    if !has_member(members, name) {
                        fail(out, message::missing(name));
                    }
                }
                let count = members.len();
                if let Some(m) = k.min_properties {
                    if (count as u64) < m.limit {
                        fail(out, message::wrong_count("at least", m, "property", count));
                    }
                }
                if let Some(m) = k.max_properties {
                    if (count as u64) > m.limit {
                        fail(out, message::wrong_count("at most", m, "property", count));
                    }
                }
                for (name, needs) in &k.dependent_required {
                    if has_member(members, name) {
                        for need in needs {
                            if !has_member(members, need) {
                                fail(out, message::missing_dependent(need, name));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        // Children: items and members, each at its own place.
        match value {
            Value::Array(items) => {
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
            }
            Value::Object(members) => {
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
                    for (pattern, schema) in &k.pattern_properties {
                        if pattern.is_match(key) {
                            covered = true;
                            let why = Context::Property(key);
                            if !self.detail(*schema, member, &here, scope, why, depth + 1, out) {
                                ok = false;
                            }
                        }
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
            }
            _ => {}
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
        out: &mut Found,
    ) -> bool {
        let deeper = depth + 1;
        let mut ok = true;
        for &schema in &k.all_of {
            if !self.detail(schema, value, at, scope, Context::Plain, deeper, out) {
                ok = false;
            }
        }
        if !k.any_of.is_empty()
            && !k
                .any_of
                .iter()
                .any(|&schema| self.check(schema, value, scope, deeper, None))
        {
            ok = false;
            out.fail(at, message::no_alternative(k.any_of.len()));
        }
        if !k.one_of.is_empty() {
            let mut matched = Vec::new();
            for (i, &schema) in k.one_of.iter().enumerate() {
                if self.check(schema, value, scope, deeper, None) {
                    matched.push(i);
                    if matched.len() == 2 {
                        break;
                    }
                }
            }
            if matched.len() != 1 {
                ok = false;
                out.fail(at, message::not_one(k.one_of.len(), &matched));
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
        if let Value::Object(members) = value {
            for (name, schema) in &k.dependent_schemas {
                if has_member(members, name)
                    && !self.detail(*schema, value, at, scope, Context::Plain, deeper, out)
                {
                    ok = false;
                }
            }
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

    /// `unevaluatedProperties` / `unevaluatedItems` `schema` of `k`: applied to each
    /// member or item that neither `k`'s own keywords nor a subschema it applied in
    /// place (and that held) evaluated.
    #[allow(clippy::too_many_arguments)]
    fn detail_unevaluated(
        &mut self,
        k: &Keywords,
        schema: NodeId,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        depth: usize,
        out: &mut Found,
    ) -> bool {
        let mut marks = Marks::default();
        // What the node's own keywords evaluate, whatever their verdict: a member that
        // already failed its `properties` schema is not reported again.
        match value {
            Value::Object(members) => {
                let mut next = 0;
                for (i, (key, _)) in members.iter().enumerate() {
                    let named = k.property_from(key, &mut next).is_some();
                    if named
                        || k.additional.is_some()
                        || k.pattern_properties.iter().any(|(p, _)| p.is_match(key))
                    {
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
            _ => return true,
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
        if let Value::Object(members) = value {
            for (name, schema) in &k.dependent_schemas {
                if has_member(members, name) {
                    take(self, *schema, marks);
                }
            }
        }
        if let Some(target) = k.reference {
            take(self, target, marks);
        }
        if let Some(target) = self.dynamic_target(k, scope) {
            take(self, target, marks);
        }
        true
    }
}

/// The violations of the number keywords of `k` by `n`, in keyword order.
fn number_messages(k: &Keywords, n: f64) -> Vec<String> {
    let mut out = Vec::new();
    if !k.flags.numbers {
        return out;
    }
    // Written so that a NaN (only possible in a hand-built value) fails.
    if let Some(d) = k.multiple_of {
        if !is_multiple_of(n, d) {
            out.push(message::not_multiple(d, n));
        }
    }
    if let Some(m) = k.minimum {
        if !matches!(n.partial_cmp(&m), Some(Ordering::Greater | Ordering::Equal)) {
            out.push(message::out_of_range(">=", m, n));
        }
    }
    if let Some(m) = k.exclusive_minimum {
        if n.partial_cmp(&m) != Some(Ordering::Greater) {
            out.push(message::out_of_range(">", m, n));
        }
    }
    if let Some(m) = k.maximum {
        if !matches!(n.partial_cmp(&m), Some(Ordering::Less | Ordering::Equal)) {
            out.push(message::out_of_range("<=", m, n));
        }
    }
    if let Some(m) = k.exclusive_maximum {
        if n.partial_cmp(&m) != Some(Ordering::Less) {
            out.push(message::out_of_range("<", m, n));
        }
    }
    out
}
