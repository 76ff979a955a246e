//! A strict I-JSON (RFC 7493) parser: everything SPEC section 1 refuses is an error
//! naming what was wrong and the byte offset where it was found.

use super::Value;

mod parser;
pub use agentloop_transcript::__private::parse_error::{ParseError, ParseErrorKind};
use parser::*;

// The nesting limits are SPEC section 1's, one for the parser and the streaming lexer:
// defined once, in the lowest crate.
pub use agentloop_transcript::stream::{MAX_DEPTH, RECORD_MAX_DEPTH};

/// Parser settings: [`parse_with`]'s. Internal (`#[doc(hidden)]`, not API): the
/// workspace's tests and fuzzing parse with another depth; a library user parses a
/// document with [`parse`] and a record line with [`parse_record_line`].
#[doc(hidden)]
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

/// Parses one JSON document strictly, nesting up to `options.max_depth`. Internal
/// (`#[doc(hidden)]`, not API): [`parse`] and [`parse_record_line`] are the two depths
/// the format has; the workspace's tests and fuzzing build deeper or shallower
/// documents with this.
#[doc(hidden)]
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
pub fn parse_tolerant(
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
    let text = core::str::from_utf8(input)
        .map_err(|e| ParseError::new(ParseErrorKind::InvalidUtf8, e.valid_up_to()))?;
    if text.starts_with('\u{feff}') {
        return Err(ParseError::new(ParseErrorKind::ByteOrderMark, 0));
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn kind(input: &str) -> ParseErrorKind {
        parse(input.as_bytes()).unwrap_err().kind()
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
        assert_eq!(invalid_utf8.kind(), ParseErrorKind::InvalidUtf8);
        assert_eq!(invalid_utf8.offset(), 1);
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
        assert_eq!(
            (err.kind(), err.offset()),
            (ParseErrorKind::UnexpectedEnd, 2)
        );
        let err = parse(b"\"\\udc00\"").unwrap_err();
        assert_eq!(
            (err.kind(), err.offset()),
            (ParseErrorKind::LoneSurrogate, 1)
        );
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
        // The questions a caller asks of the error itself.
        for (input, unserialisable, too_deep) in [
            (&b"1e400"[..], true, false),
            (b"9007199254740993", true, false),
            (b"[[1]]", false, true),
            (b"{\"a\":1,\"a\":2}", false, false),
        ] {
            let err = parse_with(input, ParseOptions { max_depth: 1 }).unwrap_err();
            assert_eq!(err.is_unserialisable(), unserialisable, "{err}");
            assert_eq!(err.is_too_deep(), too_deep, "{err}");
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
        assert_eq!(err.kind(), ParseErrorKind::TooDeep);
        assert_eq!(err.offset(), MAX_DEPTH);
        // A record line is one level deeper than a payload may be.
        assert!(parse_record_line(deep.as_bytes()).is_ok());
        let deeper = "[".repeat(RECORD_MAX_DEPTH + 1) + &"]".repeat(RECORD_MAX_DEPTH + 1);
        let err = parse_record_line(deeper.as_bytes()).unwrap_err();
        assert_eq!(
            (err.kind(), err.offset()),
            (ParseErrorKind::TooDeep, RECORD_MAX_DEPTH)
        );
        let objects = "{\"a\":".repeat(3) + "1" + &"}".repeat(3);
        assert!(parse_with(objects.as_bytes(), ParseOptions { max_depth: 3 }).is_ok());
        assert_eq!(
            parse_with(objects.as_bytes(), ParseOptions { max_depth: 2 })
                .unwrap_err()
                .kind(),
            ParseErrorKind::TooDeep
        );
    }

    #[test]
    fn errors_say_where() {
        let err = parse(b"{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::DuplicateKey);
        assert_eq!(err.line_column(b"{\n  \"a\": 1,\n  \"a\": 2\n}"), (3, 3));
        assert_eq!(alloc::format!("{err}"), "duplicate object key at byte 14");
    }

    #[test]
    fn tolerant_mode_reads_past_bad_numbers() {
        let (value, issue) = parse_tolerant(br#"{"a":1e400,"b":9007199254740993}"#, 4).unwrap();
        assert_eq!(issue.unwrap().kind(), ParseErrorKind::NumberOutOfRange);
        assert_eq!(
            value.as_object().unwrap().get("b"),
            Some(&Value::Number(9007199254740992.0))
        );
        assert!(parse_tolerant(b"{\"a\":}", 4).is_err());
    }
}
