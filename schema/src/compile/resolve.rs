//! Resolving references: each `$ref`, `$dynamicRef` and `$recursiveRef` against the
//! base URI where it is written, to a resource of the document and a pointer or anchor
//! in it — compiling the target if no keyword reached it — and the dynamic anchors the
//! dynamic references may land on.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::values::pointer_to;
use super::{refuse, Compiler, RefKind};
use crate::message::show;
use crate::reference::{self, push_token};
use crate::tree::{DynamicRef, Node, NodeId};
use crate::{uri, SchemaError};
use agentloop_json::__private::path::quoted;
use agentloop_json::Value;

impl Compiler<'_> {
    /// Resolves pending references until none is left (resolving one may compile
    /// subschemas with references of their own), then the dynamic anchors the
    /// dynamic references may land on.
    pub(super) fn resolve_all(&mut self) -> Result<(), SchemaError> {
        let mut next = 0;
        let mut anchors_done = 0;
        loop {
            while next < self.pending.len() {
                self.resolve(next)?;
                next += 1;
            }
            // Dynamic anchors of the names looked up so far: they are targets too.
            if anchors_done == self.dynamic_names.len() {
                return Ok(());
            }
            anchors_done = self.dynamic_names.len();
            for pointer in self.dynamic_anchor_pointers() {
                self.node_at(&pointer, "$dynamicAnchor")?;
            }
        }
    }

    /// Pointers of the schemas declaring a dynamic anchor whose name a dynamic
    /// reference looks up (`$recursiveAnchor: true` for the name `""`).
    fn dynamic_anchor_pointers(&self) -> Vec<String> {
        let mut out = Vec::new();
        for ((_, name), anchor) in &self.resources.anchors {
            if anchor.dynamic && self.dynamic_names.contains(name) {
                out.push(anchor.pointer.clone());
            }
        }
        if self.dynamic_names.iter().any(String::is_empty) {
            for pointer in &self.resources.pointers {
                if self.recursive_anchor(pointer) {
                    out.push(pointer.clone());
                }
            }
        }
        out
    }

    /// Whether the schema at `pointer` has `"$recursiveAnchor": true`.
    pub(super) fn recursive_anchor(&self, pointer: &str) -> bool {
        let value = self.value_at(pointer);
        value
            .and_then(Value::as_object)
            .and_then(|o| o.get("$recursiveAnchor"))
            == Some(&Value::Bool(true))
    }

    /// The document's value at a (canonical) JSON pointer.
    pub(super) fn value_at(&self, pointer: &str) -> Option<&Value> {
        Compiler::value_in(self.document, pointer)
    }

    /// The node for the schema at `pointer`, compiling it if needed.
    fn node_at(&mut self, pointer: &str, keyword: &str) -> Result<NodeId, SchemaError> {
        let document = self.document;
        let Some(value) = Compiler::value_in(document, pointer) else {
            return Err(refuse(
                pointer,
                format!("keyword {}: nothing at #{pointer}", quoted(keyword)),
            ));
        };
        let depth = pointer.matches('/').count() + 1;
        self.compile_at(value, &mut String::from(pointer), depth, Some(keyword))
    }

    /// The JSON pointer of node `node`'s schema, found by searching the document for
    /// its address (for sentences only).
    pub(super) fn pointer_of(&self, node: NodeId) -> String {
        let address = self.values.get(node).copied().unwrap_or(0);
        pointer_to(self.document, address).unwrap_or_default()
    }

    /// [`Compiler::value_at`] with the document's lifetime.
    fn value_in<'d>(document: &'d Value, pointer: &str) -> Option<&'d Value> {
        let mut value = document;
        for token in reference::tokens(pointer)? {
            value = match value {
                Value::Object(o) => o.get(&token)?,
                Value::Array(items) => {
                    if token.len() > 1 && token.starts_with('0')
                        || !token.bytes().all(|b| b.is_ascii_digit())
                    {
                        return None;
                    }
                    items.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(value)
    }

    /// Resolves pending reference `index` and points its node at the target.
    fn resolve(&mut self, index: usize) -> Result<(), SchemaError> {
        let (from, kind, reference, base) = {
            let p = &self.pending[index];
            (p.from, p.kind, p.reference.clone(), p.base.clone())
        };
        let keyword = kind.keyword();
        // Found only for a refusal (a node keeps no pointer, and finding one searches the
        // document: not for each reference).
        let (document, address) = (self.document, self.values.get(from).copied().unwrap_or(0));
        let says = |what: String| {
            let mut at = pointer_to(document, address).unwrap_or_default();
            push_token(&mut at, keyword);
            refuse(&at, format!("keyword {}: {}", quoted(keyword), what))
        };
        if kind == RefKind::Recursive && reference != "#" {
            return Err(says(format!(
                "{} must be \"#\" (draft 2019-09)",
                quoted(&reference)
            )));
        }
        let (resource, fragment) = uri::resolve(base.as_deref(), &reference);
        let Some(resource_pointer) = self.resources.by_uri.get(&resource).cloned() else {
            return Err(says(format!(
                "{} refers to another document ({}); remote references are refused, as \
                 validation never fetches anything (embed that schema under '$defs' with \
                 its '$id')",
                quoted(&reference),
                quoted(&resource)
            )));
        };
        let Some(fragment) = uri::percent_decode(&fragment) else {
            return Err(says(format!(
                "{} has a malformed percent-encoding",
                quoted(&reference)
            )));
        };
        let (target, slot) = self.target(
            kind,
            &reference,
            resource,
            resource_pointer,
            &fragment,
            &says,
        )?;
        match self.value_at(&target) {
            Some(Value::Object(_) | Value::Bool(_)) => {}
            Some(other) => {
                return Err(says(format!(
                    "{} points to {} at #{target}, not to a schema",
                    quoted(&reference),
                    show(other)
                )))
            }
            None => {
                return Err(says(format!(
                    "{} does not point to a subschema of this document",
                    quoted(&reference)
                )))
            }
        }
        let node = self.node_at(&target, keyword)?;
        if let Some(Node::Keywords(k)) = self.nodes.get_mut(from) {
            match kind {
                RefKind::Ref => k.reference = Some(node),
                RefKind::Dynamic | RefKind::Recursive => {
                    k.dynamic_reference = Some(DynamicRef { target: node, slot });
                }
            }
        }
        Ok(())
    }

    /// The pointer reference `reference` (of `kind`, naming `fragment` of the resource
    /// `resource` rooted at `resource_pointer`) points at, and the dynamic slot it looks
    /// up, if any; `says` words a refusal.
    fn target(
        &mut self,
        kind: RefKind,
        reference: &str,
        resource: String,
        resource_pointer: String,
        fragment: &str,
        says: &dyn Fn(String) -> SchemaError,
    ) -> Result<(String, Option<usize>), SchemaError> {
        let mut slot = None;
        let target = if fragment.is_empty() {
            resource_pointer
        } else if fragment.starts_with('/') {
            let Some(tokens) = reference::tokens(fragment) else {
                return Err(says(format!(
                    "{} is not a valid JSON pointer (a '~' must be followed by 0 or 1)",
                    quoted(reference)
                )));
            };
            let mut target = resource_pointer;
            for token in &tokens {
                push_token(&mut target, token);
            }
            target
        } else {
            let key = (resource, String::from(fragment));
            let Some(anchor) = self.resources.anchors.get(&key).cloned() else {
                return Err(says(format!(
                    "{} names the anchor {}, which no schema of that resource declares",
                    quoted(reference),
                    quoted(fragment)
                )));
            };
            if kind == RefKind::Dynamic && anchor.dynamic {
                slot = Some(self.slot(fragment));
            }
            anchor.pointer
        };
        if kind == RefKind::Recursive && self.recursive_anchor(&target) {
            slot = Some(self.slot(""));
        }
        Ok((target, slot))
    }

    /// The slot of dynamic anchor name `name`.
    fn slot(&mut self, name: &str) -> usize {
        match self.dynamic_names.iter().position(|n| n == name) {
            Some(slot) => slot,
            None => {
                self.dynamic_names.push(String::from(name));
                self.dynamic_names.len() - 1
            }
        }
    }
}
