//! The check pass's object keywords: the counts, `required`, `dependentRequired`, and
//! the walk of the members under `properties`, `patternProperties`,
//! `additionalProperties` and `propertyNames`; and what the detailed pass shares with
//! it (the schemas whose pattern matches a name, the `dependent*` entries an object
//! has, a name as a value).

use alloc::rc::Rc;
use alloc::vec::Vec;

use super::marks::Marks;
use super::meter::cost;
use super::{has_member, Engine, Scope};
use crate::tree::{Keywords, NodeId, PatternMap, SCAN_AT_MOST};
use crate::work;
use agentloop_json::{cmp_keys, Object, Value};

impl Engine<'_> {
    /// The object keywords.
    pub(super) fn object(
        &mut self,
        k: &Keywords,
        members: &Object,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        if !self.object_counts_ok(k, members) {
            return false;
        }
        let walks = !k.properties.is_empty()
            || !k.pattern_properties.is_empty()
            || k.additional.is_some()
            || k.property_names.is_some();
        if !walks {
            return true;
        }
        // Only `properties` and `additionalProperties` walk, and nothing to mark (as
        // most tool schemas): the same walk without the rest.
        if k.pattern_properties.is_empty()
            && k.property_names.is_none()
            && marks.is_none()
            && !work::general_only()
        {
            return self.properties_only(k, members, scope, depth);
        }
        let mut next = 0;
        let mut required_seen = 0;
        for (i, (key, member)) in members.iter().enumerate() {
            let mut covered = false;
            if let Some(p) = k.property_from(key, &mut next) {
                covered = true;
                required_seen += usize::from(p.required);
                if !self.check(p.node, member, scope, depth + 1, None) {
                    return false;
                }
            }
            if !k.pattern_properties.is_empty() {
                let Some(matched) = self.matching(&k.pattern_properties, key) else {
                    return false;
                };
                covered |= !matched.is_empty();
                for &schema in &matched {
                    if !self.check(schema, member, scope, depth + 1, None) {
                        return false;
                    }
                }
                self.matched = matched;
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
        // Every required name `properties` has was met on the walk (names are unique).
        required_seen == k.required_named
    }

    /// The members of an object whose schema walks them with `properties` and
    /// `additionalProperties` only, marking nothing.
    #[inline]
    fn properties_only(
        &mut self,
        k: &Keywords,
        members: &Object,
        scope: &Scope,
        depth: usize,
    ) -> bool {
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
            if !self.check(schema, member, scope, depth + 1, None) {
                return false;
            }
        }
        required_seen == k.required_named
    }

    /// The object keywords that count: `minProperties`, `maxProperties`, the
    /// `required` names `properties` lacks, `dependentRequired`; and the steps of the
    /// walk of the members.
    #[inline]
    fn object_counts_ok(&self, k: &Keywords, members: &Object) -> bool {
        let count = members.len() as u64;
        if k.min_properties.is_some_and(|m| count < m.limit)
            || k.max_properties.is_some_and(|m| count > m.limit)
            || !self.meter.spend(count + k.required_other.len() as u64)
            || !k
                .required_other
                .iter()
                .all(|name| has_member(members, name))
        {
            return false;
        }
        if k.dependent_required.is_empty() {
            return true;
        }
        let meter = self.meter;
        meter.spend(present_cost(&k.dependent_required, members))
            && each_present(&k.dependent_required, members, |_, needs| {
                meter.spend(needs.len() as u64) && needs.iter().all(|n| has_member(members, n))
            })
    }

    /// The schemas of `map` whose pattern matches `key`, in order, in the engine's
    /// list (give it back in [`Engine::matched`]); `None` when the steps run out (or
    /// the search could not finish, which stops the validation as running out does:
    /// whether the name is covered is not known).
    pub(super) fn matching(&mut self, map: &PatternMap, key: &str) -> Option<Vec<NodeId>> {
        if !self.meter.spend(map.cost(key)) {
            return None;
        }
        let mut out = core::mem::take(&mut self.matched);
        match map.matching(key, &mut self.pattern_set, &mut out) {
            Ok(reports) if self.meter.spend(reports) => Some(out),
            Ok(_) => None,
            Err(_) => {
                self.meter.spend(u64::MAX);
                None
            }
        }
    }

    /// `propertyNames`: whether `key`, as a string value, is valid against `schema`.
    pub(super) fn check_name(
        &mut self,
        schema: NodeId,
        key: &str,
        scope: &Scope,
        depth: usize,
    ) -> bool {
        if !self.meter.spend(cost::NAME) || !self.meter.bytes(key.len()) {
            return false;
        }
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

/// Calls `f` with each entry of `list` (`dependentRequired`, `dependentSchemas`: in
/// canonical key order, as an object's members are) whose name `members` has, in that
/// order, until it says `false`; whether it never did. A long list is not walked for
/// each object: the members are looked up in it instead when they are fewer, so an
/// object costs [`present_cost`] lookups whatever the length of the list.
pub(super) fn each_present<T>(
    list: &[(alloc::string::String, T)],
    members: &Object,
    mut f: impl FnMut(&str, &T) -> bool,
) -> bool {
    if list.len() <= SCAN_AT_MOST || list.len() <= members.len() {
        return list
            .iter()
            .filter(|(name, _)| {
                work::comparison();
                has_member(members, name)
            })
            .all(|(name, entry)| f(name, entry));
    }
    members
        .iter()
        .filter_map(|(key, _)| {
            work::comparison();
            let i = list
                .binary_search_by(|(name, _)| cmp_keys(name, key))
                .ok()?;
            list.get(i)
        })
        .all(|(name, entry)| f(name, entry))
}

/// The lookups [`each_present`] makes.
pub(super) fn present_cost<T>(list: &[(alloc::string::String, T)], members: &Object) -> u64 {
    list.len().min(members.len().max(SCAN_AT_MOST)) as u64
}
