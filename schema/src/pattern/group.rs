//! Many patterns in one automaton that says which of them match a text: the keys of a
//! `patternProperties` that has many, so that a member name is read once, not once per
//! pattern.
//!
//! A group searches the way regex-automata's unanchored search does, trying a match at
//! every byte, which is ECMAScript's trying it at every code-point index for the
//! patterns that may join ([`super::byte_search_is_exact`]); the others (an unanchored
//! `\B` that can match the empty string) stay alone.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::panic::{RefUnwindSafe, UnwindSafe};

use regex_automata::hybrid::dfa::{Cache, OverlappingState, DFA};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::{Input, MatchKind};
use regex_syntax::hir::Hir;

use super::parse::translate;
use super::{byte_search_is_exact, PatternError, PatternErrorKind, MAX_MATCH_CACHE_BYTES};

/// A pattern translated, not yet compiled: alone, or into a [`PatternGroup`].
pub(crate) struct Translated(Hir);

impl Translated {
    /// Translates `source`, refusing it as [`super::Pattern::compile`] would.
    pub(crate) fn new(source: &str) -> Result<Translated, PatternError> {
        translate(source).map(Translated)
    }

    /// Whether the pattern may join a group: a search at every byte offset finds it
    /// where ECMAScript would ([`super::byte_search_is_exact`]).
    pub(crate) fn joins_group(&self) -> bool {
        byte_search_is_exact(&self.0)
    }
}

/// How the pool makes a cache for a thread matching at the same time as others.
type MakeCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Patterns compiled into one automaton: regex-automata's lazy DFA over all of them at
/// once, whose overlapping search reports each pattern that matches (each thread
/// matching at the same time gets a cache from a pool).
#[derive(Clone)]
pub(crate) struct PatternGroup {
    dfa: DFA,
    caches: Arc<Pool<Cache, MakeCache>>,
    bytes: usize,
}

impl core::fmt::Debug for PatternGroup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PatternGroup")
            .field("patterns", &self.len())
            .finish()
    }
}

/// The search could not finish (the lazy DFA quit, which its configuration rules
/// out): whether a pattern matches is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unfinished;

impl PatternGroup {
    /// Compiles `members` (each of which [`Translated::joins_group`]) into one automaton,
    /// its pattern `i` being `members[i]`; refused with
    /// [`PatternErrorKind::OverBudget`] when it would take more than `budget` bytes
    /// (its Thompson NFA is built within `budget`).
    pub(crate) fn compile(
        members: &[Translated],
        budget: usize,
    ) -> Result<PatternGroup, PatternError> {
        let over = PatternError {
            kind: PatternErrorKind::OverBudget,
            position: 0,
        };
        let hirs: Vec<&Hir> = members.iter().map(|t| &t.0).collect();
        let fixed = core::mem::size_of::<PatternGroup>();
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(budget.saturating_sub(fixed)))
                    .which_captures(WhichCaptures::None),
            )
            .build_many_from_hir(&hirs)
            .map_err(|_| over)?;
        let bytes = fixed + nfa.memory_usage();
        if bytes > budget {
            return Err(over);
        }
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    // Every pattern that matches, not the leftmost first.
                    .match_kind(MatchKind::All)
                    .cache_capacity(MAX_MATCH_CACHE_BYTES)
                    // Past the capacity, the cache is cleared and the search goes on:
                    // it never gives up.
                    .minimum_cache_clear_count(None),
            )
            .build_from_nfa(nfa)
            .map_err(|_| over)?;
        let make = dfa.clone();
        let make: MakeCache = Box::new(move || make.create_cache());
        Ok(PatternGroup {
            dfa,
            caches: Arc::new(Pool::new(make)),
            bytes,
        })
    }

    /// How many patterns the group holds.
    pub(crate) fn len(&self) -> usize {
        self.dfa.pattern_len()
    }

    /// The bytes the group's automaton takes (its Thompson NFA, as regex-automata
    /// reports it; the lazy DFA builds its states in the matching caches), and the
    /// group's own.
    pub(crate) fn compiled_bytes(&self) -> usize {
        self.bytes
    }

    /// Calls `found` with each pattern that matches somewhere in `text`, as often as the
    /// search reports it (at each end of a match; a pattern may come more than once).
    pub(crate) fn matching(
        &self,
        text: &str,
        mut found: impl FnMut(usize),
    ) -> Result<(), Unfinished> {
        let mut cache = self.caches.get();
        let input = Input::new(text);
        let mut state = OverlappingState::start();
        loop {
            self.dfa
                .try_search_overlapping_fwd(&mut cache, &input, &mut state)
                .map_err(|_| Unfinished)?;
            match state.get_match() {
                Some(m) => found(m.pattern().as_usize()),
                None => return Ok(()),
            }
        }
    }
}
