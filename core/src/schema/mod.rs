//! Tool-argument schemas: the JSON Schema (draft 2020-12) subset of SPEC section 4,
//! compiled once when a tool is registered and then used to validate each call.
//!
//! ```
//! use agentloop_core::{json, schema::Schema};
//!
//! let schema = json::parse(br#"{"type":"object","properties":{"a":{"type":"integer"},
//!     "b":{"type":"integer"}},"required":["a","b"]}"#).unwrap();
//! let schema = Schema::compile(&schema).unwrap();
//! let arguments = json::parse(br#"{"a":"2","b":40}"#).unwrap();
//! let violations = schema.validate(&arguments, "$.add");
//! assert_eq!(violations.len(), 1);
//! assert_eq!(violations[0].to_string(), "$.add.a: expected type integer, got string");
//! ```
//!
//! # The subset
//!
//! - Assertions: `type` (a name or a non-empty array of unique names; the names are
//!   draft 2020-12's `null`, `boolean`, `object`, `array`, `number`, `string`, `integer`),
//!   `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`
//!   (numbers, the 2020-12 form), `minLength`, `maxLength` (in Unicode code points),
//!   `minItems`, `maxItems`, `required`.
//! - Applicators: `properties`, `additionalProperties` (a boolean or a schema, applied
//!   to the members `properties` does not name), `items` (one schema for every item),
//!   `anyOf`, `$ref`, `$defs`. Boolean schemas `true` and `false` are allowed anywhere a
//!   schema is.
//! - Annotations, checked for their meta-schema type and otherwise ignored: `title`,
//!   `description`, `default`, `examples`, `$schema`, `$comment`, `deprecated`,
//!   `readOnly`, `writeOnly`, `format` (draft 2020-12 treats `format` as an annotation
//!   by default).
//!
//! Verdicts are draft 2020-12's: `integer` is any number with no fractional part (`1.0`,
//! `1e300`); booleans are not numbers; `enum` and `const` use JSON equality (`1 == 1.0`,
//! object members in any order, arrays in order); a keyword that does not apply to the
//! value's type is ignored (`minimum` on a string). A randomised differential test checks
//! them against an independent implementation (Python's `jsonschema`).
//!
//! # What is refused, and why
//!
//! [`Schema::compile`] refuses, with a [`SchemaError`] naming the keyword and the JSON
//! pointer where it is (never by skipping a constraint silently):
//! - any keyword outside the subset: `patternProperties`, `oneOf`, `pattern`, a misspelt
//!   `requried`, `definitions` (2020-12 says `$defs`), …;
//! - whatever the draft 2020-12 meta-schema refuses: a type name such as `dict` or
//!   `float`, an empty or repeated `type` list, `required` with a repeated or non-string
//!   entry, an empty `anyOf`, a `minItems` of `1.5` or `-1` (but `1.0` is fine), a
//!   non-number `minimum`, `items` as an array (the pre-2020-12 tuple form), a subschema
//!   that is neither an object nor a boolean, annotations of the wrong type;
//! - a `$schema` other than draft 2020-12's ([`DRAFT_2020_12`]), or one below the root:
//!   reading a schema written for another draft by 2020-12 rules could change its
//!   meaning (in draft 7, `$ref` hides its sibling keywords);
//! - a `$ref` that is not a JSON pointer fragment to a subschema of the same document.
//!   Accepted: `#` (the root, for recursive schemas), `#/$defs/NAME` and any other
//!   pointer to a subschema (`#/properties/a`), with RFC 6901 escapes (`~0`, `~1`) and
//!   RFC 3986 percent-encoding (`#/$defs/a%20b`). Refused: remote references, anchors
//!   (`#name`), pointers to nothing or to a non-schema (`#/$defs/a/type`);
//! - a `$ref` cycle that comes back to the same value without going into a member or
//!   an item (`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`): validating
//!   with it would never end. Recursion through `properties`, `additionalProperties` or
//!   `items` is fine;
//! - a document nested deeper than [`crate::json::MAX_DEPTH`] (only possible for a
//!   hand-built value: the parser already refuses it);
//! - a `required` listing more than [`MAX_REQUIRED_NAMES`] names, or an `enum` listing
//!   more than [`MAX_ENUM_VALUES`] values (far more than a tool needs: bounds on the
//!   work of compiling and on the compiled schema's size).
//!
//! # Violations
//!
//! [`Schema::validate`] returns every violation (an empty list means valid), each with
//! the JSON path of the offending value: `root`, then `.name` for a member whose key is
//! an identifier (`[A-Za-z_][A-Za-z0-9_]*`), `['a b']` for any other key (`'` and `\`
//! escaped with a backslash, control characters as `\n`, `\t`, `\u00XX`), `[0]` for an
//! item. The messages:
//!
//! | keyword | message |
//! | --- | --- |
//! | `type` | `expected type integer, got string`; `expected type one of integer, null, got number` (got: `integer` for a number with no fractional part, else `number`) |
//! | `enum` | `expected one of [1,2,3], got 4` |
//! | `const` | `expected const "x", got "y"` |
//! | `minimum` … | `expected a value >= 0, got -1` (`>`, `<=`, `<` for the others) |
//! | `minLength`, `maxLength` | `expected at least 3 characters, got 2` (the bound as the schema gives it, written as canonical JSON writes the number: `1e308` is `1e+308`, `3.0` is `3`) |
//! | `minItems`, `maxItems` | `expected at most 2 items, got 3` (the bound likewise) |
//! | `required` | `missing required property 'b'`, at the object's path |
//! | `false` | `not allowed: additional property 'c'` (at the member's path); `not allowed: property 'x'`; `not allowed: array items (…)`; `not allowed: the schema here is false, …` |
//! | `anyOf` | `expected to match at least one of 2 alternatives`, at the value's path (the alternatives' own violations are not listed) |
//!
//! Values are shown as canonical JSON, cut at 100 bytes with `...`.
//!
//! **Order**: by the offending value's place in the instance, in document order (a value
//! before its members and items, members in canonical key order, items by index); for
//! one value, in the order schemas are applied and keywords checked. A schema checks
//! `type`, `enum`, `const`, `minimum`, `exclusiveMinimum`, `maximum`,
//! `exclusiveMaximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `required` (in
//! the order listed), then applies `items` or `properties`/`additionalProperties` to
//! the members (where a `false` subschema speaks for the member), then `anyOf`, then its
//! `$ref` target, which checks in the same order. An identical violation (same path and
//! message, e.g. reached through two references to one definition) is listed once.
//!
//! **Limits**: compiling costs n log n comparisons in the length of `required` and
//! `enum` (repeated names, and which names `properties` has, are found by sorting and
//! searching); matching a value against an `enum` of n values costs log n (a sorted
//! index), and checking n violations of one value for repeats n log n. Each
//! (subschema, instance value) pair is evaluated at most once per mode, however the
//! references are arranged, so the work stays within their product (an `anyOf` of
//! references to references cannot blow up exponentially); schemas applied one inside
//! another stop at [`MAX_NESTING`], where the value gets a violation instead of a
//! verdict.

mod compile;
mod memo;
mod message;
mod order;
mod path;
pub mod pattern;
mod reference;
mod tree;
mod validate;
mod work;

#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::json::Value;

pub use compile::{DRAFT_2020_12, MAX_ENUM_VALUES, MAX_REQUIRED_NAMES};
pub use validate::MAX_NESTING;

/// A compiled schema: checked against the subset and the draft 2020-12 meta-schema once,
/// then applied to instances without re-reading the schema document.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    source: Value,
    tree: tree::Tree,
}

/// Why a schema was refused at registration: what is wrong and where (a JSON pointer
/// into the schema document, e.g. `/properties/a/type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer to the offending part of the schema (`""` for the root).
    pub pointer: String,
    /// A sentence naming the keyword and what was wrong.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "schema refused at the root: {}", self.message)
        } else {
            write!(f, "schema refused at {}: {}", self.pointer, self.message)
        }
    }
}

impl SchemaError {
    /// A refusal at `pointer`.
    pub(crate) fn at(pointer: &str, message: String) -> SchemaError {
        SchemaError {
            pointer: String::from(pointer),
            message,
        }
    }
}

impl core::error::Error for SchemaError {}

/// One way an instance breaks a schema: the JSON path of the offending value (`$.a.b[0]`,
/// `$['a b']`) and what was expected and found (`expected type integer, got string`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON path of the offending value, starting at the root given to
    /// [`Schema::validate`].
    pub path: String,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl Schema {
    /// Compiles a schema document, refusing keywords outside the subset and schemas that
    /// are not valid against the draft 2020-12 meta-schema.
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        Ok(Schema {
            tree: compile::compile(schema)?,
            source: schema.clone(),
        })
    }

    /// Validates `instance`; violations come in a deterministic order, with paths
    /// starting at `root` (`"$"` for a plain instance, `"$.add"` for the arguments of
    /// a call to the tool `add`). An empty list means valid.
    #[inline]
    pub fn validate(&self, instance: &Value, root: &str) -> Vec<Violation> {
        validate::validate(&self.tree, instance, root)
    }

    /// Whether `instance` is valid: the same verdict as an empty [`Schema::validate`],
    /// found without building any message (it stops at the first failure).
    #[inline]
    pub fn is_valid(&self, instance: &Value) -> bool {
        validate::is_valid(&self.tree, instance)
    }

    /// The detailed pass of [`Schema::validate`] alone, without the check pass that
    /// normally answers valid instances first: so tests can hold the two passes to the
    /// same verdicts. Not part of the API.
    #[doc(hidden)]
    pub fn validate_detailed(&self, instance: &Value, root: &str) -> Vec<Violation> {
        validate::violations(&self.tree, instance, root)
    }

    /// The schema document as it was given (for a tool manifest, say).
    pub fn source(&self) -> &Value {
        &self.source
    }
}
