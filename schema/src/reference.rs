//! Reference resolution helpers (JSON pointers inside the document) and the refusal of
//! reference cycles that would make validation endless.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::tree::{Node, NodeId};
use super::SchemaError;

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

/// The tokens of a JSON pointer (`/a/b~1c` → `a`, `b/c`); `None` when it does not start
/// with `/` or has a `~` not followed by `0` or `1`.
pub(crate) fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .map(unescape_token)
        .collect()
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

/// Refuses a cycle of references (and other in-place applicators: `allOf`, `anyOf`,
/// `if`, …) that comes back to a node without going into a member or an item:
/// validating with it would never end. `pointers` holds each
/// node's JSON pointer, for the sentence.
pub(crate) fn refuse_cycles(
    nodes: &[Node],
    pointer_of: &dyn Fn(NodeId) -> String,
) -> Result<(), SchemaError> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let edges = InPlace::new(nodes);
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
            match edges.from(node).get(followed) {
                Some(&target) => {
                    top.1 += 1;
                    match state[target] {
                        NEW => {
                            state[target] = OPEN;
                            stack.push((target, 0));
                        }
                        OPEN => return Err(cycle(nodes, pointer_of, &stack, target)),
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

/// The edges between subschemas applied to the same value ([`Keywords::in_place`]),
/// listed once for every node (each node's edges in a slice, not re-counted from the
/// start of its keywords at each step: a node with n of them costs n, not n²).
struct InPlace {
    targets: Vec<NodeId>,
    /// Where each node's edges start in `targets` (and, last, where they all end).
    starts: Vec<usize>,
}

impl InPlace {
    fn new(nodes: &[Node]) -> InPlace {
        let mut targets = Vec::new();
        let mut starts = Vec::with_capacity(nodes.len() + 1);
        for node in nodes {
            starts.push(targets.len());
            if let Node::Keywords(k) = node {
                targets.extend(k.in_place());
            }
        }
        starts.push(targets.len());
        InPlace { targets, starts }
    }

    /// The targets of the edges out of `node`, in their order.
    fn from(&self, node: NodeId) -> &[NodeId] {
        let range = self.starts.get(node).zip(self.starts.get(node + 1));
        range
            .and_then(|(&start, &end)| self.targets.get(start..end))
            .unwrap_or_default()
    }
}

/// The refusal of the cycle that runs from `target` along `stack` back to `target`.
fn cycle(
    nodes: &[Node],
    pointer_of: &dyn Fn(NodeId) -> String,
    stack: &[(NodeId, usize)],
    target: NodeId,
) -> SchemaError {
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
    // Every cycle has a reference edge (the other applicators only go down the
    // document): blame the first one; each frame's last edge followed is `followed - 1`.
    let blamed = cycle
        .iter()
        .find_map(|&(node, followed)| {
            reference_edge(&nodes[node], followed.wrapping_sub(1)).map(|keyword| (node, keyword))
        })
        .unwrap_or((target, "$ref"));
    let mut pointer = pointer_of(blamed.0);
    pointer.push('/');
    pointer.push_str(blamed.1);
    let keyword = blamed.1;
    SchemaError::at(
        &pointer,
        format!(
            "keyword '{keyword}' is part of the reference cycle {route}, which comes back to the \
             same value without going into a member or an item, so validation would never \
             end"
        ),
    )
}

/// The reference keyword behind edge `i` of `node` ([`Keywords::in_place`] order: the
/// references come last), if that edge is one.
///
/// [`Keywords::in_place`]: super::tree::Keywords::in_place
fn reference_edge(node: &Node, i: usize) -> Option<&'static str> {
    let Node::Keywords(k) = node else {
        return None;
    };
    let others = k.in_place().count()
        - usize::from(k.reference.is_some())
        - usize::from(k.dynamic_reference.is_some());
    match i.checked_sub(others)? {
        0 if k.reference.is_some() => Some("$ref"),
        0 | 1 if k.dynamic_reference.is_some() => Some("$dynamicRef"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_and_unescape() {
        let mut p = String::new();
        push_token(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
        assert_eq!(tokens(&p), Some(vec![String::from("a/b~c")]));
        assert_eq!(tokens(""), Some(vec![]));
        assert_eq!(tokens("/"), Some(vec![String::new()]));
        assert_eq!(tokens("a"), None);
        assert_eq!(tokens("/a~2"), None);
    }
}
