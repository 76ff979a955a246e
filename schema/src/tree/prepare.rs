//! The flags of a compiled schema object, filled once its keywords are read: which
//! kinds of value it looks into, whether it is a leaf, a `$ref` or an `anyOf` alone,
//! plain, and which `required` names its `properties` hold.

use alloc::vec::Vec;

use super::Keywords;
use crate::order::{Lookup, Members};
use agentloop_json::cmp_keys;

impl Keywords {
    /// Fills [`Keywords::flags`] (but `shared`, which needs the whole tree).
    pub(crate) fn prepare(&mut self) {
        self.type_mask = self.types.iter().fold(0, |mask, t| mask | t.bit());
        let constant = self.constant.as_deref().map(core::slice::from_ref);
        self.equality = Lookup::among(constant.unwrap_or_default()).and(
            self.enumeration
                .as_deref()
                .map_or(Lookup::default(), Members::cost),
        );
        self.kind_flags();
        // A few small values are compared within the step of the subschema.
        self.flags.costly = self
            .equality
            .compares
            .saturating_mul(self.equality.heaviest)
            > 16;
        self.flags.leaf = false;
        self.flags.only_any_of = false;
        self.only_ref = None;
        self.count_required();
        self.flags.in_place = !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.condition.is_some()
            || !self.dependent_schemas.is_empty()
            || self.reference.is_some()
            || self.dynamic_reference.is_some();
        self.flags.leaf = !self.flags.arrays && !self.flags.objects && !self.flags.in_place;
        let alone = Keywords {
            reference: self.reference,
            home: self.home,
            flags: self.flags,
            required_named: self.required_named,
            ..Keywords::default()
        };
        if self.reference.is_some() && *self == alone {
            self.only_ref = self.reference;
        }
        let alone = Keywords {
            any_of: self.any_of.clone(),
            home: self.home,
            flags: self.flags,
            required_named: self.required_named,
            ..Keywords::default()
        };
        self.flags.only_any_of = !self.any_of.is_empty() && *self == alone;
        self.flags.plain = self.flags.leaf
            || self.only_ref.is_some()
            || self.flags.only_any_of
            || (!self.flags.in_place
                && self.unevaluated_items.is_none()
                && self.unevaluated_properties.is_none()
                && self.pattern_properties.is_empty()
                && self.property_names.is_none()
                && self.contains.is_none()
                && self.dependent_required.is_empty());
    }

    /// The flags saying which kinds of value (numbers, strings, arrays, objects) the
    /// keywords look into.
    fn kind_flags(&mut self) {
        self.flags.numbers = self.minimum.is_some()
            || self.exclusive_minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_maximum.is_some()
            || self.multiple_of.is_some();
        self.flags.strings =
            self.min_length.is_some() || self.max_length.is_some() || self.pattern.is_some();
        self.flags.arrays = self.min_items.is_some()
            || self.max_items.is_some()
            || self.unique_items
            || self.contains.is_some()
            || !self.prefix_items.is_empty()
            || self.items.is_some()
            || self.unevaluated_items.is_some();
        self.flags.objects = self.min_properties.is_some()
            || self.max_properties.is_some()
            || !self.required.is_empty()
            || !self.dependent_required.is_empty()
            || !self.properties.is_empty()
            || !self.pattern_properties.is_empty()
            || self.additional.is_some()
            || self.property_names.is_some()
            || self.unevaluated_properties.is_some();
    }

    /// Marks the properties `required` names and keeps the other names apart.
    fn count_required(&mut self) {
        // Properties are sorted in canonical key order: a binary search per name.
        self.required_named = 0;
        self.required_other = Vec::new();
        for name in &self.required {
            match self
                .properties
                .binary_search_by(|p| cmp_keys(&p.name, name))
            {
                Ok(i) => {
                    if !self.properties[i].required {
                        self.properties[i].required = true;
                        self.required_named += 1;
                    }
                }
                Err(_) => self.required_other.push(name.clone()),
            }
        }
    }
}
