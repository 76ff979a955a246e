//! Schema document → compiled [`Tree`], refusing what the validator cannot honour and
//! what the draft's meta-schema would refuse.
//!
//! Subschemas are compiled by their JSON pointer, once each: those the draft's keywords
//! hold, and any other place a reference points at (a pointer into an unknown keyword
//! is a schema once a `$ref` names it). References are resolved once every subschema
//! they could name is known ([`Resources`]), and may compile more subschemas.
//!
//! Each refusal is a [`SchemaError`] whose pointer is the offending member or element
//! (`/properties/a/type`, `/required/1`) and whose sentence names the keyword. Members
//! are checked in canonical key order, so the same document is always refused for the
//! same reason.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

mod resolve;
mod values;

use values::{boolean, count, must_be, names, number, other_draft, pattern, types, unknown_draft};

use super::draft::{self, Draft, Keyword};
use super::order::Members;
use super::pattern::Pattern;
use super::reference::{self, push_token};
use super::resources::Resources;
use super::tree::{Count, Keywords, Node, NodeId, Property, Resource, Tree};
use super::SchemaError;
use crate::json::path::quoted;
use crate::json::{Object, Value, MAX_DEPTH};

pub use super::draft::DRAFT_2020_12;

/// Most dynamic scopes a document's `$dynamicRef`s can tell apart (the product, over
/// the dynamic anchor names they look up, of one more than the resources declaring
/// each): validation remembers verdicts per scope, so this bounds its work.
pub const MAX_DYNAMIC_SCOPES: usize = 4096;

/// Most names a `required` (or a `dependentRequired` list) may hold: far more than a
/// tool needs; a bound on the work of compiling and the compiled schema's size.
pub const MAX_REQUIRED_NAMES: usize = 10_000;

/// Most values an `enum` may list, for the same reasons.
pub const MAX_ENUM_VALUES: usize = 100_000;

/// What a compiled document holds besides its tree.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The tree.
    pub(crate) tree: Tree,
    /// JSON pointers of the members no draft knows (annotations, ignored).
    pub(crate) ignored: Vec<String>,
}

/// Which reference keyword a pending reference came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Ref,
    Dynamic,
    Recursive,
}

impl RefKind {
    fn keyword(self) -> &'static str {
        match self {
            RefKind::Ref => "$ref",
            RefKind::Dynamic => "$dynamicRef",
            RefKind::Recursive => "$recursiveRef",
        }
    }
}

/// A schema object's keywords while they are read: what depends on its siblings
/// waits here.
struct Partial {
    k: Keywords,
    base: Option<Rc<str>>,
    items_array: Option<Vec<NodeId>>,
    additional_items: Option<NodeId>,
    min_contains: Option<Count>,
    then: Option<NodeId>,
    otherwise: Option<NodeId>,
}

/// A reference waiting for the subschemas it may name.
#[derive(Debug)]
struct Pending {
    from: NodeId,
    kind: RefKind,
    reference: String,
    /// The base URI in effect where it is written.
    base: Option<Rc<str>>,
}

/// Compiles `document`.
pub(crate) fn compile(document: &Value) -> Result<Compiled, SchemaError> {
    let draft = match draft::of_document(document) {
        Ok(draft) => draft,
        Err(Some(uri)) => return Err(refuse("/$schema", unknown_draft(uri))),
        Err(None) => {
            let value = document.as_object().and_then(|o| o.get("$schema"));
            return Err(must_be(
                "/$schema",
                "$schema",
                "a string",
                value.unwrap_or(&Value::Null),
            ));
        }
    };
    let resources = Resources::scan(document, draft)?;
    let mut c = Compiler {
        document,
        draft,
        resources,
        nodes: Vec::new(),
        by_value: BTreeMap::new(),
        values: Vec::new(),
        pending: Vec::new(),
        ignored: Vec::new(),
        dynamic_names: Vec::new(),
    };
    let root = c.compile_at(document, &mut String::new(), 1, None)?;
    c.resolve_all()?;
    c.finish(root)
}

/// A refusal at `pointer`.
fn refuse(pointer: &str, message: String) -> SchemaError {
    SchemaError::at(pointer, message)
}

struct Compiler<'d> {
    document: &'d Value,
    draft: Draft,
    resources: Resources,
    nodes: Vec<Node>,
    /// Node by the address of its schema in the document (borrowed for the whole
    /// compilation, so each value keeps its address): a node keeps no pointer of its
    /// own, which for a deep document with long keys would cost quadratic memory.
    by_value: BTreeMap<usize, NodeId>,
    /// The address of each node's schema, to find its pointer for a sentence.
    values: Vec<usize>,
    pending: Vec<Pending>,
    ignored: Vec<String>,
    /// Names `$dynamicRef` looks up dynamically (`""` for `$recursiveRef`).
    dynamic_names: Vec<String>,
}

impl Compiler<'_> {
    /// Compiles the schema `value` at `pointer` (JSON nesting `depth`, the root being
    /// 1), once; `keyword` is the keyword it belongs to, for the sentence when it is
    /// not a schema. `pointer` is a buffer the compilation extends and restores.
    fn compile_at(
        &mut self,
        value: &Value,
        pointer: &mut String,
        depth: usize,
        keyword: Option<&str>,
    ) -> Result<NodeId, SchemaError> {
        let address = core::ptr::from_ref(value) as usize;
        if let Some(&id) = self.by_value.get(&address) {
            return Ok(id);
        }
        let id = self.nodes.len();
        match value {
            Value::Bool(b) => {
                self.nodes.push(Node::Bool(*b));
                self.values.push(address);
                self.by_value.insert(address, id);
                Ok(id)
            }
            Value::Object(object) => {
                if depth > MAX_DEPTH {
                    return Err(refuse(
                        pointer,
                        format!("the schema nests deeper than {MAX_DEPTH} levels"),
                    ));
                }
                // Reserve the id first: a reference back to it finds it.
                self.nodes.push(Node::Bool(true));
                self.values.push(address);
                self.by_value.insert(address, id);
                let waiting = self.pending.len();
                let keywords = self.keywords(object, id, pointer, depth)?;
                let references = self.pending[waiting..].iter().any(|p| p.from == id);
                // `{}` and a schema of annotations alone accept everything, as `true`
                // does (and cost a few bytes, not a whole node of keywords).
                self.nodes[id] = if keywords.is_empty() && !references {
                    Node::Bool(true)
                } else {
                    Node::Keywords(Box::new(keywords))
                };
                Ok(id)
            }
            other => {
                let got = other.type_name();
                Err(refuse(
                    pointer,
                    match keyword {
                        None => format!("a schema must be an object or a boolean, got {got}"),
                        Some(k) => format!(
                            "keyword {} needs a schema (an object or a boolean) here, got {got}",
                            quoted(k)
                        ),
                    },
                ))
            }
        }
    }

    /// A subschema of keyword `key` at `pointer` + `token`.
    fn child(
        &mut self,
        value: &Value,
        key: &str,
        pointer: &mut String,
        token: &str,
        depth: usize,
    ) -> Result<NodeId, SchemaError> {
        let mark = pointer.len();
        push_token(pointer, token);
        let node = self.compile_at(value, pointer, depth, Some(key));
        pointer.truncate(mark);
        node
    }

    /// The keywords of the object schema `object` (node `id` at `pointer`, nesting
    /// `depth`).
    fn keywords(
        &mut self,
        object: &Object,
        id: NodeId,
        pointer: &mut String,
        depth: usize,
    ) -> Result<Keywords, SchemaError> {
        let draft = self.draft;
        let (base, home) = self.resources.context_of(self.document, object, pointer);
        let mut st = Partial {
            k: Keywords {
                home,
                ..Keywords::default()
            },
            base,
            items_array: None,
            additional_items: None,
            min_contains: None,
            then: None,
            otherwise: None,
        };
        // Draft-07: a `$ref` hides every sibling keyword.
        let only_ref = draft == Draft::Draft7 && object.contains_key("$ref");
        for (key, value) in object.iter() {
            if only_ref && key != "$ref" {
                continue;
            }
            let mark = pointer.len();
            push_token(pointer, key);
            let done = self.keyword(key, value, id, pointer, depth, &mut st);
            pointer.truncate(mark);
            done?;
        }
        let mut k = st.k;
        if let Some(prefix) = st.items_array {
            // Before 2020-12: `items` as an array is positional, `additionalItems`
            // covers the rest (and means nothing without it).
            k.prefix_items = prefix;
            k.items = st.additional_items;
        }
        if k.contains.is_some() {
            k.min_contains = st.min_contains;
        } else {
            k.max_contains = None;
        }
        if k.condition.is_some() {
            k.then = st.then;
            k.otherwise = st.otherwise;
        }
        Ok(k)
    }

    /// One member `key` of a schema object, at `at` (its pointer), into `st`.
    fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        id: NodeId,
        at: &mut String,
        depth: usize,
        st: &mut Partial,
    ) -> Result<(), SchemaError> {
        let draft = self.draft;
        // A member's value is one level deeper; a member of a member's value two.
        let (one, two) = (depth + 1, depth + 2);
        match draft.keyword(key) {
            Keyword::Known => {}
            Keyword::OtherDraft => return Err(refuse(at, other_draft(key, draft))),
            Keyword::Unknown => {
                self.ignored.push(at.clone());
                return Ok(());
            }
        }
        match key {
            "type" => st.k.types = types(value, at)?,
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
                Value::Array(values) => st.k.enumeration = Some(Members::new(values.clone())),
                other => return Err(must_be(at, key, "an array", other)),
            },
            "const" => st.k.constant = Some(value.clone()),
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
            "pattern" => st.k.pattern = Some(pattern(value, at, key)?),
            "minItems" => st.k.min_items = Some(count(at, key, value)?),
            "maxItems" => st.k.max_items = Some(count(at, key, value)?),
            "uniqueItems" => st.k.unique_items = boolean(at, key, value)?,
            "minContains" => st.min_contains = Some(count(at, key, value)?),
            "maxContains" => st.k.max_contains = Some(count(at, key, value)?),
            "minProperties" => st.k.min_properties = Some(count(at, key, value)?),
            "maxProperties" => st.k.max_properties = Some(count(at, key, value)?),
            "required" => st.k.required = names(value, at, key)?,
            "dependentRequired" => st.k.dependent_required = self.dependent_required(value, at)?,
            "dependentSchemas" => st.k.dependent_schemas = self.schema_map(value, key, at, two)?,
            "dependencies" => self.dependencies(value, at, two, &mut st.k)?,
            "items" => match value {
                Value::Array(_) if draft != Draft::Draft2020_12 => {
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
            "patternProperties" => {
                let Value::Object(members) = value else {
                    return Err(must_be(
                        at,
                        key,
                        "an object whose members are schemas",
                        value,
                    ));
                };
                for (source, member) in members.iter() {
                    let regex = Pattern::compile(source).map_err(|e| {
                        refuse(
                            at,
                            format!(
                                "keyword 'patternProperties': the pattern {} is refused: {e}",
                                quoted(source)
                            ),
                        )
                    })?;
                    let node = self.child(member, key, at, source, two)?;
                    st.k.pattern_properties.push((regex, node));
                }
            }
            "additionalProperties" => {
                st.k.additional = Some(self.compile_at(value, at, one, Some(key))?);
            }
            "propertyNames" => {
                st.k.property_names = Some(self.compile_at(value, at, one, Some(key))?)
            }
            "unevaluatedItems" => {
                st.k.unevaluated_items = Some(self.compile_at(value, at, one, Some(key))?);
            }
            "unevaluatedProperties" => {
                st.k.unevaluated_properties = Some(self.compile_at(value, at, one, Some(key))?);
            }
            "allOf" => st.k.all_of = self.schema_list(value, key, at, two, true)?,
            "anyOf" => st.k.any_of = self.schema_list(value, key, at, two, true)?,
            "oneOf" => st.k.one_of = self.schema_list(value, key, at, two, true)?,
            "not" => st.k.not = Some(self.compile_at(value, at, one, Some(key))?),
            "if" => st.k.condition = Some(self.compile_at(value, at, one, Some(key))?),
            "then" => st.then = Some(self.compile_at(value, at, one, Some(key))?),
            "else" => st.otherwise = Some(self.compile_at(value, at, one, Some(key))?),
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
        Ok(())
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

    /// `dependentRequired`: an object whose members are arrays of unique names.
    fn dependent_required(
        &mut self,
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

    /// The finished tree: resources with their dynamic anchors, flags, and the
    /// refusal of endless reference cycles.
    fn finish(mut self, root: NodeId) -> Result<Compiled, SchemaError> {
        let mut resources = vec![Resource::default(); self.resources.pointers.len()];
        let mut bound = vec![0usize; self.dynamic_names.len()];
        for ((owner, name), anchor) in &self.resources.anchors {
            let Some(slot) = self.dynamic_names.iter().position(|n| n == name) else {
                continue;
            };
            if !anchor.dynamic {
                continue;
            }
            let (Some(rid), Some(&node)) = (
                self.resources
                    .by_uri
                    .get(owner)
                    .and_then(|p| self.resources.resource_at(p)),
                self.value_at(&anchor.pointer)
                    .and_then(|v| self.by_value.get(&(core::ptr::from_ref(v) as usize))),
            ) else {
                continue;
            };
            resources[rid].dynamic_anchors.push((slot, node));
            bound[slot] += 1;
        }
        if let Some(slot) = self.dynamic_names.iter().position(String::is_empty) {
            for (rid, pointer) in self.resources.pointers.iter().enumerate() {
                if self.recursive_anchor(pointer) {
                    let node = self
                        .value_at(pointer)
                        .and_then(|v| self.by_value.get(&(core::ptr::from_ref(v) as usize)));
                    if let Some(&node) = node {
                        resources[rid].dynamic_anchors.push((slot, node));
                        bound[slot] += 1;
                    }
                }
            }
        }
        let scopes = bound
            .iter()
            .try_fold(1usize, |product, &n| product.checked_mul(n + 1));
        if scopes.is_none_or(|n| n > MAX_DYNAMIC_SCOPES) {
            return Err(refuse(
                "",
                format!(
                    "the document's dynamic anchors make more than {MAX_DYNAMIC_SCOPES} \
                     dynamic scopes to tell apart"
                ),
            ));
        }
        let mut shared = vec![false; self.nodes.len()];
        for node in &self.nodes {
            if let Node::Keywords(k) = node {
                if let Some(target) = k.reference {
                    shared[target] = true;
                }
                if let Some(d) = k.dynamic_reference {
                    shared[d.target] = true;
                }
            }
        }
        for resource in &resources {
            for &(_, node) in &resource.dynamic_anchors {
                shared[node] = true;
            }
        }
        // The edges into each node, from every node (also those nothing reaches, which
        // only errs towards remembering).
        let mut incoming = vec![0u8; self.nodes.len()];
        for node in &self.nodes {
            if let Node::Keywords(k) = node {
                for child in k.children() {
                    if let Some(n) = incoming.get_mut(child) {
                        *n = n.saturating_add(1);
                    }
                }
            }
        }
        let dynamic = !self.dynamic_names.is_empty();
        for ((node, shared), incoming) in self.nodes.iter_mut().zip(shared).zip(incoming) {
            if let Node::Keywords(k) = node {
                k.prepare();
                k.flags.shared = shared;
                k.flags.revisit = shared && (dynamic || incoming > 1);
            }
        }
        reference::refuse_cycles(&self.nodes, &|node| self.pointer_of(node))?;
        let plain = !dynamic && all_plain(&self.nodes, root);
        Ok(Compiled {
            tree: Tree {
                nodes: self.nodes,
                root,
                draft: self.draft,
                resources,
                dynamic_names: self.dynamic_names,
                plain,
            },
            ignored: self.ignored,
        })
    }
}

/// Whether every node `root` reaches is plain and applied at most once to a value
/// ([`Tree::plain`]).
fn all_plain(nodes: &[Node], root: NodeId) -> bool {
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match seen.get_mut(node) {
            Some(true) => continue,
            Some(s) => *s = true,
            None => return false,
        }
        match &nodes[node] {
            Node::Bool(_) => {}
            Node::Keywords(k) => {
                if !k.flags.plain || k.flags.revisit {
                    return false;
                }
                stack.extend(k.children());
            }
        }
    }
    true
}
