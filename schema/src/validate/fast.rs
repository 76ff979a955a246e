//! The check pass for a document made of plain nodes only ([`Tree::plain`]), as most tool
//! schemas are: leaves (`type`, `enum`, `const`, number and string keywords), booleans,
//! a `$ref` alone, an `anyOf` alone, and nodes whose members and items are walked by
//! `properties`, `additionalProperties`, `prefixItems` and `items` with count bounds
//! and `required`. No node can be reached twice for one value (no memo is needed to
//! bound the work), there is no dynamic scope to follow and nothing to mark for
//! `unevaluated*`, so the walk needs no [`super::Engine`]: a function of the tree, the
//! node, the value and the depth.
//!
//! It decides exactly what [`super::Engine::check`] decides on such a document (a unit
//! test holds the two to the same verdicts by forcing the general path).

use super::check::{alternatives, any_of_fixed, charge_equality, leaf_ok, walks};
use super::meter::Meter;
use super::{
    enum_const_ok, first_repeat, has_member, numbers_ok, repeat_cost, strings_within, MAX_NESTING,
};
use crate::tree::{Keywords, Node, NodeId, Tree};
use agentloop_json::{Object, Value};

/// Whether `value` is valid against `node`, `depth` schemas deep (`false` too when
/// `meter` runs out: the caller reads it).
pub(super) fn check(tree: &Tree, node: NodeId, value: &Value, depth: usize, meter: &Meter) -> bool {
    if depth >= MAX_NESTING {
        return false;
    }
    let k = match tree.nodes.get(node) {
        Some(Node::Keywords(k)) => k,
        Some(Node::Bool(b)) => return *b,
        // A compiled tree only holds ids of its own nodes.
        None => return false,
    };
    if k.flags.leaf {
        return leaf_ok(k, value, meter);
    }
    if let Some(target) = k.only_ref {
        return meter.spend(1) && check(tree, target, value, depth + 1, meter);
    }
    if k.flags.only_any_of {
        let choices = k.any_of_choices.as_deref();
        if !meter.spend(alternatives(&k.any_of, choices)) {
            return false;
        }
        if let (Some(choices), Some(fixed)) = (choices, any_of_fixed(k, value, depth + 1, meter)) {
            return fixed
                || (choices.others().iter())
                    .filter_map(|&i| k.any_of.get(i))
                    .any(|&schema| inner(tree, schema, value, depth + 1, meter));
        }
        return k
            .any_of
            .iter()
            .any(|&schema| inner(tree, schema, value, depth + 1, meter));
    }
    if !k.type_matches(value)
        || (k.flags.costly && !charge_equality(k, value, meter))
        || !enum_const_ok(k, value)
    {
        return false;
    }
    match value {
        Value::Number(n) => !k.flags.numbers || numbers_ok(k, *n),
        Value::String(s) => !k.flags.strings || strings_within(k, s, meter),
        Value::Array(items) => !k.flags.arrays || array(tree, k, items, depth, meter),
        Value::Object(members) => !k.flags.objects || object(tree, k, members, depth, meter),
        _ => true,
    }
}

/// [`check`] of a member or an item: a leaf decided here, without a call.
#[inline(always)]
fn inner(tree: &Tree, node: NodeId, value: &Value, depth: usize, meter: &Meter) -> bool {
    match tree.nodes.get(node) {
        Some(Node::Keywords(k)) if k.flags.leaf && depth < MAX_NESTING => leaf_ok(k, value, meter),
        _ => check(tree, node, value, depth, meter),
    }
}

/// `minItems`, `maxItems`, `uniqueItems`, `prefixItems`, `items`.
fn array(tree: &Tree, k: &Keywords, items: &[Value], depth: usize, meter: &Meter) -> bool {
    let count = items.len() as u64;
    if k.min_items.is_some_and(|m| count < m.limit)
        || k.max_items.is_some_and(|m| count > m.limit)
        || !meter.spend(walks(k).saturating_mul(count))
        || (k.unique_items && (!meter.spend(repeat_cost(items)) || first_repeat(items).is_some()))
    {
        return false;
    }
    if !k
        .prefix_items
        .iter()
        .zip(items)
        .all(|(&schema, item)| inner(tree, schema, item, depth + 1, meter))
    {
        return false;
    }
    match k.items {
        Some(schema) => items
            .iter()
            .skip(k.prefix_items.len())
            .all(|item| inner(tree, schema, item, depth + 1, meter)),
        None => true,
    }
}

/// `minProperties`, `maxProperties`, `required`, `properties`, `additionalProperties`.
fn object(tree: &Tree, k: &Keywords, members: &Object, depth: usize, meter: &Meter) -> bool {
    let count = members.len() as u64;
    if k.min_properties.is_some_and(|m| count < m.limit)
        || k.max_properties.is_some_and(|m| count > m.limit)
        || !meter.spend(count + k.required_other.len() as u64)
        || !k
            .required_other
            .iter()
            .all(|name| has_member(members, name))
    {
        return false;
    }
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
        if !inner(tree, schema, member, depth + 1, meter) {
            return false;
        }
    }
    // Every required name `properties` has was met on the walk (names are unique).
    required_seen == k.required_named
}
