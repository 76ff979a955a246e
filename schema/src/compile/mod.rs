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
use alloc::vec::Vec;

mod finish;
mod keyword;
mod patterns;
mod resolve;
mod values;

use values::{must_be, unknown_draft};

use super::draft::{self, Draft};
use super::pattern::Pattern;
use super::reference::push_token;
use super::resources::Resources;
use super::tree::{Count, Keywords, Node, NodeId, Tree};
use super::SchemaError;
use agentloop_json::__private::path::quoted;
use agentloop_json::{Object, Value, MAX_DEPTH};

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

/// The most bytes one schema's compiled form may take ([`crate::Schema::compiled_bytes`]):
/// its subschemas (each its node, its keywords and its entries in the compiler's tables,
/// by their sizes: [`SUBSCHEMA_BYTES`] and [`KEYWORDS_BYTES`]) and the automata of its
/// patterns (`pattern`, `patternProperties`, as regex-automata reports them:
/// `Pattern::compiled_bytes`). A schema past it is refused.
/// Compiling costs time in proportion to what it builds, and each automaton is built
/// with what the budget has left as its size limit, so this bounds the time and memory
/// of compiling any schema (under 1 s and 64 MB for one of 1 MB, docs/assurance.md),
/// where the bound of one pattern ([`crate::MAX_PATTERN_COMPILED_BYTES`])
/// would let many small patterns take gigabytes together. Realistic schemas take far
/// less: a pattern a few kilobytes (`^[a-z0-9-]{1,39}$`: 7 KB), a subschema with
/// keywords about one; the largest patterns that fit alone (`^\p{L}{1,100}$`: 4.8 MB)
/// fit three times.
pub const MAX_SCHEMA_COMPILED_BYTES: usize = 16 << 20;

/// What each subschema takes of the budget: its node and its entries in the compiler's
/// tables (its address, the node at an address, the base URI at an address).
pub const SUBSCHEMA_BYTES: usize = core::mem::size_of::<Node>()
    + core::mem::size_of::<usize>()
    + core::mem::size_of::<(usize, NodeId)>()
    + core::mem::size_of::<(usize, (Option<Rc<str>>, usize))>();

/// What a subschema with keywords takes beside [`SUBSCHEMA_BYTES`]: its keywords.
pub const KEYWORDS_BYTES: usize = core::mem::size_of::<Keywords>();

/// What a compiled document holds besides its tree.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The tree.
    pub(crate) tree: Tree,
    /// JSON pointers of the members no draft knows (annotations, ignored).
    pub(crate) ignored: Vec<String>,
    /// The bytes the automata of its patterns take ([`crate::Schema::compiled_bytes`]).
    pub(crate) compiled_bytes: usize,
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

/// Compiles `document`, its patterns within `budget` bytes.
pub(crate) fn compile(document: &Value, budget: usize) -> Result<Compiled, SchemaError> {
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
        patterns: BTreeMap::new(),
        budget: Budget {
            limit: budget,
            spent: 0,
        },
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
    /// Each distinct pattern compiled so far, by its text: one written again shares
    /// its automaton.
    patterns: BTreeMap<String, Pattern>,
    /// What the patterns' automata may take, and have taken.
    budget: Budget,
}

/// The bytes a schema's patterns may take ([`MAX_SCHEMA_COMPILED_BYTES`]) and have.
#[derive(Debug, Clone, Copy)]
struct Budget {
    limit: usize,
    spent: usize,
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
        if matches!(value, Value::Bool(_) | Value::Object(_)) {
            self.budget
                .take(SUBSCHEMA_BYTES, pointer, "this subschema")?;
        }
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
                if object.is_empty() {
                    // `{}` accepts everything, as `true` does.
                    return Ok(id);
                }
                let waiting = self.pending.len();
                let keywords = self.keywords(object, id, pointer, depth)?;
                let references = self.pending[waiting..].iter().any(|p| p.from == id);
                // `{}` and a schema of annotations alone accept everything, as `true`
                // does (and cost a few bytes, not a whole node of keywords).
                self.nodes[id] = if keywords.is_empty() && !references {
                    Node::Bool(true)
                } else {
                    self.budget
                        .take(KEYWORDS_BYTES, pointer, "this subschema")?;
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
}
