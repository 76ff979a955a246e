//! Why a JSON value could not become the Rust data asked for: [`DeserializeError`].

use alloc::string::{String, ToString};
use core::fmt;

use serde::de::{self};

use crate::quote::escape_controls;
use crate::steps::Steps;

/// Why a JSON value could not become the Rust data asked for ([`from_value`](crate::from_value)): serde's
/// sentence (`invalid type: string "x", expected u32`, `missing field 'b'`), and where
/// in the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeserializeError {
    pub(super) message: String,
    pub(super) steps: Steps,
}

impl DeserializeError {
    /// What was wrong, in serde's words (the type's `Deserialize` implementation may
    /// word its own).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where, as a JSON path into the value: `$` (the value itself), `$.calls[0].name`.
    pub fn path(&self) -> String {
        self.steps.spell()
    }

    pub(super) fn at_key(mut self, key: &str) -> DeserializeError {
        self.steps.push_key(key);
        self
    }

    pub(super) fn at_index(mut self, index: usize) -> DeserializeError {
        self.steps.push_index(index);
        self
    }
}

impl fmt::Display for DeserializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", escape_controls(&self.message), self.path())
    }
}

impl core::error::Error for DeserializeError {}

impl de::Error for DeserializeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DeserializeError {
            message: message.to_string(),
            steps: Steps::default(),
        }
    }
}
