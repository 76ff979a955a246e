//! The first pass over a schema document: which subschemas are resources (`$id`), the
//! base URI in effect at each subschema, and the anchors (`$anchor`, `$dynamicAnchor`,
//! draft-07's `"$id": "#name"`). References are resolved against what it finds.
//!
//! Only places where a keyword of the draft holds a schema are looked into: an `$id`
//! inside an unknown keyword, or (in draft-07) beside a `$ref`, is not an identifier.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use super::draft::{Draft, Keyword};
use super::message::show;
use super::reference::push_token;
use super::uri;
use super::SchemaError;
use agentloop_json::__private::path::quoted;
use agentloop_json::{Object, Value};

/// Where an anchor is, and whether it is dynamic (`$dynamicAnchor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    /// JSON pointer to the schema that declares it.
    pub(crate) pointer: String,
    /// Declared with `$dynamicAnchor`.
    pub(crate) dynamic: bool,
}

/// What the first pass found.
#[derive(Debug, Default)]
pub(crate) struct Resources {
    /// Resource URI (without fragment; `""` for a root without `$id`) → pointer.
    pub(crate) by_uri: BTreeMap<String, String>,
    /// Resource pointers in document order (index = resource id; the root is 0).
    pub(crate) pointers: Vec<String>,
    /// (resource URI, name) → anchor.
    pub(crate) anchors: BTreeMap<(String, String), Anchor>,
    /// By the address of each schema the scan reached: the base URI in effect in it
    /// (after its own `$id`) and the resource it belongs to.
    pub(crate) contexts: BTreeMap<usize, (Option<Rc<str>>, usize)>,
}

impl Resources {
    /// Scans `document`, read by `draft`.
    pub(crate) fn scan(document: &Value, draft: Draft) -> Result<Resources, SchemaError> {
        let mut found = Resources::default();
        found.by_uri.insert(String::new(), String::new());
        found.pointers.push(String::new());
        let mut pointer = String::new();
        found.schema(document, draft, &mut pointer, None, 0)?;
        Ok(found)
    }

    /// The base URI in effect in `schema` (at `pointer` in `document`) and the resource
    /// it belongs to: those the scan found for it, or, for a schema the scan did not
    /// reach (one a reference names inside an unknown keyword), those of the nearest
    /// schema above it that it reached.
    pub(crate) fn context_of(
        &self,
        document: &Value,
        schema: &Object,
        pointer: &str,
    ) -> (Option<Rc<str>>, usize) {
        if let Some(found) = self.contexts.get(&address(schema)) {
            return found.clone();
        }
        let mut context = (None, 0);
        let mut value = document;
        for token in super::reference::tokens(pointer).unwrap_or_default() {
            if let Some(found) = self.contexts.get(&key_of(value)) {
                context = found.clone();
            }
            let next = match value {
                Value::Object(o) => o.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(next) => value = next,
                None => break,
            }
        }
        context
    }

    /// The resource id of the resource rooted at `pointer`, if one is.
    pub(crate) fn resource_at(&self, pointer: &str) -> Option<usize> {
        self.pointers.iter().position(|p| p == pointer)
    }

    /// Scans the schema `value` at `pointer`, with `base` in effect above it.
    fn schema(
        &mut self,
        value: &Value,
        draft: Draft,
        pointer: &mut String,
        base: Option<Rc<str>>,
        home: usize,
    ) -> Result<(), SchemaError> {
        let Value::Object(object) = value else {
            self.contexts.insert(key_of(value), (base, home));
            return Ok(());
        };
        // In draft-07 a `$ref` hides every sibling, `$id` included; `definitions` beside
        // it is still where its references point (as zod writes them), so the
        // schemas there are still read for their identifiers.
        if draft == Draft::Draft7 && object.contains_key("$ref") {
            return self.draft7_ref(object, draft, pointer, base, home);
        }
        let (base, home) = self.identify(object, draft, pointer, base, home)?;
        self.contexts.insert(address(object), (base.clone(), home));
        for (key, child) in object.iter() {
            if draft.keyword(key) != Keyword::Known {
                continue;
            }
            let mark = pointer.len();
            push_token(pointer, key);
            self.children(key, child, draft, pointer, &base, home)?;
            pointer.truncate(mark);
        }
        Ok(())
    }

    /// A draft-07 schema object with a `$ref`, which hides every sibling but
    /// `definitions` (read for their identifiers, as zod writes them).
    fn draft7_ref(
        &mut self,
        object: &Object,
        draft: Draft,
        pointer: &mut String,
        base: Option<Rc<str>>,
        home: usize,
    ) -> Result<(), SchemaError> {
        self.contexts.insert(address(object), (base.clone(), home));
        if let Some(Value::Object(members)) = object.get("definitions") {
            let mark = pointer.len();
            push_token(pointer, "definitions");
            for (name, member) in members.iter() {
                let inner = pointer.len();
                push_token(pointer, name);
                self.schema(member, draft, pointer, base.clone(), home)?;
                pointer.truncate(inner);
            }
            pointer.truncate(mark);
        }
        Ok(())
    }

    /// Scans the subschemas in member `key` (its value `child`, at `pointer`) of a
    /// schema object.
    fn children(
        &mut self,
        key: &str,
        child: &Value,
        draft: Draft,
        pointer: &mut String,
        base: &Option<Rc<str>>,
        home: usize,
    ) -> Result<(), SchemaError> {
        match (key, child) {
            (
                "additionalProperties"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema"
                | "additionalItems"
                | "items",
                Value::Object(_) | Value::Bool(_),
            ) => self.schema(child, draft, pointer, base.clone(), home)?,
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let mark = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    self.schema(item, draft, pointer, base.clone(), home)?;
                    pointer.truncate(mark);
                }
            }
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
                | "dependencies",
                Value::Object(members),
            ) => {
                for (name, member) in members.iter() {
                    if matches!(member, Value::Object(_) | Value::Bool(_)) {
                        let mark = pointer.len();
                        push_token(pointer, name);
                        self.schema(member, draft, pointer, base.clone(), home)?;
                        pointer.truncate(mark);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Reads the `$id` and anchors of `object`; the base URI in effect inside it and
    /// the resource it belongs to.
    fn identify(
        &mut self,
        object: &Object,
        draft: Draft,
        pointer: &str,
        base: Option<Rc<str>>,
        home: usize,
    ) -> Result<(Option<Rc<str>>, usize), SchemaError> {
        let (mut base, mut home) = (base, home);
        if let Some(id) = object.get("$id") {
            let Value::String(id) = id else {
                return Err(SchemaError::at(
                    &at(pointer, "$id"),
                    format!("keyword '$id' must be a string, got {}", show(id)),
                ));
            };
            let (resolved, fragment) = uri::resolve(base.as_deref(), id);
            let names_a_resource = !id.starts_with('#');
            if !fragment.is_empty() {
                if draft != Draft::Draft7 || fragment.starts_with('/') {
                    return Err(SchemaError::at(
                        &at(pointer, "$id"),
                        format!(
                            "keyword '$id': {} has a fragment; {} names a resource with \
                             '$id' and a location in it with '$anchor'",
                            quoted(id),
                            draft.name()
                        ),
                    ));
                }
                // Draft-07: `"$id": "#name"` (or `"uri#name"`) declares a plain-name anchor.
                let owner = if names_a_resource {
                    resolved.clone()
                } else {
                    base.as_deref().map(String::from).unwrap_or_default()
                };
                self.anchor(owner, fragment, pointer, false)?;
            }
            if names_a_resource {
                if let Some(other) = self.by_uri.get(&resolved) {
                    if other != pointer {
                        return Err(SchemaError::at(
                            &at(pointer, "$id"),
                            format!(
                                "keyword '$id': {} names the same resource as the schema at \
                                 #{other}",
                                quoted(&resolved)
                            ),
                        ));
                    }
                } else {
                    self.by_uri.insert(resolved.clone(), String::from(pointer));
                    if !pointer.is_empty() {
                        self.pointers.push(String::from(pointer));
                    }
                }
                home = self.resource_at(pointer).unwrap_or(home);
                base = Some(Rc::from(resolved.as_str()));
            }
        }
        let owner = base.as_deref().map(String::from).unwrap_or_default();
        for (keyword, dynamic) in [("$anchor", false), ("$dynamicAnchor", true)] {
            if draft.keyword(keyword) != Keyword::Known {
                continue;
            }
            if let Some(name) = object.get(keyword) {
                let name = anchor_name(name, keyword, pointer)?;
                self.anchor(owner.clone(), String::from(name), pointer, dynamic)?;
            }
        }
        Ok((base, home))
    }

    /// Records anchor `name` of resource `owner` at `pointer`.
    fn anchor(
        &mut self,
        owner: String,
        name: String,
        pointer: &str,
        dynamic: bool,
    ) -> Result<(), SchemaError> {
        let key = (owner, name);
        match self.anchors.get_mut(&key) {
            Some(existing) if existing.pointer != pointer => Err(SchemaError::at(
                pointer,
                format!(
                    "the anchor {} is declared twice in one resource (here and at #{})",
                    quoted(&key.1),
                    existing.pointer
                ),
            )),
            // `$anchor` and `$dynamicAnchor` of one name on one schema.
            Some(existing) => {
                existing.dynamic |= dynamic;
                Ok(())
            }
            None => {
                self.anchors.insert(
                    key,
                    Anchor {
                        pointer: String::from(pointer),
                        dynamic,
                    },
                );
                Ok(())
            }
        }
    }
}

/// The address of a value: the document is borrowed while it is compiled, so it
/// names the value.
fn value_address(value: &Value) -> usize {
    core::ptr::from_ref(value) as usize
}

/// The address of `object` (inside its value).
fn address(object: &Object) -> usize {
    core::ptr::from_ref(object) as usize
}

/// The key of a value in [`Resources::contexts`]: its object's address for an object.
fn key_of(value: &Value) -> usize {
    match value {
        Value::Object(object) => address(object),
        other => value_address(other),
    }
}

/// `pointer/keyword`.
fn at(pointer: &str, keyword: &str) -> String {
    let mut out = String::from(pointer);
    push_token(&mut out, keyword);
    out
}

/// An anchor name: `^[A-Za-z_][-A-Za-z0-9._]*$` (draft 2020-12's meta-schema).
fn anchor_name<'v>(value: &'v Value, keyword: &str, pointer: &str) -> Result<&'v str, SchemaError> {
    let good = |name: &str| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    };
    match value {
        Value::String(name) if good(name) => Ok(name),
        other => Err(SchemaError::at(
            &at(pointer, keyword),
            format!(
                "keyword {} must be a name (a letter or '_', then letters, digits, '-', '.', \
                 '_'), got {}",
                quoted(keyword),
                show(other)
            ),
        )),
    }
}
