//! The compiled form of a schema: a flat list of nodes that refer to each other by index,
//! so a `$ref` is an index like any other child and recursive schemas need no pointers.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

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
    /// `enum`: the accepted values (possibly none).
    pub(crate) enumeration: Option<Vec<Value>>,
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
    pub(crate) min_length: Option<u64>,
    /// `maxLength`, in code points.
    pub(crate) max_length: Option<u64>,
    /// `minItems`.
    pub(crate) min_items: Option<u64>,
    /// `maxItems`.
    pub(crate) max_items: Option<u64>,
    /// `items`: the schema every item must match.
    pub(crate) items: Option<NodeId>,
    /// `required`, in the order written.
    pub(crate) required: Vec<String>,
    /// `properties`, sorted by [`cmp_keys`] (the order of the schema's object).
    pub(crate) properties: Vec<(String, NodeId)>,
    /// `additionalProperties`: applies to members not named in `properties`.
    pub(crate) additional: Option<NodeId>,
    /// `anyOf`: at least one alternative must match (never empty).
    pub(crate) any_of: Vec<NodeId>,
    /// `$ref`, resolved.
    pub(crate) reference: Option<NodeId>,
}

impl Keywords {
    /// The schema `properties` gives for `key`, if it names it.
    pub(crate) fn property(&self, key: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| cmp_keys(k, key))
            .ok()
            .map(|i| self.properties[i].1)
    }

    /// The schema `properties` gives for `key`, looking from position `*next` on, for
    /// walking an object's members, which come in the same (canonical) order as the
    /// names: a match moves `*next` past it, so the usual case (every member named)
    /// costs one comparison per member. Names are unique, so for the few properties of
    /// a typical tool a scan by plain equality (a length check, then a memcmp) beats
    /// ordering keys as UTF-16; many properties are searched.
    pub(crate) fn property_from(&self, key: &str, next: &mut usize) -> Option<NodeId> {
        if self.properties.len() > SCAN_AT_MOST {
            return self.property(key);
        }
        let rest = self.properties.get(*next..).unwrap_or_default();
        let found = rest.iter().position(|(k, _)| k == key)?;
        *next += found + 1;
        Some(rest[found].1)
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

    /// Whether `value` is of this type.
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
