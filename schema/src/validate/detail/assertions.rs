//! The assertions of one object schema in the detailed pass, one function per family
//! (any value, numbers, strings, arrays, objects), each recording its violations in
//! keyword order.

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::super::check::charge_equality;
use super::super::members::{each_present, present_cost};
use super::super::meter::Meter;
use super::super::{first_repeat, has_member, repeat_cost, Engine, Scope};
use super::Found;
use crate::decimal::is_multiple_of;
use crate::message;
use crate::tree::{Count, Keywords};
use agentloop_json::__private::path::Location;
use agentloop_json::{Object, Value};

impl Engine<'_> {
    /// The assertions of `k` on `value` itself (at `at`), in the documented order: the
    /// ones on any value, then those of its kind. Returns whether all held.
    pub(super) fn detail_assertions(
        &mut self,
        k: &Keywords,
        value: &Value,
        at: &Location<'_>,
        scope: &Scope,
        depth: usize,
        out: &mut Found<'_>,
    ) -> bool {
        let mut fail = Fail { at, out, ok: true };
        if !k.flags.costly || charge_equality(k, value, self.meter) {
            any_value(k, value, &mut fail);
        }
        match value {
            Value::Number(n) => {
                for m in number_messages(k, *n) {
                    fail.fail(m);
                }
            }
            Value::String(s) if k.flags.strings && self.meter.bytes(s.len()) => {
                string(k, s, value, &mut fail);
            }
            Value::Array(items) => self.detail_array(k, items, scope, depth, &mut fail),
            Value::Object(members) => {
                let meter = self.meter;
                let steps = (k.required.len() as u64)
                    .saturating_add(present_cost(&k.dependent_required, members));
                if meter.spend(steps) {
                    object(k, members, &mut fail, meter);
                }
            }
            _ => {}
        }
        fail.ok
    }

    /// The array assertions: `minItems`, `maxItems`, `uniqueItems`, `contains` with
    /// its counts.
    fn detail_array(
        &mut self,
        k: &Keywords,
        items: &[Value],
        scope: &Scope,
        depth: usize,
        fail: &mut Fail<'_, '_, '_, '_>,
    ) {
        let count = items.len();
        if let Some(m) = k.min_items {
            if (count as u64) < m.limit {
                fail.fail(message::wrong_count("at least", m, "item", count));
            }
        }
        if let Some(m) = k.max_items {
            if (count as u64) > m.limit {
                fail.fail(message::wrong_count("at most", m, "item", count));
            }
        }
        if k.unique_items && self.meter.spend(repeat_cost(items)) {
            if let Some((i, j)) = first_repeat(items) {
                fail.fail(message::not_unique(i, j));
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
                fail.fail(message::contains_count("at least", min, found));
            }
            if let Some(max) = k.max_contains {
                if (found as u64) > max.limit {
                    fail.fail(message::contains_count("at most", max, found));
                }
            }
        }
    }
}

/// Where the violations of one value go, and whether there was one.
struct Fail<'a, 'l, 'p, 'm> {
    at: &'a Location<'l>,
    out: &'p mut Found<'m>,
    ok: bool,
}

impl Fail<'_, '_, '_, '_> {
    /// Records `message` at the value.
    fn fail(&mut self, message: String) {
        self.ok = false;
        self.out.fail(self.at, message);
    }
}

/// The assertions on any value: `type`, `enum`, `const`.
#[inline]
fn any_value(k: &Keywords, value: &Value, fail: &mut Fail<'_, '_, '_, '_>) {
    if !k.type_matches(value) {
        fail.fail(message::wrong_type(&k.types, value));
    }
    if let Some(e) = &k.enumeration {
        if !e.contains(value) {
            fail.fail(message::not_in_enum(e.values(), value));
        }
    }
    if let Some(constant) = k.constant.as_deref() {
        if constant != value {
            fail.fail(message::not_const(constant, value));
        }
    }
}

/// The string assertions: `minLength`, `maxLength` (in characters), `pattern`.
fn string(k: &Keywords, s: &str, value: &Value, fail: &mut Fail<'_, '_, '_, '_>) {
    let length = s.chars().count();
    if let Some(m) = k.min_length {
        if (length as u64) < m.limit {
            fail.fail(message::wrong_count("at least", m, "character", length));
        }
    }
    if let Some(m) = k.max_length {
        if (length as u64) > m.limit {
            fail.fail(message::wrong_count("at most", m, "character", length));
        }
    }
    if let Some(p) = &k.pattern {
        if !p.is_match(s) {
            fail.fail(message::no_match(p.source(), value));
        }
    }
}

/// The object assertions: `required`, `minProperties`, `maxProperties`,
/// `dependentRequired` (the names each present entry needs charged to `meter`).
fn object(k: &Keywords, members: &Object, fail: &mut Fail<'_, '_, '_, '_>, meter: &Meter) {
    for name in &k.required {
        if !has_member(members, name) {
            fail.fail(message::missing(name));
        }
    }
    let count = members.len();
    if let Some(m) = k.min_properties {
        if (count as u64) < m.limit {
            fail.fail(message::wrong_count("at least", m, "property", count));
        }
    }
    if let Some(m) = k.max_properties {
        if (count as u64) > m.limit {
            fail.fail(message::wrong_count("at most", m, "property", count));
        }
    }
    each_present(&k.dependent_required, members, |name, needs| {
        if meter.spend(needs.len() as u64) {
            for need in needs {
                if !has_member(members, need) {
                    fail.fail(message::missing_dependent(need, name));
                }
            }
        }
        true
    });
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
