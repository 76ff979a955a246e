//! Why Rust data could not become a JSON value or canonical bytes: [`SerializeError`] and its kinds.

use alloc::string::{String, ToString};
use core::fmt;

use serde::ser::{self};

use crate::quote::escape_controls;
use crate::steps::Steps;
use crate::MAX_DEPTH;

/// What was wrong with the data being serialized (what [`SerializeError`] says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SerializeErrorKind {
    /// A NaN or infinite float, which has no JSON spelling.
    NonFiniteNumber,
    /// An integer (its decimal digits here) whose canonical spelling would denote another
    /// number, as I-JSON numbers are doubles: `9007199254740993` would be written
    /// `9007199254740992`. The strict parser refuses the same integers.
    InexactInteger(String),
    /// A map key that is not a string; says what it is (`"an integer"`, …).
    KeyNotString(&'static str),
    /// A map gave the same key twice.
    DuplicateKey(String),
    /// The data's own `Serialize` implementation failed, saying this.
    Custom(String),
    /// Arrays and objects nested deeper than [`MAX_DEPTH`] (a variant with content
    /// counts as an object), which the strict parser and the verifiers refuse.
    TooDeep,
    /// The sink ran out of room (writing canonical bytes: `jcs::write_serialize`).
    BufferFull,
}

impl fmt::Display for SerializeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SerializeErrorKind::NonFiniteNumber => {
                f.write_str("NaN and infinite numbers have no JSON encoding")
            }
            SerializeErrorKind::InexactInteger(digits) => Inexact(digits).fmt(f),
            SerializeErrorKind::KeyNotString(what) => {
                write!(f, "a map key must be a string, not {what}")
            }
            SerializeErrorKind::DuplicateKey(key) => {
                write!(f, "the key '{}' appears twice", escape_controls(key))
            }
            SerializeErrorKind::Custom(message) => f.write_str(&escape_controls(message)),
            SerializeErrorKind::TooDeep => write!(
                f,
                "arrays and objects nest deeper than {MAX_DEPTH} levels, which JSON readers \
                 here refuse"
            ),
            SerializeErrorKind::BufferFull => f.write_str("the output buffer is too small"),
        }
    }
}

/// The sentence for an integer that would change as a JSON number (`digits`: its
/// decimal digits, `-` first if negative).
pub(crate) struct Inexact<'a>(pub(crate) &'a str);

impl fmt::Display for Inexact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 32];
        let spelt = self
            .0
            .parse::<f64>()
            .ok()
            .and_then(|n| crate::number::format_f64(n, &mut buf))
            .and_then(|len| core::str::from_utf8(&buf[..len]).ok())
            .unwrap_or("another number");
        write!(
            f,
            "the integer {} would become {spelt} as a JSON number (a double: integers are \
             exact up to 2^53 in magnitude); send it as a string",
            self.0
        )
    }
}

/// Why Rust data could not become a JSON value ([`to_value`](crate::to_value)) or canonical bytes
/// (`jcs::write_serialize`): what was wrong, and where in the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerializeError {
    pub(super) kind: SerializeErrorKind,
    pub(super) steps: Steps,
}

impl SerializeError {
    pub(crate) fn new(kind: SerializeErrorKind) -> SerializeError {
        SerializeError {
            kind,
            steps: Steps::default(),
        }
    }

    /// What was wrong.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> &SerializeErrorKind {
        &self.kind
    }

    /// Whether the sink ran out of room writing canonical bytes
    /// (`jcs::write_serialize`), after which the sink holds a prefix; otherwise the
    /// data cannot be written as JSON at all, and nothing was written.
    pub fn buffer_full(&self) -> bool {
        matches!(self.kind, SerializeErrorKind::BufferFull)
    }

    /// Where, as a JSON path of the value being built: `$` (the whole value),
    /// `$.readings[2].celsius`.
    pub fn path(&self) -> String {
        self.steps.spell()
    }

    pub(super) fn at_key(mut self, key: &str) -> SerializeError {
        self.steps.push_key(key);
        self
    }

    pub(super) fn at_index(mut self, index: usize) -> SerializeError {
        self.steps.push_index(index);
        self
    }
}

impl fmt::Display for SerializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.kind, self.path())
    }
}

impl core::error::Error for SerializeError {}

impl ser::Error for SerializeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        SerializeError::new(SerializeErrorKind::Custom(message.to_string()))
    }
}
