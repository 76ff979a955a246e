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

mod classes;
mod dense;
mod error;
mod escape;
mod names;
mod parse;
#[cfg(test)]
mod tests;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use core::fmt;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, Repetition};

use super::work;
use dense::Dense;
pub use error::{LookAround, PatternError, PatternErrorKind, SyntaxError};
use parse::translate;

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
