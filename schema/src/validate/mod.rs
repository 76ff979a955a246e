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

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;

use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

mod check;
mod detail;
mod fast;
mod in_place;
mod marks;
mod members;
mod meter;

use detail::Found;
use marks::Marks;
use meter::Meter;

pub use meter::MAX_VALIDATION_STEPS;

use super::decimal::is_multiple_of;
use super::memo::{Key, Memo};
use super::message;
use super::message::Context;
use super::order::{cmp_values, weight};
use super::tree::{Keywords, NodeId, ResourceId, Scratch, Tree, SCAN_AT_MOST};
use super::{work, Violation};
use agentloop_json::__private::path::Location;
use agentloop_json::{Object, Value};

/// The most schemas applied one inside another (a subschema of a member of a value is
/// one deeper, and so is a reference's target). Past it, the value gets a violation
/// saying it is too deeply nested to validate, so nothing is ever accepted unchecked.
/// A parsed instance nests at most [`agentloop_json::MAX_DEPTH`] deep, and an ordinary
/// recursive schema applies two schemas per level, so only a deliberately long chain
/// of references comes near it. At the limit, validation uses under 1 MiB of stack in
/// an unoptimised build (measured; a test runs it on a 2 MiB test thread).
pub const MAX_NESTING: usize = 512;

/// Validates `instance` against `tree`, with paths starting at `root`.
///
/// Most calls are valid, so a check pass (which allocates nothing for a
/// tool-argument-sized schema and stops at the first failure) goes first; only when it
/// fails does the detailed pass build paths and messages. Each pass may take
/// [`MAX_VALIDATION_STEPS`]; past them, the one violation is that validation stopped.
#[inline]
pub(crate) fn validate(tree: &Tree, instance: &Value, root: &str) -> Vec<Violation> {
    let meter = Meter::new();
    if check(tree, instance, &meter) {
        return Vec::new();
    }
    if meter.exhausted() {
        return stopped(root);
    }
    violations(tree, instance, root)
}

/// The detailed pass alone: every violation, whatever the check pass would say.
#[inline(never)]
pub(crate) fn violations(tree: &Tree, instance: &Value, root: &str) -> Vec<Violation> {
    violations_within(tree, instance, root, &Meter::new())
}

/// [`violations`] with the steps of `meter`.
fn violations_within(tree: &Tree, instance: &Value, root: &str, meter: &Meter) -> Vec<Violation> {
    let mut engine = Engine::new(tree, meter);
    engine.detailing = true;
    let mut out = Found::new(root, meter);
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
    if meter.exhausted() {
        return stopped(root);
    }
    out.finish()
}

/// The one violation of an instance whose validation ran out of steps, at its root.
fn stopped(root: &str) -> Vec<Violation> {
    vec![Violation {
        path: alloc::string::String::from(root),
        message: message::stopped(MAX_VALIDATION_STEPS),
    }]
}

/// Whether `instance` is valid against `tree`, stopping at the first failure.
#[inline]
pub(crate) fn is_valid(tree: &Tree, instance: &Value) -> bool {
    check(tree, instance, &Meter::new())
}

/// [`is_valid`] with the steps of `meter`: false when they run out.
#[inline]
fn check(tree: &Tree, instance: &Value, meter: &Meter) -> bool {
    // The root's step (every other value's is taken by the walk that reaches it).
    let valid = meter.spend(1)
        && if tree.plain && !work::general_only() {
            fast::check(tree, tree.root, instance, 0, meter)
        } else {
            general_is_valid(tree, instance, meter)
        };
    valid && !meter.exhausted()
}

/// [`is_valid`] through the [`Engine`], for a document that is not plain.
#[inline(never)]
fn general_is_valid(tree: &Tree, instance: &Value, meter: &Meter) -> bool {
    let mut engine = Engine::new(tree, meter);
    let scope = engine.root_scope();
    engine.check(tree.root, instance, &scope, 0, None)
}

/// The steps the check pass takes on `instance` (all of them, if it runs out), and
/// whether it found the instance valid: a count of the work, for tests and the
/// `schema-cost` bench. Not part of the API.
pub(crate) fn check_steps(tree: &Tree, instance: &Value) -> (bool, u64) {
    let meter = Meter::new();
    let valid = check(tree, instance, &meter);
    (valid, meter.used())
}

/// [`validate`] with `steps` instead of [`MAX_VALIDATION_STEPS`] (for tests of the
/// bound).
#[cfg(test)]
pub(crate) fn validate_within(
    tree: &Tree,
    instance: &Value,
    root: &str,
    steps: u64,
) -> Vec<Violation> {
    let meter = Meter::with(steps);
    if check(tree, instance, &meter) {
        return Vec::new();
    }
    if meter.exhausted() {
        return stopped(root);
    }
    violations_within(tree, instance, root, &Meter::with(steps))
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
    /// The steps this pass may still take.
    meter: &'t Meter,
    /// Verdicts of shared nodes, made on the first shared node reached: most tool
    /// schemas have none.
    checked: Option<Box<Memo<Verdict>>>,
    /// Shared nodes whose violations the detailed pass already collected for a value.
    detailed: Option<Box<Memo<bool>>>,
    /// Interned dynamic bindings: state id → the node each dynamic anchor name is
    /// bound to.
    states: Vec<Vec<Option<NodeId>>>,
    /// The ids of [`Engine::states`], made only for a document with dynamic
    /// references.
    state_ids: Option<BTreeMap<Vec<Option<NodeId>>, u32>>,
    /// Whether the document has dynamic references: without them the scope never
    /// matters and is not followed.
    dynamic: bool,
    /// Whether this is the detailed pass: its check calls remember the verdicts of
    /// every shared node (the detailed pass reads them), the check pass alone only
    /// those of nodes it may revisit ([`super::tree::Flags::revisit`]).
    detailing: bool,
    /// Property names as values for `propertyNames`: kept for the whole run, so each
    /// has its own address (the memo keys on addresses).
    names: Vec<Rc<Value>>,
    /// Scratch space for matching a member name against a group of
    /// `patternProperties` patterns.
    pattern_set: Scratch,
    /// Scratch list of the schemas whose pattern matched a member name.
    matched: Vec<NodeId>,
}

impl<'t> Engine<'t> {
    fn new(tree: &'t Tree, meter: &'t Meter) -> Self {
        Engine {
            tree,
            meter,
            checked: None,
            detailed: None,
            states: Vec::new(),
            state_ids: None,
            dynamic: !tree.dynamic_names.is_empty(),
            detailing: false,
            names: Vec::new(),
            pattern_set: Vec::new(),
            matched: Vec::new(),
        }
    }

    /// The scope validation starts in: the document's resource.
    #[inline]
    fn root_scope(&mut self) -> Scope {
        if !self.dynamic {
            return Scope {
                resource: 0,
                state: 0,
            };
        }
        self.dynamic_root_scope()
    }

    /// [`Engine::root_scope`] in a document with dynamic references.
    #[inline(never)]
    fn dynamic_root_scope(&mut self) -> Scope {
        let start = Scope {
            resource: usize::MAX,
            state: 0,
        };
        let empty = vec![None; self.tree.dynamic_names.len()];
        self.state_ids
            .get_or_insert_with(BTreeMap::new)
            .insert(empty.clone(), 0);
        self.states.push(empty);
        self.enter(&start, 0)
    }

    /// `scope` after entering resource `resource`.
    #[inline]
    fn enter(&mut self, scope: &Scope, resource: ResourceId) -> Scope {
        if !self.dynamic || scope.resource == resource {
            return *scope;
        }
        self.enter_resource(scope, resource)
    }

    /// [`Engine::enter`] when the resource changes.
    #[inline(never)]
    fn enter_resource(&mut self, scope: &Scope, resource: ResourceId) -> Scope {
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
                let ids = self.state_ids.get_or_insert_with(BTreeMap::new);
                state = match ids.get(&next) {
                    Some(&id) => id,
                    None => {
                        let id = self.states.len() as u32;
                        ids.insert(next.clone(), id);
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
}

/// A leaf node's verdict: `type`, `enum`, `const`, and the number or string keywords;
/// what a leaf accepts of fixed values is found with it at compile time
/// ([`crate::choices`]).
#[inline(always)]
pub(crate) fn leaf_accepts(k: &Keywords, value: &Value) -> bool {
    leaf_within(k, value, |_| true)
}

/// [`leaf_accepts`], calling `read` with the length of a string of [`LONG_STRING`]
/// bytes or more that the string keywords read (to take its steps; `false` when they
/// run out, and then the value is not accepted).
#[inline(always)]
fn leaf_within(k: &Keywords, value: &Value, read: impl FnOnce(usize) -> bool) -> bool {
    k.type_matches(value)
        && (k.enumeration.is_none() && k.constant.is_none() || enum_const_ok(k, value))
        && match value {
            Value::Number(n) => !k.flags.numbers || numbers_ok(k, *n),
            Value::String(s) => {
                !k.flags.strings || ((s.len() < LONG_STRING || read(s.len())) && strings_ok(k, s))
            }
            _ => true,
        }
}

/// From this length on, a string the string keywords read is charged for it (a shorter
/// one is within the step of the subschema that reads it).
const LONG_STRING: usize = 64;

/// Whether `s` satisfies the string keywords of `k`, a long one charged to `meter`.
#[inline]
fn strings_within(k: &Keywords, s: &str, meter: &Meter) -> bool {
    (s.len() < LONG_STRING || meter.bytes(s.len())) && strings_ok(k, s)
}

/// Whether `value` is one of `enum` and equals `const` (when they are set).
#[inline(always)]
fn enum_const_ok(k: &Keywords, value: &Value) -> bool {
    k.enumeration.as_ref().is_none_or(|e| e.contains(value))
        && k.constant.as_deref().is_none_or(|c| c == value)
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

/// The steps of looking for a repeat among `items` ([`first_repeat`]): n log n
/// comparisons, each at most the weight of the items compared.
fn repeat_cost(items: &[Value]) -> u64 {
    let compares = u64::from(usize::BITS - items.len().leading_zeros()) + 1;
    let weights = items
        .iter()
        .fold(0u64, |sum, item| sum.saturating_add(weight(item)));
    weights.saturating_mul(compares)
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
