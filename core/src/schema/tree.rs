//! The compiled form of a schema: a flat list of nodes that refer to each other by index,
//! so a `$ref` is an index like any other child and recursive schemas need no pointers.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::order::Members;
use super::work;
use crate::json::{cmp_keys, Value};

/// Up to this many names, a lookup scans them by equality instead of searching in
/// canonical order.
pub(crate) const SCAN_AT_MOST: usize = 12;

/// Index of a node in [`Tree::nodes`].
pub(crate) type NodeId = usize;

/// A compiled schema document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree {
    /// Every compiled subschema, including `$defs` entries nothing refers to.
    pub(crate) nodes: Vec<Node>,
    /// Whether a `$ref` points at the node: only such nodes can be applied to the same
    /// value along several paths, so only their results are remembered while validating.
    pub(crate) shared: Vec<bool>,
    /// The document's root schema.
    pub(crate) root: NodeId,
}

/// One subschema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// `true` (every value is valid) or `false` (none is).
    Bool(bool),
    /// An object schema: the assertions and applicators it holds.
    Keywords(Box<Keywords>),
}

/// The assertions and applicators of an object schema. Annotations are checked at
/// compile time and not kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Keywords {
    /// `type`: the accepted types in the order written (empty when absent).
    pub(crate) types: Vec<Type>,
    /// `enum`: the accepted values (possibly none), indexed.
    pub(crate) enumeration: Option<Members>,
    /// `const`: the one accepted value.
    pub(crate) constant: Option<Value>,
    /// `minimum`.
    pub(crate) minimum: Option<f64>,
    /// `exclusiveMinimum` (the 2020-12 number form).
    pub(crate) exclusive_minimum: Option<f64>,
    /// `maximum`.
    pub(crate) maximum: Option<f64>,
    /// `exclusiveMaximum` (the 2020-12 number form).
    pub(crate) exclusive_maximum: Option<f64>,
    /// `minLength`, in code points.
    pub(crate) min_length: Option<Count>,
    /// `maxLength`, in code points.
    pub(crate) max_length: Option<Count>,
    /// `minItems`.
    pub(crate) min_items: Option<Count>,
    /// `maxItems`.
    pub(crate) max_items: Option<Count>,
    /// `items`: the schema every item must match.
    pub(crate) items: Option<NodeId>,
    /// `required`, in the order written.
    pub(crate) required: Vec<String>,
    /// `properties`, sorted by [`cmp_keys`] (the order of the schema's object).
    pub(crate) properties: Vec<Property>,
    /// `additionalProperties`: applies to members not named in `properties`.
    pub(crate) additional: Option<NodeId>,
    /// `anyOf`: at least one alternative must match (never empty).
    pub(crate) any_of: Vec<NodeId>,
    /// `$ref`, resolved.
    pub(crate) reference: Option<NodeId>,
    /// What the check pass reads instead of the keywords above, set by
    /// [`Keywords::prepare`] once the tree is complete.
    pub(crate) fast: Fast,
}

/// A count bound (`minLength`, `maxLength`, `minItems`, `maxItems`): a non-negative
/// integer, which may be past any count (`1e308`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Count {
    /// What counts are compared with: the bound saturated to `u64::MAX`, which is as
    /// good as any larger bound (no count reaches it), and exact below it.
    pub(crate) limit: u64,
    /// The bound as the schema gives it, for messages (`1e308`, not `u64::MAX`).
    pub(crate) written: f64,
}

/// One entry of `properties`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Property {
    /// The member name.
    pub(crate) name: String,
    /// The schema for that member.
    pub(crate) node: NodeId,
    /// Whether `required` lists the name too.
    pub(crate) required: bool,
}

/// Summaries of a node's keywords for the check pass, so that it tests one flag for a
/// group of absent keywords and counts required members while walking the members.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Fast {
    /// The accepted types as bits ([`Type::bit`]); 0 when there is no `type`.
    pub(crate) type_mask: u8,
    /// Whether any of `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum` is set.
    pub(crate) number_bounds: bool,
    /// Whether `minLength` or `maxLength` is set.
    pub(crate) length_bounds: bool,
    /// Whether `properties` or `additionalProperties` is set (the members are walked).
    pub(crate) walks_members: bool,
    /// How many `required` names `properties` also names.
    pub(crate) required_named: usize,
    /// The `required` names `properties` does not name, in the order written.
    pub(crate) required_other: Vec<String>,
    /// Whether a `$ref` points at this node ([`Tree::shared`]).
    pub(crate) shared: bool,
    /// Whether `type`, the bounds, `enum` and `const` are all there is to check (no
    /// `required` nor applicator): the check pass then needs no call of its own for the
    /// node.
    pub(crate) leaf: bool,
    /// Whether `enum` or `const` is set.
    pub(crate) enum_or_const: bool,
    /// The target of `$ref` when that is the node's only keyword: the check pass goes
    /// straight on to the target.
    pub(crate) only_ref: Option<NodeId>,
}

impl Keywords {
    /// Fills [`Keywords::fast`] from the keywords; `shared` says whether a `$ref` points
    /// at this node.
    pub(crate) fn prepare(&mut self, shared: bool) {
        // Each required name is searched among the properties (sorted by name), so n
        // names against m properties cost n log m comparisons, not n × m.
        for p in &mut self.properties {
            p.required = false;
        }
        let mut required_named = 0;
        let mut required_other = Vec::new();
        for name in &self.required {
            match self.property(name) {
                Some(i) => {
                    if let Some(p) = self.properties.get_mut(i) {
                        p.required = true;
                        required_named += 1;
                    }
                }
                None => required_other.push(name.clone()),
            }
        }
        self.fast = Fast {
            type_mask: self.types.iter().fold(0, |mask, t| mask | t.bit()),
            number_bounds: self.minimum.is_some()
                || self.exclusive_minimum.is_some()
                || self.maximum.is_some()
                || self.exclusive_maximum.is_some(),
            length_bounds: self.min_length.is_some() || self.max_length.is_some(),
            walks_members: !self.properties.is_empty() || self.additional.is_some(),
            required_named,
            required_other,
            shared,
            leaf: false,
            enum_or_const: self.enumeration.is_some() || self.constant.is_some(),
            only_ref: None,
        };
        // A node a `$ref` points at may be a leaf or go straight to its target too: the
        // memo only saves work, a leaf's check costs less than a lookup, and a `$ref`
        // alone has one way on, so no path through it multiplies the work.
        let no_applicator = self.items.is_none()
            && self.required.is_empty()
            && !self.fast.walks_members
            && self.any_of.is_empty();
        self.fast.leaf = no_applicator && self.reference.is_none();
        let no_assertion = self.types.is_empty()
            && !self.fast.enum_or_const
            && !self.fast.number_bounds
            && !self.fast.length_bounds
            && self.min_items.is_none()
            && self.max_items.is_none();
        if no_applicator && no_assertion {
            self.fast.only_ref = self.reference;
        }
    }

    /// Whether `value` is of one of the `type`s (or there is no `type`).
    #[inline]
    pub(crate) fn type_matches(&self, value: &Value) -> bool {
        let mask = self.fast.type_mask;
        if mask == 0 {
            return true;
        }
        let bit = match value {
            Value::Number(n) => {
                return mask & Type::Number.bit() != 0
                    || (mask & Type::Integer.bit() != 0 && is_integral(*n));
            }
            Value::Null => Type::Null.bit(),
            Value::Bool(_) => Type::Boolean.bit(),
            Value::Object(_) => Type::Object.bit(),
            Value::Array(_) => Type::Array.bit(),
            Value::String(_) => Type::String.bit(),
        };
        mask & bit != 0
    }

    /// The index in `properties` of `key`, if it names it.
    #[inline(never)]
    fn property(&self, key: &str) -> Option<usize> {
        self.properties
            .binary_search_by(|p| {
                work::comparison();
                cmp_keys(&p.name, key)
            })
            .ok()
    }

    /// The schema `properties` gives for `key`, looking from position `*next` on, for
    /// walking an object's members, which come in the same (canonical) order as the
    /// names: a match moves `*next` past it, so the usual case (every member named)
    /// costs one comparison per member. Names are unique, so for the few properties of
    /// a typical tool a scan by plain equality (a length check, then a memcmp) beats
    /// ordering keys as UTF-16; many properties are searched.
    #[inline(always)]
    pub(crate) fn property_from(&self, key: &str, next: &mut usize) -> Option<&Property> {
        if self.properties.len() > SCAN_AT_MOST {
            return self.property(key).and_then(|i| self.properties.get(i));
        }
        // The usual case: the member is the next name.
        match self.properties.get(*next) {
            Some(p) if same_key(&p.name, key) => {
                *next += 1;
                Some(p)
            }
            // No names left (or none at all: `additionalProperties` alone).
            None => None,
            Some(_) => self.property_after(key, next),
        }
    }

    /// [`Keywords::property_from`] past the next name.
    #[inline(never)]
    fn property_after(&self, key: &str, next: &mut usize) -> Option<&Property> {
        let rest = self.properties.get(*next..).unwrap_or_default();
        let found = rest.iter().position(|p| same_key(&p.name, key))?;
        *next += found + 1;
        rest.get(found)
    }
}

/// `a == b` for keys, which are mostly short: compared in at most two overlapping
/// word-sized loads each instead of a call to `memcmp`.
#[inline(always)]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn word8(s: &[u8], at: usize) -> u64 {
        let mut w = [0; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(w)
    }
    fn word4(s: &[u8], at: usize) -> u32 {
        let mut w = [0; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_ne_bytes(w)
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// A draft 2020-12 type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `number`: any number.
    Number,
    /// `integer`: a number with no fractional part (`1.0` is one).
    Integer,
    /// `string`
    String,
}

impl Type {
    /// Every type name, sorted, as the meta-schema's `simpleTypes` lists them.
    pub(crate) const NAMES: &'static str = "array, boolean, integer, null, number, object, string";

    /// The type a name denotes, if it is a draft 2020-12 type name.
    pub(crate) fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "null" => Type::Null,
            "boolean" => Type::Boolean,
            "object" => Type::Object,
            "array" => Type::Array,
            "number" => Type::Number,
            "integer" => Type::Integer,
            "string" => Type::String,
            _ => return None,
        })
    }

    /// The type's bit in [`Fast::type_mask`].
    pub(crate) fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The type's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Type::Null => "null",
            Type::Boolean => "boolean",
            Type::Object => "object",
            Type::Array => "array",
            Type::Number => "number",
            Type::Integer => "integer",
            Type::String => "string",
        }
    }

    /// Whether `value` is of this type: the plain definition that
    /// [`Keywords::type_matches`] is tested against.
    #[cfg(test)]
    pub(crate) fn matches(self, value: &Value) -> bool {
        match (self, value) {
            (Type::Null, Value::Null)
            | (Type::Boolean, Value::Bool(_))
            | (Type::Object, Value::Object(_))
            | (Type::Array, Value::Array(_))
            | (Type::Number, Value::Number(_))
            | (Type::String, Value::String(_)) => true,
            (Type::Integer, Value::Number(n)) => is_integral(*n),
            _ => false,
        }
    }
}

/// Whether `n` is finite with a zero fractional part (draft 2020-12's integer: `1.0`
/// and `1e300` are integers).
///
/// `core` has no `f64::trunc`, but every finite double of magnitude 2^52 or more is an
/// integer, and below that the cast to `i64` truncates exactly.
pub(crate) fn is_integral(n: f64) -> bool {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    if !n.is_finite() {
        return false;
    }
    if n >= TWO_52 || n <= -TWO_52 {
        return true;
    }
    (n as i64) as f64 == n
}

/// The JSON type name of `value` as violations say it: `integer` for a number with no
/// fractional part, `number` for any other number.
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if is_integral(*n) => "integer",
        other => other.type_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_mask_matches_like_the_type_list() {
        use crate::json::Object;
        let values = [
            Value::Null,
            Value::Bool(true),
            Value::Number(1.0),
            Value::Number(1.5),
            Value::Number(f64::NAN),
            Value::from("s"),
            Value::Array(Vec::new()),
            Value::Object(Object::new()),
        ];
        let all = [
            Type::Null,
            Type::Boolean,
            Type::Object,
            Type::Array,
            Type::Number,
            Type::Integer,
            Type::String,
        ];
        // Every subset of the seven types, as a `type` list.
        for subset in 0u32..128 {
            let mut k = Keywords {
                types: (0..7)
                    .filter(|i| subset & (1 << i) != 0)
                    .map(|i| all[i])
                    .collect(),
                ..Keywords::default()
            };
            k.prepare(false);
            for value in &values {
                let expected = k.types.is_empty() || k.types.iter().any(|t| t.matches(value));
                assert_eq!(k.type_matches(value), expected, "{:?} {value:?}", k.types);
            }
        }
    }

    #[test]
    fn keys_compare_like_strings() {
        let keys = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abd",
            "xbc",
            "abcd",
            "abce",
            "xbcd",
            "command",
            "commanx",
            "xommand",
            "timeout_s",
            "timeout_x",
            "ximeout_s",
            "CARGO_TARGET_DIR",
            "CARGO_TARGET_DIX",
            "XARGO_TARGET_DIR",
            "a_very_long_property_name",
            "a_very_long_property_namx",
            "é",
            "😀",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(same_key(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn integral_numbers() {
        for n in [0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 4503599627370496.0] {
            assert!(is_integral(n), "{n}");
        }
        for n in [
            0.5,
            -0.5,
            1.000000001,
            4503599627370495.5,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(!is_integral(n), "{n}");
        }
    }

    #[test]
    fn types_match_the_draft_2020_12_way() {
        assert!(Type::Integer.matches(&Value::Number(1.0)));
        assert!(!Type::Integer.matches(&Value::Number(1.5)));
        assert!(Type::Number.matches(&Value::Number(1.5)));
        assert!(!Type::Number.matches(&Value::Bool(true)));
        assert!(!Type::Boolean.matches(&Value::Number(1.0)));
        assert_eq!(type_of(&Value::Number(2.0)), "integer");
        assert_eq!(type_of(&Value::Number(2.5)), "number");
        assert_eq!(type_of(&Value::Bool(false)), "boolean");
        for name in Type::NAMES.split(", ") {
            assert_eq!(Type::from_name(name).map(Type::name), Some(name));
        }
        assert_eq!(Type::from_name("dict"), None);
    }
}
