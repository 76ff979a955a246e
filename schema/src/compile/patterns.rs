//! A schema's patterns (`pattern`, the keys of `patternProperties`), compiled within
//! the schema's budget ([`super::MAX_SCHEMA_COMPILED_BYTES`]): each distinct pattern
//! once, each automaton built with what the budget has left as its size limit, so that a
//! schema past its budget is refused after a bounded moment. Many `patternProperties`
//! of one schema object are compiled together ([`PatternGroup`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::values::must_be;
use super::{refuse, Budget, Compiler};
use crate::pattern::{Pattern, PatternError, PatternErrorKind, PatternGroup, Translated};
use crate::tree::{Keywords, PatternMap, GROUP_ABOVE};
use crate::{OverBudget, SchemaError, SchemaErrorKind};
use agentloop_json::__private::path::quoted;
use agentloop_json::Value;

impl Budget {
    /// What is left.
    fn left(&self) -> usize {
        self.limit.saturating_sub(self.spent)
    }

    /// Takes `bytes` for `what` at `pointer`, or refuses it there when fewer are left.
    pub(super) fn take(
        &mut self,
        bytes: usize,
        pointer: &str,
        what: &str,
    ) -> Result<(), SchemaError> {
        if bytes > self.left() {
            return Err(self.refusal(pointer, what));
        }
        self.spent += bytes;
        Ok(())
    }

    /// The refusal at `pointer` of `what` (a sentence's subject), which would pass the
    /// budget.
    fn refusal(&self, pointer: &str, what: &str) -> SchemaError {
        SchemaError {
            pointer: String::from(pointer),
            message: format!(
                "{what} would bring the schema's compiled form (its subschemas and the \
                 automata of its patterns) to more than its budget of {} bytes ({} bytes \
                 taken before)",
                self.limit, self.spent
            ),
            kind: SchemaErrorKind::OverBudget(OverBudget {
                budget: self.limit,
                spent: self.spent,
            }),
        }
    }
}

/// `keyword 'patternProperties': the pattern 'x(' is refused: …`.
fn refused_key(source: &str, error: PatternError) -> String {
    format!(
        "keyword 'patternProperties': the pattern {} is refused: {error}",
        quoted(source)
    )
}

impl Compiler<'_> {
    /// `pattern`: a string the pattern engine accepts, within the budget.
    pub(super) fn pattern(&mut self, value: &Value, at: &str) -> Result<Pattern, SchemaError> {
        let Value::String(source) = value else {
            return Err(must_be(at, "pattern", "a string", value));
        };
        self.alone(source, at, "keyword 'pattern': ", |e| {
            format!("keyword 'pattern': {} is refused: {e}", quoted(source))
        })
    }

    /// `source` compiled alone within the budget, or the same pattern compiled before;
    /// `subject` starts the sentence of a refusal for the budget, `refused` makes the
    /// others.
    fn alone(
        &mut self,
        source: &str,
        at: &str,
        subject: &str,
        refused: impl Fn(PatternError) -> String,
    ) -> Result<Pattern, SchemaError> {
        if let Some(pattern) = self.patterns.get(source) {
            return Ok(pattern.clone());
        }
        match Pattern::compile_within(source, self.budget.left()) {
            Ok(pattern) => {
                self.budget.spent += pattern.compiled_bytes();
                self.patterns.insert(String::from(source), pattern.clone());
                Ok(pattern)
            }
            Err(e) if e.kind == PatternErrorKind::OverBudget => Err(self
                .budget
                .refusal(at, &format!("{subject}{}", quoted(source)))),
            Err(e) => Err(refuse(at, refused(e))),
        }
    }

    /// `patternProperties`: an object whose names are patterns and members schemas. Each
    /// pattern is compiled alone, or, when there are more than [`GROUP_ABOVE`], those
    /// that may ([`Translated::joins_group`]) into one automaton.
    pub(super) fn pattern_properties(
        &mut self,
        value: &Value,
        at: &mut String,
        two: usize,
        k: &mut Keywords,
    ) -> Result<(), SchemaError> {
        let key = "patternProperties";
        let Value::Object(members) = value else {
            return Err(must_be(
                at,
                key,
                "an object whose members are schemas",
                value,
            ));
        };
        let many = members.len() > GROUP_ABOVE;
        let mut map = PatternMap::default();
        let mut group = Vec::new();
        for (source, member) in members.iter() {
            let translated = if many {
                let t = Translated::new(source).map_err(|e| refuse(at, refused_key(source, e)))?;
                Some(t).filter(Translated::joins_group)
            } else {
                None
            };
            match translated {
                Some(t) => {
                    let node = self.child(member, key, at, source, two)?;
                    map.push_grouped(source, group.len(), node);
                    group.push(t);
                }
                None => {
                    let subject = "keyword 'patternProperties': the pattern ";
                    let pattern = self.alone(source, at, subject, |e| refused_key(source, e))?;
                    let node = self.child(member, key, at, source, two)?;
                    map.push_alone(pattern, node);
                }
            }
        }
        if !group.is_empty() {
            let automaton = PatternGroup::compile(&group, self.budget.left()).map_err(|_| {
                let what = format!(
                    "keyword 'patternProperties': its {} patterns compiled together",
                    group.len()
                );
                self.budget.refusal(at, &what)
            })?;
            self.budget.spent += automaton.compiled_bytes();
            map.set_group(automaton);
        }
        k.pattern_properties = map;
        Ok(())
    }
}
