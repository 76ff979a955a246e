//! The `pattern` / `patternProperties` engine: ECMA-262 regular expressions (the `u`
//! flag's syntax, which JSON Schema draft 2020-12 section 6.4 names) translated into
//! regex-automata's linear-time automata. A schema can never make validation slow: a
//! match costs time linear in the text times the compiled pattern's size, whatever the
//! pattern (`^(a+)+$` included), because nothing backtracks.
//!
//! ```
//! use agentloop_schema::pattern::{Pattern, PatternErrorKind, SyntaxError};
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
//! The syntax accepted, with ECMAScript's meaning, is documented at the crate root
//! (`Patterns`), for users; this module is the engine, hidden from the docs.
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
//! | a schema's patterns together | the schema's budget ([`crate::MAX_SCHEMA_COMPILED_BYTES`]), [`Pattern::compiled_bytes`] each (a pattern written twice counts once) |
//!
//! # How it matches
//!
//! The translation is regex-syntax's HIR, built directly (the pattern is never re-parsed
//! as Rust regex syntax). A small pattern (the realistic ones: `^[a-z0-9-]{1,39}$`, a
//! UUID, an e-mail shape) is compiled to a fully compiled DFA, which matches with one
//! table lookup a byte and no cache; a larger one by regex-automata's meta engine (lazy
//! DFA, PikeVM; no backtracker) with no capture groups (a unit test holds the two to the
//! same answers on every pattern it compiles). The pattern is tried at each code-point
//! index of the text in turn, as ECMAScript's RegExpBuiltinExec does: for nearly every
//! pattern that is regex-automata's own unanchored search, which tries each byte offset
//! (the same, for a pattern that is anchored at the start, cannot match the empty string
//! or has no `\B`); for the others, an anchored search of `[^]*?(?:pattern)` (a byte-wise
//! search would find an empty `\B` match inside a code point's bytes: `\B` on `"aΩb"`).
//!
//! Compiling within a budget ([`Pattern::compile_within`]) builds each automaton with the
//! budget as its size limit and reports what it built ([`Pattern::compiled_bytes`]): what
//! a schema's budget for its compiled form counts ([`crate::MAX_SCHEMA_COMPILED_BYTES`]).

mod classes;
mod dense;
mod error;
mod escape;
mod group;
mod names;
mod parse;
#[cfg(test)]
mod tests;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec;
use core::fmt;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition};

use dense::Dense;
pub use error::{LookAround, PatternError, PatternErrorKind, SyntaxError};
pub(crate) use group::{PatternGroup, Translated, Unfinished};
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
/// `patternProperties`. Compiled once; matching needs only `&self`. A small pattern is
/// a fully compiled DFA, which needs no cache; a larger one is the lazy DFA, where each
/// thread matching at the same time gets a cache from an internal pool. A clone shares
/// the compiled automaton.
#[derive(Clone)]
pub struct Pattern {
    source: String,
    /// The automaton that matches.
    engine: Engine,
    /// How a search starts ([`search_of`]).
    anchored: Anchored,
    /// [`Pattern::compiled_bytes`].
    bytes: usize,
}

/// What matches a pattern.
#[derive(Clone)]
enum Engine {
    /// The fully compiled DFA of a pattern small enough for one.
    Dense(Arc<Dense>),
    /// The meta engine's lazy DFA (and PikeVM), for a larger one.
    Lazy(Regex),
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
        Pattern::compile_within(source, usize::MAX)
    }

    /// Like [`Pattern::compile`], within a budget: refused with
    /// [`PatternErrorKind::OverBudget`] when it would compile to more than `budget`
    /// bytes ([`Pattern::compiled_bytes`]). Each automaton is built with `budget` as its
    /// size limit, so a pattern past it costs a bounded moment, not its whole size:
    /// what a schema's total budget for its patterns rests on.
    pub fn compile_within(source: &str, budget: usize) -> Result<Pattern, PatternError> {
        let (hir, anchored) = search_of(translate(source)?);
        let fixed = core::mem::size_of::<Pattern>() + source.len();
        let limit = budget.saturating_sub(fixed).min(MAX_COMPILED_BYTES);
        let over = |kind| PatternError { kind, position: 0 };
        // An automaton past its limit is the pattern's own fault when the limit was the
        // bound of one pattern, else the budget's.
        let unbuilt = if limit == MAX_COMPILED_BYTES {
            PatternErrorKind::TooLarge
        } else {
            PatternErrorKind::OverBudget
        };
        let (dense, given_up) = Dense::build(&hir, anchored);
        let (engine, bytes) = match dense {
            Some(dense) => {
                let bytes = dense.memory_usage();
                (Engine::Dense(Arc::new(dense)), bytes)
            }
            None => {
                let regex = lazy(&hir, limit).ok_or_else(|| over(unbuilt))?;
                let bytes = regex.memory_usage();
                (Engine::Lazy(regex), bytes)
            }
        };
        let bytes = fixed + given_up + bytes;
        if bytes > budget {
            return Err(over(PatternErrorKind::OverBudget));
        }
        Ok(Pattern {
            source: String::from(source),
            engine,
            anchored,
            bytes,
        })
    }

    /// Whether the pattern matches anywhere in `text` (an unanchored search, as JSON
    /// Schema requires: `b?a` matches `"xxa"`; anchor with `^` and `$` to match the
    /// whole string).
    #[inline]
    pub fn is_match(&self, text: &str) -> bool {
        match &self.engine {
            Engine::Dense(dense) => dense.is_match(text),
            Engine::Lazy(regex) => regex.is_match(Input::new(text).anchored(self.anchored)),
        }
    }

    /// The bytes compiling the pattern built, as regex-automata reports them
    /// (`memory_usage`): the automaton kept (the fully compiled DFA, or the lazy DFA's
    /// two Thompson NFAs and what the meta engine keeps beside them), a fully compiled
    /// DFA given up at [`MAX_DENSE_DFA_BYTES`] (twice that: the table and the
    /// determinizer's memory, the work it took), and the pattern's own
    /// size and text. Not the matching caches of the lazy DFA
    /// ([`MAX_MATCH_CACHE_BYTES`] each at most).
    #[inline]
    pub fn compiled_bytes(&self) -> usize {
        self.bytes
    }

    /// [`Pattern::is_match`] by the lazy DFA, built here for a pattern that has a fully
    /// compiled DFA: so tests can hold the two engines to the same answers.
    #[cfg(test)]
    pub(crate) fn lazy_is_match(&self, text: &str) -> bool {
        let (hir, anchored) = search_of(translate(&self.source).expect("compiled before"));
        let regex = lazy(&hir, MAX_COMPILED_BYTES).expect("compiled before");
        regex.is_match(Input::new(text).anchored(anchored))
    }

    /// The size of the pattern's fully compiled DFA, if it has one (it fits
    /// [`MAX_DENSE_DFA_BYTES`] and [`MAX_DENSE_NFA_STATES`]).
    #[cfg(test)]
    pub(crate) fn dense_bytes(&self) -> Option<usize> {
        match &self.engine {
            Engine::Dense(d) => Some(d.dfa.memory_usage()),
            Engine::Lazy(_) => None,
        }
    }

    /// The pattern as it was written.
    #[inline]
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The search that finds `pattern` where ECMAScript does: at any code-point index of
/// the text (RegExpBuiltinExec tries each in turn).
///
/// regex-automata's own unanchored search tries every byte offset instead, which is the
/// same for a pattern that [`byte_search_is_exact`]: that search it is (the cheaper, for
/// the automaton has no `[^]*?` of its own). Any other pattern is searched for as
/// `[^]*?(?:pattern)`, anchored ([`searched`]).
fn search_of(pattern: Hir) -> (Hir, Anchored) {
    if byte_search_is_exact(&pattern) {
        (pattern, Anchored::No)
    } else {
        (searched(pattern), Anchored::Yes)
    }
}

/// Whether trying `pattern` at every byte offset finds a match exactly when trying it
/// at every code-point index does. A match that reads a character starts where the
/// character does (the automaton reads whole UTF-8 sequences, which start with a lead
/// byte), and the assertions read at code-point indexes agree with ECMAScript's there
/// (`\b` compares ASCII word characters, and the byte before an index is the last of
/// the character before it); so only an empty match at an offset inside a character
/// could be new, and there `^`, `$` and `\b` are false and only `\B` is true. So it is
/// exact when the pattern is anchored at the start (it matches at index 0 or not at
/// all), cannot match the empty string, or has no `\B` (an empty match there would
/// then need no assertion, and so would match at index 0 too).
pub(super) fn byte_search_is_exact(pattern: &Hir) -> bool {
    let properties = pattern.properties();
    properties.look_set_prefix().contains(Look::Start)
        || properties.minimum_len() != Some(0)
        || !properties.look_set().contains(Look::WordAsciiNegate)
}

/// `[^]*?(?:pattern)`: what an anchored search runs to find the pattern at any
/// code-point index.
///
/// regex-automata's own unanchored search moves byte by byte, and an empty `\B` match
/// inside a code point's bytes would hide a real match starting before it (`\B|Ω` on
/// "BΩt").
fn searched(pattern: Hir) -> Hir {
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
    Hir::concat(vec![skip, pattern])
}

/// The meta engine's lazy DFA (and PikeVM) for `hir`, each of its two Thompson NFAs
/// built within `limit` bytes; `None` past it.
fn lazy(hir: &Hir, limit: usize) -> Option<Regex> {
    let config = meta::Config::new()
        .nfa_size_limit(Some(limit))
        .hybrid_cache_capacity(MAX_MATCH_CACHE_BYTES)
        // The meta engine's own dense DFA stays off: [`Dense`] is ours, bounded.
        .dfa(false)
        .which_captures(WhichCaptures::Implicit);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(hir)
        .ok()
}
