//! The stream engine applied to one whole line: the fast path of the allocating
//! verifier (`verify::Verifier`). A line that is the canonical encoding of a record with
//! exactly its five members, each well-formed, is checked and hashed in one pass over
//! its bytes, without a value tree (first by the whole-line pass, else by the streaming
//! lexer); any other line is left to the caller.

use super::lexer::{whole_line, JsonType, Lexer, RECORD_MAX_DEPTH};
use super::record::RecordState;
use crate::hash::Hash;
use crate::scan::find_newline;

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

/// Checks whole lines (fixed state, no allocation): a line as a writer writes it in one
/// pass over its bytes (`lexer/whole_line.rs`), any other with the streaming checker.
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
    ///
    /// A line as a writer writes it is taken by the whole-line pass (`whole_line.rs`);
    /// any other goes to the streaming checker, which has the last word.
    #[inline]
    pub fn check(&mut self, line: &[u8]) -> Option<Sealed> {
        whole_line::line(line).or_else(|| self.check_streaming(line))
    }

    /// [`LineChecker::check`] by the streaming checker alone (the tests hold the
    /// whole-line pass to it).
    pub(crate) fn check_streaming(&mut self, line: &[u8]) -> Option<Sealed> {
        self.lexer.reset();
        let mut record = RecordState::new();
        self.lexer.push(line, &mut record).ok()?;
        self.sealed(&mut record)
    }

    /// Checks the first line of `text`, which must hold a `\n`: returns the line's
    /// length (without its `\n`; `None` when `text` has no `\n`) and what
    /// [`LineChecker::check`] says of the line. One pass: a canonical line has no raw
    /// `\n` before its end, so the checker stops at it; only a line it stops on earlier
    /// is searched for its end.
    #[inline]
    pub fn check_first(&mut self, text: &[u8]) -> Option<(usize, Option<Sealed>)> {
        match whole_line::first_line(text) {
            Some((len, sealed)) => Some((len, Some(sealed))),
            None => self.check_first_streaming(text),
        }
    }

    /// [`LineChecker::check_first`] by the streaming checker alone.
    pub(crate) fn check_first_streaming(&mut self, text: &[u8]) -> Option<(usize, Option<Sealed>)> {
        self.lexer.reset();
        let mut record = RecordState::new();
        let Err((at, _)) = self.lexer.push(text, &mut record) else {
            return None;
        };
        // Stopped at a newline: the line ends there. `sealed` ends the document, so a
        // line cut short (the newline inside a value) is `None` there.
        if text.get(at) == Some(&b'\n') {
            return Some((at, self.sealed(&mut record)));
        }
        let rest = text.get(at..).unwrap_or_default();
        find_newline(rest).map(|nl| (at + nl, None))
    }

    fn sealed(&mut self, record: &mut RecordState) -> Option<Sealed> {
        match self.lexer.end(record) {
            Ok(JsonType::Object) => record.sealed(),
            _ => None,
        }
    }
}
