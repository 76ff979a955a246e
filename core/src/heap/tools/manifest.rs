//! What registration checks and keeps: [`RegisterError`] and the [`Manifest`] of tools a model is shown.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::*;
use crate::anchor::MAX_SEQ;
use crate::schema::{Schema, SchemaError};

/// Why a tool was refused at registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
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
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::Name { name, error } => write!(
                f,
                "tool name '{}' is not provider-safe: {error} (providers accept {NAME_PATTERN})",
                ShownName(name)
            ),
            RegisterError::Duplicate(name) => {
                write!(f, "a tool named '{name}' is already registered")
            }
            RegisterError::Schema { tool, error } => write!(f, "tool '{tool}': {error}"),
            RegisterError::Root { tool, error } => write!(
                f,
                "tool '{tool}': {error}; providers require a root schema with \"type\": \"object\""
            ),
            RegisterError::LimitTooLarge(name) => write!(
                f,
                "tool '{name}': a call limit must be at most 2^53-1 to be recorded exactly"
            ),
        }
    }
}

impl core::error::Error for RegisterError {}

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
    pub fn register_with(
        &mut self,
        spec: ToolSpec,
        limit: Option<u64>,
        idempotent: bool,
    ) -> Result<(), RegisterError> {
        let schema = spec.check()?;
        let at = match self.position(&spec.name) {
            Ok(_) => return Err(RegisterError::Duplicate(spec.name)),
            Err(at) => at,
        };
        if limit.is_some_and(|l| l > MAX_SEQ) {
            return Err(RegisterError::LimitTooLarge(spec.name));
        }
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
