//! The translator's grammar: a recursive-descent [`Parser`] over the pattern's code
//! points (disjunctions, alternatives, quantifiers, groups and their names), building
//! regex-syntax's HIR directly. Escapes and classes are in `escape.rs`.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use regex_syntax::hir::{Class, ClassUnicode, Hir, Look, Repetition};

use super::classes::{dot, literal, separate_alternatives};
use super::{
    LookAround, PatternError, PatternErrorKind, SyntaxError, MAX_GROUP_DEPTH, MAX_PATTERN_CHARS,
};

/// Parses `source` as an ECMA-262 `u`-mode pattern into regex-syntax's HIR.
pub(super) fn translate(source: &str) -> Result<Hir, PatternError> {
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

/// A recursive-descent parser over the pattern's code points, building the HIR directly.
pub(super) struct Parser {
    chars: Vec<char>,
    pub(super) pos: usize,
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
    pub(super) properties: Vec<((&'static str, &'static str), ClassUnicode)>,
}

pub(super) type Parsed<T> = Result<T, PatternError>;

impl Parser {
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn error(&self, position: usize, kind: PatternErrorKind) -> PatternError {
        PatternError { kind, position }
    }

    pub(super) fn syntax(&self, position: usize, error: SyntaxError) -> PatternError {
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
}
