//! Compiled tree × instance → violations.
//!
//! Two walks: the *check* pass ([`Checker`]: run first on the whole instance so that a
//! valid one is answered without building any path or message, and used for the
//! alternatives of `anyOf`) only asks whether a value is valid and stops at the first
//! failure, reading the compile-time summaries of [`super::tree::Fast`]; the *detailed*
//! pass ([`Run`]) records every violation with its path and message, in the documented
//! keyword order. Keywords that do not apply to the value's type are skipped, as in
//! draft 2020-12.
//!
//! Work is bounded whatever the schema: a node that a `$ref` points at can be reached
//! along many paths (`anyOf` of references to references…), so its verdict for each
//! value is remembered, which keeps the work within (nodes × values); and schemas
//! applied one inside another are cut off at [`MAX_NESTING`], so the call stack stays
//! small.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::memo::{Key, Memo};
use super::message::{self, Context};
use super::order::json_eq;
use super::path::Location;
use super::tree::{Keywords, Node, NodeId, Tree, SCAN_AT_MOST};
use super::work;
use super::Violation;
use crate::json::{Object, Value};

/// The most schemas applied one inside another (a subschema of a member of a value is
/// one deeper, and so is a `$ref` target). Past it, the value gets a violation saying it
/// is too deeply nested to validate, so nothing is ever accepted unchecked. A parsed
/// instance nests at most [`crate::json::MAX_DEPTH`] deep, and an ordinary recursive
/// schema applies two schemas per level, so only a deliberately long chain of `$ref`s
/// comes near it. At the limit, validation uses under 1 MiB of stack in an unoptimised
/// build (measured; a test runs it on a 2 MiB test thread).
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
    let mut run = Run::new(tree, root);
    run.apply(tree.root, instance, &Location::Root, Context::Plain, 0);
    run.finish()
}

/// Whether `instance` is valid against `tree`, stopping at the first failure.
pub(crate) fn is_valid(tree: &Tree, instance: &Value) -> bool {
    Checker::new(tree).check(tree.root, instance, 0)
}

/// The check pass: whether a value is valid, stopping at the first failure, recording
/// nothing. It applies keywords in the same order as the detailed pass, except that
/// `required` names that `properties` also names are counted while walking the members
/// (a missing one fails the node either way).
struct Checker<'t> {
    tree: &'t Tree,
    /// Verdicts of shared nodes (the detailed pass records its verdicts here too),
    /// made on the first shared node reached: most tool schemas have none.
    memo: Option<Memo>,
}

impl<'t> Checker<'t> {
    fn new(tree: &'t Tree) -> Self {
        Checker { tree, memo: None }
    }

    /// Whether `value` is valid against `node`.
    #[inline(always)]
    fn check(&mut self, mut node: NodeId, value: &Value, mut depth: usize) -> bool {
        loop {
            if depth >= MAX_NESTING {
                return false;
            }
            return match self.tree.nodes.get(node) {
                Some(Node::Keywords(k)) => {
                    if k.fast.leaf {
                        return scalar_ok(k, value)
                            && (!k.fast.enum_or_const || enum_const_ok(k, value));
                    }
                    if let Some(target) = k.fast.only_ref {
                        // `{"$ref": …}` alone: the target decides, one level deeper.
                        node = target;
                        depth += 1;
                        continue;
                    }
                    if !k.fast.shared {
                        return self.keywords(k, value, depth);
                    }
                    let key: Key = (node, core::ptr::from_ref(value) as usize);
                    if let Some(ok) = self.memo.get_or_insert_with(Memo::new).get(key) {
                        return ok;
                    }
                    let ok = self.keywords(k, value, depth);
                    self.memo.get_or_insert_with(Memo::new).insert(key, ok);
                    ok
                }
                Some(Node::Bool(b)) => *b,
                // A compiled tree only holds ids of its own nodes.
                None => false,
            };
        }
    }

    /// Whether `value` satisfies the keywords of one object schema.
    #[inline(never)]
    fn keywords(&mut self, k: &Keywords, value: &Value, depth: usize) -> bool {
        if !scalar_ok(k, value) || (k.fast.enum_or_const && !enum_const_ok(k, value)) {
            return false;
        }
        match value {
            Value::Array(items) => {
                if let Some(schema) = k.items {
                    for item in items {
                        if !self.check(schema, item, depth + 1) {
                            return false;
                        }
                    }
                }
            }
            Value::Object(members) => {
                if k.fast.walks_members {
                    let mut next = 0;
                    let mut required_seen = 0;
                    for (key, member) in members.iter() {
                        let schema = match k.property_from(key, &mut next) {
                            Some(p) => {
                                required_seen += usize::from(p.required);
                                p.node
                            }
                            None => match k.additional {
                                Some(schema) => schema,
                                None => continue,
                            },
                        };
                        if !self.check(schema, member, depth + 1) {
                            return false;
                        }
                    }
                    if required_seen != k.fast.required_named {
                        return false;
                    }
                }
                for name in &k.fast.required_other {
                    if !has_member(members, name) {
                        return false;
                    }
                }
            }
            _ => {}
        }
        if !k.any_of.is_empty()
            && !k
                .any_of
                .iter()
                .any(|&alternative| self.check(alternative, value, depth + 1))
        {
            return false;
        }
        match k.reference {
            Some(target) => self.check(target, value, depth + 1),
            None => true,
        }
    }
}

/// Whether `value` satisfies `type` and the bounds of `k` that apply to its type
/// (everything but the applicators, `enum`, `const` and `required`).
#[inline(always)]
fn scalar_ok(k: &Keywords, value: &Value) -> bool {
    if !k.type_matches(value) {
        return false;
    }
    match value {
        Value::Number(n) => !k.fast.number_bounds || within_bounds(k, *n),
        Value::String(s) => !k.fast.length_bounds || length_ok(k, s),
        Value::Array(items) => {
            let count = items.len() as u64;
            k.min_items.is_none_or(|m| count >= m.limit)
                && k.max_items.is_none_or(|m| count <= m.limit)
        }
        _ => true,
    }
}

/// Whether `value` is one of `enum` and equals `const` (when they are set).
#[inline(never)]
fn enum_const_ok(k: &Keywords, value: &Value) -> bool {
    k.enumeration.as_ref().is_none_or(|m| m.contains(value))
        && k.constant.as_ref().is_none_or(|c| json_eq(c, value))
}

/// Whether the length of `s` in code points is within `minLength` and `maxLength`,
/// counting the code points only when the byte length does not settle it (a string has
/// at most as many code points as bytes, and at least a quarter as many).
fn length_ok(k: &Keywords, s: &str) -> bool {
    let bytes = s.len() as u64;
    if k.min_length.is_none_or(|m| bytes.div_ceil(4) >= m.limit)
        && k.max_length.is_none_or(|m| bytes <= m.limit)
    {
        return true;
    }
    let length = s.chars().count() as u64;
    k.min_length.is_none_or(|m| length >= m.limit) && k.max_length.is_none_or(|m| length <= m.limit)
}

/// Whether `n` satisfies the number bounds of `k` (a NaN, only possible in a hand-built
/// value, does not).
fn within_bounds(k: &Keywords, n: f64) -> bool {
    k.minimum
        .is_none_or(|m| matches!(n.partial_cmp(&m), Some(Ordering::Greater | Ordering::Equal)))
        && k.exclusive_minimum
            .is_none_or(|m| n.partial_cmp(&m) == Some(Ordering::Greater))
        && k.maximum
            .is_none_or(|m| matches!(n.partial_cmp(&m), Some(Ordering::Less | Ordering::Equal)))
        && k.exclusive_maximum
            .is_none_or(|m| n.partial_cmp(&m) == Some(Ordering::Less))
}

/// Ends each violation's order key in [`Run::orders`] (positions are never this large).
const END_OF_KEY: usize = usize::MAX;

/// The detailed pass: every violation with its path and message.
struct Run<'t> {
    tree: &'t Tree,
    root: &'t str,
    /// The check pass, for `anyOf` alternatives; its memo also holds the verdicts of
    /// shared nodes this pass computed.
    checker: Checker<'t>,
    /// Shared nodes whose violations were already collected for a value.
    collected: Memo,
    found: Vec<Violation>,
    /// The order key of each of `found` (the value's positions from the root, see
    /// [`Location::push_order`]), one after another, each ended by [`END_OF_KEY`].
    orders: Vec<usize>,
}

impl<'t> Run<'t> {
    fn new(tree: &'t Tree, root: &'t str) -> Self {
        Run {
            tree,
            root,
            checker: Checker::new(tree),
            collected: Memo::new(),
            found: Vec::new(),
            orders: Vec::new(),
        }
    }

    /// Applies `node` to `value` (at `at`), recording its violations; returns whether
    /// the value is valid.
    fn apply(
        &mut self,
        node: NodeId,
        value: &Value,
        at: &Location<'_>,
        context: Context<'_>,
        depth: usize,
    ) -> bool {
        if depth >= MAX_NESTING {
            self.fail(at, message::too_deep(MAX_NESTING));
            return false;
        }
        let shared = self.tree.shared.get(node).copied().unwrap_or(false);
        let key: Key = (node, core::ptr::from_ref(value) as usize);
        if shared {
            if let Some(ok) = self.collected.get(key) {
                return ok; // already reported along another path
            }
            if self.checker.memo.as_ref().and_then(|m| m.get(key)) == Some(true) {
                return true;
            }
        }
        let tree = self.tree;
        let ok = match tree.nodes.get(node) {
            Some(Node::Bool(true)) => true,
            Some(Node::Bool(false)) => {
                self.fail(at, message::not_allowed(context));
                false
            }
            Some(Node::Keywords(k)) => self.keywords(k, value, at, context, depth),
            // A compiled tree only holds ids of its own nodes.
            None => false,
        };
        if shared {
            self.checker
                .memo
                .get_or_insert_with(Memo::new)
                .insert(key, ok);
            self.collected.insert(key, ok);
        }
        ok
    }

    /// The keywords of one object schema, in the documented order.
    fn keywords(
        &mut self,
        k: &Keywords,
        value: &Value,
        at: &Location<'_>,
        context: Context<'_>,
        depth: usize,
    ) -> bool {
        let mut ok = true;
        macro_rules! fail {
            ($message:expr) => {{
                ok = false;
                self.fail(at, $message);
            }};
        }
        if !k.type_matches(value) {
            fail!(message::wrong_type(&k.types, value));
        }
        if let Some(members) = &k.enumeration {
            if !members.contains(value) {
                fail!(message::not_in_enum(members.values(), value));
            }
        }
        if let Some(constant) = &k.constant {
            if constant != value {
                fail!(message::not_const(constant, value));
            }
        }
        match value {
            Value::Number(n) => {
                let n = *n;
                // Written so that a NaN (only possible in a hand-built value) fails.
                if let Some(m) = k.minimum {
                    if !matches!(n.partial_cmp(&m), Some(Ordering::Greater | Ordering::Equal)) {
                        fail!(message::out_of_range(">=", m, n));
                    }
                }
                if let Some(m) = k.exclusive_minimum {
                    if n.partial_cmp(&m) != Some(Ordering::Greater) {
                        fail!(message::out_of_range(">", m, n));
                    }
                }
                if let Some(m) = k.maximum {
                    if !matches!(n.partial_cmp(&m), Some(Ordering::Less | Ordering::Equal)) {
                        fail!(message::out_of_range("<=", m, n));
                    }
                }
                if let Some(m) = k.exclusive_maximum {
                    if n.partial_cmp(&m) != Some(Ordering::Less) {
                        fail!(message::out_of_range("<", m, n));
                    }
                }
            }
            Value::String(s) if k.fast.length_bounds => {
                let length = s.chars().count();
                if let Some(m) = k.min_length {
                    if (length as u64) < m.limit {
                        fail!(message::wrong_count(
                            "at least",
                            m.written,
                            "character",
                            length
                        ));
                    }
                }
                if let Some(m) = k.max_length {
                    if (length as u64) > m.limit {
                        fail!(message::wrong_count(
                            "at most",
                            m.written,
                            "character",
                            length
                        ));
                    }
                }
            }
            Value::Array(items) => {
                if let Some(m) = k.min_items {
                    if (items.len() as u64) < m.limit {
                        fail!(message::wrong_count(
                            "at least",
                            m.written,
                            "item",
                            items.len()
                        ));
                    }
                }
                if let Some(m) = k.max_items {
                    if (items.len() as u64) > m.limit {
                        fail!(message::wrong_count(
                            "at most",
                            m.written,
                            "item",
                            items.len()
                        ));
                    }
                }
                if let Some(schema) = k.items {
                    for (index, item) in items.iter().enumerate() {
                        let here = Location::Item { parent: at, index };
                        if !self.apply(schema, item, &here, Context::Item, depth + 1) {
                            ok = false;
                        }
                    }
                }
            }
            Value::Object(members) => {
                for name in &k.required {
                    if !has_member(members, name) {
                        fail!(message::missing(name));
                    }
                }
                if k.fast.walks_members {
                    let mut next = 0;
                    for (index, (key, member)) in members.iter().enumerate() {
                        let (schema, why) = match k.property_from(key, &mut next) {
                            Some(p) => (p.node, Context::Property(key)),
                            None => match k.additional {
                                Some(schema) => (schema, Context::Additional(key)),
                                None => continue,
                            },
                        };
                        let here = Location::Member {
                            parent: at,
                            index,
                            key,
                        };
                        if !self.apply(schema, member, &here, why, depth + 1) {
                            ok = false;
                        }
                    }
                }
            }
            _ => {}
        }
        if !k.any_of.is_empty()
            && !k
                .any_of
                .iter()
                .any(|&alternative| self.checker.check(alternative, value, depth + 1))
        {
            fail!(message::no_alternative(k.any_of.len()));
        }
        if let Some(target) = k.reference {
            if !self.apply(target, value, at, context, depth + 1) {
                ok = false;
            }
        }
        ok
    }

    /// Records a violation at `at`.
    fn fail(&mut self, at: &Location<'_>, message: String) {
        if self.found.is_empty() {
            // Room for a few violations of values a few levels deep, grown once.
            self.found.reserve(4);
            self.orders.reserve(16);
        }
        at.push_order(&mut self.orders);
        self.orders.push(END_OF_KEY);
        self.found.push(Violation {
            path: at.spell(self.root),
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

/// Whether `members` has `name`: by equality for a small object (keys are unique), else
/// by searching in canonical order.
fn has_member(members: &Object, name: &str) -> bool {
    if members.len() <= SCAN_AT_MOST {
        members.iter().any(|(key, _)| key == name)
    } else {
        members.contains_key(name)
    }
}
