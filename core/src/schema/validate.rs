//! Compiled tree × instance → violations.
//!
//! One walk serves both modes: *collect* records every violation; *check* (used for the
//! alternatives of `anyOf`, and run first on the whole instance so that a valid one is
//! answered without building any path or message) only asks whether the value is valid
//! and stops at the first failure. Keywords that do not apply to the value's type are skipped, as in draft
//! 2020-12.
//!
//! Work is bounded whatever the schema: a node that a `$ref` points at can be reached
//! along many paths (`anyOf` of references to references…), so its verdict for each
//! value is remembered, which keeps the work within (nodes × values); and schemas
//! applied one inside another are cut off at [`MAX_NESTING`], so the call stack stays
//! small.

use alloc::vec::Vec;
use core::cmp::Ordering;

use super::memo::{Key, Memo};
use super::message::{self, Context};
use super::path::Location;
use super::tree::{Keywords, Node, NodeId, Tree, SCAN_AT_MOST};
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
    run.apply_root(instance, Mode::Collect);
    run.finish()
}

/// Whether `instance` is valid against `tree`, stopping at the first failure.
pub(crate) fn is_valid(tree: &Tree, instance: &Value) -> bool {
    Run::new(tree, "$").apply_root(instance, Mode::Check)
}

/// Whether violations are recorded or only validity is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Record every violation.
    Collect,
    /// Stop at the first failure, record nothing.
    Check,
}

/// A violation and where its value sits, for sorting.
struct Found {
    order: Vec<usize>,
    violation: Violation,
}

struct Run<'t> {
    tree: &'t Tree,
    root: &'t str,
    /// Verdicts of shared nodes, in either mode.
    checked: Memo,
    /// Shared nodes whose violations were already collected for a value.
    collected: Memo,
    found: Vec<Found>,
}

impl<'t> Run<'t> {
    fn new(tree: &'t Tree, root: &'t str) -> Self {
        Run {
            tree,
            root,
            checked: Memo::new(),
            collected: Memo::new(),
            found: Vec::new(),
        }
    }

    /// Applies the whole schema to the whole instance.
    fn apply_root(&mut self, instance: &Value, mode: Mode) -> bool {
        let root = self.tree.root;
        self.apply(root, instance, &Location::Root, Context::Plain, 0, mode)
    }

    /// Applies `node` to `value` (at `at`); returns whether the value is valid.
    fn apply(
        &mut self,
        node: NodeId,
        value: &Value,
        at: &Location<'_>,
        context: Context<'_>,
        depth: usize,
        mode: Mode,
    ) -> bool {
        if depth >= MAX_NESTING {
            self.fail(mode, at, || message::too_deep(MAX_NESTING));
            return false;
        }
        let shared = self.tree.shared.get(node).copied().unwrap_or(false);
        let key: Key = (node, core::ptr::from_ref(value) as usize);
        if shared {
            if mode == Mode::Collect {
                if let Some(ok) = self.collected.get(key) {
                    return ok; // already reported along another path
                }
            }
            match self.checked.get(key) {
                Some(true) => return true,
                Some(false) if mode == Mode::Check => return false,
                _ => {}
            }
        }
        let ok = self.apply_node(node, value, at, context, depth, mode);
        if shared {
            self.checked.insert(key, ok);
            if mode == Mode::Collect {
                self.collected.insert(key, ok);
            }
        }
        ok
    }

    fn apply_node(
        &mut self,
        node: NodeId,
        value: &Value,
        at: &Location<'_>,
        context: Context<'_>,
        depth: usize,
        mode: Mode,
    ) -> bool {
        let tree = self.tree;
        match tree.nodes.get(node) {
            Some(Node::Bool(true)) => true,
            Some(Node::Bool(false)) => {
                self.fail(mode, at, || message::not_allowed(context));
                false
            }
            Some(Node::Keywords(k)) => self.keywords(k, value, at, context, depth, mode),
            // A compiled tree only holds ids of its own nodes.
            None => false,
        }
    }

    /// The keywords of one object schema, in the documented order.
    fn keywords(
        &mut self,
        k: &Keywords,
        value: &Value,
        at: &Location<'_>,
        context: Context<'_>,
        depth: usize,
        mode: Mode,
    ) -> bool {
        let mut ok = true;
        // Records a failure; in check mode the verdict is known, so return at once.
        macro_rules! fail {
            ($message:expr) => {{
                ok = false;
                if self.fail(mode, at, || $message) {
                    return false;
                }
            }};
        }
        if !k.types.is_empty() && !k.types.iter().any(|t| t.matches(value)) {
            fail!(message::wrong_type(&k.types, value));
        }
        if let Some(values) = &k.enumeration {
            // Derived equality is JSON equality here: numbers compare as doubles
            // (1 == 1.0), objects are stored sorted, arrays compare in order.
            if !values.iter().any(|v| v == value) {
                fail!(message::not_in_enum(values, value));
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
            Value::String(s) if k.min_length.is_some() || k.max_length.is_some() => {
                let length = s.chars().count();
                if let Some(m) = k.min_length {
                    if (length as u64) < m {
                        fail!(message::wrong_count("at least", m, "character", length));
                    }
                }
                if let Some(m) = k.max_length {
                    if (length as u64) > m {
                        fail!(message::wrong_count("at most", m, "character", length));
                    }
                }
            }
            Value::Array(items) => {
                if let Some(m) = k.min_items {
                    if (items.len() as u64) < m {
                        fail!(message::wrong_count("at least", m, "item", items.len()));
                    }
                }
                if let Some(m) = k.max_items {
                    if (items.len() as u64) > m {
                        fail!(message::wrong_count("at most", m, "item", items.len()));
                    }
                }
                if let Some(schema) = k.items {
                    for (index, item) in items.iter().enumerate() {
                        let here = Location::Item { parent: at, index };
                        if !self.apply(schema, item, &here, Context::Item, depth + 1, mode) {
                            ok = false;
                            if mode == Mode::Check {
                                return false;
                            }
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
                if !k.properties.is_empty() || k.additional.is_some() {
                    let mut next = 0;
                    for (index, (key, member)) in members.iter().enumerate() {
                        let (schema, why) = match k.property_from(key, &mut next) {
                            Some(schema) => (schema, Context::Property(key)),
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
                        if !self.apply(schema, member, &here, why, depth + 1, mode) {
                            ok = false;
                            if mode == Mode::Check {
                                return false;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        if !k.any_of.is_empty() {
            let mut matched = false;
            for &alternative in &k.any_of {
                if self.apply(
                    alternative,
                    value,
                    at,
                    Context::Plain,
                    depth + 1,
                    Mode::Check,
                ) {
                    matched = true;
                    break;
                }
            }
            if !matched {
                fail!(message::no_alternative(k.any_of.len()));
            }
        }
        if let Some(target) = k.reference {
            if !self.apply(target, value, at, context, depth + 1, mode) {
                ok = false;
            }
        }
        ok
    }

    /// Records a violation at `at` in collect mode; returns whether to stop evaluating
    /// (check mode, where the first failure decides).
    fn fail(
        &mut self,
        mode: Mode,
        at: &Location<'_>,
        message: impl FnOnce() -> alloc::string::String,
    ) -> bool {
        match mode {
            Mode::Check => true,
            Mode::Collect => {
                self.found.push(Found {
                    order: at.order_key(),
                    violation: Violation {
                        path: at.spell(self.root),
                        message: message(),
                    },
                });
                false
            }
        }
    }

    /// The violations in document order of their values (stable, so violations of one
    /// value keep the keyword order), without exact repeats.
    fn finish(mut self) -> Vec<Violation> {
        self.found.sort_by(|a, b| a.order.cmp(&b.order));
        let mut out: Vec<Violation> = Vec::with_capacity(self.found.len());
        let mut group_start = 0;
        let mut previous: Option<Vec<usize>> = None;
        for found in self.found {
            if previous.as_ref() != Some(&found.order) {
                group_start = out.len();
                previous = Some(found.order);
            }
            if !out[group_start..].contains(&found.violation) {
                out.push(found.violation);
            }
        }
        out
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
