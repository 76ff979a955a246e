use super::*;
use alloc::format;
use alloc::vec::Vec as AllocVec;

/// What an observer is told: every run with its place, each member value of the
/// outermost object as it ends (type, number), and each of that object's keys.
#[derive(Default)]
struct RunLog {
    runs: AllocVec<(AllocVec<u8>, Where)>,
    ends: AllocVec<(JsonType, f64)>,
    keys: AllocVec<AllocVec<u8>>,
}

impl Observer for RunLog {
    fn bytes(&mut self, run: &[u8], at: Where) {
        self.runs.push((run.to_vec(), at));
    }

    fn key(&mut self, key: &[u8]) {
        self.keys.push(key.to_vec());
    }

    fn value_end(&mut self, end: ValueEnd) {
        self.ends.push((end.ty, end.number));
    }
}

#[test]
fn each_member_value_ends_with_its_type_and_a_number_with_its_value() {
    let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
    let mut log = RunLog::default();
    // Values nested inside a member's value are not members: no end of their own.
    let line = br#"{"a":true,"b":false,"c":null,"d":-7,"e":"s","f":[2],"g":{"x":null}}"#;
    lexer.push(line, &mut log).unwrap();
    assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
    assert_eq!(
        log.ends,
        [
            (JsonType::Boolean, 0.0),
            (JsonType::Boolean, 0.0),
            (JsonType::Null, 0.0),
            (JsonType::Number, -7.0),
            (JsonType::String, 0.0),
            (JsonType::Array, 0.0),
            (JsonType::Object, 0.0)
        ]
    );
    // Only the outermost object's keys are told, not `x`.
    let keys: AllocVec<&[u8]> = log.keys.iter().map(|k| &k[..]).collect();
    assert_eq!(keys, [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]);
}

#[test]
fn escaped_and_multibyte_keys_are_read_byte_by_byte_and_told_unescaped() {
    // Keys take the byte-at-a-time path for escapes: each short escape, in order of
    // what it stands for (U+0008, 0009, 000A, 000C, 000D, 0022, 005C).
    let line = br#"{"\b":1,"\t":2,"\n":3,"\f":4,"\r":5,"\"":6,"\\":7}"#;
    let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
    let mut log = RunLog::default();
    lexer.push(line, &mut log).unwrap();
    assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
    let keys: AllocVec<&[u8]> = log.keys.iter().map(|k| &k[..]).collect();
    assert_eq!(keys, [b"\x08", b"\t", b"\n", b"\x0c", b"\r", b"\"", b"\\"]);
    // Multi-byte characters cut between chunks are read byte by byte too, every
    // continuation byte up to the top of its lead's range (BF; 9F after ED; 8F after
    // F4), in a key and in a value.
    let text = "¿\u{d7ff}\u{10ffff}";
    let line = format!(r#"{{"{text}":"{text}"}}"#);
    let mut lexer = Lexer::new(MAX_DEPTH);
    for b in line.bytes() {
        lexer.push(&[b], &mut ()).unwrap();
    }
    assert_eq!(lexer.end(&mut ()), Ok(JsonType::Object));
}

#[test]
fn a_container_closes_only_with_its_own_bracket_where_a_value_may_end() {
    assert_eq!(check_canonical(b"{}", MAX_DEPTH), Ok(()));
    for (wrong, at) in [(&br#"{"a":1]"#[..], 6), (b"[1}", 2), (b"{]", 1)] {
        let e = check_canonical(wrong, MAX_DEPTH).unwrap_err();
        let b = wrong[at];
        assert_eq!(
            (e.offset, e.reason),
            (at, CheckReason::Stop(Stop::Bad(Syntax::UnexpectedByte(b))))
        );
    }
    let e = check_canonical(br#"{"a":1,}"#, MAX_DEPTH).unwrap_err();
    assert_eq!(
        (e.offset, e.reason),
        (
            7,
            CheckReason::Stop(Stop::Bad(Syntax::UnexpectedByte(b'}')))
        )
    );
}

#[test]
fn the_observer_gets_one_run_per_place_and_never_an_empty_one() {
    let line = br#"{"kind":"ab\n","seq":12}"#;
    let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
    let mut log = RunLog::default();
    lexer.push(line, &mut log).unwrap();
    assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
    let runs: AllocVec<(&[u8], Where)> = log.runs.iter().map(|(r, w)| (&r[..], *w)).collect();
    assert_eq!(
        runs,
        [
            (&b"{"[..], Where::Record),
            (b"\"kind\"", Where::Key),
            (b":", Where::Record),
            (b"\"ab\\n\"", Where::Value),
            (b",", Where::Record),
            (b"\"seq\"", Where::Key),
            (b":", Where::Record),
            (b"12", Where::Value),
            (b"}", Where::Record),
        ]
    );
}

#[test]
fn a_document_that_is_not_an_object_is_all_top() {
    let mut lexer = Lexer::new(MAX_DEPTH);
    let mut log = RunLog::default();
    lexer.push(br#"[1,{"a":"b"}]"#, &mut log).unwrap();
    assert_eq!(lexer.end(&mut log), Ok(JsonType::Array));
    assert_eq!(
        log.runs.len(),
        1,
        "one place, one run: {:?}",
        log.runs.len()
    );
    assert_eq!(log.runs[0].1, Where::Top);
    assert_eq!(log.ends, [], "an array has no members");
}

#[test]
fn keys_are_ordered_by_what_their_escapes_stand_for() {
    // A newline (U+000A) sorts before `A`, and `"` (U+0022) before `#`, though their
    // escapes start with a backslash (U+005C), which sorts after both.
    for ok in [r#"{"\n":1,"A":2}"#, r##"{"\"":1,"#":2}"##] {
        assert_eq!(check_canonical(ok.as_bytes(), MAX_DEPTH), Ok(()), "{ok}");
    }
    for swapped in [r#"{"A":1,"\n":2}"#, r##"{"#":1,"\"":2}"##] {
        let e = check_canonical(swapped.as_bytes(), MAX_DEPTH).unwrap_err();
        assert!(
            matches!(e.reason, CheckReason::Stop(Stop::NotCanonical(_))),
            "{swapped}: {e}"
        );
    }
}

#[test]
fn types_and_syntax_errors_read_as_words() {
    let types = [
        JsonType::Object,
        JsonType::Array,
        JsonType::String,
        JsonType::Number,
        JsonType::Boolean,
        JsonType::Null,
    ];
    let words: AllocVec<&str> = types.iter().map(|t| t.with_article()).collect();
    assert_eq!(
        words,
        [
            "an object",
            "an array",
            "a string",
            "a number",
            "a boolean",
            "null"
        ]
    );
    let errors = [
        (Syntax::UnexpectedByte(b'x'), "unexpected character 'x'"),
        (Syntax::UnexpectedByte(b' '), "unexpected byte 0x20"),
        (Syntax::UnexpectedByte(0x01), "unexpected byte 0x01"),
        (Syntax::UnexpectedEnd, "unexpected end of input"),
        (Syntax::InvalidUtf8, "invalid UTF-8"),
        (
            Syntax::ControlCharacter,
            "unescaped control character in a string",
        ),
        (Syntax::InvalidEscape, "invalid escape sequence"),
        (
            Syntax::NonFiniteLiteral,
            "NaN and Infinity are not JSON numbers",
        ),
        (Syntax::InvalidNumber, "malformed number"),
        (Syntax::DuplicateKey, "duplicate object key"),
        (Syntax::TooDeep, "nesting deeper than the limit"),
        (
            Syntax::TrailingCharacters,
            "unexpected data after the value",
        ),
    ];
    for (error, sentence) in errors {
        assert_eq!(format!("{error}"), sentence);
    }
}
