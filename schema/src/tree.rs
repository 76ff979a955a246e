//! The compiled form of a schema: a flat list of nodes that refer to each other by index,
//! so a `$ref` is an index like any other child and recursive schemas need no pointers.

use agentloop_transcript::__private::number::is_integral;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::choices::Choices;
use super::draft::Draft;
use super::order::{Lookup, Members};
use super::pattern::Pattern;
use agentloop_json::{cmp_keys, Value};

mod pattern_map;
mod prepare;

pub(crate) use pattern_map::{PatternMap, Scratch, GROUP_ABOVE};

/// Up to this many names, a lookup scans them by equality instead of searching in
/// canonical order.
pub(crate) const SCAN_AT_MOST: usize = 12;

/// Index of a node in [`Tree::nodes`].
pub(crate) type NodeId = usize;

/// Index of a schema resource (the document, or a subschema with an `$id`).
pub(crate) type ResourceId = usize;

/// A compiled schema document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree {
    /// Every compiled subschema, including `$defs` entries nothing refers to.
    pub(crate) nodes: Vec<Node>,
    /// The document's root schema.
    pub(crate) root: NodeId,
    /// The draft the document is read by.
    pub(crate) draft: Draft,
    /// The resources, with their dynamic anchors (for `$dynamicRef`).
    pub(crate) resources: Vec<Resource>,
    /// The names `$dynamicRef` (and `$recursiveRef`, as the name `""`) look up
    /// dynamically; their positions are the slots of a dynamic scope's bindings.
    pub(crate) dynamic_names: Vec<String>,
    /// Whether every node the root reaches is plain ([`Flags::plain`]) and none may be
    /// applied twice to one value ([`Flags::revisit`]), in a document without dynamic
    /// references: the check pass then needs no state ([`super::validate`]'s `fast`).
    pub(crate) plain: bool,
}

/// A schema resource: where dynamic references may land.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Resource {
    /// `(slot in Tree::dynamic_names, node)` for each dynamic anchor it declares.
    pub(crate) dynamic_anchors: Vec<(usize, NodeId)>,
}

/// One subschema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// `true` (every value is valid) or `false` (none is).
    Bool(bool),
    /// An object schema: the assertions and applicators it holds.
    Keywords(Box<Keywords>),
}

/// A count bound (`minLength`, `maxItems`, …): the limit as compared, and as written
/// (a limit above 2^64 − 1 compares as 2^64 − 1 but is quoted as the schema has it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Count {
    /// The limit, saturated to `u64`.
    pub(crate) limit: u64,
    /// The schema's number.
    pub(crate) written: f64,
}

/// A `$dynamicRef` (or `$recursiveRef`): where it points without a dynamic scope, and
/// the dynamic anchor it looks for when that target is one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DynamicRef {
    /// The target found as `$ref` would find it.
    pub(crate) target: NodeId,
    /// The slot of the dynamic anchor's name, when the target is a dynamic anchor.
    pub(crate) slot: Option<usize>,
}

/// The assertions and applicators of an object schema. Annotations are checked at
/// compile time and not kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Keywords {
    /// `type`: the accepted types in the order written (empty when absent).
    pub(crate) types: Vec<Type>,
    /// [`Keywords::types`] as bits ([`Type::bit`]); 0 when there is no `type`.
    pub(crate) type_mask: u8,
    /// `enum`: the accepted values (possibly none), with an index for long lists.
    pub(crate) enumeration: Option<Box<Members>>,
    /// `const`: the one accepted value.
    pub(crate) constant: Option<Box<Value>>,
    /// The work checking `enum` and `const` takes (set once the keywords are read).
    pub(crate) equality: Lookup,
    /// `multipleOf` (> 0).
    pub(crate) multiple_of: Option<f64>,
    /// `minimum`.
    pub(crate) minimum: Option<f64>,
    /// `exclusiveMinimum` (the number form; draft-07's too).
    pub(crate) exclusive_minimum: Option<f64>,
    /// `maximum`.
    pub(crate) maximum: Option<f64>,
    /// `exclusiveMaximum`.
    pub(crate) exclusive_maximum: Option<f64>,
    /// `minLength`, in code points.
    pub(crate) min_length: Option<Count>,
    /// `maxLength`, in code points.
    pub(crate) max_length: Option<Count>,
    /// `pattern`.
    pub(crate) pattern: Option<Box<Pattern>>,
    /// `minItems`.
    pub(crate) min_items: Option<Count>,
    /// `maxItems`.
    pub(crate) max_items: Option<Count>,
    /// `uniqueItems: true`.
    pub(crate) unique_items: bool,
    /// `contains`.
    pub(crate) contains: Option<NodeId>,
    /// `minContains` (with `contains`; 1 when absent).
    pub(crate) min_contains: Option<Count>,
    /// `maxContains` (with `contains`).
    pub(crate) max_contains: Option<Count>,
    /// `minProperties`.
    pub(crate) min_properties: Option<Count>,
    /// `maxProperties`.
    pub(crate) max_properties: Option<Count>,
    /// `required`, in the order written.
    pub(crate) required: Vec<String>,
    /// `dependentRequired` (and draft-07's array `dependencies`), in canonical key
    /// order.
    pub(crate) dependent_required: Vec<(String, Vec<String>)>,
    /// `dependentSchemas` (and draft-07's schema `dependencies`), in canonical key
    /// order.
    pub(crate) dependent_schemas: Vec<(String, NodeId)>,
    /// `prefixItems` (and the array form of `items` before 2020-12).
    pub(crate) prefix_items: Vec<NodeId>,
    /// `items` after the prefix (and `additionalItems` before 2020-12).
    pub(crate) items: Option<NodeId>,
    /// `properties`, sorted by [`cmp_keys`] (the order of the schema's object).
    pub(crate) properties: Vec<Property>,
    /// `patternProperties`, in canonical key order.
    pub(crate) pattern_properties: PatternMap,
    /// `additionalProperties`: applies to members neither `properties` nor
    /// `patternProperties` covers.
    pub(crate) additional: Option<NodeId>,
    /// `propertyNames`.
    pub(crate) property_names: Option<NodeId>,
    /// `allOf` (never empty when set).
    pub(crate) all_of: Vec<NodeId>,
    /// `anyOf` (never empty when set).
    pub(crate) any_of: Vec<NodeId>,
    /// `oneOf` (never empty when set).
    pub(crate) one_of: Vec<NodeId>,
    /// The alternatives of `anyOf` that accept fixed values, indexed, when there are
    /// many (set once the tree is complete).
    pub(crate) any_of_choices: Option<Box<Choices>>,
    /// The same for `oneOf`.
    pub(crate) one_of_choices: Option<Box<Choices>>,
    /// `not`.
    pub(crate) not: Option<NodeId>,
    /// `if`, with `then` and `else` (each may be absent).
    pub(crate) condition: Option<NodeId>,
    /// `then`.
    pub(crate) then: Option<NodeId>,
    /// `else`.
    pub(crate) otherwise: Option<NodeId>,
    /// `$ref`, resolved.
    pub(crate) reference: Option<NodeId>,
    /// `$dynamicRef` or `$recursiveRef`, resolved as far as it can be statically.
    pub(crate) dynamic_reference: Option<DynamicRef>,
    /// `unevaluatedItems`.
    pub(crate) unevaluated_items: Option<NodeId>,
    /// `unevaluatedProperties`.
    pub(crate) unevaluated_properties: Option<NodeId>,
    /// The resource this schema belongs to (the nearest enclosing `$id`, or the
    /// document): applying the schema enters it into the dynamic scope.
    pub(crate) home: ResourceId,
    /// Summary flags, set once the tree is complete ([`Keywords::prepare`]).
    pub(crate) flags: Flags,
    /// The target of `$ref` when that is the node's only keyword: the check pass goes
    /// straight on to it.
    pub(crate) only_ref: Option<NodeId>,
    /// How many `required` names `properties` also names: the check pass counts them
    /// while it walks the members instead of searching for each.
    pub(crate) required_named: usize,
    /// The `required` names `properties` does not name, in the order written.
    pub(crate) required_other: Vec<String>,
}

/// What a node holds, in groups, so the validator tests one flag for several absent
/// keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Flags {
    /// Any of `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`,
    /// `multipleOf`.
    pub(crate) numbers: bool,
    /// Any of `minLength`, `maxLength`, `pattern`.
    pub(crate) strings: bool,
    /// Any array keyword.
    pub(crate) arrays: bool,
    /// Any object keyword.
    pub(crate) objects: bool,
    /// Any in-place applicator (`allOf`, `anyOf`, `oneOf`, `not`, `if`,
    /// `dependentSchemas`, `$ref`, `$dynamicRef`).
    pub(crate) in_place: bool,
    /// Whether a `$ref`/`$dynamicRef` may point here: the node can be applied to one
    /// value along several paths, so its verdicts are remembered.
    pub(crate) shared: bool,
    /// Whether the check pass remembers this node's verdicts: more than one edge of
    /// the tree points at it (or dynamic references may land on it), so it may be
    /// applied to one value along several paths. A node with at most one edge into it
    /// is applied to each value at most once (a cycle of references always passes
    /// through a member or an item, compile refuses the others), so remembering its
    /// verdicts would cost a memo and find nothing.
    pub(crate) revisit: bool,
    /// Whether comparing a value with `enum` and `const` may cost more than a step (more
    /// than 16 small values, or large ones): [`super::validate`] charges it.
    pub(crate) costly: bool,
    /// Whether only `type`, `enum`, `const` and the number and string keywords are set:
    /// the check pass decides such a node inline, without a call of its own.
    pub(crate) leaf: bool,
    /// Whether `anyOf` is the only keyword (as pydantic writes an `Optional`): the
    /// check pass goes straight on to the alternatives.
    pub(crate) only_any_of: bool,
    /// Whether the node is a leaf, a `$ref` alone, an `anyOf` alone, or holds no
    /// in-place applicator, no `unevaluated*`, `patternProperties`, `propertyNames`,
    /// `contains` or `dependentRequired`: what the stateless check pass handles.
    pub(crate) plain: bool,
}

/// One entry of `properties`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Property {
    /// The member name.
    pub(crate) name: String,
    /// The schema for that member.
    pub(crate) node: NodeId,
    /// Whether `required` names it too (counted while walking the members).
    pub(crate) required: bool,
}

impl Keywords {
    /// Whether the schema asserts nothing and applies nothing: it accepts every value
    /// and annotates none, as `true` does.
    pub(crate) fn is_empty(&self) -> bool {
        *self
            == Keywords {
                home: self.home,
                flags: self.flags,
                type_mask: self.type_mask,
                ..Keywords::default()
            }
    }

    /// The subschemas applied to the same value (in-place applicators), with static
    /// targets for dynamic references.
    pub(crate) fn in_place(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.all_of
            .iter()
            .chain(&self.any_of)
            .chain(&self.one_of)
            .copied()
            .chain(self.not)
            .chain(self.condition)
            .chain(self.then)
            .chain(self.otherwise)
            .chain(self.dependent_schemas.iter().map(|(_, node)| *node))
            .chain(self.reference)
            .chain(self.dynamic_reference.map(|d| d.target))
    }

    /// Every subschema this one applies, to the same value or to a member, item or
    /// property name of it (with the static target of a dynamic reference): the edges
    /// of the tree out of this node.
    pub(crate) fn children(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.in_place()
            .chain(self.prefix_items.iter().copied())
            .chain(self.items)
            .chain(self.contains)
            .chain(self.properties.iter().map(|p| p.node))
            .chain(self.pattern_properties.nodes())
            .chain(self.additional)
            .chain(self.property_names)
            .chain(self.unevaluated_items)
            .chain(self.unevaluated_properties)
    }

    /// Whether `value` is of one of the `type`s (or there is no `type`).
    #[inline(always)]
    pub(crate) fn type_matches(&self, value: &Value) -> bool {
        let mask = self.type_mask;
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
            .binary_search_by(|p| cmp_keys(&p.name, key))
            .ok()
    }

    /// The schema `properties` gives for `key`, looking from position `*next` on, for
    /// walking an object's members, which come in the same (canonical) order as the
    /// names: a match moves `*next` past it, so the usual case (every member named)
    /// costs one comparison per member. Names are unique, so for the few properties of
    /// a typical tool a scan by plain equality beats ordering keys as UTF-16; many
    /// properties are searched.
    #[inline(always)]
    pub(crate) fn property_from(&self, key: &str, next: &mut usize) -> Option<&Property> {
        if self.properties.len() > SCAN_AT_MOST {
            return self.property(key).and_then(|i| self.properties.get(i));
        }
        match self.properties.get(*next) {
            Some(p) if same_key(&p.name, key) => {
                *next += 1;
                Some(p)
            }
            None => None,
            Some(_) => {
                let rest = self.properties.get(*next..).unwrap_or_default();
                let found = rest.iter().position(|p| same_key(&p.name, key))?;
                *next += found + 1;
                rest.get(found)
            }
        }
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
    /// `number`
    Number,
    /// `string`
    String,
    /// `integer`: a number with no fractional part.
    Integer,
}

impl Type {
    /// The names, for a sentence listing them.
    pub(crate) const NAMES: &'static str = "null, boolean, object, array, number, string, integer";

    /// The type a name names.
    pub(crate) fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "null" => Type::Null,
            "boolean" => Type::Boolean,
            "object" => Type::Object,
            "array" => Type::Array,
            "number" => Type::Number,
            "string" => Type::String,
            "integer" => Type::Integer,
            _ => return None,
        })
    }

    /// The type's bit in [`Keywords::type_mask`].
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
            Type::String => "string",
            Type::Integer => "integer",
        }
    }
}

/// The JSON type name of `value` as violations say it: `integer` for a number with no
/// fractional part, `number` for any other number.
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if is_integral(*n) => "integer",
        other => other.type_name(),
    }
}
