//! The stream engine applied to one whole line: the fast path of the allocating
//! verifier (`verify::Verifier`). A line that is the canonical encoding of a record with
//! exactly its five members, each well-formed, is checked and hashed in one pass over
//! its bytes, without a value tree; any other line is left to the caller.

use super::lexer::{JsonType, Lexer, RECORD_MAX_DEPTH};
use super::record::RecordState;
use crate::hash::Hash;

/// What a well-formed canonical record line holds, as far as the chain checks need it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sealed {
    /// The stored `hash`.
    pub stored: Hash,
    /// SHA-256 of the canonical encoding of the record without `hash`.
    pub computed: Hash,
    /// The stored `prev`.
    pub prev: Hash,
    /// The `seq`, a finite number.
    pub seq: f64,
}

/// Checks whole lines with the streaming checker (fixed state, no allocation).
#[derive(Debug, Clone)]
pub struct LineChecker {
    lexer: Lexer,
}

impl Default for LineChecker {
    fn default() -> Self {
        LineChecker::new()
    }
}

impl LineChecker {
    /// A checker for record lines (nesting up to [`RECORD_MAX_DEPTH`]).
    pub fn new() -> Self {
        LineChecker {
            lexer: Lexer::new(RECORD_MAX_DEPTH),
        }
    }

    /// `Some` when `line` (without its `\n`) is the canonical encoding of an object with
    /// exactly the members `hash`, `kind`, `payload`, `prev` and `seq`, where `hash` and
    /// `prev` are 64 lowercase hex digits, `kind` a non-empty string, `seq` a number,
    /// and every number has a canonical encoding; `None` for any other line, and for a
    /// line past a limit of the streaming checker.
    pub fn check(&mut self, line: &[u8]) -> Option<Sealed> {
        self.lexer.reset();
        let mut record = RecordState::new();
        self.lexer.push(line, &mut record).ok()?;
        match self.lexer.end(&mut record) {
            Ok(JsonType::Object) => record.sealed(),
            _ => None,
        }
    }
}
