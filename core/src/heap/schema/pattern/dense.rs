//! The fully compiled DFA a small pattern also gets: the same search as the lazy DFA,
//! one table lookup a byte and no cache.

use alloc::vec::Vec;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::Hir;

use super::{MAX_COMPILED_BYTES, MAX_DENSE_DFA_BYTES, MAX_DENSE_NFA_STATES};

/// A fully compiled DFA of `[^]*?(?:pattern)` and its anchored start state.
#[derive(Clone)]
pub(super) struct Dense {
    pub(super) dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Dense {
    /// The DFA for `hir`, if its automaton and its table fit the bounds and it needs no
    /// quit byte (a Unicode word boundary would; ours are ASCII).
    pub(super) fn build(hir: &Hir) -> Option<Dense> {
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
    pub(super) fn is_match(&self, text: &str) -> Option<bool> {
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
