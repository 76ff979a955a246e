//! The keywords of a schema object, read one member at a time: dispatched by family
//! (assertions, applicators on arrays, on objects and in place, references and the
//! rest), each family a function that says whether the keyword was its own.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::values::{boolean, count, must_be, names, number, other_draft, types, unknown_draft};
use super::{refuse, Compiler, Partial, Pending, RefKind, MAX_ENUM_VALUES};
use crate::draft::{Draft, Keyword};
use crate::order::Members;
use crate::reference::push_token;
use crate::tree::{Keywords, NodeId, Property};
use crate::SchemaError;
use agentloop_json::Value;

impl Compiler<'_> {
    /// One member `key` of a schema object, at `at` (its pointer), into `st`.
    pub(super) fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        id: NodeId,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<(), SchemaError> {
        let draft = self.draft;
        match draft.keyword(key) {
            Keyword::Known => {}
            Keyword::OtherDraft => return Err(refuse(at, other_draft(key, draft))),
            Keyword::Unknown => {
                self.ignored.push(at.clone());
                return Ok(());
            }
        }
        if key == "pattern" {
            st.k.pattern = Some(Box::new(self.pattern(value, at)?));
            return Ok(());
        }
        // Each family answers whether `key` was its own (the key sets are disjoint).
        let _ = assertion(key, value, at, st)?
            || self.array_applicator(key, value, at, depth, st)?
            || self.object_applicator(key, value, at, depth, st)?
            || self.in_place_applicator(key, value, at, depth, st)?
            || self.reference_or_annotation(key, value, id, at, depth, st)?;
        Ok(())
    }

    /// The applicators on an array's items: `items`, `prefixItems`, `additionalItems`,
    /// `contains`, `unevaluatedItems`.
    fn array_applicator(
        &mut self,
        key: &str,
        value: &Value,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<bool, SchemaError> {
        // A member's value is one level deeper; a member of a member's value two.
        let (one, two) = (depth + 1, depth + 2);
        match key {
            "items" => match value {
                Value::Array(_) if self.draft != Draft::Draft2020_12 => {
                    st.items_array = Some(self.schema_list(value, key, at, two, false)?);
                }
                Value::Array(_) => {
                    return Err(refuse(
                        at,
                        String::from(
                            "keyword 'items' must be a single schema: the array form is \
                             not draft 2020-12, which names it 'prefixItems'",
                        ),
                    ))
                }
                _ => st.k.items = Some(self.compile_at(value, at, one, Some(key))?),
            },
            "prefixItems" => st.k.prefix_items = self.schema_list(value, key, at, two, true)?,
            "additionalItems" => {
                st.additional_items = Some(self.compile_at(value, at, one, Some(key))?)
            }
            "contains" => st.k.contains = Some(self.compile_at(value, at, one, Some(key))?),
            "unevaluatedItems" => {
                st.k.unevaluated_items = Some(self.compile_at(value, at, one, Some(key))?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The applicators on an object's members: `properties`, `patternProperties`,
    /// `additionalProperties`, `propertyNames`, `unevaluatedProperties`,
    /// `dependentSchemas`, draft-07's `dependencies`.
    fn object_applicator(
        &mut self,
        key: &str,
        value: &Value,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<bool, SchemaError> {
        let (one, two) = (depth + 1, depth + 2);
        match key {
            "properties" => {
                st.k.properties = self
                    .schema_map(value, key, at, two)?
                    .into_iter()
                    .map(|(name, node)| Property {
                        name,
                        node,
                        required: false,
                    })
                    .collect();
            }
            "patternProperties" => self.pattern_properties(value, at, two, &mut st.k)?,
            "additionalProperties" => {
                st.k.additional = Some(self.compile_at(value, at, one, Some(key))?);
            }
            "propertyNames" => {
                st.k.property_names = Some(self.compile_at(value, at, one, Some(key))?)
            }
            "unevaluatedProperties" => {
                st.k.unevaluated_properties = Some(self.compile_at(value, at, one, Some(key))?);
            }
            "dependentSchemas" => st.k.dependent_schemas = self.schema_map(value, key, at, two)?,
            "dependencies" => self.dependencies(value, at, two, &mut st.k)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The applicators in place: `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`,
    /// `else`.
    fn in_place_applicator(
        &mut self,
        key: &str,
        value: &Value,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<bool, SchemaError> {
        let (one, two) = (depth + 1, depth + 2);
        match key {
            "allOf" => st.k.all_of = self.schema_list(value, key, at, two, true)?,
            "anyOf" => st.k.any_of = self.schema_list(value, key, at, two, true)?,
            "oneOf" => st.k.one_of = self.schema_list(value, key, at, two, true)?,
            "not" => st.k.not = Some(self.compile_at(value, at, one, Some(key))?),
            "if" => st.k.condition = Some(self.compile_at(value, at, one, Some(key))?),
            "then" => st.then = Some(self.compile_at(value, at, one, Some(key))?),
            "else" => st.otherwise = Some(self.compile_at(value, at, one, Some(key))?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The references, the schemas kept for them (`$defs`, `contentSchema`), the core
    /// keywords and the annotations the meta-schema checks. Always `true`: what is
    /// left (`default`, …) is an annotation.
    fn reference_or_annotation(
        &mut self,
        key: &str,
        value: &Value,
        id: NodeId,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<bool, SchemaError> {
        let (one, two) = (depth + 1, depth + 2);
        match key {
            "$defs" | "definitions" => {
                // Compiled so that references can point into them, and refused if
                // broken even when nothing refers to them, as the meta-schema would.
                self.schema_map(value, key, at, two)?;
            }
            "contentSchema" => {
                // An annotation, but a schema the meta-schema checks.
                self.compile_at(value, at, one, Some(key))?;
            }
            "$ref" | "$dynamicRef" | "$recursiveRef" => {
                let Value::String(reference) = value else {
                    return Err(must_be(at, key, "a string", value));
                };
                let kind = match key {
                    "$ref" => RefKind::Ref,
                    "$dynamicRef" => RefKind::Dynamic,
                    _ => RefKind::Recursive,
                };
                self.pending.push(Pending {
                    from: id,
                    kind,
                    reference: reference.clone(),
                    base: st.base.clone(),
                });
            }
            // The root's was read first (it names the draft).
            "$schema" if at.as_str() != "/$schema" => self.sub_schema_uri(value, at)?,
            // Read by the first pass ([`Resources`]).
            "$id" | "$anchor" | "$dynamicAnchor" => {}
            "$recursiveAnchor" | "deprecated" | "readOnly" | "writeOnly" => {
                boolean(at, key, value)?;
            }
            "$vocabulary" if !matches!(value, Value::Object(_)) => {
                return Err(must_be(at, key, "an object", value));
            }
            "title" | "description" | "$comment" | "format" | "contentEncoding"
            | "contentMediaType"
                if !matches!(value, Value::String(_)) =>
            {
                return Err(must_be(at, key, "a string", value));
            }
            "examples" if !matches!(value, Value::Array(_)) => {
                return Err(must_be(at, key, "an array", value));
            }
            // "default" and anything else the draft knows as an annotation.
            _ => {}
        }
        Ok(true)
    }

    /// `properties`, `$defs`, `dependentSchemas`: an object whose members are schemas.
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
            let node = self.child(member, keyword, pointer, name, depth)?;
            out.push((String::from(name), node));
        }
        Ok(out)
    }

    /// `allOf`, `anyOf`, `oneOf`, `prefixItems`: an array of schemas (non-empty when
    /// `non_empty`).
    fn schema_list(
        &mut self,
        value: &Value,
        keyword: &str,
        pointer: &mut String,
        depth: usize,
        non_empty: bool,
    ) -> Result<Vec<NodeId>, SchemaError> {
        let items = match value {
            Value::Array(items) if !(non_empty && items.is_empty()) => items,
            other => {
                let what = if non_empty {
                    "a non-empty array of schemas"
                } else {
                    "an array of schemas"
                };
                return Err(must_be(pointer, keyword, what, other));
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(self.child(item, keyword, pointer, &format!("{i}"), depth)?);
        }
        Ok(out)
    }

    /// Draft-07's `dependencies`: each member an array of names or a schema.
    fn dependencies(
        &mut self,
        value: &Value,
        pointer: &mut String,
        depth: usize,
        k: &mut Keywords,
    ) -> Result<(), SchemaError> {
        let Value::Object(members) = value else {
            return Err(must_be(
                pointer,
                "dependencies",
                "an object whose members are schemas or arrays of names",
                value,
            ));
        };
        for (name, member) in members.iter() {
            match member {
                Value::Array(_) => {
                    let mut at = pointer.clone();
                    push_token(&mut at, name);
                    k.dependent_required
                        .push((String::from(name), names(member, &at, "dependencies")?));
                }
                _ => {
                    let node = self.child(member, "dependencies", pointer, name, depth)?;
                    k.dependent_schemas.push((String::from(name), node));
                }
            }
        }
        Ok(())
    }

    /// A `$schema` below the root: only where it names the document's own draft.
    fn sub_schema_uri(&self, value: &Value, pointer: &str) -> Result<(), SchemaError> {
        let Value::String(uri) = value else {
            return Err(must_be(pointer, "$schema", "a string", value));
        };
        match Draft::from_uri(uri) {
            Some(draft) if draft == self.draft => Ok(()),
            Some(draft) => Err(refuse(
                pointer,
                format!(
                    "keyword '$schema' names {} in a document written for {}: one document \
                     is read by one draft",
                    draft.name(),
                    self.draft.name()
                ),
            )),
            None => Err(refuse(pointer, unknown_draft(uri))),
        }
    }
}

/// The assertions on the value itself: `type`, `enum`, `const`, the number, string,
/// array and object bounds, `required`, `dependentRequired`.
fn assertion(key: &str, value: &Value, at: &str, st: &mut Partial) -> Result<bool, SchemaError> {
    match key {
        "type" => st.k.types = types(value, at)?,
        "enum" => st.k.enumeration = Some(Box::new(enumeration(value, at)?)),
        "const" => st.k.constant = Some(Box::new(value.clone())),
        "multipleOf" => match value {
            Value::Number(n) if n.is_finite() && *n > 0.0 => st.k.multiple_of = Some(*n),
            other => return Err(must_be(at, key, "a number above 0", other)),
        },
        "minimum" => st.k.minimum = Some(number(at, key, value)?),
        "maximum" => st.k.maximum = Some(number(at, key, value)?),
        "exclusiveMinimum" => st.k.exclusive_minimum = Some(number(at, key, value)?),
        "exclusiveMaximum" => st.k.exclusive_maximum = Some(number(at, key, value)?),
        "minLength" => st.k.min_length = Some(count(at, key, value)?),
        "maxLength" => st.k.max_length = Some(count(at, key, value)?),
        "minItems" => st.k.min_items = Some(count(at, key, value)?),
        "maxItems" => st.k.max_items = Some(count(at, key, value)?),
        "uniqueItems" => st.k.unique_items = boolean(at, key, value)?,
        "minContains" => st.min_contains = Some(count(at, key, value)?),
        "maxContains" => st.k.max_contains = Some(count(at, key, value)?),
        "minProperties" => st.k.min_properties = Some(count(at, key, value)?),
        "maxProperties" => st.k.max_properties = Some(count(at, key, value)?),
        "required" => st.k.required = names(value, at, key)?,
        "dependentRequired" => st.k.dependent_required = dependent_required(value, at)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `enum`: an array of at most [`MAX_ENUM_VALUES`] values.
fn enumeration(value: &Value, at: &str) -> Result<Members, SchemaError> {
    match value {
        Value::Array(values) if values.len() > MAX_ENUM_VALUES => Err(refuse(
            at,
            format!(
                "keyword 'enum' lists {} values, more than the \
                 {MAX_ENUM_VALUES} a schema may list",
                values.len()
            ),
        )),
        Value::Array(values) => Ok(Members::new(values.clone())),
        other => Err(must_be(at, "enum", "an array", other)),
    }
}

/// `dependentRequired`: an object whose members are arrays of unique names.
fn dependent_required(
    value: &Value,
    pointer: &str,
) -> Result<Vec<(String, Vec<String>)>, SchemaError> {
    let Value::Object(members) = value else {
        return Err(must_be(
            pointer,
            "dependentRequired",
            "an object whose members are arrays of names",
            value,
        ));
    };
    let mut out = Vec::with_capacity(members.len());
    for (name, member) in members.iter() {
        let mut at = String::from(pointer);
        push_token(&mut at, name);
        out.push((String::from(name), names(member, &at, "dependentRequired")?));
    }
    Ok(out)
}
