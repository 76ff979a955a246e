//! A strict I-JSON (RFC 7493) parser: everything SPEC section 1 refuses is an error
//! naming what was wrong and the byte offset where it was found.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::{cmp_keys, Object, Value};
use crate::number;

/// The deepest nesting a payload may have: the outermost array or object is depth 1.
///
/// A record line wraps its payload in one more object, so a record may be one deeper.
pub const MAX_DEPTH: usize = 128;

/// The deepest nesting of a record line (a transcript line): its payload may nest
/// [`MAX_DEPTH`] deep and the record object adds one level around it (SPEC section 1).
/// The same as `stream::RECORD_MAX_DEPTH`.
pub const RECORD_MAX_DEPTH: usize = MAX_DEPTH + 1;
const _: () = assert!(RECORD_MAX_DEPTH == crate::stream::RECORD_MAX_DEPTH);
const _: () = assert!(MAX_DEPTH == crate::stream::MAX_DEPTH);

/// What was wrong with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input ended inside a value (or was empty).
    UnexpectedEnd,
    /// A byte that cannot start or continue a value here.
    UnexpectedByte(u8),
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// The input starts with a byte-order mark, which I-JSON forbids.
    ByteOrderMark,
    /// `NaN`, `Infinity` or `-Infinity`, which JSON does not have.
    NonFiniteLiteral,
    /// A raw control character (U+0000..=U+001F) inside a string.
    ControlCharacter,
    /// A backslash escape JSON does not define, or a malformed `\u` escape.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not part of a pair.
    LoneSurrogate,
    /// An object has the same key twice (after unescaping).
    DuplicateKey,
    /// Arrays and objects nest deeper than the limit.
    TooDeep,
    /// A malformed number literal (leading zero, missing digits, …).
    InvalidNumber,
    /// Something other than white space follows the value.
    TrailingCharacters,
    /// An integer literal whose canonical encoding would denote another number
    /// (`9007199254740993` would become `9007199254740992`).
    InexactInteger,
    /// A number outside the range of a double (`1e400`).
    NumberOutOfRange,
    /// A non-zero literal that rounds to zero as a double (`1e-400`).
    NumberUnderflow,
}

impl ParseErrorKind {
    /// Whether the input was read but a number in it has no canonical encoding
    /// (the verifier's `unserialisable_payload`, not `bad_json`).
    pub fn is_unserialisable(self) -> bool {
        matches!(
            self,
            ParseErrorKind::InexactInteger
                | ParseErrorKind::NumberOutOfRange
                | ParseErrorKind::NumberUnderflow
        )
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::UnexpectedEnd => f.write_str("unexpected end of input"),
            ParseErrorKind::UnexpectedByte(b) if b.is_ascii_graphic() => {
                write!(f, "unexpected character '{}'", char::from(*b))
            }
            ParseErrorKind::UnexpectedByte(b) => write!(f, "unexpected byte 0x{b:02x}"),
            ParseErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ParseErrorKind::ByteOrderMark => f.write_str("a byte-order mark is not allowed"),
            ParseErrorKind::NonFiniteLiteral => {
                f.write_str("NaN and Infinity are not JSON numbers")
            }
            ParseErrorKind::ControlCharacter => {
                f.write_str("unescaped control character in a string")
            }
            ParseErrorKind::InvalidEscape => f.write_str("invalid escape sequence"),
            ParseErrorKind::LoneSurrogate => f.write_str("lone UTF-16 surrogate in a string"),
            ParseErrorKind::DuplicateKey => f.write_str("duplicate object key"),
            ParseErrorKind::TooDeep => write!(f, "nesting deeper than the limit"),
            ParseErrorKind::InvalidNumber => f.write_str("malformed number"),
            ParseErrorKind::TrailingCharacters => f.write_str("unexpected data after the value"),
            ParseErrorKind::InexactInteger => f.write_str(
                "integer literal cannot be represented exactly as a double \
                 (send big integers as strings)",
            ),
            ParseErrorKind::NumberOutOfRange => f.write_str("number outside the double range"),
            ParseErrorKind::NumberUnderflow => {
                f.write_str("non-zero number rounds to zero as a double")
            }
        }
    }
}

/// A parse failure: what was wrong, and the byte offset where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// What was wrong.
    pub kind: ParseErrorKind,
    /// 0-based byte offset into the input.
    pub offset: usize,
}

impl ParseError {
    /// 1-based (line, column) of the error in `input`, columns counted in bytes.
    pub fn line_column(&self, input: &[u8]) -> (usize, usize) {
        let before = input.get(..self.offset).unwrap_or(input);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => before.len() - nl,
            None => before.len() + 1,
        };
        (line, column)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

impl core::error::Error for ParseError {}

/// Parser settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Deepest nesting accepted (outermost array or object = 1).
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: MAX_DEPTH,
        }
    }
}

/// Parses one JSON document strictly, with the default [`MAX_DEPTH`].
pub fn parse(input: &[u8]) -> Result<Value, ParseError> {
    parse_with(input, ParseOptions::default())
}

/// Parses one record line (a transcript line, without its `\n`) strictly, as [`parse`]
/// does a document, but with nesting up to [`RECORD_MAX_DEPTH`]: every reader of whole
/// transcript lines uses this, so that it takes every line the verifier takes.
pub fn parse_record_line(line: &[u8]) -> Result<Value, ParseError> {
    parse_with(
        line,
        ParseOptions {
            max_depth: RECORD_MAX_DEPTH,
        },
    )
}

/// Parses one JSON document strictly.
pub fn parse_with(input: &[u8], options: ParseOptions) -> Result<Value, ParseError> {
    let (value, number_issue) = parse_inner(input, options.max_depth, false)?;
    match number_issue {
        Some(err) => Err(err),
        None => Ok(value),
    }
}

/// Parses, but reads on past numbers that have no canonical encoding, keeping the
/// nearest double, and returns the first such problem beside the value. Syntax errors
/// are still errors. The verifier uses this to check the rest of such a record.
pub(crate) fn parse_tolerant(
    input: &[u8],
    max_depth: usize,
) -> Result<(Value, Option<ParseError>), ParseError> {
    parse_inner(input, max_depth, true)
}

fn parse_inner(
    input: &[u8],
    max_depth: usize,
    tolerant: bool,
) -> Result<(Value, Option<ParseError>), ParseError> {
    let text = core::str::from_utf8(input).map_err(|e| ParseError {
        kind: ParseErrorKind::InvalidUtf8,
        offset: e.valid_up_to(),
    })?;
    if text.starts_with('\u{feff}') {
        return Err(ParseError {
            kind: ParseErrorKind::ByteOrderMark,
            offset: 0,
        });
    }
    let mut p = Parser {
        text,
        bytes: input,
        pos: 0,
        depth: 0,
        max_depth,
        tolerant,
        number_issue: None,
    };
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    if p.pos != input.len() {
        return Err(p.err(ParseErrorKind::TrailingCharacters));
    }
    Ok((value, p.number_issue))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    tolerant: bool,
    number_issue: Option<ParseError>,
}

impl Parser<'_> {
    fn err(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            kind,
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn unexpected(&self) -> ParseError {
        match self.peek() {
            None => self.err(ParseErrorKind::UnexpectedEnd),
            Some(b) => self.err(ParseErrorKind::UnexpectedByte(b)),
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), ParseError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn literal(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected())
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
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

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.err(ParseErrorKind::TooDeep));
        }
        self.pos += 1;
        Ok(())
    }

    fn array(&mut self) -> Result<Value, ParseError> {
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
    fn object(&mut self) -> Result<Value, ParseError> {
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
                                return Err(ParseError {
                                    kind: ParseErrorKind::DuplicateKey,
                                    offset: key_at,
                                });
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

    fn string(&mut self) -> Result<String, ParseError> {
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
    fn escape(&mut self) -> Result<char, ParseError> {
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

    fn hex4(&self, at: usize) -> Result<u16, ParseError> {
        let digits = self.bytes.get(at..at + 4).ok_or(ParseError {
            kind: ParseErrorKind::InvalidEscape,
            offset: at,
        })?;
        let mut value = 0u16;
        for &d in digits {
            let n = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => {
                    return Err(ParseError {
                        kind: ParseErrorKind::InvalidEscape,
                        offset: at,
                    })
                }
            };
            value = (value << 4) | u16::from(n);
        }
        Ok(value)
    }

    /// Reads `\uXXXX` (and its low surrogate partner) starting at the backslash.
    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let at = self.pos;
        let unit = self.hex4(at + 2)?;
        let lone = ParseError {
            kind: ParseErrorKind::LoneSurrogate,
            offset: at,
        };
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

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, ParseError> {
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
        let value = number::parse_f64(literal).ok_or(ParseError {
            kind: ParseErrorKind::InvalidNumber,
            offset: start,
        })?;
        if let Some(kind) = number_problem(literal.as_bytes(), value, integer) {
            let issue = ParseError {
                kind,
                offset: start,
            };
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
fn sort_members(members: &mut [(String, Value)], offsets: &[usize]) -> Result<(), ParseError> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    // Stable: equal keys stay in input order, so the later of a pair is the repeat.
    order.sort_by(|&a, &b| cmp_keys(&members[a].0, &members[b].0));
    let repeat = order
        .windows(2)
        .filter(|pair| members[pair[0]].0 == members[pair[1]].0)
        .map(|pair| pair[1])
        .min();
    if let Some(i) = repeat {
        return Err(ParseError {
            kind: ParseErrorKind::DuplicateKey,
            offset: offsets.get(i).copied().unwrap_or_default(),
        });
    }
    members.sort_unstable_by(|a, b| cmp_keys(&a.0, &b.0));
    Ok(())
}

/// Why a syntactically valid literal has no canonical encoding, if it has none.
fn number_problem(literal: &[u8], value: f64, integer: bool) -> Option<ParseErrorKind> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn kind(input: &str) -> ParseErrorKind {
        parse(input.as_bytes()).unwrap_err().kind
    }

    #[test]
    fn accepts_ordinary_json() {
        let v =
            parse(br#" {"b":[1,2.5,-3e2,true,false,null],"a":"x\u00e9\ud83d\ude00\n"} "#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.get("a").unwrap().as_str(), Some("xé😀\n"));
        assert_eq!(
            o.get("b"),
            Some(&Value::Array(vec![
                Value::Number(1.0),
                Value::Number(2.5),
                Value::Number(-300.0),
                Value::Bool(true),
                Value::Bool(false),
                Value::Null
            ]))
        );
    }

    #[test]
    fn refuses_what_spec_section_1_refuses() {
        assert_eq!(kind(r#"{"a":1,"a":2}"#), ParseErrorKind::DuplicateKey);
        assert_eq!(kind(r#"{"a":1,"\u0061":2}"#), ParseErrorKind::DuplicateKey);
        assert_eq!(kind(r#"{"b":1,"a":2,"b":3}"#), ParseErrorKind::DuplicateKey);
        assert_eq!(kind(r#""\ud800""#), ParseErrorKind::LoneSurrogate);
        assert_eq!(kind(r#""\udc00""#), ParseErrorKind::LoneSurrogate);
        assert_eq!(kind(r#""\ud800\u0041""#), ParseErrorKind::LoneSurrogate);
        assert_eq!(kind("\u{feff}{}"), ParseErrorKind::ByteOrderMark);
        assert_eq!(kind("NaN"), ParseErrorKind::NonFiniteLiteral);
        assert_eq!(kind("[Infinity]"), ParseErrorKind::NonFiniteLiteral);
        assert_eq!(kind("-Infinity"), ParseErrorKind::NonFiniteLiteral);
        assert_eq!(kind("9007199254740993"), ParseErrorKind::InexactInteger);
        assert_eq!(kind("1152921504606846976"), ParseErrorKind::InexactInteger);
        assert_eq!(kind("1e400"), ParseErrorKind::NumberOutOfRange);
        assert_eq!(kind("-1e400"), ParseErrorKind::NumberOutOfRange);
        assert_eq!(kind("1e-400"), ParseErrorKind::NumberUnderflow);
        assert_eq!(kind(""), ParseErrorKind::UnexpectedEnd);
        assert_eq!(kind("01"), ParseErrorKind::InvalidNumber);
        assert_eq!(kind("1."), ParseErrorKind::InvalidNumber);
        assert_eq!(kind("-"), ParseErrorKind::InvalidNumber);
        assert_eq!(kind("1e"), ParseErrorKind::InvalidNumber);
        assert_eq!(kind("+1"), ParseErrorKind::UnexpectedByte(b'+'));
        assert_eq!(kind("[1,]"), ParseErrorKind::UnexpectedByte(b']'));
        assert_eq!(kind("{} x"), ParseErrorKind::TrailingCharacters);
        assert_eq!(kind("\"a\tb\""), ParseErrorKind::ControlCharacter);
        assert_eq!(kind(r#""\x""#), ParseErrorKind::InvalidEscape);
        assert_eq!(kind(r#""\u12g4""#), ParseErrorKind::InvalidEscape);
        assert_eq!(kind("\"abc"), ParseErrorKind::UnexpectedEnd);
        assert_eq!(kind("tru"), ParseErrorKind::UnexpectedByte(b't'));
        let invalid_utf8 = parse(b"\"\xff\"").unwrap_err();
        assert_eq!(invalid_utf8.kind, ParseErrorKind::InvalidUtf8);
        assert_eq!(invalid_utf8.offset, 1);
    }

    #[test]
    fn keeps_integers_that_survive() {
        for lit in [
            "9007199254740992",
            "100000000000000000000",
            "1152921504606847000",
            "1000000000000000000000",
            "-0",
            "0",
        ] {
            assert!(parse(lit.as_bytes()).is_ok(), "{lit}");
        }
        // A literal with a fraction or exponent is an ordinary double, rounded.
        assert_eq!(
            parse(b"9007199254740993.0").unwrap(),
            Value::Number(9007199254740992.0)
        );
        assert_eq!(parse(b"0e-400").unwrap(), Value::Number(0.0));
    }

    #[test]
    fn depth_counts_nesting_not_siblings() {
        let arrays = alloc::format!("[{}[]]", "[],".repeat(300));
        assert!(parse(arrays.as_bytes()).is_ok());
        let members: alloc::string::String =
            (0..300).map(|i| alloc::format!("\"k{i}\":{{}},")).collect();
        let objects = alloc::format!("{{{members}\"z\":{{}}}}");
        assert!(parse(objects.as_bytes()).is_ok());
    }

    #[test]
    fn errors_at_the_end_of_input_point_past_the_last_byte() {
        let err = parse(b"\"\\").unwrap_err();
        assert_eq!((err.kind, err.offset), (ParseErrorKind::UnexpectedEnd, 2));
        let err = parse(b"\"\\udc00\"").unwrap_err();
        assert_eq!((err.kind, err.offset), (ParseErrorKind::LoneSurrogate, 1));
    }

    #[test]
    fn kinds_say_which_fault_they_become() {
        for kind in [
            ParseErrorKind::InexactInteger,
            ParseErrorKind::NumberOutOfRange,
            ParseErrorKind::NumberUnderflow,
        ] {
            assert!(kind.is_unserialisable(), "{kind}");
        }
        for kind in [
            ParseErrorKind::DuplicateKey,
            ParseErrorKind::InvalidNumber,
            ParseErrorKind::NonFiniteLiteral,
            ParseErrorKind::LoneSurrogate,
        ] {
            assert!(!kind.is_unserialisable(), "{kind}");
        }
        assert_eq!(
            alloc::format!("{}", parse(b"+1").unwrap_err()),
            "unexpected character '+' at byte 0"
        );
        assert_eq!(
            alloc::format!("{}", parse(b"[\x01]").unwrap_err()),
            "unexpected byte 0x01 at byte 1"
        );
    }

    #[test]
    fn depth_limit_is_exact() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(ok.as_bytes()).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let err = parse(deep.as_bytes()).unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::TooDeep);
        assert_eq!(err.offset, MAX_DEPTH);
        // A record line is one level deeper than a payload may be.
        assert!(parse_record_line(deep.as_bytes()).is_ok());
        let deeper = "[".repeat(RECORD_MAX_DEPTH + 1) + &"]".repeat(RECORD_MAX_DEPTH + 1);
        let err = parse_record_line(deeper.as_bytes()).unwrap_err();
        assert_eq!(
            (err.kind, err.offset),
            (ParseErrorKind::TooDeep, RECORD_MAX_DEPTH)
        );
        let objects = "{\"a\":".repeat(3) + "1" + &"}".repeat(3);
        assert!(parse_with(objects.as_bytes(), ParseOptions { max_depth: 3 }).is_ok());
        assert_eq!(
            parse_with(objects.as_bytes(), ParseOptions { max_depth: 2 })
                .unwrap_err()
                .kind,
            ParseErrorKind::TooDeep
        );
    }

    #[test]
    fn errors_say_where() {
        let err = parse(b"{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::DuplicateKey);
        assert_eq!(err.line_column(b"{\n  \"a\": 1,\n  \"a\": 2\n}"), (3, 3));
        assert_eq!(alloc::format!("{err}"), "duplicate object key at byte 14");
    }

    #[test]
    fn tolerant_mode_reads_past_bad_numbers() {
        let (value, issue) = parse_tolerant(br#"{"a":1e400,"b":9007199254740993}"#, 4).unwrap();
        assert_eq!(issue.unwrap().kind, ParseErrorKind::NumberOutOfRange);
        assert_eq!(
            value.as_object().unwrap().get("b"),
            Some(&Value::Number(9007199254740992.0))
        );
        assert!(parse_tolerant(b"{\"a\":}", 4).is_err());
    }
}
