//! The last step of compiling: resources with their dynamic anchors, the flags of
//! each node (shared, revisited, plain), and the refusal of endless reference cycles.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use alloc::boxed::Box;

use super::{refuse, Compiled, Compiler, MAX_DYNAMIC_SCOPES};
use crate::choices::Choices;
use crate::reference;
use crate::tree::{Node, NodeId, Resource, Tree, SCAN_AT_MOST};
use crate::SchemaError;

impl Compiler<'_> {
    /// The finished tree: resources with their dynamic anchors, flags, and the
    /// refusal of endless reference cycles.
    pub(super) fn finish(mut self, root: NodeId) -> Result<Compiled, SchemaError> {
        let resources = self.dynamic_anchors()?;
        let shared = self.shared(&resources);
        let incoming = self.incoming();
        let dynamic = !self.dynamic_names.is_empty();
        for ((node, shared), incoming) in self.nodes.iter_mut().zip(shared).zip(incoming) {
            if let Node::Keywords(k) = node {
                k.prepare();
                k.flags.shared = shared;
                k.flags.revisit = shared && (dynamic || incoming > 1);
            }
        }
        self.index_choices();
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
            compiled_bytes: self.budget.spent,
        })
    }

    /// The index of the `anyOf` and `oneOf` alternatives that accept fixed values, in
    /// each node that has many ([`Choices`]).
    fn index_choices(&mut self) {
        let nodes = &self.nodes;
        let many = |list: &[NodeId]| list.len() > SCAN_AT_MOST;
        let indexes: Vec<(NodeId, Option<Choices>, Option<Choices>)> = (nodes.iter().enumerate())
            .filter_map(|(id, node)| match node {
                Node::Keywords(k) if many(&k.any_of) || many(&k.one_of) => Some((
                    id,
                    Choices::new(nodes, &k.any_of),
                    Choices::new(nodes, &k.one_of),
                )),
                _ => None,
            })
            .collect();
        for (id, any_of, one_of) in indexes {
            if let Some(Node::Keywords(k)) = self.nodes.get_mut(id) {
                k.any_of_choices = any_of.map(Box::new);
                k.one_of_choices = one_of.map(Box::new);
            }
        }
    }

    /// Each resource's dynamic anchors (and `$recursiveAnchor`s, under the name `""`),
    /// refused when they make more than [`MAX_DYNAMIC_SCOPES`] dynamic scopes.
    fn dynamic_anchors(&self) -> Result<Vec<Resource>, SchemaError> {
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
        Ok(resources)
    }

    /// Whether each node is the target of a reference or a dynamic anchor (its verdicts
    /// are worth remembering).
    fn shared(&self, resources: &[Resource]) -> Vec<bool> {
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
        for resource in resources {
            for &(_, node) in &resource.dynamic_anchors {
                shared[node] = true;
            }
        }
        shared
    }

    /// The edges into each node, from every node (also those nothing reaches, which
    /// only errs towards remembering).
    fn incoming(&self) -> Vec<u8> {
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
        incoming
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
