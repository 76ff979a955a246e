//! Local `$ref`s: resolving each to a compiled node, and refusing reference cycles
//! that would make validation endless.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::path::quoted;
use super::tree::{Node, NodeId};
use super::SchemaError;
use crate::json::Value;

/// A `$ref` waiting for every subschema to be compiled.
#[derive(Debug)]
pub(crate) struct PendingRef {
    /// The node holding the `$ref`.
    pub(crate) from: NodeId,
    /// The reference as written.
    pub(crate) reference: String,
}

/// Where each compiled node is in the schema document. A node keeps only the step of
/// its JSON pointer below its parent node's (`/properties/a`, `/items`, `/anyOf/0`),
/// and is found for a `$ref` by the address of its value in the document, so the
/// places take room in proportion to the document. (A whole pointer per node repeats
/// every key above it: n subschemas under one long key took n times its length.) A
/// whole pointer is spelt out only for a refusal.
#[derive(Debug, Default)]
pub(crate) struct Places {
    /// For each node: its parent node (`None` for the root) and its step.
    steps: Vec<(Option<NodeId>, String)>,
    /// Node by the address of its value in the document.
    by_address: BTreeMap<usize, NodeId>,
}

impl Places {
    /// Records the next node: `value` in the document, `step` below `parent`.
    pub(crate) fn push(&mut self, parent: Option<NodeId>, step: &str, value: &Value) {
        let id = self.steps.len();
        self.steps.push((parent, String::from(step)));
        self.by_address.insert(address(value), id);
    }

    /// The JSON pointer of `node` (`""` for the root).
    pub(crate) fn pointer(&self, node: NodeId) -> String {
        let mut steps = Vec::new();
        let mut at = Some(node);
        while let Some((parent, step)) = at.and_then(|n| self.steps.get(n)) {
            steps.push(step.as_str());
            // A parent is recorded before its children, so this always goes up.
            at = parent.filter(|&p| at.is_some_and(|n| p < n));
        }
        steps.iter().rev().copied().collect()
    }

    /// The node compiled from `value`, if it is a subschema of the document.
    fn node_at(&self, value: &Value) -> Option<NodeId> {
        self.by_address.get(&address(value)).copied()
    }
}

/// The address of a value in the document, which identifies it while the document is
/// borrowed for compiling.
fn address(value: &Value) -> usize {
    core::ptr::from_ref(value) as usize
}

/// Appends `/token` to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Points every pending `$ref` at its node: the value its pointer reaches in
/// `document`, if that value was compiled as a subschema.
pub(crate) fn resolve(
    nodes: &mut [Node],
    places: &Places,
    document: &Value,
    pending: Vec<PendingRef>,
) -> Result<(), SchemaError> {
    for r in pending {
        let target = local_pointer(&r.reference)
            .and_then(|tokens| {
                find(document, &tokens)
                    .and_then(|value| places.node_at(value))
                    .ok_or_else(|| {
                        format!(
                            "keyword '$ref': {} does not point to a subschema of this document",
                            quoted(&r.reference)
                        )
                    })
            })
            .map_err(|message| {
                let mut pointer = places.pointer(r.from);
                pointer.push_str("/$ref");
                SchemaError::at(&pointer, message)
            })?;
        if let Some(Node::Keywords(k)) = nodes.get_mut(r.from) {
            k.reference = Some(target);
        }
    }
    Ok(())
}

/// The value the JSON pointer `tokens` reaches in `document`: a member by its name, an
/// item by its index written as RFC 6901 has it (`0`, or digits not starting with `0`).
fn find<'v>(document: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    let mut here = document;
    for token in tokens {
        here = match here {
            Value::Object(members) => members.get(token)?,
            Value::Array(items) => {
                let canonical = token == "0"
                    || (!token.starts_with('0')
                        && !token.is_empty()
                        && token.bytes().all(|b| b.is_ascii_digit()));
                if !canonical {
                    return None;
                }
                items.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(here)
}

/// Refuses a cycle of `$ref` (and `anyOf`) that comes back to a node without going
/// into a member or an item: validating with it would never end. `pointers` holds each
/// node's JSON pointer, for the sentence.
pub(crate) fn refuse_cycles(nodes: &[Node], places: &Places) -> Result<(), SchemaError> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != NEW {
            continue;
        }
        // (node, number of its edges already followed): an explicit stack, so a long
        // chain of references cannot overflow the call stack.
        let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
        state[start] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (node, followed) = *top;
            match same_value_edge(&nodes[node], followed) {
                Some(target) => {
                    top.1 += 1;
                    match state[target] {
                        NEW => {
                            state[target] = OPEN;
                            stack.push((target, 0));
                        }
                        OPEN => return Err(cycle(nodes, places, &stack, target)),
                        _ => {}
                    }
                }
                None => {
                    state[node] = DONE;
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

/// The refusal of the cycle that runs from `target` along `stack` back to `target`.
fn cycle(
    nodes: &[Node],
    places: &Places,
    stack: &[(NodeId, usize)],
    target: NodeId,
) -> SchemaError {
    let pointer_of = |node: NodeId| places.pointer(node);
    let start = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
    let cycle = &stack[start..];
    let mut route = String::new();
    for &(node, _) in cycle {
        route.push('#');
        route.push_str(&pointer_of(node));
        route.push_str(" -> ");
    }
    route.push('#');
    route.push_str(&pointer_of(target));
    // Every cycle has a `$ref` edge (anyOf only goes down the document): blame the
    // first one (the edge a frame followed last is its `$ref` when it followed one).
    let blamed = cycle
        .iter()
        .find(|&&(node, followed)| followed == 1 && has_reference(&nodes[node]))
        .map_or(target, |&(node, _)| node);
    let mut pointer = pointer_of(blamed);
    pointer.push_str("/$ref");
    SchemaError::at(
        &pointer,
        format!(
            "keyword '$ref' is part of the reference cycle {route}, which comes back to the \
             same value without going into a member or an item, so validation would never \
             end"
        ),
    )
}

/// Whether `node` has a `$ref`.
fn has_reference(node: &Node) -> bool {
    matches!(node, Node::Keywords(k) if k.reference.is_some())
}

/// The `i`-th node `node` applies to the very value it is applied to: its `$ref` first,
/// then its `anyOf` alternatives.
fn same_value_edge(node: &Node, i: usize) -> Option<NodeId> {
    let Node::Keywords(k) = node else {
        return None;
    };
    match k.reference {
        Some(target) if i == 0 => Some(target),
        Some(_) => k.any_of.get(i - 1).copied(),
        None => k.any_of.get(i).copied(),
    }
}

/// `$ref` → the tokens of a JSON pointer (RFC 6901) into this document.
///
/// The reference must be a fragment (`#`, `#/$defs/name`, `#/properties/a`, …): it is
/// percent-decoded (RFC 3986), then read as a JSON pointer (`~0` is `~`, `~1` is `/`).
fn local_pointer(reference: &str) -> Result<Vec<String>, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "keyword '$ref': {} is not a local reference; only references within this \
             document (#, #/$defs/NAME) are supported",
            quoted(reference)
        ));
    };
    let decoded = percent_decode(fragment).ok_or_else(|| {
        format!(
            "keyword '$ref': {} has a malformed percent-encoding",
            quoted(reference)
        )
    })?;
    if decoded.is_empty() {
        return Ok(Vec::new());
    }
    let Some(tokens) = decoded.strip_prefix('/') else {
        return Err(format!(
            "keyword '$ref': {} is a plain-name fragment ($anchor), which is not supported; \
             use a JSON pointer such as #/$defs/NAME",
            quoted(reference)
        ));
    };
    let mut pointer = Vec::new();
    for token in tokens.split('/') {
        let token = unescape_token(token).ok_or_else(|| {
            format!(
                "keyword '$ref': {} is not a valid JSON pointer (a '~' must be followed by 0 or 1)",
                quoted(reference)
            )
        })?;
        pointer.push(token);
    }
    Ok(pointer)
}

/// Decodes `%XX` sequences; `None` for a malformed sequence or invalid UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let high = char::from(hex[0]).to_digit(16)?;
            let low = char::from(hex[1]).to_digit(16)?;
            out.push(u8::try_from(high * 16 + low).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `~0` → `~`, `~1` → `/`; `None` for any other `~`.
fn unescape_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_pointers() {
        let tokens = |reference: &str| local_pointer(reference).map(|t| t.join("|"));
        assert_eq!(tokens("#").as_deref(), Ok(""));
        assert_eq!(local_pointer("#").map(|t| t.len()), Ok(0));
        assert_eq!(tokens("#/$defs/a").as_deref(), Ok("$defs|a"));
        assert_eq!(tokens("#/%24defs/a%20b").as_deref(), Ok("$defs|a b"));
        assert_eq!(tokens("#/$defs/a~1b~0").as_deref(), Ok("$defs|a/b~"));
        assert_eq!(tokens("#/$defs/%C3%A9").as_deref(), Ok("$defs|é"));
        assert_eq!(tokens("#/$defs/").as_deref(), Ok("$defs|"));
        for bad in [
            "other.json#/$defs/a",
            "/$defs/a",
            "#/$defs/a~2",
            "#/$defs/%zz",
            "#/%FF",
            "#a",
        ] {
            assert!(local_pointer(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pointer_tokens_escape() {
        let mut p = String::new();
        push_token(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
    }
}
