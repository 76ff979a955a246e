//! # agentloop-schema
//!
//! Tool-argument schemas: the JSON Schema (draft 2020-12) subset of SPEC section 4,
//! compiled once when a tool is registered and then used to validate each call.
//! `no_std` + `alloc`, over `agentloop-json`'s values; patterns run on regex-automata
//! (feature `std`: its run-time CPU detection). `agentloop-core` re-exports this crate
//! as `agentloop_core::schema`.
//!
//! ```
//! use agentloop_json as json;
//! use agentloop_schema::Schema;
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
//! # The language
//!
//! The whole validation language of JSON Schema **draft 2020-12** (and, when `$schema`
//! names them, **draft 2019-09** and **draft-07** with their own meaning; without
//! `$schema` a document is draft 2020-12):
//!
//! - Assertions: `type`, `enum`, `const`, `multipleOf` (exact on the numbers as
//!   written: `0.0075` is a multiple of `0.0001`), `minimum`, `maximum`,
//!   `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength` (in code points),
//!   `pattern` (ECMA-262 syntax, by a linear-time engine, within [`MAX_PATTERN_CHARS`],
//!   [`MAX_PATTERN_GROUP_DEPTH`] and [`MAX_PATTERN_COMPILED_BYTES`]), `minItems`,
//!   `maxItems`, `uniqueItems`, `minContains`, `maxContains`, `minProperties`,
//!   `maxProperties`, `required`, `dependentRequired`.
//! - Applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
//!   `dependentSchemas`, `prefixItems`, `items`, `contains`, `properties`,
//!   `patternProperties`, `additionalProperties`, `propertyNames`,
//!   `unevaluatedItems`, `unevaluatedProperties`; boolean schemas anywhere.
//! - References inside the document: `$ref` to a JSON pointer (`#/$defs/a`, with
//!   RFC 6901 and percent escapes), to an `$anchor`, to the `$id` of an embedded
//!   resource (resolved against the base URI, RFC 3986), recursion; `$dynamicRef` /
//!   `$dynamicAnchor` (2019-09: `$recursiveRef` / `$recursiveAnchor`) with the dynamic
//!   scope; `$defs` and `definitions`.
//! - Draft-07 and 2019-09 forms: `items` as an array (positional) with
//!   `additionalItems`; draft-07's `dependencies` (names or a schema) and its `$ref`,
//!   which hides its sibling keywords.
//! - Annotations, checked for their meta-schema type and otherwise ignored: `title`,
//!   `description`, `default`, `examples`, `deprecated`, `readOnly`, `writeOnly`,
//!   `$comment`, `contentEncoding`, `contentMediaType`, `contentSchema`, and `format`
//!   (an annotation in every draft here: no format is asserted).
//! - Members no draft knows (`x-vendor`, `discriminator`, a misspelt `requried`) are
//!   annotations, as JSON Schema says; [`Schema::ignored_keywords`] lists them, and
//!   `agentloop validate` warns about each.
//!
//! Verdicts are the drafts': `integer` is any number with no fractional part (`1.0`,
//! `1e300`); booleans are not numbers; `enum`, `const` and `uniqueItems` use JSON
//! equality (`1 == 1.0`, object members in any order, arrays in order); a keyword that
//! does not apply to the value's type is ignored (`minimum` on a string). They are
//! checked against the JSON Schema Test Suite and, by a randomised differential test,
//! against an independent implementation (Python's `jsonschema`).
//!
//! # What is refused, and why
//!
//! [`Schema::compile`] refuses, with a [`SchemaError`] naming the keyword and the JSON
//! pointer where it is (never by skipping a constraint silently):
//! - a `$schema` naming any other draft or meta-schema (`draft-04`, a custom
//!   meta-schema), or another draft than the root's below it;
//! - a keyword of another supported draft that the document's draft does not have
//!   (`dependencies` or `additionalItems` in 2020-12, `unevaluatedProperties` in
//!   draft-07): its author meant a constraint that the draft would ignore;
//! - whatever the draft's meta-schema refuses: a type name such as `dict`, an empty or
//!   repeated `type` list, `required` with a repeated or non-string entry, an empty
//!   `anyOf`, a `minItems` of `1.5` or `-1` (but `1.0` is fine), a `multipleOf` of 0,
//!   `items` as an array in 2020-12, an `$id` with a fragment (2019-09 on), an anchor
//!   that is not a name, a subschema that is neither an object nor a boolean,
//!   annotations of the wrong type;
//! - a `pattern` (or `patternProperties` key) with no linear-time meaning
//!   (look-around, back-references) or beyond the engine's size bounds;
//! - a reference to another document (`other.json`, a meta-schema URI): validation
//!   never fetches anything; a reference to an anchor or pointer that is not there;
//! - a reference cycle that comes back to the same value without going into a member
//!   or an item (`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, or through
//!   `allOf`, `anyOf`, …): validating with it would never end. Recursion through
//!   `properties`, `items` and the like is fine;
//! - a document nested deeper than [`agentloop_json::MAX_DEPTH`] (only possible for a
//!   hand-built value: the parser already refuses it), or whose dynamic anchors make
//!   more than [`MAX_DYNAMIC_SCOPES`] dynamic scopes;
//! - a `required` (or `dependentRequired` list) of more than [`MAX_REQUIRED_NAMES`]
//!   names, or an `enum` of more than [`MAX_ENUM_VALUES`] values (far more than a tool
//!   needs: bounds on the work of compiling and on the compiled schema's size).
//! - a compiled form larger than its budget ([`MAX_SCHEMA_COMPILED_BYTES`], with
//!   [`SchemaError::over_budget`]): its subschemas ([`SUBSCHEMA_BYTES`] each,
//!   [`KEYWORDS_BYTES`] more with keywords) and the automata of its patterns, as
//!   regex-automata reports them (a pattern written twice counts once; many
//!   `patternProperties` of one object are compiled into one automaton). So compiling
//!   any schema takes bounded time and memory: under a second and 64 MB for one of a
//!   megabyte (docs/assurance.md).
//!
//! # Patterns
//!
//! `pattern` and the keys of `patternProperties` are ECMA-262 regular expressions (the
//! `u` flag's syntax, which JSON Schema draft 2020-12 section 6.4 names), translated into
//! regex-automata's linear-time automata: a match costs time linear in the text times the
//! compiled pattern's size, whatever the pattern (`^(a+)+$` included). What has no
//! linear-time meaning (look-around, back-references), what would be read with another
//! meaning (inline modifiers, a lone surrogate escape, a `\p{…}` name that is not
//! ECMAScript's exact spelling), every syntax error of the `u` flag, and what passes
//! [`MAX_PATTERN_CHARS`], [`MAX_PATTERN_GROUP_DEPTH`] or [`MAX_PATTERN_COMPILED_BYTES`]
//! is refused: the [`SchemaError`]'s message gives the pattern, the position (0-based,
//! in code points) and the reason. What is accepted:
//!
//! Everything is matched against Unicode code points (a JSON string, which has no lone
//! surrogate), as ECMAScript does with the `u` flag; there are no flags (no `i`, `m`, `s`).
//!
//! - Literal characters: anything but the syntax characters `^ $ \ . * + ? ( ) [ ] { } |`.
//! - `.`: any code point except the line terminators U+000A, U+000D, U+2028, U+2029.
//! - `\d` = `[0-9]`, `\w` = `[A-Za-z0-9_]` (ASCII only, as in ECMAScript), `\s` = the
//!   ECMAScript WhiteSpace and LineTerminator code points (U+0009–U+000D, U+0020, U+00A0,
//!   U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), and their
//!   complements `\D`, `\W`, `\S`.
//! - `\p{…}` / `\P{…}` with ECMAScript's exact names (no loose matching): a
//!   General_Category value (`\p{L}`, `\p{Letter}`, `\p{gc=Lu}`,
//!   `\p{General_Category=Uppercase_Letter}`, `\p{punct}`), a binary property
//!   (`\p{Alphabetic}`, `\p{Alpha}`, `\p{Any}`, `\p{ASCII}`, `\p{Assigned}`, `\p{Emoji}`, …),
//!   `Script=` / `sc=` and `Script_Extensions=` / `scx=` with a long or short script name
//!   (`\p{Script=Greek}`, `\p{sc=Grek}`). The tables are regex-syntax's (Unicode 16.0): a
//!   character assigned by a later Unicode version is in no category here.
//! - Escapes: `\t \n \v \f \r`, `\0` (not followed by a digit), `\cX` (X an ASCII letter),
//!   `\xHH`, `\uHHHH`, `\u{H…}` (up to U+10FFFF), a surrogate pair written as two
//!   `\uHHHH` escapes (one code point), and `\` before a syntax character or `/`.
//! - Character classes `[…]` and `[^…]` with single characters, ranges `a-z`, the escapes
//!   above, `\b` (U+0008) and `\-`; `[]` matches nothing and `[^]` any code point.
//! - Groups `(…)`, `(?:…)`, `(?<name>…)` (a name may repeat only in separate alternatives,
//!   as ECMAScript 2025 allows); alternation `|`; quantifiers `*`, `+`, `?`, `{n}`, `{n,}`,
//!   `{n,m}` and their lazy forms (`*?`, …: laziness does not change whether a string
//!   matches).
//! - Assertions `^` and `$` (start and end of the string: no multiline flag), `\b` and `\B`
//!   (ECMAScript's word boundary, in terms of the ASCII `\w`).
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
//! | `minLength`, `maxLength` | `expected at least 3 characters, got 2` |
//! | `minItems`, `maxItems` | `expected at most 2 items, got 3` |
//! | `required` | `missing required property 'b'`, at the object's path |
//! | `multipleOf` | `expected a multiple of 0.01, got 0.015` |
//! | `pattern` | `expected a string matching the pattern "^[a-z]+$", got "A"` |
//! | `uniqueItems` | `expected unique items, but items 0 and 2 are equal` |
//! | `contains` | `expected at least 1 item matching 'contains', got 0` (and `minContains`, `maxContains`) |
//! | `minProperties`, `maxProperties` | `expected at most 2 properties, got 3` |
//! | `dependentRequired` | `missing property 'b', required when 'a' is present` |
//! | `false` | `not allowed: additional property 'c'` (at the member's path); `not allowed: property 'x'`; `not allowed: unevaluated property 'x'`; `not allowed: array items (…)`; `not allowed: the schema here is false, …` |
//! | `anyOf` | `expected to match at least one of 2 alternatives`, at the value's path (the alternatives' own violations are not listed) |
//! | `oneOf` | `expected to match exactly one of 2 alternatives, matched none` (or `matched more: alternatives 0 and 1`) |
//! | `not` | `expected not to match the schema under 'not'` |
//! | `propertyNames` | `property name 'x' does not match the schema under 'propertyNames'`, at the member's path |
//!
//! `allOf`, `then`/`else`, `dependentSchemas`, the references and `unevaluated*` with a
//! schema report the violations of the subschemas they apply. Bounds are quoted as the
//! schema writes them (`minLength: 1e308` says `1e+308`).
//!
//! Values are shown as canonical JSON, cut at 100 bytes with `...`.
//!
//! **Order**: by the offending value's place in the instance, in document order (a value
//! before its members and items, members in canonical key order, items by index); for
//! one value, in the order schemas are applied and keywords checked. A schema checks
//! `type`, `enum`, `const`, `multipleOf`, `minimum`, `exclusiveMinimum`, `maximum`,
//! `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`,
//! `uniqueItems`, `contains`, `required`, `minProperties`, `maxProperties`,
//! `dependentRequired` (in the order listed), then applies `prefixItems`/`items` or
//! `properties`/`patternProperties`/`additionalProperties`/`propertyNames` to the items
//! or members (where a `false` subschema speaks for the member), then `allOf`, `anyOf`,
//! `oneOf`, `not`, `if`, `dependentSchemas`, `$ref`, `$dynamicRef`, then
//! `unevaluated*`. An identical violation (same path and message, e.g. reached through
//! two references to one definition) is listed once.
//!
//! **Limits**: compiling costs n log n comparisons in the length of `required` and
//! `enum`; matching a value against an `enum` of n values costs log n (a sorted index),
//! and so does finding which of the n alternatives of an `anyOf` or `oneOf` that accept
//! fixed values (`const`, `enum`) accept it; `uniqueItems` over n items n log n, and
//! checking n violations of one value for repeats n log n. A member name is matched
//! against many `patternProperties` at once (one automaton), and `dependentSchemas` /
//! `dependentRequired` cost an object the fewer of its members and their entries. Each
//! (subschema, instance value, dynamic scope) triple is evaluated at most once per
//! mode, however the references are arranged, so the work stays within their product
//! (an `anyOf` of references to references cannot blow up exponentially); schemas
//! applied one inside another stop at [`MAX_NESTING`], where the value gets a violation
//! instead of a verdict. Whatever the schema and instance, one validation takes at most
//! [`MAX_VALIDATION_STEPS`] steps of work (counted, never timed); past them the
//! instance gets one violation at its root, `validation stopped: …`, and is not
//! accepted.

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

mod choices;
mod compile;
mod decimal;
mod draft;
mod memo;
mod message;
mod order;
// The `pattern` engine: its types and error enums are internals (a refused pattern's
// sentence is in its `SchemaError`'s message); public, hidden, for the crate's tests,
// the pattern oracle and fuzzing, which drive it alone.
#[doc(hidden)]
pub mod pattern;
mod reference;
mod resources;
mod tree;
mod uri;
mod validate;
mod work;

#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use agentloop_json::Value;

pub use compile::{
    KEYWORDS_BYTES, MAX_DYNAMIC_SCOPES, MAX_ENUM_VALUES, MAX_REQUIRED_NAMES,
    MAX_SCHEMA_COMPILED_BYTES, SUBSCHEMA_BYTES,
};
pub use draft::Draft;
pub use validate::{MAX_NESTING, MAX_VALIDATION_STEPS};

/// The longest `pattern` (or `patternProperties` key), in Unicode code points: a longer
/// one is refused when the schema is compiled, before it is parsed.
pub const MAX_PATTERN_CHARS: usize = pattern::MAX_PATTERN_CHARS;

/// How deep groups (`(…)`, `(?:…)`, `(?<name>…)`) may nest in a `pattern`: deeper is
/// refused when the schema is compiled.
pub const MAX_PATTERN_GROUP_DEPTH: usize = pattern::MAX_GROUP_DEPTH;

/// The most heap one `pattern`'s automaton may take (in each of the two directions the
/// engine builds); a pattern past it is refused as soon as compiling crosses the bound.
/// All of a schema's patterns together count against [`MAX_SCHEMA_COMPILED_BYTES`].
pub const MAX_PATTERN_COMPILED_BYTES: usize = pattern::MAX_COMPILED_BYTES;

/// A compiled schema: checked against the subset and the draft 2020-12 meta-schema once,
/// then applied to instances without re-reading the schema document.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    source: Value,
    tree: tree::Tree,
    ignored: Vec<String>,
    compiled_bytes: usize,
}

/// Why a schema was refused at registration: what is wrong and where (a JSON pointer
/// into the schema document, e.g. `/properties/a/type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer to the offending part of the schema (`""` for the root).
    pub pointer: String,
    /// A sentence naming the keyword and what was wrong.
    pub message: String,
    /// Which kind of refusal it is ([`SchemaError::over_budget`] asks).
    pub(crate) kind: SchemaErrorKind,
}

/// The kind of a [`SchemaError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaErrorKind {
    /// The schema says what the validator cannot honour, or what its draft's
    /// meta-schema refuses (the message says which).
    Refused,
    /// Its compiled form (its subschemas and the automata of its patterns) would take
    /// more bytes than its budget ([`MAX_SCHEMA_COMPILED_BYTES`], or the budget given
    /// to [`Schema::compile_within`]).
    OverBudget(OverBudget),
}

/// The figures of a schema refused because its compiled form would take more than its
/// budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// The budget, in bytes.
    pub budget: usize,
    /// The bytes taken by what was compiled before the part that would pass it.
    pub spent: usize,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "its compiled form would take more than its budget of {} bytes ({} bytes \
             taken before)",
            self.budget, self.spent
        )
    }
}

impl fmt::Display for SchemaErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaErrorKind::Refused => f.write_str(
                "the schema says what the validator cannot honour or what its draft's \
                 meta-schema refuses",
            ),
            SchemaErrorKind::OverBudget(over) => over.fmt(f),
        }
    }
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
    /// The figures, when the schema's compiled form (its subschemas and the automata
    /// of its patterns) would take more bytes than its budget
    /// ([`MAX_SCHEMA_COMPILED_BYTES`], or the budget given to
    /// [`Schema::compile_within`]); `None` when the schema says what the validator
    /// cannot honour, or what its draft's meta-schema refuses (the message says which).
    pub fn over_budget(&self) -> Option<OverBudget> {
        match self.kind {
            SchemaErrorKind::OverBudget(over) => Some(over),
            SchemaErrorKind::Refused => None,
        }
    }

    /// A refusal at `pointer`.
    pub(crate) fn at(pointer: &str, message: String) -> SchemaError {
        SchemaError {
            pointer: String::from(pointer),
            message,
            kind: SchemaErrorKind::Refused,
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

impl Violation {
    /// At most this many violations are spelled out by [`Violation::list`].
    pub const MAX_LISTED: usize = 10;

    /// The violations as one bounded sentence, `a; b; c`: the first
    /// [`Violation::MAX_LISTED`] spelled out, the rest counted (`; and 3 more`), so one
    /// bad value cannot make a huge record. The loop's `invalid arguments: …` and an MCP
    /// tool's `structuredContent` check both say their violations so.
    pub fn list(violations: &[Violation]) -> String {
        let shown: Vec<String> = violations
            .iter()
            .take(Violation::MAX_LISTED)
            .map(|v| alloc::format!("{v}"))
            .collect();
        let mut sentence = shown.join("; ");
        let more = violations.len().saturating_sub(Violation::MAX_LISTED);
        if more > 0 {
            sentence.push_str(&alloc::format!("; and {more} more"));
        }
        sentence
    }
}

impl Schema {
    /// Compiles a schema document, refusing what the validator cannot honour and
    /// schemas that are not valid against their draft's meta-schema (see the
    /// [module documentation](self)).
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        Schema::compile_within(schema, MAX_SCHEMA_COMPILED_BYTES)
    }

    /// Like [`Schema::compile`], with `budget` bytes for its compiled form instead of
    /// [`MAX_SCHEMA_COMPILED_BYTES`]: what a tool set gives a schema of what its own
    /// budget has left (`agentloop_core::tools::MAX_TOOLBOX_COMPILED_BYTES`). Past it, the
    /// schema is refused ([`SchemaError::over_budget`]), after a bounded moment:
    /// each automaton is built with what is left as its size limit.
    pub fn compile_within(schema: &Value, budget: usize) -> Result<Schema, SchemaError> {
        let compiled = compile::compile(schema, budget)?;
        Ok(Schema {
            tree: compiled.tree,
            ignored: compiled.ignored,
            source: schema.clone(),
            compiled_bytes: compiled.compiled_bytes,
        })
    }

    /// The bytes the schema's compiled form takes, as its budget counts them
    /// ([`MAX_SCHEMA_COMPILED_BYTES`]): its subschemas ([`SUBSCHEMA_BYTES`] each, and
    /// [`KEYWORDS_BYTES`] more for one with keywords) and the automata of its patterns
    /// as regex-automata reports them (each
    /// distinct pattern once: a pattern written twice is compiled once).
    pub fn compiled_bytes(&self) -> usize {
        self.compiled_bytes
    }

    /// The draft the schema is read by: its `$schema`, or 2020-12 without one.
    pub fn draft(&self) -> Draft {
        self.tree.draft
    }

    /// JSON pointers of the members no draft knows as a keyword (`/properties/a/x-ui`,
    /// `/requried`), in document order: annotations, which JSON Schema says to ignore.
    /// Worth showing the schema's author: a misspelt keyword lands here.
    pub fn ignored_keywords(&self) -> &[String] {
        &self.ignored
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

    /// The steps ([`MAX_VALIDATION_STEPS`]) the check pass of [`Schema::is_valid`] takes
    /// on `instance` (all of them if it runs out), with its verdict: a count of the
    /// work, which tests and the `schema-cost` bench read instead of a time. Not part of
    /// the API.
    #[doc(hidden)]
    pub fn check_steps(&self, instance: &Value) -> (bool, u64) {
        validate::check_steps(&self.tree, instance)
    }

    /// The schema document as it was given (for a tool manifest, say).
    pub fn source(&self) -> &Value {
        &self.source
    }
}
