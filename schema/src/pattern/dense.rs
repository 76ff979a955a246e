//! The fully compiled DFA a small pattern also gets: the same search as the lazy DFA,
//! one table lookup a byte and no cache.

use alloc::vec::Vec;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::Hir;

use super::{MAX_DENSE_DFA_BYTES, MAX_DENSE_NFA_STATES};

/// The most heap the Thompson NFA built to try a fully compiled DFA may take: more than
/// an automaton of [`MAX_DENSE_NFA_STATES`] states takes (each a few dozen bytes), so a
/// larger pattern is found too large in a moment instead of being compiled whole twice.
const MAX_DENSE_NFA_BYTES: usize = 128 << 10;

/// A fully compiled DFA of a pattern's search ([`super::search_of`]) and its start state.
///
/// It has no quit state: it is built with no quit byte, and a Unicode word boundary,
/// which would need them, makes the builder fail (the translation's `\b` is ASCII's).
#[derive(Clone)]
pub(super) struct Dense {
    pub(super) dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Dense {
    /// The DFA for `hir`, if its automaton fits [`MAX_DENSE_NFA_STATES`] and its table
    /// fits [`MAX_DENSE_DFA_BYTES`]; with, for a table given up at that bound, the bytes
    /// building it may have taken (the table and the determinizer's own memory, each
    /// bounded by it), which nothing keeps; else 0.
    pub(super) fn build(hir: &Hir, anchored: Anchored) -> (Option<Dense>, usize) {
        let Ok(nfa) = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(MAX_DENSE_NFA_BYTES))
                    .which_captures(WhichCaptures::None),
            )
            .build_from_hir(hir)
        else {
            return (None, 0);
        };
        if nfa.states().len() > MAX_DENSE_NFA_STATES {
            return (None, 0);
        }
        let table = MAX_DENSE_DFA_BYTES;
        let built = dense::Builder::new()
            .configure(
                dense::Config::new()
                    // Whether any match exists: every match, no preference among them.
                    .match_kind(MatchKind::All)
                    .start_kind(match anchored {
                        Anchored::No => StartKind::Unanchored,
                        _ => StartKind::Anchored,
                    })
                    .accelerate(false)
                    .minimize(false)
                    .dfa_size_limit(Some(table))
                    .determinize_size_limit(Some(table)),
            )
            .build_from_nfa(&nfa);
        let Ok(dfa) = built else {
            return (None, 2 * table);
        };
        match dfa.start_state(&start::Config::new().anchored(anchored)) {
            Ok(start) => (Some(Dense { dfa, start }), 0),
            Err(_) => (None, 2 * table),
        }
    }

    /// The heap the table takes, as regex-automata reports it, and this value's own.
    pub(super) fn memory_usage(&self) -> usize {
        self.dfa.memory_usage() + core::mem::size_of::<Dense>()
    }

    /// Whether the search finds a match in `text`: a match state reached after any
    /// byte or at the end.
    #[inline]
    pub(super) fn is_match(&self, text: &str) -> bool {
        let dfa = &self.dfa;
        let mut state = self.start;
        for &byte in text.as_bytes() {
            state = dfa.next_state(state, byte);
            if dfa.is_special_state(state) {
                // A match, or the dead state (there is no quit state).
                return dfa.is_match_state(state);
            }
        }
        dfa.is_match_state(dfa.next_eoi_state(state))
    }
}
