//! The `pattern` / `patternProperties` engine: ECMA-262 regular expressions (the `u`
//! flag's syntax, which JSON Schema draft 2020-12 section 6.4 names) translated into
//! regex-automata's linear-time automata. A schema can never make validation slow: a
//! match costs time linear in the text times the compiled pattern's size, whatever the
//! pattern (`^(a+)+$` included), because nothing backtracks.
//!
//! ```
//! use agentloop_core::schema::pattern::{Pattern, PatternErrorKind, SyntaxError};
//!
//! let p = Pattern::compile(r"^\p{Lu}\w{2,}$").unwrap();
//! assert!(p.is_match("Abc_1"));
//! assert!(!p.is_match("abc"));
//! // Unanchored, as JSON Schema says: "a" matches `b?a` anywhere.
//! assert!(Pattern::compile("b?a").unwrap().is_match("xxa"));
//!
//! let e = Pattern::compile("ab(?=c)").unwrap_err();
//! assert_eq!(e.position, 2);
//! assert_eq!(e.to_string(), "look-around '(?=' at position 2 has no linear-time meaning");
//! let e = Pattern::compile("a{3,2}").unwrap_err();
//! assert_eq!(e.kind, PatternErrorKind::Syntax(SyntaxError::QuantifierOutOfOrder));
//! ```
//!
//! # What is accepted, with ECMAScript's meaning
//!
//! Everything is matched against Unicode code points (a JSON string, which has no lone
//! surrogate), as ECMAScript does with the `u` flag; there are no flags (no `i`, `m`, `s`).
//!
//! - Literal characters: anything but the syntax characters `^ $ \ . * + ? ( ) [ ] { } |`.
//! - `.`: any code point except the line terminators U+000A, U+000D, U+2028, U+2029.
//! - `\d` = `[0-9]`, `\w` = `[A-Za-z0-9_]` (ASCII only, as in ECMAScript), `\s` = the
//!   ECMAScript WhiteSpace and LineTerminator code points (U+0009–U+000D, U+0020, U+00A0,
//!   U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), and their
//!   complements `\D`, `\W`, `\S`.
//! - `\p{…}` / `\P{…}` with ECMAScript's exact names (no loose matching): a
//!   General_Category value (`\p{L}`, `\p{Letter}`, `\p{gc=Lu}`,
//!   `\p{General_Category=Uppercase_Letter}`, `\p{punct}`), a binary property
//!   (`\p{Alphabetic}`, `\p{Alpha}`, `\p{Any}`, `\p{ASCII}`, `\p{Assigned}`, `\p{Emoji}`, …),
//!   `Script=` / `sc=` and `Script_Extensions=` / `scx=` with a long or short script name
//!   (`\p{Script=Greek}`, `\p{sc=Grek}`). The tables are regex-syntax's (Unicode 16.0): a
//!   character assigned by a later Unicode version is in no category here.
//! - Escapes: `\t \n \v \f \r`, `\0` (not followed by a digit), `\cX` (X an ASCII letter),
//!   `\xHH`, `\uHHHH`, `\u{H…}` (up to U+10FFFF), a surrogate pair written as two
//!   `\uHHHH` escapes (one code point), and `\` before a syntax character or `/`.
//! - Character classes `[…]` and `[^…]` with single characters, ranges `a-z`, the escapes
//!   above, `\b` (U+0008) and `\-`; `[]` matches nothing and `[^]` any code point.
//! - Groups `(…)`, `(?:…)`, `(?<name>…)` (a name may repeat only in separate alternatives,
//!   as ECMAScript 2025 allows); alternation `|`; quantifiers `*`, `+`, `?`, `{n}`, `{n,}`,
//!   `{n,m}` and their lazy forms (`*?`, …: laziness does not change whether a string
//!   matches).
//! - Assertions `^` and `$` (start and end of the string: no multiline flag), `\b` and `\B`
//!   (ECMAScript's word boundary, in terms of the ASCII `\w`).
//!
//! # What is refused, and why
//!
//! [`Pattern::compile`] refuses, with a [`PatternError`] giving the position (0-based, in
//! code points of the pattern) and the [`PatternErrorKind`]:
//! - what has no linear-time meaning: look-ahead and look-behind (`(?=`, `(?!`, `(?<=`,
//!   `(?<!`), back-references (`\1`, `\k<name>`);
//! - what would be read with another meaning: inline modifiers (`(?i:…)`, ECMAScript 2025),
//!   an escape of a lone surrogate (`\uD800`, which no JSON string contains: matching it
//!   would silently never succeed), a `\p{…}` name that is not ECMAScript's exact spelling
//!   or that these tables lack (`Changes_When_NFKC_Casefolded`);
//! - every syntax error of the `u` flag: an unmatched `(` or `)`, a quantifier with nothing
//!   to repeat (`*a`, `a**`, `^*`, `a{2}{3}`), a lone `{`, `}` or `]`, an escape ECMAScript
//!   does not define in `u` mode (`\a`, `\-` outside a class, `\00`, `\x4`, `\c1`), a range
//!   out of order (`[z-a]`, `a{3,2}`) or with a class escape at either end (`[\d-z]`), a bad
//!   group name, an unclosed class;
//! - what exceeds the limits below ([`PatternErrorKind::TooLong`], [`TooDeep`],
//!   [`CountTooLarge`], [`TooLarge`]).
//!
//! [`TooDeep`]: PatternErrorKind::TooDeep
//! [`CountTooLarge`]: PatternErrorKind::CountTooLarge
//! [`TooLarge`]: PatternErrorKind::TooLarge
//!
//! # Limits
//!
//! | what | bound |
//! | --- | --- |
//! | pattern length | [`MAX_PATTERN_CHARS`] code points |
//! | group nesting | [`MAX_GROUP_DEPTH`] |
//! | a repetition count | `u32::MAX` |
//! | compiled automaton | [`MAX_COMPILED_BYTES`] for each of the two Thompson NFAs (forward and reverse): `^\p{L}{1,100}$` fits, `\p{L}{1000}` and `(?:a{1000}){1000}` are refused within milliseconds, not compiled for seconds |
//! | matching memory | [`MAX_MATCH_CACHE_BYTES`] for the lazy DFA's cache, per thread matching at the same time; past it the cache is cleared or the search falls back to the PikeVM, still linear |
//! | fully compiled DFA | built only for an automaton of at most [`MAX_DENSE_NFA_STATES`] states, kept only when its table fits [`MAX_DENSE_DFA_BYTES`] (building stops at that size); otherwise the lazy DFA matches |
//!
//! # How it matches
//!
//! The translation is regex-syntax's HIR, built directly (the pattern is never re-parsed
//! as Rust regex syntax), compiled by regex-automata's meta engine (lazy DFA, PikeVM; no
//! backtracker) with no capture groups; a small pattern (the realistic ones: `^[a-z0-9-]{1,39}$`,
//! a UUID, an e-mail shape) also gets a fully compiled DFA of the same search at compile
//! time, which matches with one table lookup a byte and no cache, the lazy DFA staying
//! the engine of the others (a unit-test switch holds the two to the same answers).
//! [`Pattern::is_match`] runs an anchored search of
//! `[^]*?(?:pattern)`: the pattern is tried at each code-point index of the text in turn,
//! as ECMAScript's RegExpBuiltinExec does (regex-automata's own unanchored search moves
//! byte by byte, where an empty `\B` match inside a code point's bytes would hide a real
//! match: `\B|Ω` on `"BΩt"`).

mod names;
#[cfg(test)]
mod tests;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, Input, MatchKind};

use super::work;
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look, Repetition};

/// The longest pattern compiled, in Unicode code points. Longer ones are refused with
/// [`PatternErrorKind::TooLong`] before anything is parsed.
pub const MAX_PATTERN_CHARS: usize = 8192;

/// How deep groups (`(…)`, `(?:…)`, `(?<name>…)`) may nest. Deeper is refused with
/// [`PatternErrorKind::TooDeep`]: it bounds the parser's and the compiler's recursion.
pub const MAX_GROUP_DEPTH: usize = 64;

/// The most heap a compiled pattern's automaton (regex-automata's Thompson NFA, in each
/// of the two directions the engine builds) may take. A pattern past it is refused with
/// [`PatternErrorKind::TooLarge`] as soon as compiling crosses the bound, so
/// `(?:a{1000}){1000}` costs a moment, not seconds and gigabytes.
pub const MAX_COMPILED_BYTES: usize = 8 << 20;

/// The capacity of the lazy DFA's cache, per thread matching a pattern at the same time
/// (regex-automata's `hybrid_cache_capacity`). The cache grows as a search needs states,
/// up to this; a search that fills it clears it, and one that keeps clearing it falls
/// back to the PikeVM: matching stays linear in the text and memory bounded. The
/// capacity the lazy DFA needs to run at all grows with the NFA: this one lets it run
/// for the patterns [`MAX_COMPILED_BYTES`] admits (`^[\p{L}\p{N}_-]{1,64}$` matches in
/// ~70 ns; with 2 MiB it fell back to the PikeVM, ~1.1 µs).
pub const MAX_MATCH_CACHE_BYTES: usize = 8 << 20;

/// The largest transition table of a pattern's fully compiled DFA (regex-automata's
/// dense DFA, built at compile time for a small pattern, which then matches in a few
/// instructions a byte with no cache). A pattern whose DFA would be larger, or whose
/// automaton has more than [`MAX_DENSE_NFA_STATES`] states, matches with the lazy DFA
/// instead ([`MAX_MATCH_CACHE_BYTES`]).
pub const MAX_DENSE_DFA_BYTES: usize = 64 << 10;

/// The most NFA states a pattern may have for a fully compiled DFA to be tried: it
/// bounds the time building one takes (each DFA state is a set of NFA states), which
/// [`MAX_DENSE_DFA_BYTES`] alone would leave proportional to the NFA.
pub const MAX_DENSE_NFA_STATES: usize = 384;

/// A compiled ECMA-262 regular expression: a JSON Schema `pattern`, or a key of
/// `patternProperties`. Compiled once; matching needs only `&self` (each thread
/// matching at the same time gets a cache from an internal pool, unless the pattern is
/// small enough for a fully compiled DFA, which needs none).
#[derive(Clone)]
pub struct Pattern {
    source: String,
    regex: Regex,
    /// The same search as a fully compiled DFA, when it fits the bounds.
    dense: Option<Dense>,
}

/// A fully compiled DFA of `[^]*?(?:pattern)` and its anchored start state.
#[derive(Clone)]
struct Dense {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Dense {
    /// The DFA for `hir`, if its automaton and its table fit the bounds and it needs no
    /// quit byte (a Unicode word boundary would; ours are ASCII).
    fn build(hir: &Hir) -> Option<Dense> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(MAX_COMPILED_BYTES))
                    .which_captures(WhichCaptures::None),
            )
            .build_from_hir(hir)
            .ok()?;
        if nfa.states().len() > MAX_DENSE_NFA_STATES {
            return None;
        }
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    // Whether any match exists: every match, no preference among them.
                    .match_kind(MatchKind::All)
                    .start_kind(StartKind::Anchored)
                    .accelerate(false)
                    .minimize(false)
                    .dfa_size_limit(Some(MAX_DENSE_DFA_BYTES))
                    .determinize_size_limit(Some(MAX_DENSE_DFA_BYTES)),
            )
            .build_from_nfa(&nfa)
            .ok()?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .ok()?;
        Some(Dense { dfa, start })
    }

    /// Whether a match starts at the beginning of `text` (so, for `[^]*?(?:pattern)`,
    /// anywhere): a match state reached after any byte or at the end.
    #[inline]
    fn is_match(&self, text: &str) -> Option<bool> {
        let dfa = &self.dfa;
        let mut state = self.start;
        for &byte in text.as_bytes() {
            state = dfa.next_state(state, byte);
            if dfa.is_special_state(state) {
                if dfa.is_match_state(state) {
                    return Some(true);
                }
                if dfa.is_dead_state(state) {
                    return Some(false);
                }
                if dfa.is_quit_state(state) {
                    return None;
                }
            }
        }
        Some(dfa.is_match_state(dfa.next_eoi_state(state)))
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// Two patterns are equal when their source text is: the translation is a function of it.
impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Translates and compiles `source` (ECMA-262 syntax, `u` flag), or says why not.
    pub fn compile(source: &str) -> Result<Pattern, PatternError> {
        // ECMAScript tries the pattern at each code-point index in turn (RegExpBuiltinExec):
        // so does an anchored search of `[^]*?pattern`. regex-automata's own unanchored
        // search moves byte by byte, and an empty `\B` match inside a code point's bytes
        // would hide a real match starting before it (`\B|Ω` on "BΩt").
        let any = Hir::class(Class::Unicode(ClassUnicode::new([ClassUnicodeRange::new(
            '\0',
            char::MAX,
        )])));
        let skip = Hir::repetition(Repetition {
            min: 0,
            max: None,
            greedy: false,
            sub: Box::new(any),
        });
        let hir = Hir::concat(vec![skip, translate(source)?]);
        let config = meta::Config::new()
            .nfa_size_limit(Some(MAX_COMPILED_BYTES))
            .hybrid_cache_capacity(MAX_MATCH_CACHE_BYTES)
            // The meta engine's own dense DFA stays off: [`Dense`] is ours, bounded.
            .dfa(false)
            .which_captures(WhichCaptures::Implicit);
        let regex = meta::Builder::new()
            .configure(config)
            .build_from_hir(&hir)
            .map_err(|_| PatternError {
                kind: PatternErrorKind::TooLarge,
                position: 0,
            })?;
        Ok(Pattern {
            source: String::from(source),
            regex,
            dense: Dense::build(&hir),
        })
    }

    /// Whether the pattern matches anywhere in `text` (an unanchored search, as JSON
    /// Schema requires: `b?a` matches `"xxa"`; anchor with `^` and `$` to match the
    /// whole string).
    #[inline]
    pub fn is_match(&self, text: &str) -> bool {
        if let Some(dense) = &self.dense {
            if !work::general_only() {
                if let Some(found) = dense.is_match(text) {
                    return found;
                }
            }
        }
        self.regex
            .is_match(Input::new(text).anchored(Anchored::Yes))
    }

    /// The size of the pattern's fully compiled DFA, if it has one (it fits
    /// [`MAX_DENSE_DFA_BYTES`] and [`MAX_DENSE_NFA_STATES`]).
    #[cfg(test)]
    pub(crate) fn dense_bytes(&self) -> Option<usize> {
        self.dense.as_ref().map(|d| d.dfa.memory_usage())
    }

    /// The pattern as it was written.
    #[inline]
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Why a pattern was refused: what, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternError {
    /// What was wrong.
    pub kind: PatternErrorKind,
    /// Where: the 0-based index, counted in Unicode code points (not bytes, not UTF-16
    /// units), of the character of the pattern where the refused construct starts (`0`
    /// for [`PatternErrorKind::TooLarge`], which is the whole pattern's).
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
            PatternErrorKind::TooLong | PatternErrorKind::TooLarge => {
                write!(f, "{}", self.kind)
            }
            kind => write!(f, "{kind} at position {at}"),
        }
    }
}

impl core::error::Error for PatternError {}

/// Parses `source` as an ECMA-262 `u`-mode pattern into regex-syntax's HIR.
fn translate(source: &str) -> Result<Hir, PatternError> {
    if source.chars().nth(MAX_PATTERN_CHARS).is_some() {
        return Err(PatternError {
            kind: PatternErrorKind::TooLong,
            position: MAX_PATTERN_CHARS,
        });
    }
    let mut parser = Parser {
        chars: source.chars().collect(),
        pos: 0,
        depth: 0,
        path: Vec::new(),
        disjunctions: 0,
        names: Vec::new(),
        properties: Vec::new(),
    };
    let hir = parser.disjunction()?;
    match parser.peek() {
        None => Ok(hir),
        // `disjunction` stops only at the end or at a `)`.
        Some(_) => Err(parser.syntax(parser.pos, SyntaxError::UnmatchedParen)),
    }
}

/// One item of a character class: a single character (which can end a range) or a set.
enum ClassAtom {
    Char(char),
    Set(ClassUnicode),
}

/// A recursive-descent parser over the pattern's code points, building the HIR directly.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Groups open around the current position.
    depth: usize,
    /// For each disjunction open around the current position: its number and which of its
    /// alternatives we are in (to tell whether two equal group names may both match).
    path: Vec<(u32, u32)>,
    disjunctions: u32,
    /// Group names seen, each with the `path` where it was.
    names: Vec<(String, Vec<(u32, u32)>)>,
    /// The property sets looked up so far, by canonical `(property, value)`: a set is
    /// built from the tables once per pattern, however often the pattern names it.
    properties: Vec<((&'static str, &'static str), ClassUnicode)>,
}

type Parsed<T> = Result<T, PatternError>;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, position: usize, kind: PatternErrorKind) -> PatternError {
        PatternError { kind, position }
    }

    fn syntax(&self, position: usize, error: SyntaxError) -> PatternError {
        self.error(position, PatternErrorKind::Syntax(error))
    }

    /// Disjunction :: Alternative ( `|` Alternative )*
    fn disjunction(&mut self) -> Parsed<Hir> {
        let id = self.disjunctions;
        self.disjunctions += 1;
        let mut alternatives = Vec::new();
        let mut index = 0;
        loop {
            self.path.push((id, index));
            let alternative = self.alternative();
            self.path.pop();
            alternatives.push(alternative?);
            if !self.eat('|') {
                return Ok(Hir::alternation(alternatives));
            }
            index += 1;
        }
    }

    /// Alternative :: Term*, up to a `|`, a `)` or the end.
    fn alternative(&mut self) -> Parsed<Hir> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            let start = self.pos;
            let atom = match c {
                '|' | ')' => break,
                '^' | '$' => {
                    self.pos += 1;
                    let look = if c == '^' { Look::Start } else { Look::End };
                    terms.push(self.assertion(Hir::look(look))?);
                    continue;
                }
                '\\' if matches!(self.peek_at(1), Some('b' | 'B')) => {
                    let look = if self.peek_at(1) == Some('b') {
                        Look::WordAscii
                    } else {
                        Look::WordAsciiNegate
                    };
                    self.pos += 2;
                    terms.push(self.assertion(Hir::look(look))?);
                    continue;
                }
                '(' => self.group()?,
                '[' => Hir::class(Class::Unicode(self.class()?)),
                '\\' => self.atom_escape()?,
                '.' => {
                    self.pos += 1;
                    Hir::class(Class::Unicode(dot()))
                }
                '*' | '+' | '?' => return Err(self.syntax(start, SyntaxError::NothingToRepeat)),
                '{' => {
                    let error = if self.braces()?.is_some() {
                        SyntaxError::NothingToRepeat
                    } else {
                        SyntaxError::LoneBracket('{')
                    };
                    return Err(self.syntax(start, error));
                }
                '}' | ']' => return Err(self.syntax(start, SyntaxError::LoneBracket(c))),
                c => {
                    self.pos += 1;
                    literal(c)
                }
            };
            terms.push(self.quantified(atom)?);
        }
        Ok(Hir::concat(terms))
    }

    /// An assertion cannot be quantified in `u` mode.
    fn assertion(&mut self, look: Hir) -> Parsed<Hir> {
        match self.peek() {
            Some('*' | '+' | '?' | '{') => Err(self.syntax(self.pos, SyntaxError::NothingToRepeat)),
            _ => Ok(look),
        }
    }

    /// The quantifier after an atom, if any: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each
    /// optionally followed by `?` (lazy: the same strings match). A quantifier right after
    /// it is caught by `alternative` as having nothing to repeat.
    fn quantified(&mut self, atom: Hir) -> Parsed<Hir> {
        let start = self.pos;
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.braces()? {
                Some((min, max, end)) => {
                    self.pos = end - 1;
                    (min, max)
                }
                None => return Err(self.syntax(start, SyntaxError::LoneBracket('{'))),
            },
            _ => return Ok(atom),
        };
        self.pos += 1;
        self.eat('?');
        Ok(Hir::repetition(Repetition {
            min,
            max,
            greedy: true,
            sub: Box::new(atom),
        }))
    }

    /// Reads `{n}`, `{n,}` or `{n,m}` at the current position without consuming it:
    /// the bounds and the position just past the `}`, or `None` if the brace starts no
    /// quantifier.
    fn braces(&self) -> Parsed<Option<(u32, Option<u32>, usize)>> {
        let start = self.pos;
        let mut at = start + 1;
        let Some(min) = self.number(&mut at) else {
            return Ok(None);
        };
        let max = match self.chars.get(at) {
            Some('}') => Some(min),
            Some(',') => {
                at += 1;
                if self.chars.get(at) == Some(&'}') {
                    None
                } else {
                    match self.number(&mut at) {
                        Some(max) if self.chars.get(at) == Some(&'}') => Some(max),
                        _ => return Ok(None),
                    }
                }
            }
            _ => return Ok(None),
        };
        if max.is_some_and(|max| max < min) {
            return Err(self.syntax(start, SyntaxError::QuantifierOutOfOrder));
        }
        let count = |n: u64| {
            u32::try_from(n).map_err(|_| self.error(start, PatternErrorKind::CountTooLarge))
        };
        let max = match max {
            Some(max) => Some(count(max)?),
            None => None,
        };
        Ok(Some((count(min)?, max, at + 1)))
    }

    /// Decimal digits at `*at` (at least one), saturating at `u64::MAX`.
    fn number(&self, at: &mut usize) -> Option<u64> {
        let mut value: Option<u64> = None;
        while let Some(d) = self.chars.get(*at).and_then(|c| c.to_digit(10)) {
            value = Some(
                value
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(d)),
            );
            *at += 1;
        }
        value
    }

    /// A group, at its `(`: capturing, `(?:`, `(?<name>`; look-around and modifiers are
    /// refused. Groups capture nothing here: only whether the pattern matches is asked.
    fn group(&mut self) -> Parsed<Hir> {
        let start = self.pos;
        if self.depth >= MAX_GROUP_DEPTH {
            return Err(self.error(start, PatternErrorKind::TooDeep));
        }
        self.pos += 1;
        if self.eat('?') {
            let look = match (self.peek(), self.peek_at(1)) {
                (Some('='), _) => Some(LookAround::Ahead),
                (Some('!'), _) => Some(LookAround::NegativeAhead),
                (Some('<'), Some('=')) => Some(LookAround::Behind),
                (Some('<'), Some('!')) => Some(LookAround::NegativeBehind),
                _ => None,
            };
            if let Some(look) = look {
                return Err(self.error(start, PatternErrorKind::LookAround(look)));
            }
            match self.peek() {
                Some(':') => self.pos += 1,
                Some('<') => {
                    self.pos += 1;
                    self.group_name(start)?;
                }
                Some('i' | 'm' | 's' | '-') => {
                    return Err(self.error(start, PatternErrorKind::Modifiers))
                }
                _ => return Err(self.syntax(start, SyntaxError::InvalidGroup)),
            }
        }
        self.depth += 1;
        let inner = self.disjunction()?;
        self.depth -= 1;
        if !self.eat(')') {
            return Err(self.syntax(start, SyntaxError::UnclosedGroup));
        }
        Ok(inner)
    }

    /// A group name after `(?<` (the group's `(` at `group`), through its `>`: an ECMAScript identifier (`$`, `_`,
    /// ID_Start, then also ID_Continue, U+200C, U+200D; `\u` escapes allowed). A name may
    /// repeat only where the two groups are in different alternatives of one disjunction.
    fn group_name(&mut self, group: usize) -> Parsed<()> {
        let start = self.pos;
        let mut name = String::new();
        loop {
            let at = self.pos;
            let c = match self.peek() {
                None => return Err(self.syntax(start, SyntaxError::InvalidGroupName)),
                Some('>') => break,
                Some('\\') => {
                    self.pos += 1;
                    if !self.eat('u') {
                        return Err(self.syntax(at, SyntaxError::InvalidGroupName));
                    }
                    self.unicode_escape(at)?
                }
                Some(c) => {
                    self.pos += 1;
                    c
                }
            };
            let ok = if name.is_empty() {
                self.identifier_start(c)
            } else {
                self.identifier_part(c)
            };
            if !ok {
                return Err(self.syntax(at, SyntaxError::InvalidGroupName));
            }
            name.push(c);
        }
        if name.is_empty() {
            return Err(self.syntax(start, SyntaxError::InvalidGroupName));
        }
        self.pos += 1;
        for (other, path) in &self.names {
            if *other == name && !separate_alternatives(path, &self.path) {
                return Err(self.syntax(group, SyntaxError::DuplicateGroupName));
            }
        }
        self.names.push((name, self.path.clone()));
        Ok(())
    }

    /// An escape outside a class, at its `\` (`\b` and `\B` are assertions, read by
    /// `alternative`).
    fn atom_escape(&mut self) -> Parsed<Hir> {
        let start = self.pos;
        self.pos += 1;
        match self.peek() {
            Some('1'..='9') => Err(self.error(start, PatternErrorKind::BackReference)),
            Some('k') if self.peek_at(1) == Some('<') => {
                Err(self.error(start, PatternErrorKind::BackReference))
            }
            _ => Ok(match self.class_escape(start)? {
                ClassAtom::Char(c) => literal(c),
                ClassAtom::Set(set) => Hir::class(Class::Unicode(set)),
            }),
        }
    }

    /// A character class, at its `[`.
    fn class(&mut self) -> Parsed<ClassUnicode> {
        let start = self.pos;
        self.pos += 1;
        let negated = self.eat('^');
        let mut set = ClassUnicode::empty();
        loop {
            let from = self.pos;
            let first = match self.peek() {
                None => return Err(self.syntax(start, SyntaxError::UnclosedClass)),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => self.class_atom()?,
            };
            if self.peek() == Some('-') && !matches!(self.peek_at(1), None | Some(']')) {
                self.pos += 1;
                let last = self.class_atom()?;
                match (first, last) {
                    (ClassAtom::Char(a), ClassAtom::Char(b)) if a <= b => {
                        set.push(ClassUnicodeRange::new(a, b))
                    }
                    (ClassAtom::Char(_), ClassAtom::Char(_)) => {
                        return Err(self.syntax(from, SyntaxError::RangeOutOfOrder))
                    }
                    _ => return Err(self.syntax(from, SyntaxError::ClassEscapeInRange)),
                }
            } else {
                match first {
                    ClassAtom::Char(c) => set.push(ClassUnicodeRange::new(c, c)),
                    ClassAtom::Set(s) => set.union(&s),
                }
            }
        }
        if negated {
            set.negate();
        }
        Ok(set)
    }

    /// One atom inside a class: a character, or an escape.
    fn class_atom(&mut self) -> Parsed<ClassAtom> {
        let start = self.pos;
        match self.peek() {
            Some('\\') => {
                self.pos += 1;
                match self.peek() {
                    Some('b') => {
                        self.pos += 1;
                        Ok(ClassAtom::Char('\u{8}'))
                    }
                    Some('-') => {
                        self.pos += 1;
                        Ok(ClassAtom::Char('-'))
                    }
                    _ => self.class_escape(start),
                }
            }
            Some(c) => {
                self.pos += 1;
                Ok(ClassAtom::Char(c))
            }
            None => Err(self.syntax(start, SyntaxError::UnclosedClass)),
        }
    }

    /// The escape after a `\` (at `start`) that both classes and atoms have: a class
    /// escape (`\d`, `\p{…}`, …) or a character escape.
    fn class_escape(&mut self, start: usize) -> Parsed<ClassAtom> {
        let Some(c) = self.peek() else {
            return Err(self.syntax(start, SyntaxError::TrailingBackslash));
        };
        self.pos += 1;
        let set = match c {
            'd' | 'D' => ascii_set(&[('0', '9')]),
            'w' | 'W' => ascii_set(&[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')]),
            's' | 'S' => space(),
            'p' | 'P' => self.property(start)?,
            _ => return self.character_escape(start, c).map(ClassAtom::Char),
        };
        let mut set = set;
        if c.is_ascii_uppercase() {
            set.negate();
        }
        Ok(ClassAtom::Set(set))
    }

    /// `\p{…}` after its `p`: `{name}` or `{name=value}`.
    fn property(&mut self, start: usize) -> Parsed<ClassUnicode> {
        if !self.eat('{') {
            return Err(self.syntax(start, SyntaxError::InvalidPropertyEscape));
        }
        let mut name = String::new();
        let mut value: Option<String> = None;
        loop {
            match self.peek() {
                Some('}') => break,
                Some('=') if value.is_none() => value = Some(String::new()),
                Some(c) if c.is_ascii_alphanumeric() || c == '_' => match &mut value {
                    Some(v) => v.push(c),
                    None => name.push(c),
                },
                _ => return Err(self.syntax(start, SyntaxError::InvalidPropertyEscape)),
            }
            self.pos += 1;
        }
        self.pos += 1;
        if name.is_empty() || value.as_ref().is_some_and(String::is_empty) {
            return Err(self.syntax(start, SyntaxError::InvalidPropertyEscape));
        }
        resolve(&name, value.as_deref())
            .and_then(|key| self.property_set(key))
            .ok_or_else(|| self.error(start, PatternErrorKind::UnknownProperty))
    }

    /// A character escape after its `\` (at `start`), `c` the character after the `\`
    /// (already consumed).
    fn character_escape(&mut self, start: usize, c: char) -> Parsed<char> {
        Ok(match c {
            't' => '\t',
            'n' => '\n',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'r' => '\r',
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    char::from(letter as u8 % 32)
                }
                _ => return Err(self.syntax(start, SyntaxError::InvalidControlEscape)),
            },
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => '\0',
            'x' => {
                let value = self.hex_digits(2);
                match value.and_then(char::from_u32) {
                    Some(c) => c,
                    None => return Err(self.syntax(start, SyntaxError::InvalidHexEscape)),
                }
            }
            'u' => self.unicode_escape(start)?,
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => c,
            // `\1` … inside a class, `\B`, `\k`, `\-` outside a class, `\a`, …
            _ => return Err(self.syntax(start, SyntaxError::InvalidEscape(c))),
        })
    }

    /// The set of a canonical `(property, value)`, from the tables the first time.
    fn property_set(&mut self, key: (&'static str, &'static str)) -> Option<ClassUnicode> {
        if let Some((_, set)) = self.properties.iter().find(|(k, _)| *k == key) {
            return Some(set.clone());
        }
        let set = canonical_class(key.0, key.1)?;
        self.properties.push((key, set.clone()));
        Some(set)
    }

    /// ECMAScript's IdentifierStartChar: `$`, `_` or ID_Start.
    fn identifier_start(&mut self, c: char) -> bool {
        match c {
            '$' | '_' => true,
            c if c.is_ascii() => c.is_ascii_alphabetic(),
            c => self
                .property_set(("", "ID_Start"))
                .is_some_and(|set| contains(&set, c)),
        }
    }

    /// ECMAScript's IdentifierPartChar: `$`, ZWNJ, ZWJ or ID_Continue.
    fn identifier_part(&mut self, c: char) -> bool {
        match c {
            '$' | '_' | '\u{200c}' | '\u{200d}' => true,
            c if c.is_ascii() => c.is_ascii_alphanumeric(),
            c => self
                .property_set(("", "ID_Continue"))
                .is_some_and(|set| contains(&set, c)),
        }
    }

    /// Exactly `n` hexadecimal digits, consumed only if all are there.
    fn hex_digits(&mut self, n: usize) -> Option<u32> {
        let mut value = 0;
        for i in 0..n {
            value = value * 16 + self.peek_at(i)?.to_digit(16)?;
        }
        self.pos += n;
        Some(value)
    }

    /// After `\u` (the `\` at `start`): `HHHH`, `{H…}`, or a surrogate pair written as
    /// `HHHH\uHHHH`; a lone surrogate is refused.
    fn unicode_escape(&mut self, start: usize) -> Parsed<char> {
        let value = if self.eat('{') {
            let mut value: u32 = 0;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                value = value.saturating_mul(16).saturating_add(d);
                digits += 1;
                self.pos += 1;
            }
            if digits == 0 || value > 0x10_FFFF || !self.eat('}') {
                return Err(self.syntax(start, SyntaxError::InvalidUnicodeEscape));
            }
            value
        } else {
            let Some(value) = self.hex_digits(4) else {
                return Err(self.syntax(start, SyntaxError::InvalidUnicodeEscape));
            };
            if (0xD800..0xDC00).contains(&value)
                && self.peek() == Some('\\')
                && self.peek_at(1) == Some('u')
            {
                let back = self.pos;
                self.pos += 2;
                match self.hex_digits(4) {
                    Some(low) if (0xDC00..0xE000).contains(&low) => {
                        0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    }
                    _ => {
                        self.pos = back;
                        value
                    }
                }
            } else {
                value
            }
        };
        char::from_u32(value).ok_or_else(|| self.error(start, PatternErrorKind::LoneSurrogate))
    }
}

/// Whether two groups at `a` and `b` (paths of (disjunction, alternative)) are in
/// different alternatives of one disjunction, so at most one of them takes part in a match.
fn separate_alternatives(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .is_some_and(|(x, y)| x.0 == y.0)
}

fn literal(c: char) -> Hir {
    let mut buf = [0; 4];
    Hir::literal(c.encode_utf8(&mut buf).as_bytes())
}

fn ascii_set(ranges: &[(char, char)]) -> ClassUnicode {
    ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
}

/// `.`: anything but the line terminators.
fn dot() -> ClassUnicode {
    let mut set = ascii_set(&[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')]);
    set.negate();
    set
}

/// `\s`: ECMAScript's WhiteSpace (with every Zs) and LineTerminator.
fn space() -> ClassUnicode {
    ascii_set(&[
        ('\t', '\r'),
        (' ', ' '),
        ('\u{a0}', '\u{a0}'),
        ('\u{1680}', '\u{1680}'),
        ('\u{2000}', '\u{200a}'),
        ('\u{2028}', '\u{2029}'),
        ('\u{202f}', '\u{202f}'),
        ('\u{205f}', '\u{205f}'),
        ('\u{3000}', '\u{3000}'),
        ('\u{feff}', '\u{feff}'),
    ])
}

/// Whether `c` is in `set` (its ranges are sorted and disjoint).
fn contains(set: &ClassUnicode, c: char) -> bool {
    set.ranges()
        .binary_search_by(|r| {
            if r.end() < c {
                core::cmp::Ordering::Less
            } else if r.start() > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn lookup(table: &[(&'static str, &'static str)], name: &str) -> Option<&'static str> {
    table
        .binary_search_by(|(alias, _)| (*alias).cmp(name))
        .ok()
        .map(|i| table[i].1)
}

/// The canonical `(property, value)` that `\p{name}` or `\p{name=value}` names (`""` for
/// a binary property), if the names are ECMAScript's exact spelling of a property these
/// tables have.
fn resolve(name: &str, value: Option<&str>) -> Option<(&'static str, &'static str)> {
    Some(match value {
        None => match lookup(names::GENERAL_CATEGORY, name) {
            Some(canonical) => ("gc", canonical),
            None => ("", lookup(names::BINARY, name)?),
        },
        Some(value) => match name {
            "General_Category" | "gc" => ("gc", lookup(names::GENERAL_CATEGORY, value)?),
            "Script" | "sc" => ("sc", lookup(names::SCRIPT, value)?),
            "Script_Extensions" | "scx" => ("scx", lookup(names::SCRIPT, value)?),
            _ => return None,
        },
    })
}

/// The set `\p{name}` or `\p{name=value}` denotes, if `resolve` knows the names.
#[cfg(test)]
fn property_class(name: &str, value: Option<&str>) -> Option<ClassUnicode> {
    let (property, value) = resolve(name, value)?;
    canonical_class(property, value)
}

/// The set of a canonical `(property, value)`.
fn canonical_class(property: &str, value: &str) -> Option<ClassUnicode> {
    match (property, value) {
        // No Rust string holds a surrogate, so regex-syntax has no table for them.
        ("gc", "Surrogate") => Some(ClassUnicode::empty()),
        // regex-syntax has no table for Script=Unknown (Zzzz): it is what no other script
        // has, and Script_Extensions=Unknown is the same set.
        ("sc" | "scx", "Unknown") => {
            let mut known = ClassUnicode::empty();
            for (alias, canonical) in names::SCRIPT {
                if alias == canonical && *canonical != "Unknown" {
                    known.union(&unicode_class("sc", canonical)?);
                }
            }
            known.negate();
            Some(known)
        }
        (property, value) => unicode_class(property, value),
    }
}

/// The class regex-syntax's tables give for `\p{name=value}` (canonical names; `name`
/// empty for a binary property `value`). The AST node is built here rather than parsed
/// from text, so the binary carries regex-syntax's translator and tables but not its
/// parser.
fn unicode_class(name: &str, value: &str) -> Option<ClassUnicode> {
    use regex_syntax::ast::{self, Ast, Position, Span};
    let kind = if name.is_empty() {
        ast::ClassUnicodeKind::Named(String::from(value))
    } else {
        ast::ClassUnicodeKind::NamedValue {
            op: ast::ClassUnicodeOpKind::Equal,
            name: String::from(name),
            value: String::from(value),
        }
    };
    let class = Ast::class_unicode(ast::ClassUnicode {
        span: Span::splat(Position::new(0, 1, 1)),
        negated: false,
        kind,
    });
    let hir = regex_syntax::hir::translate::Translator::new()
        .translate("", &class)
        .ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(set)) => Some(set.clone()),
        HirKind::Class(Class::Bytes(set)) if set.ranges().is_empty() => Some(ClassUnicode::empty()),
        // A one-character set comes back as a literal.
        HirKind::Literal(bytes) => {
            let mut chars = core::str::from_utf8(&bytes.0).ok()?.chars();
            let c = chars.next()?;
            chars.next().is_none().then(|| ascii_set(&[(c, c)]))
        }
        _ => None,
    }
}
