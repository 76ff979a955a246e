//! Why a pattern is refused: [`PatternError`], its [`PatternErrorKind`], the
//! [`LookAround`] and [`SyntaxError`] it names, and their messages.

use core::fmt;

use super::{MAX_COMPILED_BYTES, MAX_GROUP_DEPTH, MAX_PATTERN_CHARS};

/// Why a pattern was refused: what, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternError {
    /// What was wrong.
    pub kind: PatternErrorKind,
    /// Where: the 0-based index, counted in Unicode code points (not bytes, not UTF-16
    /// units), of the character of the pattern where the refused construct starts (`0`
    /// for [`PatternErrorKind::TooLarge`] and [`PatternErrorKind::OverBudget`], which are
    /// the whole pattern's).
    pub position: usize,
}

/// What a refused pattern does that the engine will not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatternErrorKind {
    /// Look-ahead or look-behind: no linear-time automaton has it.
    LookAround(LookAround),
    /// `\1`…, `\k<name>`: matching a back-reference is NP-hard in general.
    BackReference,
    /// Inline modifiers `(?i:…)`, `(?-s:…)`, … (ECMAScript 2025): not translated.
    Modifiers,
    /// An escape naming a lone surrogate (U+D800–U+DFFF), which no JSON string contains.
    LoneSurrogate,
    /// `\p{…}` or `\P{…}` with a name that is not ECMAScript's exact spelling of a
    /// property (or value) these tables have.
    UnknownProperty,
    /// The pattern is not ECMA-262 `u`-mode syntax.
    Syntax(SyntaxError),
    /// A repetition count above `u32::MAX`.
    CountTooLarge,
    /// Longer than [`MAX_PATTERN_CHARS`].
    TooLong,
    /// Groups nested deeper than [`MAX_GROUP_DEPTH`].
    TooDeep,
    /// The compiled automaton would exceed [`MAX_COMPILED_BYTES`].
    TooLarge,
    /// The compiled pattern would take more bytes than the budget it was compiled
    /// within ([`super::Pattern::compile_within`]: what a schema's patterns have left of
    /// [`crate::MAX_SCHEMA_COMPILED_BYTES`]).
    OverBudget,
}

/// Which look-around a pattern used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAround {
    /// `(?=`
    Ahead,
    /// `(?!`
    NegativeAhead,
    /// `(?<=`
    Behind,
    /// `(?<!`
    NegativeBehind,
}

impl LookAround {
    /// How it opens: `(?=`, `(?!`, `(?<=` or `(?<!`.
    pub fn opener(self) -> &'static str {
        match self {
            LookAround::Ahead => "(?=",
            LookAround::NegativeAhead => "(?!",
            LookAround::Behind => "(?<=",
            LookAround::NegativeBehind => "(?<!",
        }
    }
}

/// The syntax errors of ECMA-262 with the `u` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyntaxError {
    /// A `(` without its `)`.
    UnclosedGroup,
    /// A `)` without its `(`.
    UnmatchedParen,
    /// A `[` without its `]`.
    UnclosedClass,
    /// A quantifier with nothing (or an assertion, or another quantifier) before it.
    NothingToRepeat,
    /// A `{`, `}` or `]` that does not belong to a quantifier or a class (escape it).
    LoneBracket(char),
    /// A `\` at the end of the pattern.
    TrailingBackslash,
    /// `\` before a character that has no escape meaning in `u` mode (the character
    /// after the backslash).
    InvalidEscape(char),
    /// `\c` not followed by an ASCII letter.
    InvalidControlEscape,
    /// `\x` not followed by two hexadecimal digits.
    InvalidHexEscape,
    /// `\u` not followed by four hexadecimal digits or `{` hexadecimal digits `}` up to
    /// 10FFFF.
    InvalidUnicodeEscape,
    /// `\p` or `\P` not followed by `{name}` or `{name=value}`.
    InvalidPropertyEscape,
    /// A class range whose end is before its start (`[z-a]`).
    RangeOutOfOrder,
    /// A class range with `\d`, `\w`, `\s`, `\p{…}` or their complements at an end.
    ClassEscapeInRange,
    /// `{n,m}` with n > m.
    QuantifierOutOfOrder,
    /// `(?` followed by something that is no group ECMAScript defines.
    InvalidGroup,
    /// A group name that is not an identifier, or is not closed by `>`.
    InvalidGroupName,
    /// A group name used twice where both groups could take part in one match.
    DuplicateGroupName,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::UnclosedGroup => f.write_str("'(' is never closed"),
            SyntaxError::UnmatchedParen => f.write_str("')' closes no group"),
            SyntaxError::UnclosedClass => f.write_str("'[' is never closed"),
            SyntaxError::NothingToRepeat => f.write_str("quantifier has nothing to repeat"),
            SyntaxError::LoneBracket(c) => write!(f, "lone '{c}' (escape it as '\\{c}')"),
            SyntaxError::TrailingBackslash => f.write_str("'\\' ends the pattern"),
            SyntaxError::InvalidEscape(c) => {
                write!(
                    f,
                    "'\\{c}' is not an escape ECMAScript defines with the u flag"
                )
            }
            SyntaxError::InvalidControlEscape => {
                f.write_str("'\\c' must be followed by an ASCII letter")
            }
            SyntaxError::InvalidHexEscape => {
                f.write_str("'\\x' must be followed by two hexadecimal digits")
            }
            SyntaxError::InvalidUnicodeEscape => {
                f.write_str("'\\u' must be followed by four hexadecimal digits or {…} up to 10FFFF")
            }
            SyntaxError::InvalidPropertyEscape => {
                f.write_str("'\\p' and '\\P' must be followed by {name} or {name=value}")
            }
            SyntaxError::RangeOutOfOrder => f.write_str("class range out of order"),
            SyntaxError::ClassEscapeInRange => {
                f.write_str("a class range cannot start or end with a class escape")
            }
            SyntaxError::QuantifierOutOfOrder => {
                f.write_str("numbers out of order in {} quantifier")
            }
            SyntaxError::InvalidGroup => f.write_str("'(?' starts no group ECMAScript defines"),
            SyntaxError::InvalidGroupName => f.write_str("invalid group name"),
            SyntaxError::DuplicateGroupName => f.write_str("duplicate group name"),
        }
    }
}

impl core::error::Error for SyntaxError {}

impl fmt::Display for PatternErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternErrorKind::LookAround(l) => {
                write!(f, "look-around '{}' has no linear-time meaning", l.opener())
            }
            PatternErrorKind::BackReference => {
                f.write_str("back-reference has no linear-time meaning")
            }
            PatternErrorKind::Modifiers => f.write_str("inline modifiers '(?…:' are not supported"),
            PatternErrorKind::LoneSurrogate => {
                f.write_str("escape names a lone surrogate, which no JSON string contains")
            }
            PatternErrorKind::UnknownProperty => f.write_str(
                "unknown Unicode property (names are ECMAScript's exact ones: L, Letter, \
                 Script=Greek, …)",
            ),
            PatternErrorKind::Syntax(s) => write!(f, "syntax error: {s}"),
            PatternErrorKind::CountTooLarge => {
                write!(f, "repetition count above {}", u32::MAX)
            }
            PatternErrorKind::TooLong => {
                write!(f, "pattern longer than {MAX_PATTERN_CHARS} characters")
            }
            PatternErrorKind::TooDeep => {
                write!(f, "groups nest deeper than {MAX_GROUP_DEPTH}")
            }
            PatternErrorKind::TooLarge => write!(
                f,
                "pattern compiles to an automaton larger than {MAX_COMPILED_BYTES} bytes"
            ),
            PatternErrorKind::OverBudget => {
                f.write_str("pattern compiles to more bytes than its budget has left")
            }
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.position;
        match self.kind {
            PatternErrorKind::LookAround(l) => write!(
                f,
                "look-around '{}' at position {at} has no linear-time meaning",
                l.opener()
            ),
            PatternErrorKind::BackReference => {
                write!(
                    f,
                    "back-reference at position {at} has no linear-time meaning"
                )
            }
            PatternErrorKind::TooLong
            | PatternErrorKind::TooLarge
            | PatternErrorKind::OverBudget => {
                write!(f, "{}", self.kind)
            }
            kind => write!(f, "{kind} at position {at}"),
        }
    }
}

impl core::error::Error for PatternError {}
