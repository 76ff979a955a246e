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

/// A `$ref` waiting for every subschema to be compiled.
#[derive(Debug)]
pub(crate) struct PendingRef {
    /// The node holding the `$ref`.
    pub(crate) from: NodeId,
    /// The reference as written.
    pub(crate) reference: String,
    /// Pointer to the `$ref` member.
    pub(crate) pointer: String,
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

/// Points every pending `$ref` at its node; `by_pointer` maps the (canonically escaped)
/// JSON pointer of every compiled subschema to its node.
pub(crate) fn resolve(
    nodes: &mut [Node],
    by_pointer: &BTreeMap<String, NodeId>,
    pending: Vec<PendingRef>,
) -> Result<(), SchemaError> {
    for r in pending {
        let target = local_pointer(&r.reference)
            .and_then(|p| {
                by_pointer.get(&p).copied().ok_or_else(|| {
                    format!(
                        "keyword '$ref': {} does not point to a subschema of this document",
                        quoted(&r.reference)
                    )
                })
            })
            .map_err(|message| SchemaError::at(&r.pointer, message))?;
        if let Some(Node::Keywords(k)) = nodes.get_mut(r.from) {
            k.reference = Some(target);
        }
    }
    Ok(())
}

/// Refuses a cycle of `$ref` (and `anyOf`) that comes back to a node without going
/// into a member or an item: validating with it would never end. `pointers` holds each
/// node's JSON pointer, for the sentence.
pub(crate) fn refuse_cycles(nodes: &[Node], pointers: &[String]) -> Result<(), SchemaError> {
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
                        OPEN => return Err(cycle(nodes, pointers, &stack, target)),
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
    pointers: &[String],
    stack: &[(NodeId, usize)],
    target: NodeId,
) -> SchemaError {
    let pointer_of = |node: NodeId| pointers.get(node).map_or("", String::as_str);
    let start = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
    let cycle = &stack[start..];
    let mut route = String::new();
    for &(node, _) in cycle {
        route.push('#');
        route.push_str(pointer_of(node));
        route.push_str(" -> ");
    }
    route.push('#');
    route.push_str(pointer_of(target));
    // Every cycle has a `$ref` edge (anyOf only goes down the document): blame the
    // first one (the edge a frame followed last is its `$ref` when it followed one).
    let blamed = cycle
        .iter()
        .find(|&&(node, followed)| followed == 1 && has_reference(&nodes[node]))
        .map_or(target, |&(node, _)| node);
    let mut pointer = String::from(pointer_of(blamed));
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

/// `$ref` → the JSON pointer (RFC 6901, canonically escaped) of a node in this document.
///
/// The reference must be a fragment (`#`, `#/$defs/name`, `#/properties/a`, …): it is
/// percent-decoded (RFC 3986), then read as a JSON pointer (`~0` is `~`, `~1` is `/`).
fn local_pointer(reference: &str) -> Result<String, String> {
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
        return Ok(String::new());
    }
    let Some(tokens) = decoded.strip_prefix('/') else {
        return Err(format!(
            "keyword '$ref': {} is a plain-name fragment ($anchor), which is not supported; \
             use a JSON pointer such as #/$defs/NAME",
            quoted(reference)
        ));
    };
    let mut pointer = String::new();
    for token in tokens.split('/') {
        let token = unescape_token(token).ok_or_else(|| {
            format!(
                "keyword '$ref': {} is not a valid JSON pointer (a '~' must be followed by 0 or 1)",
                quoted(reference)
            )
        })?;
        push_token(&mut pointer, &token);
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
        assert_eq!(local_pointer("#").as_deref(), Ok(""));
        assert_eq!(local_pointer("#/$defs/a").as_deref(), Ok("/$defs/a"));
        assert_eq!(
            local_pointer("#/%24defs/a%20b").as_deref(),
            Ok("/$defs/a b")
        );
        assert_eq!(
            local_pointer("#/$defs/a~1b~0").as_deref(),
            Ok("/$defs/a~1b~0")
        );
        assert_eq!(local_pointer("#/$defs/%C3%A9").as_deref(), Ok("/$defs/é"));
        assert_eq!(local_pointer("#/$defs/").as_deref(), Ok("/$defs/"));
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
