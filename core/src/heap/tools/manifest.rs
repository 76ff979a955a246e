//! What registration checks and keeps: [`RegisterError`] and the [`Manifest`] of tools a model is shown.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::*;
use crate::anchor::MAX_SEQ;
use crate::heap::opaque::opaque_error;
use crate::schema::{Schema, SchemaError, MAX_SCHEMA_COMPILED_BYTES};

/// The most bytes the automata of the patterns of all the tools registered together
/// (one [`Manifest`], so one [`super::Toolbox`], agent or MCP tool set) may take, as
/// [`Schema::compiled_bytes`] counts them: four schemas at their own budget
/// ([`MAX_SCHEMA_COMPILED_BYTES`]), hundreds of tools with realistic patterns (a few
/// kilobytes each). A tool whose schema would pass it is refused
/// (a [`RegisterError`] saying so); each schema is compiled within what is left, so
/// a refusal costs a bounded moment.
pub const MAX_TOOLBOX_COMPILED_BYTES: usize = 64 << 20;

opaque_error! {
    /// Why a tool was refused at registration: one sentence naming the rule the tool
    /// breaks (`Display`).
    #[derive(Clone, PartialEq, Eq)]
    pub struct RegisterError(RegisterErrorKind);
}

impl RegisterError {
    /// Whether the tool's name or its root schema is one providers refuse: a name
    /// outside `^[a-zA-Z0-9_-]{1,64}$`, or a root schema without `"type": "object"`.
    pub fn not_provider_safe(&self) -> bool {
        matches!(
            self.0,
            RegisterErrorKind::Name { .. } | RegisterErrorKind::Root { .. }
        )
    }

    /// Whether the tool's schema was refused: the validator cannot honour it, it is
    /// invalid, or its patterns would pass what the tools registered together may take.
    pub fn schema_refused(&self) -> bool {
        matches!(
            self.0,
            RegisterErrorKind::Schema { .. } | RegisterErrorKind::ToolSetBudget { .. }
        )
    }
}

/// What [`RegisterError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RegisterErrorKind {
    /// The name breaks the providers' rule `^[a-zA-Z0-9_-]{1,64}$` (an empty name too).
    Name {
        /// The name.
        name: String,
        /// How it breaks the rule.
        error: NameError,
    },
    /// A tool of this name is already registered.
    Duplicate(String),
    /// The tool's schema was refused (the validator cannot honour it, or it is invalid).
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong with its schema, and where.
        error: SchemaError,
    },
    /// The tool's root schema does not describe an object (`"type": "object"`), which
    /// providers require.
    Root {
        /// The tool.
        tool: String,
        /// What the root is instead.
        error: RootError,
    },
    /// A call limit above 2^53 − 1, which a transcript cannot record exactly.
    LimitTooLarge(String),
    /// The tool's schema would bring the automata of the patterns of the tools
    /// registered together past [`MAX_TOOLBOX_COMPILED_BYTES`].
    ToolSetBudget {
        /// The tool.
        tool: String,
        /// JSON pointer to the pattern (or `patternProperties`) that would pass it.
        pointer: String,
        /// The bytes the tools registered before it take.
        spent: usize,
        /// The budget ([`MAX_TOOLBOX_COMPILED_BYTES`]).
        budget: usize,
    },
}

impl fmt::Display for RegisterErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterErrorKind::Name { name, error } => write!(
                f,
                "tool name '{}' is not provider-safe: {error} (providers accept {NAME_PATTERN})",
                ShownName(name)
            ),
            RegisterErrorKind::Duplicate(name) => {
                write!(f, "a tool named '{name}' is already registered")
            }
            RegisterErrorKind::Schema { tool, error } => write!(f, "tool '{tool}': {error}"),
            RegisterErrorKind::Root { tool, error } => write!(
                f,
                "tool '{tool}': {error}; providers require a root schema with \"type\": \"object\""
            ),
            RegisterErrorKind::LimitTooLarge(name) => write!(
                f,
                "tool '{name}': a call limit must be at most 2^53-1 to be recorded exactly"
            ),
            RegisterErrorKind::ToolSetBudget {
                tool,
                pointer,
                spent,
                budget,
            } => write!(
                f,
                "tool '{tool}': schema refused at {}: its patterns would bring the automata \
                 of the patterns of the tools registered together past their budget of \
                 {budget} bytes ({spent} bytes taken by the tools registered before it)",
                if pointer.is_empty() {
                    "the root"
                } else {
                    pointer
                }
            ),
        }
    }
}

/// What the loop checks a call against: the compiled schema and the call limit; and
/// whether a resumed run may run the tool again.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Check {
    pub(super) schema: Schema,
    pub(super) limit: Option<u64>,
    pub(super) idempotent: bool,
}

/// The registered tools as the loop sees them: specs (sorted by name), compiled
/// schemas and call limits. Cheap enough to clone once per run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Manifest {
    pub(super) specs: Vec<ToolSpec>,
    pub(super) checks: Vec<Check>,
    /// The bytes the automata of the registered schemas' patterns take together.
    compiled_bytes: usize,
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Manifest {
        Manifest::default()
    }

    /// Adds a tool: checks the spec ([`ToolSpec::check`]: a provider-safe name, a
    /// schema the validator accepts whose root has `"type": "object"`), then refuses a
    /// duplicate name or a limit too large. `limit` caps how many times the loop runs it
    /// in one run; a call over the limit gets an `ok:false` record and the loop goes on.
    pub fn register(&mut self, spec: ToolSpec, limit: Option<u64>) -> Result<(), RegisterError> {
        self.register_with(spec, limit, false)
    }

    /// Like [`Manifest::register`], saying whether the tool is idempotent
    /// ([`Tool::idempotent`]): whether a resumed run may run again a call that was
    /// running when the run was interrupted.
    ///
    /// The schema is compiled within what [`MAX_TOOLBOX_COMPILED_BYTES`] has left (and
    /// [`MAX_SCHEMA_COMPILED_BYTES`] at most): a tool past it is refused with
    /// a [`RegisterError`] saying so.
    pub fn register_with(
        &mut self,
        spec: ToolSpec,
        limit: Option<u64>,
        idempotent: bool,
    ) -> Result<(), RegisterError> {
        let left = MAX_TOOLBOX_COMPILED_BYTES.saturating_sub(self.compiled_bytes);
        let schema = spec
            .check_within(left.min(MAX_SCHEMA_COMPILED_BYTES))
            .map_err(|error| match error.0 {
                RegisterErrorKind::Schema { tool, error }
                    if left < MAX_SCHEMA_COMPILED_BYTES && error.over_budget().is_some() =>
                {
                    RegisterErrorKind::ToolSetBudget {
                        tool,
                        pointer: error.pointer,
                        spent: self.compiled_bytes,
                        budget: MAX_TOOLBOX_COMPILED_BYTES,
                    }
                }
                other => other,
            })?;
        let at = match self.position(&spec.name) {
            Ok(_) => return Err(RegisterErrorKind::Duplicate(spec.name).into()),
            Err(at) => at,
        };
        if limit.is_some_and(|l| l > MAX_SEQ) {
            return Err(RegisterErrorKind::LimitTooLarge(spec.name).into());
        }
        self.compiled_bytes += schema.compiled_bytes();
        self.specs.insert(at, spec);
        self.checks.insert(
            at,
            Check {
                schema,
                limit,
                idempotent,
            },
        );
        Ok(())
    }

    /// The specs, sorted by name: what a model is shown.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The registered names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.specs.iter().map(|s| s.name.as_str())
    }

    /// The bytes the automata of the registered schemas' patterns take together
    /// ([`Schema::compiled_bytes`]; at most [`MAX_TOOLBOX_COMPILED_BYTES`]).
    pub fn compiled_bytes(&self) -> usize {
        self.compiled_bytes
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The call limit of `name`, if it is registered and has one.
    pub fn limit(&self, name: &str) -> Option<u64> {
        self.index(name).and_then(|i| self.checks[i].limit)
    }

    /// Whether `name` is registered as idempotent ([`Tool::idempotent`]).
    pub fn idempotent(&self, name: &str) -> bool {
        self.index(name).is_some_and(|i| self.checks[i].idempotent)
    }

    /// Declares the registered tool `name` idempotent (or not); `false` when no tool
    /// has that name. For hosts that register tools by spec (the C ABI).
    pub fn set_idempotent(&mut self, name: &str, idempotent: bool) -> bool {
        match self.index(name) {
            Some(i) => {
                self.checks[i].idempotent = idempotent;
                true
            }
            None => false,
        }
    }

    /// Position of `name` in the sorted list, if registered.
    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.position(name).ok()
    }

    /// The compiled schema and limit of the tool at `index`.
    pub(crate) fn check(&self, index: usize) -> Option<(&Schema, Option<u64>)> {
        self.checks.get(index).map(|c| (&c.schema, c.limit))
    }

    /// `(name, limit)` of every tool that has a limit, sorted by name.
    pub(crate) fn limits(&self) -> impl Iterator<Item = (&str, u64)> {
        self.specs
            .iter()
            .zip(&self.checks)
            .filter_map(|(s, c)| Some((s.name.as_str(), c.limit?)))
    }

    pub(super) fn position(&self, name: &str) -> Result<usize, usize> {
        self.specs.binary_search_by(|s| s.name.as_str().cmp(name))
    }
}
