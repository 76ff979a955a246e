//! Compiled tree × instance → violations.
//!
//! Two walks over one set of rules: the *check* pass ([`Engine::check`]: run first on
//! the whole instance so that a valid one is answered without building any path or
//! message, and used for the alternatives of `anyOf`, `oneOf`, `not`, `if` and
//! `contains`) only asks whether a value is valid and stops at the first failure; the
//! *detailed* pass ([`Engine::detail`]) records every violation with its path and
//! message, in the documented keyword order. Keywords that do not apply to the value's
//! type are skipped.
//!
//! `unevaluatedProperties` and `unevaluatedItems` read which members and items the
//! other keywords of their schema evaluated, through every in-place applicator that
//! succeeded ([`Marks`]); they are collected only where such a keyword asks.
//!
//! Work is bounded whatever the schema: a node that a reference points at can be
//! reached along many paths, so its verdict for each value (in each dynamic scope) is
//! remembered, which keeps the work within (nodes × values × scopes); and schemas
//! applied one inside another are cut off at [`MAX_NESTING`], so the call stack stays
//! small.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::decimal::is_multiple_of;
use super::memo::{Key, Memo};
use super::message::{self, Context};
use super::order::cmp_values;
use super::path::Location;
use super::tree::{Keywords, Node, NodeId, ResourceId, Tree, SCAN_AT_MOST};
use super::{work, Violation};
use crate::json::{Object, Value};

/// The most schemas applied one inside another (a subschema of a member of a value is
/// one deeper, and so is a reference's target). Past it, the value gets a violation
/// saying it is too deeply nested to validate, so nothing is ever accepted unchecked.
/// A parsed instance nests at most [`crate::json::MAX_DEPTH`] deep, and an ordinary
/// recursive schema applies two schemas per level, so only a deliberately long chain
/// of references comes near it. At the limit, validation uses under 1 MiB of stack in
/// an unoptimised build (measured; a test runs it on a 2 MiB test thread).
pub const MAX_NESTING: usize = 512;

/// Validates `instance` against `tree`, with paths starting at `root`.
///
/// Most calls are valid, so a check pass (which allocates nothing for a
/// tool-argument-sized schema and stops at the first failure) goes first; only when it
/// fails does the detailed pass build paths and messages.
pub(crate) fn validate(tree: &Tree, instance: &Value, root: &str) -> Vec<Violation> {
    if is_valid(tree, instance) {
        return Vec::new();
    }
    violations(tree, instance, root)
}

/// The detailed pass alone: every violation, whatever the check pass would say.
pub(crate) fn violations(tree: &Tree, instance: &Value, root: &str) -> Vec<Violation> {
    let mut engine = Engine::new(tree);
    let mut out = Found::new(root);
    let scope = engine.root_scope();
    engine.detail(
        tree.root,
        instance,
        &Location::Root,
        &scope,
        Context::Plain,
        0,
        &mut out,
    );
    out.finish()
}

/// Whether `instance` is valid against `tree`, stopping at the first failure.
pub(crate) fn is_valid(tree: &Tree, instance: &Value) -> bool {
    let mut engine = Engine::new(tree);
    let scope = engine.root_scope();
    engine.check(tree.root, instance, &scope, 0, None)
}

/// Which members (by position in canonical order) or items (by index) of one value the
/// keywords applied to it evaluated: what `unevaluated*` leaves alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    all: bool,
    bits: Vec<u64>,
}

impl Marks {
    fn mark(&mut self, i: usize) {
        if self.all {
            return;
        }
        let word = i / 64;
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (i % 64);
    }

    fn mark_all(&mut self) {
        self.all = true;
        self.bits = Vec::new();
    }

    fn has(&self, i: usize) -> bool {
        self.all
            || self
                .bits
                .get(i / 64)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn merge(&mut self, other: &Marks) {
        if self.all {
            return;
        }
        if other.all {
            self.mark_all();
            return;
        }
        if self.bits.len() < other.bits.len() {
            self.bits.resize(other.bits.len(), 0);
        }
        for (mine, theirs) in self.bits.iter_mut().zip(&other.bits) {
            *mine |= theirs;
        }
    }
}

/// The dynamic scope: the resources entered on the way to a schema, innermost first,
/// summarised by the interned id of what each dynamic anchor name is bound to (the
/// outermost resource declaring it wins).
#[derive(Debug, Clone, Copy)]
struct Scope {
    /// The innermost resource.
    resource: ResourceId,
    /// Interned bindings ([`Engine::states`]).
    state: u32,
}

/// A remembered verdict, with the marks it left when they were collected.
#[derive(Debug, Clone)]
struct Verdict {
    valid: bool,
    marks: Option<Marks>,
}

struct Engine<'t> {
    tree: &'t Tree,
    /// Verdicts of shared nodes, made on the first shared node reached: most tool
    /// schemas have none.
    checked: Option<Memo<Verdict>>,
    /// Shared nodes whose violations the detailed pass already collected for a value.
    detailed: Option<Memo<bool>>,
    /// Interned dynamic bindings: state id → the node each dynamic anchor name is
    /// bound to.
    states: Vec<Vec<Option<NodeId>>>,
    state_ids: BTreeMap<Vec<Option<NodeId>>, u32>,
    /// Property names as values for `propertyNames`: kept for the whole run, so each
    /// has its own address (the memo keys on addresses).
    names: Vec<Rc<Value>>,
}

impl<'t> Engine<'t> {
    fn new(tree: &'t Tree) -> Self {
        Engine {
            tree,
            checked: None,
            detailed: None,
            states: Vec::new(),
            state_ids: BTreeMap::new(),
            names: Vec::new(),
        }
    }

    /// The scope validation starts in: the document's resource.
    fn root_scope(&mut self) -> Scope {
        let start = Scope {
            resource: usize::MAX,
            state: 0,
        };
        if self.tree.dynamic_names.is_empty() {
            return Scope {
                resource: 0,
                state: 0,
            };
        }
        let empty = vec![None; self.tree.dynamic_names.len()];
        self.state_ids.insert(empty.clone(), 0);
        self.states.push(empty);
        self.enter(&start, 0)
    }

    /// `scope` after entering resource `resource`.
    fn enter(&mut self, scope: &Scope, resource: ResourceId) -> Scope {
        if scope.resource == resource {
            return *scope;
        }
        let anchors = self
            .tree
            .resources
            .get(resource)
            .map_or(&[][..], |r| &r.dynamic_anchors[..]);
        let mut state = scope.state;
        if !anchors.is_empty() {
            let current = &self.states[scope.state as usize];
            if anchors.iter().any(|&(slot, _)| current[slot].is_none()) {
                let mut next = current.clone();
                for &(slot, node) in anchors {
                    if next[slot].is_none() {
                        next[slot] = Some(node);
                    }
                }
                state = match self.state_ids.get(&next) {
                    Some(&id) => id,
                    None => {
                        let id = self.states.len() as u32;
                        self.state_ids.insert(next.clone(), id);
                        self.states.push(next);
                        id
                    }
                };
            }
        }
        Scope { resource, state }
    }

    /// Where a dynamic reference of `k` lands in `scope`.
    fn dynamic_target(&self, k: &Keywords, scope: &Scope) -> Option<NodeId> {
        let d = k.dynamic_reference?;
        let bound = d
            .slot
            .and_then(|slot| self.states.get(scope.state as usize)?.get(slot).copied()?);
        Some(bound.unwrap_or(d.target))
    }

    /// The key of `node` applied to `value` in `scope`.
    fn key(node: NodeId, value: &Value, scope: &Scope) -> Key {
        (node, core::ptr::from_ref(value) as usize, scope.state)
    }

    // ---- The check pass ----

    /// Whether `value` is valid against `node`; with `marks`, also which members or
    /// items of `value` it evaluated (meaningful only when valid).
    fn check(
        &mut self,
        node: NodeId,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        if depth >= MAX_NESTING {
            return false;
        }
        let tree = self.tree;
        let k = match tree.nodes.get(node) {
            Some(Node::Keywords(k)) => k,
            Some(Node::Bool(b)) => return *b,
            // A compiled tree only holds ids of its own nodes.
            None => return false,
        };
        let scope = &self.enter(scope, k.home);
        if !k.flags.shared {
            return self.keywords(k, value, scope, depth, marks);
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
            .get_or_insert_with(Memo::new)
            .insert(key, Verdict { valid, marks: kept });
        valid
    }

    /// Whether `value` satisfies the keywords of one object schema.
    fn keywords(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        if !k.type_matches(value) || !enum_const_ok(k, value) {
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
        if !self.assertions(k, value, scope, depth, Some(&mut own)) {
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
            Value::String(s) => !k.flags.strings || strings_ok(k, s),
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
            || (k.unique_items && first_repeat(items).is_some())
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

    /// The object keywords.
    fn object(
        &mut self,
        k: &Keywords,
        members: &Object,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let count = members.len() as u64;
        if k.min_properties.is_some_and(|m| count < m.limit)
            || k.max_properties.is_some_and(|m| count > m.limit)
            || !k.required.iter().all(|name| has_member(members, name))
            || !k.dependent_required.iter().all(|(name, needs)| {
                !has_member(members, name) || needs.iter().all(|n| has_member(members, n))
            })
        {
            return false;
        }
        let walks = !k.properties.is_empty()
            || !k.pattern_properties.is_empty()
            || k.additional.is_some()
            || k.property_names.is_some();
        if !walks {
            return true;
        }
        let mut next = 0;
        for (i, (key, member)) in members.iter().enumerate() {
            let mut covered = false;
            if let Some(p) = k.property_from(key, &mut next) {
                covered = true;
                if !self.check(p.node, member, scope, depth + 1, None) {
                    return false;
                }
            }
            for (pattern, schema) in &k.pattern_properties {
                if pattern.is_match(key) {
                    covered = true;
                    if !self.check(*schema, member, scope, depth + 1, None) {
                        return false;
                    }
                }
            }
            if !covered {
                if let Some(schema) = k.additional {
                    covered = true;
                    if !self.check(schema, member, scope, depth + 1, None) {
                        return false;
                    }
                }
            }
            if covered {
                if let Some(marks) = marks.as_deref_mut() {
                    marks.mark(i);
                }
            }
            if let Some(schema) = k.property_names {
                if !self.check_name(schema, key, scope, depth) {
                    return false;
                }
            }
        }
        true
    }

    /// The in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
    /// `dependentSchemas`, `$ref`, `$dynamicRef`.
    fn in_place(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let deeper = depth + 1;
        for &schema in &k.all_of {
            if !self.check(schema, value, scope, deeper, marks.as_deref_mut()) {
                return false;
            }
        }
        if !k.any_of.is_empty() {
            let matched = match marks.as_deref_mut() {
                // Every alternative that matches leaves its marks.
                Some(marks) => {
                    let mut any = false;
                    for &schema in &k.any_of {
                        let mut own = Marks::default();
                        if self.check(schema, value, scope, deeper, Some(&mut own)) {
                            any = true;
                            marks.merge(&own);
                        }
                    }
                    any
                }
                None => k
                    .any_of
                    .iter()
                    .any(|&schema| self.check(schema, value, scope, deeper, None)),
            };
            if !matched {
                return false;
            }
        }
        if !k.one_of.is_empty() {
            let mut matched = 0;
            let mut kept = Marks::default();
            for &schema in &k.one_of {
                let mut own = Marks::default();
                let collect = marks.is_some().then_some(&mut own);
                if self.check(schema, value, scope, deeper, collect) {
                    matched += 1;
                    if matched > 1 {
                        return false;
                    }
                    kept = own;
                }
            }
            if matched != 1 {
                return false;
            }
            if let Some(marks) = marks.as_deref_mut() {
                marks.merge(&kept);
            }
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
        if let Value::Object(members) = value {
            for (name, schema) in &k.dependent_schemas {
                if has_member(members, name)
                    && !self.check(*schema, value, scope, deeper, marks.as_deref_mut())
                {
                    return false;
                }
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

    /// `propertyNames`: whether `key`, as a string value, is valid against `schema`.
    fn check_name(&mut self, schema: NodeId, key: &str, scope: &Scope, depth: usize) -> bool {
        let name = self.name(key);
        self.check(schema, &name, scope, depth + 1, None)
    }

    /// `key` as a string value, kept until the run ends so that its address (a memo
    /// key) is never reused for another name.
    fn name(&mut self, key: &str) -> Rc<Value> {
        let name = Rc::new(Value::from(key));
        self.names.push(name.clone());
        name
    }
}

/// Whether `value` is one of `enum` and equals `const` (when they are set).
#[inline]
fn enum_const_ok(k: &Keywords, value: &Value) -> bool {
    k.enumeration.as_ref().is_none_or(|e| e.contains(value))
        && k.constant.as_ref().is_none_or(|c| c == value)
}

/// Whether the length of `s` in code points is within `minLength` and `maxLength`
/// (counting only when the byte length does not settle it), and `pattern` matches.
fn strings_ok(k: &Keywords, s: &str) -> bool {
    let bytes = s.len() as u64;
    let lengths = if k.min_length.is_none_or(|m| bytes.div_ceil(4) >= m.limit)
        && k.max_length.is_none_or(|m| bytes <= m.limit)
    {
        true
    } else {
        let length = s.chars().count() as u64;
        k.min_length.is_none_or(|m| length >= m.limit)
            && k.max_length.is_none_or(|m| length <= m.limit)
    };
    lengths && k.pattern.as_ref().is_none_or(|p| p.is_match(s))
}

/// Whether `n` satisfies the number keywords of `k` (a NaN, only possible in a
/// hand-built value, does not).
fn numbers_ok(k: &Keywords, n: f64) -> bool {
    k.minimum
        .is_none_or(|m| matches!(n.partial_cmp(&m), Some(Ordering::Greater | Ordering::Equal)))
        && k.exclusive_minimum
            .is_none_or(|m| n.partial_cmp(&m) == Some(Ordering::Greater))
        && k.maximum
            .is_none_or(|m| matches!(n.partial_cmp(&m), Some(Ordering::Less | Ordering::Equal)))
        && k.exclusive_maximum
            .is_none_or(|m| n.partial_cmp(&m) == Some(Ordering::Less))
        && k.multiple_of.is_none_or(|d| is_multiple_of(n, d))
}

/// The first pair of equal items `(i, j)`, `i < j` (the least `j`, then the least
/// `i`), if any: by comparing pairs for a short array, else by sorting the positions by
/// [`cmp_values`] (whose equality is JSON equality), so a long array costs O(n log n).
fn first_repeat(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() <= SCAN_AT_MOST {
        for (j, b) in items.iter().enumerate() {
            if let Some(i) = items[..j].iter().position(|a| a == b) {
                return Some((i, j));
            }
        }
        return None;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: equal items keep their order, so each run starts with its first item.
    order.sort_by(|&a, &b| {
        work::comparison();
        cmp_values(&items[a], &items[b])
    });
    let mut best: Option<(usize, usize)> = None;
    let mut run = 0;
    for w in 1..order.len() {
        work::comparison();
        // `==` too: a NaN (only in a hand-built value) is equal to nothing.
        if cmp_values(&items[order[w]], &items[order[run]]) != Ordering::Equal
            || items[order[w]] != items[order[run]]
        {
            run = w;
        } else if w == run + 1 {
            let (i, j) = (order[run], order[w]);
            if best.is_none_or(|(_, best_j)| j < best_j) {
                best = Some((i, j));
            }
        }
    }
    best
}

/// Whether `members` has `name`: by equality for a small object (keys are unique), else
/// by searching in canonical order.
fn has_member(members: &Object, name: &str) -> bool {
    if members.len() <= SCAN_AT_MOST {
        members.iter().any(|(key, _)| key == name)
    } else {
        members.contains_key(name)
    }
}

/// Ends each violation's order key in [`Found::orders`] (positions are never this
/// large).
const END_OF_KEY: usize = usize::MAX;

/// The violations the detailed pass found, with the order keys of their values.
struct Found {
    /// Where paths start (`$`, `$.add`).
    root: String,
    found: Vec<Violation>,
    /// The order key of each of `found` (the value's positions from the root, see
    /// [`Location::push_order`]), one after another, each ended by [`END_OF_KEY`].
    orders: Vec<usize>,
}

impl Found {
    fn new(root: &str) -> Self {
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
    fn finish(self) -> Vec<Violation> {
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
    fn detail(
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
            .get_or_insert_with(Memo::new)
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
                    let min = k.min_contains.unwrap_or(super::tree::Count {
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
