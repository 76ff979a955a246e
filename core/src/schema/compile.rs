//! Schema document → compiled [`Tree`], refusing everything outside the subset and
//! everything the draft 2020-12 meta-schema would refuse. (References are resolved, and
//! their cycles refused, by the `reference` module once every subschema is compiled.)
//!
//! Each refusal is a [`SchemaError`] whose pointer is the offending member or element
//! (`/properties/a/type`, `/required/1`) and whose sentence names the keyword. Members
//! are checked in canonical key order, so the same document is always refused for the
//! same reason.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::message::show;
use super::order::Members;
use super::path::quoted;
use super::reference::{self, push_token, PendingRef, Places};
use super::tree::{is_integral, Count, Keywords, Node, NodeId, Property, Tree, Type};
use super::work;
use super::SchemaError;
use crate::json::{Object, Value, MAX_DEPTH};

/// The `$schema` values accepted: draft 2020-12's meta-schema URI, with or without an
/// empty fragment.
pub const DRAFT_2020_12: [&str; 2] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

/// The most names one `required` may list: far more than any tool needs (tens), few
/// enough that a schema with them is compiled and checked in milliseconds. More are
/// refused at registration, naming the keyword and this limit.
pub const MAX_REQUIRED_NAMES: usize = 10_000;

/// The most values one `enum` may list: room for a list of every language or currency
/// code (a few thousand), few enough that indexing them takes milliseconds. More are
/// refused at registration, naming the keyword and this limit.
pub const MAX_ENUM_VALUES: usize = 100_000;

/// Draft 2020-12 keywords outside the subset: refused with a sentence saying so (any
/// other unknown member is refused as an unknown keyword).
const OUTSIDE_SUBSET: &[&str] = &[
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "contains",
    "patternProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "multipleOf",
    "maxProperties",
    "minProperties",
    "pattern",
    "uniqueItems",
    "maxContains",
    "minContains",
    "dependentRequired",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Compiles `document`.
pub(crate) fn compile(document: &Value) -> Result<Tree, SchemaError> {
    let mut compiler = Compiler::default();
    let mut pointer = String::new();
    let root = compiler.schema(document, None, &mut pointer, 1)?;
    reference::resolve(
        &mut compiler.nodes,
        &compiler.places,
        document,
        compiler.refs,
    )?;
    reference::refuse_cycles(&compiler.nodes, &compiler.places)?;
    let mut shared = vec![false; compiler.nodes.len()];
    for node in &compiler.nodes {
        if let Node::Keywords(k) = node {
            if let Some(target) = k.reference {
                shared[target] = true;
            }
        }
    }
    let mut nodes = compiler.nodes;
    for (node, &shared) in nodes.iter_mut().zip(&shared) {
        if let Node::Keywords(k) = node {
            k.prepare(shared);
        }
    }
    Ok(Tree {
        nodes,
        shared,
        root,
    })
}

/// A refusal at `pointer`.
fn refuse(pointer: &str, message: String) -> SchemaError {
    SchemaError::at(pointer, message)
}

/// Appends `/index` to a JSON pointer.
fn push_index(pointer: &mut String, index: usize) {
    pointer.push_str(&format!("/{index}"));
}

#[derive(Debug, Default)]
struct Compiler {
    nodes: Vec<Node>,
    /// Where each node is: what a `$ref` may point at, and pointers for refusals.
    places: Places,
    refs: Vec<PendingRef>,
    /// The object schema whose keywords are being compiled (`None` at the root), and
    /// the length of its pointer: a new node's place is the step below it.
    parent: Option<NodeId>,
    parent_len: usize,
}

impl Compiler {
    /// Compiles the subschema `value` at `pointer` (JSON nesting `depth`, 1 for the
    /// root); `keyword` is the keyword it belongs to, `None` for the root.
    fn schema(
        &mut self,
        value: &Value,
        keyword: Option<&str>,
        pointer: &mut String,
        depth: usize,
    ) -> Result<NodeId, SchemaError> {
        let id = self.nodes.len();
        match value {
            Value::Bool(b) => self.nodes.push(Node::Bool(*b)),
            // The parser's bound: an object nested deeper than MAX_DEPTH. A boolean is no
            // level of its own (`true` inside the deepest object the parser reads is fine).
            Value::Object(_) if depth > MAX_DEPTH => {
                return Err(refuse(
                    pointer,
                    format!("the schema nests deeper than {MAX_DEPTH} levels"),
                ));
            }
            Value::Object(object) => {
                // Reserve the id first: children get later ids.
                self.nodes.push(Node::Bool(true));
                self.place(value, pointer);
                let outer = (self.parent, self.parent_len);
                (self.parent, self.parent_len) = (Some(id), pointer.len());
                let keywords = self.keywords(object, id, pointer, depth)?;
                (self.parent, self.parent_len) = outer;
                self.nodes[id] = Node::Keywords(Box::new(keywords));
                return Ok(id);
            }
            other => {
                let got = other.type_name();
                return Err(refuse(
                    pointer,
                    match keyword {
                        None => format!("a schema must be an object or a boolean, got {got}"),
                        Some(k) => format!(
                            "keyword {} needs a schema (an object or a boolean) here, got {got}",
                            quoted(k)
                        ),
                    },
                ));
            }
        }
        self.place(value, pointer);
        Ok(id)
    }

    /// Records the place of the node just made from `value` at `pointer`.
    fn place(&mut self, value: &Value, pointer: &str) {
        let step = pointer.get(self.parent_len..).unwrap_or_default();
        self.places.push(self.parent, step, value);
    }

    /// The keywords of the object schema `object` (node `id`).
    fn keywords(
        &mut self,
        object: &Object,
        id: NodeId,
        pointer: &mut String,
        depth: usize,
    ) -> Result<Keywords, SchemaError> {
        let is_root = pointer.is_empty();
        let mut k = Keywords::default();
        for (key, value) in object.iter() {
            let mark = pointer.len();
            push_token(pointer, key);
            let at: &str = pointer;
            match key {
                "type" => k.types = types(value, pointer)?,
                "enum" => match value {
                    Value::Array(values) if values.len() > MAX_ENUM_VALUES => {
                        return Err(refuse(
                            at,
                            format!(
                                "keyword 'enum' lists {} values, more than the \
                                 {MAX_ENUM_VALUES} a schema may list",
                                values.len()
                            ),
                        ));
                    }
                    Value::Array(values) => k.enumeration = Some(Members::new(values.clone())),
                    other => return Err(must_be(at, key, "an array", other)),
                },
                "const" => k.constant = Some(value.clone()),
                "minimum" => k.minimum = Some(number(at, key, value)?),
                "maximum" => k.maximum = Some(number(at, key, value)?),
                "exclusiveMinimum" => k.exclusive_minimum = Some(number(at, key, value)?),
                "exclusiveMaximum" => k.exclusive_maximum = Some(number(at, key, value)?),
                "minLength" => k.min_length = Some(count(at, key, value)?),
                "maxLength" => k.max_length = Some(count(at, key, value)?),
                "minItems" => k.min_items = Some(count(at, key, value)?),
                "maxItems" => k.max_items = Some(count(at, key, value)?),
                "required" => k.required = required(value, pointer)?,
                "items" => {
                    if let Value::Array(_) = value {
                        return Err(refuse(
                            at,
                            String::from(
                                "keyword 'items' must be a single schema: the array form is \
                                 not draft 2020-12 (which names it 'prefixItems', a keyword \
                                 this subset does not support)",
                            ),
                        ));
                    }
                    k.items = Some(self.schema(value, Some(key), pointer, depth + 1)?);
                }
                "additionalProperties" => {
                    k.additional = Some(self.schema(value, Some(key), pointer, depth + 1)?);
                }
                "properties" => {
                    k.properties = self
                        .schema_map(value, key, pointer, depth)?
                        .into_iter()
                        .map(|(name, node)| Property {
                            name,
                            node,
                            required: false,
                        })
                        .collect();
                }
                "$defs" => {
                    // Compiled so that `$ref` can point into them, and refused if broken
                    // even when nothing refers to them, as the meta-schema would.
                    self.schema_map(value, key, pointer, depth)?;
                }
                "anyOf" => k.any_of = self.schema_list(value, key, pointer, depth)?,
                "$ref" => match value {
                    Value::String(reference) => self.refs.push(PendingRef {
                        from: id,
                        reference: reference.clone(),
                    }),
                    other => return Err(must_be(at, key, "a string", other)),
                },
                "$schema" => schema_uri(value, pointer, is_root)?,
                "title" | "description" | "$comment" | "format" => {
                    if !matches!(value, Value::String(_)) {
                        return Err(must_be(at, key, "a string", value));
                    }
                }
                "deprecated" | "readOnly" | "writeOnly" => {
                    if !matches!(value, Value::Bool(_)) {
                        return Err(must_be(at, key, "a boolean", value));
                    }
                }
                "examples" => {
                    if !matches!(value, Value::Array(_)) {
                        return Err(must_be(at, key, "an array", value));
                    }
                }
                "default" => {}
                _ => return Err(refuse(at, unsupported(key))),
            }
            pointer.truncate(mark);
        }
        Ok(k)
    }

    /// `properties` or `$defs`: an object whose members are schemas.
    fn schema_map(
        &mut self,
        value: &Value,
        keyword: &str,
        pointer: &mut String,
        depth: usize,
    ) -> Result<Vec<(String, NodeId)>, SchemaError> {
        let Value::Object(members) = value else {
            return Err(must_be(
                pointer,
                keyword,
                "an object whose members are schemas",
                value,
            ));
        };
        let mut out = Vec::with_capacity(members.len());
        for (name, member) in members.iter() {
            let mark = pointer.len();
            push_token(pointer, name);
            let node = self.schema(member, Some(keyword), pointer, depth + 2)?;
            pointer.truncate(mark);
            out.push((String::from(name), node));
        }
        Ok(out)
    }

    /// `anyOf`: a non-empty array of schemas.
    fn schema_list(
        &mut self,
        value: &Value,
        keyword: &str,
        pointer: &mut String,
        depth: usize,
    ) -> Result<Vec<NodeId>, SchemaError> {
        let items = match value {
            Value::Array(items) if !items.is_empty() => items,
            other => {
                return Err(must_be(
                    pointer,
                    keyword,
                    "a non-empty array of schemas",
                    other,
                ))
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let mark = pointer.len();
            push_index(pointer, i);
            out.push(self.schema(item, Some(keyword), pointer, depth + 2)?);
            pointer.truncate(mark);
        }
        Ok(out)
    }
}
/// `keyword 'X' must be WHAT, got VALUE`.
fn must_be(pointer: &str, keyword: &str, what: &str, got: &Value) -> SchemaError {
    refuse(
        pointer,
        format!(
            "keyword {} must be {what}, got {}",
            quoted(keyword),
            show(got)
        ),
    )
}

/// The refusal of a keyword outside the subset.
fn unsupported(keyword: &str) -> String {
    if keyword == "definitions" {
        format!(
            "keyword {} is not supported (draft 2020-12 names it '$defs')",
            quoted(keyword)
        )
    } else if OUTSIDE_SUBSET.contains(&keyword) {
        format!(
            "keyword {} is not supported: it is a draft 2020-12 keyword outside the \
             tool-argument schema subset, refused rather than ignored",
            quoted(keyword)
        )
    } else {
        format!(
            "keyword {} is not supported: it is not a keyword of the tool-argument schema \
             subset (a misspelling?), refused rather than ignored",
            quoted(keyword)
        )
    }
}

/// A finite number.
fn number(pointer: &str, keyword: &str, value: &Value) -> Result<f64, SchemaError> {
    match value {
        Value::Number(n) if n.is_finite() => Ok(*n),
        other => Err(must_be(pointer, keyword, "a number", other)),
    }
}

/// A non-negative integer (`1.0` is one), compared as a `u64` (saturated) and kept as
/// written for messages.
fn count(pointer: &str, keyword: &str, value: &Value) -> Result<Count, SchemaError> {
    match value {
        // `as` saturates: a limit beyond u64::MAX is as good as u64::MAX.
        Value::Number(n) if is_integral(*n) && *n >= 0.0 => Ok(Count {
            limit: *n as u64,
            written: *n,
        }),
        other => Err(must_be(pointer, keyword, "a non-negative integer", other)),
    }
}

/// `type`: a type name, or a non-empty array of unique type names.
fn types(value: &Value, pointer: &mut String) -> Result<Vec<Type>, SchemaError> {
    let name = |value: &Value, at: &str| match value {
        Value::String(s) => Type::from_name(s).ok_or_else(|| {
            refuse(
                at,
                format!(
                    "keyword 'type': {} is not a draft 2020-12 type name (the names are {})",
                    quoted(s),
                    Type::NAMES
                ),
            )
        }),
        other => Err(must_be(at, "type", "a type name", other)),
    };
    match value {
        Value::String(_) => Ok(vec![name(value, pointer)?]),
        Value::Array(items) if !items.is_empty() => {
            let mut out: Vec<Type> = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let mark = pointer.len();
                push_index(pointer, i);
                let t = name(item, pointer)?;
                if out.contains(&t) {
                    return Err(refuse(
                        pointer,
                        format!(
                            "keyword 'type' must list each type once, but lists {} twice",
                            quoted(t.name())
                        ),
                    ));
                }
                out.push(t);
                pointer.truncate(mark);
            }
            Ok(out)
        }
        other => Err(must_be(
            pointer,
            "type",
            "a type name or a non-empty array of type names",
            other,
        )),
    }
}

/// `required`: an array of unique strings (possibly empty), at most
/// [`MAX_REQUIRED_NAMES`] of them. Refused at its first entry (in the order written)
/// that is not a string or repeats an earlier one; repeats are found by sorting the
/// names, so n names cost n log n comparisons.
fn required(value: &Value, pointer: &mut String) -> Result<Vec<String>, SchemaError> {
    let Value::Array(items) = value else {
        return Err(must_be(pointer, "required", "an array of strings", value));
    };
    if items.len() > MAX_REQUIRED_NAMES {
        return Err(refuse(
            pointer,
            format!(
                "keyword 'required' lists {} names, more than the {MAX_REQUIRED_NAMES} a \
                 schema may list",
                items.len()
            ),
        ));
    }
    // The strings before the first entry that is not one.
    let names: Vec<&str> = items.iter().map_while(Value::as_str).collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| {
        work::comparison();
        names[a].cmp(names[b])
    });
    // The sort is stable: of equal names, the first written comes first, and the
    // earliest repeat is the least second of a pair of equal neighbours.
    let repeat = order
        .windows(2)
        .filter(|pair| {
            work::comparison();
            names[pair[0]] == names[pair[1]]
        })
        .map(|pair| pair[1])
        .min();
    if let Some(i) = repeat {
        push_index(pointer, i);
        return Err(refuse(
            pointer,
            format!(
                "keyword 'required' must list each name once, but lists {} twice",
                quoted(names[i])
            ),
        ));
    }
    if let Some(item) = items.get(names.len()) {
        push_index(pointer, names.len());
        return Err(refuse(
            pointer,
            format!("keyword 'required' must list strings, got {}", show(item)),
        ));
    }
    Ok(names.into_iter().map(String::from).collect())
}

/// `$schema`: at the root only, and only draft 2020-12.
fn schema_uri(value: &Value, pointer: &str, is_root: bool) -> Result<(), SchemaError> {
    let Value::String(uri) = value else {
        return Err(must_be(pointer, "$schema", "a string", value));
    };
    if !is_root {
        return Err(refuse(
            pointer,
            String::from(
                "keyword '$schema' is only allowed at the root of the schema (draft 2020-12 \
                 forbids it in a subschema that is not a resource root)",
            ),
        ));
    }
    if !DRAFT_2020_12.contains(&uri.as_str()) {
        return Err(refuse(
            pointer,
            format!(
                "keyword '$schema' names {}, but only draft 2020-12 ({}) is supported: \
                 reading a schema written for another draft by 2020-12 rules could change \
                 its meaning",
                quoted(uri),
                DRAFT_2020_12[0]
            ),
        ));
    }
    Ok(())
}
