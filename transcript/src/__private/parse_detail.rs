//! A strict parser's error as the verifiers' fault detail: agentloop-core's allocating
//! verifier reports a line its fast path did not accept with the same fixed-size
//! detail ([`Finding`]) the streaming verifier would.

use crate::parse_error::{ParseError, ParseErrorKind};
use crate::stream::{Finding, NumberProblem, Syntax};

/// The problem of a number with no canonical encoding.
pub fn number_problem(kind: ParseErrorKind) -> Option<NumberProblem> {
    match kind {
        ParseErrorKind::InexactInteger => Some(NumberProblem::InexactInteger),
        ParseErrorKind::NumberOutOfRange => Some(NumberProblem::OutOfRange),
        ParseErrorKind::NumberUnderflow => Some(NumberProblem::Underflow),
        _ => None,
    }
}

/// A parse error as a detail: what was wrong at which column (`bad_json`), or, for a
/// number with no canonical encoding, that problem (`unserialisable_payload`).
pub fn parse_detail(e: &ParseError) -> Finding {
    if let Some(problem) = number_problem(e.kind()) {
        return Finding::Unserialisable { problem };
    }
    let column = e.offset() as u64 + 1;
    let error = match e.kind() {
        ParseErrorKind::InexactInteger
        | ParseErrorKind::NumberOutOfRange
        | ParseErrorKind::NumberUnderflow => Syntax::InvalidNumber, // returned above
        ParseErrorKind::UnexpectedEnd => Syntax::UnexpectedEnd,
        ParseErrorKind::UnexpectedByte(b) => Syntax::UnexpectedByte(b),
        ParseErrorKind::InvalidUtf8 => Syntax::InvalidUtf8,
        ParseErrorKind::ByteOrderMark => Syntax::ByteOrderMark,
        ParseErrorKind::NonFiniteLiteral => Syntax::NonFiniteLiteral,
        ParseErrorKind::ControlCharacter => Syntax::ControlCharacter,
        ParseErrorKind::InvalidEscape => Syntax::InvalidEscape,
        ParseErrorKind::LoneSurrogate => Syntax::LoneSurrogate,
        ParseErrorKind::DuplicateKey => Syntax::DuplicateKey,
        ParseErrorKind::TooDeep => Syntax::TooDeep,
        ParseErrorKind::InvalidNumber => Syntax::InvalidNumber,
        ParseErrorKind::TrailingCharacters => Syntax::TrailingCharacters,
    };
    Finding::Syntax { column, error }
}
