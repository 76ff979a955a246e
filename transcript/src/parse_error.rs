//! Why input is not strict I-JSON: `ParseError`, its sentence and byte offset (the
//! strict parser is `json`'s; the error is here so a record writer's error can carry it
//! without an allocator). Public as part of `json`; its kind is hidden: the json crate
//! builds it, and the workspace's tools show its sentence without the offset.

use core::fmt;

/// What was wrong with the input (not an API: the json crate builds it, and the CLI, the
/// Python module and the tests read it through `ParseError::kind`; a caller asks
/// `ParseError::is_unserialisable` or `ParseError::is_too_deep`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input ended inside a value (or was empty).
    UnexpectedEnd,
    /// A byte that cannot start or continue a value here.
    UnexpectedByte(u8),
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// The input starts with a byte-order mark, which I-JSON forbids.
    ByteOrderMark,
    /// `NaN`, `Infinity` or `-Infinity`, which JSON does not have.
    NonFiniteLiteral,
    /// A raw control character (U+0000..=U+001F) inside a string.
    ControlCharacter,
    /// A backslash escape JSON does not define, or a malformed `\u` escape.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not part of a pair.
    LoneSurrogate,
    /// An object has the same key twice (after unescaping).
    DuplicateKey,
    /// Arrays and objects nest deeper than the limit.
    TooDeep,
    /// A malformed number literal (leading zero, missing digits, …).
    InvalidNumber,
    /// Something other than white space follows the value.
    TrailingCharacters,
    /// An integer literal whose canonical encoding would denote another number
    /// (`9007199254740993` would become `9007199254740992`).
    InexactInteger,
    /// A number outside the range of a double (`1e400`).
    NumberOutOfRange,
    /// A non-zero literal that rounds to zero as a double (`1e-400`).
    NumberUnderflow,
}

impl ParseErrorKind {
    /// Whether the input was read but a number in it has no canonical encoding
    /// (the verifier's `unserialisable_payload`, not `bad_json`).
    pub fn is_unserialisable(self) -> bool {
        matches!(
            self,
            ParseErrorKind::InexactInteger
                | ParseErrorKind::NumberOutOfRange
                | ParseErrorKind::NumberUnderflow
        )
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::UnexpectedEnd => f.write_str("unexpected end of input"),
            ParseErrorKind::UnexpectedByte(b) if b.is_ascii_graphic() => {
                write!(f, "unexpected character '{}'", char::from(*b))
            }
            ParseErrorKind::UnexpectedByte(b) => write!(f, "unexpected byte 0x{b:02x}"),
            ParseErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ParseErrorKind::ByteOrderMark => f.write_str("a byte-order mark is not allowed"),
            ParseErrorKind::NonFiniteLiteral => {
                f.write_str("NaN and Infinity are not JSON numbers")
            }
            ParseErrorKind::ControlCharacter => {
                f.write_str("unescaped control character in a string")
            }
            ParseErrorKind::InvalidEscape => f.write_str("invalid escape sequence"),
            ParseErrorKind::LoneSurrogate => f.write_str("lone UTF-16 surrogate in a string"),
            ParseErrorKind::DuplicateKey => f.write_str("duplicate object key"),
            ParseErrorKind::TooDeep => write!(f, "nesting deeper than the limit"),
            ParseErrorKind::InvalidNumber => f.write_str("malformed number"),
            ParseErrorKind::TrailingCharacters => f.write_str("unexpected data after the value"),
            ParseErrorKind::InexactInteger => f.write_str(
                "integer literal cannot be represented exactly as a double \
                 (send big integers as strings)",
            ),
            ParseErrorKind::NumberOutOfRange => f.write_str("number outside the double range"),
            ParseErrorKind::NumberUnderflow => {
                f.write_str("non-zero number rounds to zero as a double")
            }
        }
    }
}

/// A parse failure: what was wrong, and the byte offset where it was found. Its
/// `Display` is the sentence (`duplicate object key at byte 13`); a caller branches on
/// [`ParseError::is_unserialisable`] (the verifier's `unserialisable_payload`, not
/// `bad_json`) and [`ParseError::is_too_deep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// What was wrong.
    kind: ParseErrorKind,
    /// 0-based byte offset into the input.
    offset: usize,
}

impl ParseError {
    /// The error of `kind` at byte `offset` (the json crate's parser makes them).
    #[doc(hidden)]
    pub fn new(kind: ParseErrorKind, offset: usize) -> Self {
        ParseError { kind, offset }
    }

    /// What was wrong (not an API: its `Display` is the sentence without the offset,
    /// which the CLI and the Python module show beside a line and column).
    #[doc(hidden)]
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// 0-based byte offset into the input where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the input was read but a number in it has no canonical encoding (an
    /// integer literal a double does not hold exactly, a number beyond the double range,
    /// or a non-zero one that rounds to zero): the verifier's `unserialisable_payload`,
    /// not `bad_json`.
    pub fn is_unserialisable(&self) -> bool {
        self.kind.is_unserialisable()
    }

    /// Whether arrays and objects nest deeper than the parser's limit
    /// (`json::MAX_DEPTH` for a payload, `json::RECORD_MAX_DEPTH` for a record line).
    pub fn is_too_deep(&self) -> bool {
        self.kind == ParseErrorKind::TooDeep
    }

    /// 1-based (line, column) of the error in `input`, columns counted in bytes.
    pub fn line_column(&self, input: &[u8]) -> (usize, usize) {
        let before = input.get(..self.offset).unwrap_or(input);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => before.len() - nl,
            None => before.len() + 1,
        };
        (line, column)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

impl core::error::Error for ParseError {}
