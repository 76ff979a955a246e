//! The translator's escapes and classes: `\…` outside and inside a class, `[…]`,
//! `\p{…}` and the property sets, `\u` escapes and group-name characters (a second
//! `impl Parser` block; the grammar is in `parse.rs`).

use alloc::string::String;

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir};

use super::classes::{ascii_set, canonical_class, contains, literal, resolve, space};
use super::parse::{Parsed, Parser};
use super::{PatternErrorKind, SyntaxError};

/// One item of a character class: a single character (which can end a range) or a set.
enum ClassAtom {
    Char(char),
    Set(ClassUnicode),
}

impl Parser {
    /// An escape outside a class, at its `\` (`\b` and `\B` are assertions, read by
    /// `alternative`).
    pub(super) fn atom_escape(&mut self) -> Parsed<Hir> {
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
    pub(super) fn class(&mut self) -> Parsed<ClassUnicode> {
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
    pub(super) fn identifier_start(&mut self, c: char) -> bool {
        match c {
            '$' | '_' => true,
            c if c.is_ascii() => c.is_ascii_alphabetic(),
            c => self
                .property_set(("", "ID_Start"))
                .is_some_and(|set| contains(&set, c)),
        }
    }

    /// ECMAScript's IdentifierPartChar: `$`, ZWNJ, ZWJ or ID_Continue.
    pub(super) fn identifier_part(&mut self, c: char) -> bool {
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
    pub(super) fn unicode_escape(&mut self, start: usize) -> Parsed<char> {
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
