//! The recursive-descent parser: one pass over the bytes, a value tree out, the first error with its offset.

use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::number;
use crate::{cmp_keys, Object, Value};

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) depth: usize,
    pub(super) max_depth: usize,
    pub(super) tolerant: bool,
    pub(super) number_issue: Option<ParseError>,
}

impl Parser<'_> {
    pub(super) fn err(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::new(kind, self.pos)
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    pub(super) fn unexpected(&self) -> ParseError {
        match self.peek() {
            None => self.err(ParseErrorKind::UnexpectedEnd),
            Some(b) => self.err(ParseErrorKind::UnexpectedByte(b)),
        }
    }

    pub(super) fn expect(&mut self, byte: u8) -> Result<(), ParseError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn literal(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn value(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'N' | b'I') => Err(self.err(ParseErrorKind::NonFiniteLiteral)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.err(ParseErrorKind::TooDeep));
        }
        self.pos += 1;
        Ok(())
    }

    pub(super) fn array(&mut self) -> Result<Value, ParseError> {
        self.enter()?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                items.push(self.value()?);
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.unexpected()),
                }
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    /// Reads an object. Members in canonical order (the common case, and every canonical
    /// line) are appended as they come; once a key arrives out of order the members are
    /// sorted once at the end, so an object with keys in any order costs O(n log n),
    /// never O(n^2) (a 16 MiB line of reversed keys must not stall a verifier).
    pub(super) fn object(&mut self) -> Result<Value, ParseError> {
        self.enter()?;
        let mut members: Vec<(String, Value)> = Vec::new();
        // Where each key starts, to name a duplicate; kept once order is broken.
        let mut key_offsets: Vec<usize> = Vec::new();
        let mut sorted = true;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                let key_at = self.pos;
                if self.peek() != Some(b'"') {
                    return Err(self.unexpected());
                }
                let key = self.string()?;
                self.skip_ws();
                self.expect(b':')?;
                self.skip_ws();
                let value = self.value()?;
                if sorted {
                    match members.last() {
                        Some((last, _)) if !cmp_keys(last, &key).is_lt() => {
                            if *last == key {
                                return Err(ParseError::new(ParseErrorKind::DuplicateKey, key_at));
                            }
                            sorted = false;
                            // Keys so far were strictly increasing: none of them is a
                            // second occurrence, so their offsets are never reported.
                            key_offsets.resize(members.len(), 0);
                            key_offsets.push(key_at);
                        }
                        _ => {}
                    }
                } else {
                    key_offsets.push(key_at);
                }
                members.push((key, value));
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.unexpected()),
                }
            }
        }
        self.depth -= 1;
        if !sorted {
            sort_members(&mut members, &key_offsets)?;
        }
        Ok(Value::Object(Object::from_sorted_unique(members)))
    }

    pub(super) fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // `start` and `pos` sit on ASCII bytes or the ends, so on char boundaries.
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let c = self.escape()?;
                    out.push(c);
                }
                Some(_) => return Err(self.err(ParseErrorKind::ControlCharacter)),
                None => return Err(self.err(ParseErrorKind::UnexpectedEnd)),
            }
        }
    }

    /// Reads one escape starting at the backslash.
    pub(super) fn escape(&mut self) -> Result<char, ParseError> {
        let at = self.pos;
        let c = match self.bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(),
            Some(_) => return Err(self.err(ParseErrorKind::InvalidEscape)),
            None => {
                self.pos = at + 1;
                return Err(self.err(ParseErrorKind::UnexpectedEnd));
            }
        };
        self.pos = at + 2;
        Ok(c)
    }

    pub(super) fn hex4(&self, at: usize) -> Result<u16, ParseError> {
        let digits = self
            .bytes
            .get(at..at + 4)
            .ok_or(ParseError::new(ParseErrorKind::InvalidEscape, at))?;
        let mut value = 0u16;
        for &d in digits {
            let n = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(ParseError::new(ParseErrorKind::InvalidEscape, at)),
            };
            value = (value << 4) | u16::from(n);
        }
        Ok(value)
    }

    /// Reads `\uXXXX` (and its low surrogate partner) starting at the backslash.
    pub(super) fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let at = self.pos;
        let unit = self.hex4(at + 2)?;
        let lone = ParseError::new(ParseErrorKind::LoneSurrogate, at);
        let code = match unit {
            0xD800..=0xDBFF => {
                let next = at + 6;
                if self.bytes.get(next..next + 2) != Some(b"\\u") {
                    return Err(lone);
                }
                let low = self.hex4(next + 2)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone);
                }
                self.pos = next + 6;
                0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
            }
            // A lone low surrogate (0xDC00..=0xDFFF) is not a char: `from_u32` refuses it.
            _ => {
                self.pos = at + 6;
                u32::from(unit)
            }
        };
        char::from_u32(code).ok_or(lone)
    }

    pub(super) fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    pub(super) fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.peek() == Some(b'I') {
                return Err(self.err(ParseErrorKind::NonFiniteLiteral));
            }
        }
        let int_start = self.pos;
        let int_len = self.digits();
        if int_len == 0 || (int_len > 1 && self.bytes[int_start] == b'0') {
            self.pos = int_start;
            return Err(self.err(ParseErrorKind::InvalidNumber));
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err(ParseErrorKind::InvalidNumber));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err(ParseErrorKind::InvalidNumber));
            }
        }
        let literal = &self.text[start..self.pos];
        let value = number::parse_f64(literal)
            .ok_or(ParseError::new(ParseErrorKind::InvalidNumber, start))?;
        if let Some(kind) = number_problem(literal.as_bytes(), value, integer) {
            let issue = ParseError::new(kind, start);
            if !self.tolerant {
                return Err(issue);
            }
            self.number_issue.get_or_insert(issue);
        }
        Ok(Value::Number(value))
    }
}

/// Sorts an object's members into canonical order; a duplicate key is an error at the
/// first key, in input order, that repeats an earlier one (`offsets[i]` is where member
/// `i`'s key starts).
pub(super) fn sort_members(
    members: &mut [(String, Value)],
    offsets: &[usize],
) -> Result<(), ParseError> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    // Stable: equal keys stay in input order, so the later of a pair is the repeat.
    order.sort_by(|&a, &b| cmp_keys(&members[a].0, &members[b].0));
    let repeat = order
        .windows(2)
        .filter(|pair| members[pair[0]].0 == members[pair[1]].0)
        .map(|pair| pair[1])
        .min();
    if let Some(i) = repeat {
        return Err(ParseError::new(
            ParseErrorKind::DuplicateKey,
            offsets.get(i).copied().unwrap_or_default(),
        ));
    }
    members.sort_unstable_by(|a, b| cmp_keys(&a.0, &b.0));
    Ok(())
}

/// Why a syntactically valid literal has no canonical encoding, if it has none.
pub(super) fn number_problem(literal: &[u8], value: f64, integer: bool) -> Option<ParseErrorKind> {
    if !value.is_finite() {
        return Some(ParseErrorKind::NumberOutOfRange);
    }
    if value == 0.0 {
        return number::literal_is_nonzero(literal).then_some(ParseErrorKind::NumberUnderflow);
    }
    if integer {
        let mut buf = [0u8; 32];
        let len = number::format_f64(value, &mut buf)?;
        if !number::same_decimal_value(literal, &buf[..len]) {
            return Some(ParseErrorKind::InexactInteger);
        }
    }
    None
}
