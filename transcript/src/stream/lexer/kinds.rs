//! Why the checker stops reading a document: not JSON ([`Syntax`]), not canonical
//! ([`Departure`]), past a limit ([`Limit`]); and a number with no canonical encoding
//! ([`NumberProblem`]), which does not stop it. Each has its sentence (`Display`).

use core::fmt;

use super::{KEY_PATH_BYTES, MAX_KEY_BYTES};

/// Why the bytes are not JSON at all (the verifier's `bad_json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// A byte that cannot start or continue a value here.
    UnexpectedByte(u8),
    /// The line ended inside a value (or before one).
    UnexpectedEnd,
    /// Invalid UTF-8 (a byte-order mark is an unexpected byte).
    InvalidUtf8,
    /// A raw control character (U+0000..=U+001F) inside a string.
    ControlCharacter,
    /// A backslash escape JSON does not define, or a `\u` without four hex digits.
    InvalidEscape,
    /// `NaN` or `Infinity`.
    NonFiniteLiteral,
    /// A malformed number literal (leading zero, missing digits, …).
    InvalidNumber,
    /// The same key twice in one object.
    DuplicateKey,
    /// Nesting deeper than the limit.
    TooDeep,
    /// Something other than white space after the value.
    TrailingCharacters,
    /// A byte-order mark at the start (the allocating parser; this checker reports
    /// its first byte as unexpected).
    ByteOrderMark,
    /// A `\u` escape of a UTF-16 surrogate that is not part of a pair (the allocating
    /// parser; canonical form has no such escape, so this checker stops earlier, at a
    /// departure from canonical form).
    LoneSurrogate,
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Syntax::UnexpectedByte(b) if b.is_ascii_graphic() => {
                write!(f, "unexpected character '{}'", char::from(*b))
            }
            Syntax::UnexpectedByte(b) => write!(f, "unexpected byte 0x{b:02x}"),
            Syntax::UnexpectedEnd => f.write_str("unexpected end of input"),
            Syntax::InvalidUtf8 => f.write_str("invalid UTF-8"),
            Syntax::ControlCharacter => f.write_str("unescaped control character in a string"),
            Syntax::InvalidEscape => f.write_str("invalid escape sequence"),
            Syntax::NonFiniteLiteral => f.write_str("NaN and Infinity are not JSON numbers"),
            Syntax::InvalidNumber => f.write_str("malformed number"),
            Syntax::DuplicateKey => f.write_str("duplicate object key"),
            Syntax::TooDeep => f.write_str("nesting deeper than the limit"),
            Syntax::TrailingCharacters => f.write_str("unexpected data after the value"),
            Syntax::ByteOrderMark => f.write_str("a byte-order mark is not allowed"),
            Syntax::LoneSurrogate => f.write_str("lone UTF-16 surrogate in a string"),
        }
    }
}

/// How the bytes depart from canonical form while they may still be JSON
/// (the verifier's `not_canonical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Departure {
    /// White space between tokens.
    WhiteSpace,
    /// A carriage return between tokens: white space, named for the CRLF line endings
    /// that leave one at the end of every line.
    CarriageReturn,
    /// An escape canonical form does not use (`\/`, `\u00e9`, `\u001F`, `\u000a`).
    Escape,
    /// A key that does not sort after the one before it (UTF-16 order).
    KeyOrder,
    /// A number not spelled as ECMAScript's `Number.prototype.toString` spells it.
    NumberSpelling,
}

impl fmt::Display for Departure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Departure::WhiteSpace => "white space between tokens",
            Departure::CarriageReturn => {
                "a carriage return (white space; CRLF line endings leave one before each newline)"
            }
            Departure::Escape => "an escape canonical form does not use",
            Departure::KeyOrder => "a key out of canonical (UTF-16) order",
            Departure::NumberSpelling => "a number not in its canonical spelling",
        })
    }
}

/// A limit of the streaming checker that a line went past (the verifier's `bad_json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A key longer than [`MAX_KEY_BYTES`].
    KeyTooLong,
    /// The keys along the open path need more than [`KEY_PATH_BYTES`].
    KeyPathTooLong,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::KeyTooLong => write!(
                f,
                "an object key longer than the streaming verifier's limit of {MAX_KEY_BYTES} bytes"
            ),
            Limit::KeyPathTooLong => write!(
                f,
                "the keys of the open objects need more than the streaming verifier's {KEY_PATH_BYTES} bytes"
            ),
        }
    }
}

/// A number literal with no canonical encoding (the verifier's `unserialisable_payload`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberProblem {
    /// An integer literal whose canonical encoding would denote another number.
    InexactInteger,
    /// A number outside the double range.
    OutOfRange,
    /// A non-zero literal that rounds to zero.
    Underflow,
}

impl fmt::Display for NumberProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberProblem::InexactInteger => {
                "integer literal cannot be represented exactly as a double (send big integers as strings)"
            }
            NumberProblem::OutOfRange => "number outside the double range",
            NumberProblem::Underflow => "non-zero number rounds to zero as a double",
        })
    }
}

/// Why the checker stopped reading a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Not JSON.
    Bad(Syntax),
    /// Not in canonical form.
    NotCanonical(Departure),
    /// Past a limit of this checker.
    Limit(Limit),
}
