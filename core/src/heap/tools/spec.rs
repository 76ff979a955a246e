//! How a tool presents itself ([`ToolSpec`]) and how a call fails ([`ToolError`]).

use alloc::string::String;
use core::fmt;

use super::*;
use crate::json::Value;
use crate::schema::{Schema, MAX_SCHEMA_COMPILED_BYTES};

/// How a tool presents itself to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name calls use: matches `^[a-zA-Z0-9_-]{1,64}$`, unique in a registry.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The JSON Schema its arguments must satisfy (docs/schemas.md); its root
    /// has `"type": "object"`.
    pub schema: Value,
}

impl ToolSpec {
    /// A spec from its three parts.
    pub fn new(name: impl Into<String>, description: impl Into<String>, schema: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            schema,
        }
    }

    /// Everything registration checks of the spec alone, in this order: the name
    /// (`^[a-zA-Z0-9_-]{1,64}$`), the root (`"type": "object"`: a cheap rule that does not depend on
    /// what the validator supports), then the schema (compiled: one the
    /// validator cannot honour, or an invalid one, is refused). Gives the compiled schema.
    ///
    /// ```
    /// use agentloop_core::json::parse;
    /// use agentloop_core::tools::ToolSpec;
    /// let spec = ToolSpec::new("my tool", "d", parse(br#"{"type":"object"}"#).unwrap());
    /// assert_eq!(
    ///     spec.check().unwrap_err().to_string(),
    ///     "tool name 'my tool' is not provider-safe: ' ' at position 2 is not an ASCII \
    ///      letter, digit, '_' or '-' (providers accept ^[a-zA-Z0-9_-]{1,64}$)"
    /// );
    /// ```
    pub fn check(&self) -> Result<Schema, RegisterError> {
        self.check_within(MAX_SCHEMA_COMPILED_BYTES)
    }

    /// [`ToolSpec::check`] with `budget` bytes for the automata of the schema's
    /// patterns ([`Schema::compile_within`]).
    pub(super) fn check_within(&self, budget: usize) -> Result<Schema, RegisterError> {
        check_name(&self.name).map_err(|error| RegisterErrorKind::Name {
            name: self.name.clone(),
            error,
        })?;
        check_root(&self.schema).map_err(|error| RegisterErrorKind::Root {
            tool: self.name.clone(),
            error,
        })?;
        Ok(
            Schema::compile_within(&self.schema, budget).map_err(|error| {
                RegisterErrorKind::Schema {
                    tool: self.name.clone(),
                    error,
                }
            })?,
        )
    }
}

/// Why a tool failed: a sentence. The loop records `tool '<name>' failed: <sentence>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub(super) message: String,
}

impl ToolError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
        }
    }

    /// The sentence.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for ToolError {}
