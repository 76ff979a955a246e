//! The fast path against the byte-at-a-time checker: on any bytes, in any chunking,
//! [`Lexer::push`] (the clean-prefix scan, the wide string scans and the grammar-shaped
//! steps of `fast.rs`) must tell the observer the same things, in the same order, and
//! stop at the same byte for the same reason as giving every byte to [`Lexer::byte`].

use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::events::{Observer, Runs, ValueEnd, Where};
use super::state::Num;
use super::*;

/// One thing the observer was told. Adjacent runs in the same place are joined (how a
/// place's bytes are cut into runs depends on the chunking, not on the path).
#[derive(Debug, Clone, PartialEq)]
enum Told {
    Bytes(Where, Vec<u8>),
    Key(Vec<u8>),
    End(JsonType, u64),
    Unserialisable(NumberProblem, usize, usize),
}

#[derive(Default)]
struct Log {
    told: Vec<Told>,
    chunk: usize,
}

impl Observer for Log {
    fn bytes(&mut self, run: &[u8], at: Where) {
        if let Some(Told::Bytes(place, bytes)) = self.told.last_mut() {
            if *place == at {
                bytes.extend_from_slice(run);
                return;
            }
        }
        self.told.push(Told::Bytes(at, run.to_vec()));
    }

    fn key(&mut self, key: &[u8]) {
        self.told.push(Told::Key(key.to_vec()));
    }

    fn value_end(&mut self, end: ValueEnd) {
        self.told.push(Told::End(end.ty, end.number.to_bits()));
    }

    fn unserialisable(&mut self, problem: NumberProblem, offset: usize) {
        self.told
            .push(Told::Unserialisable(problem, self.chunk, offset));
    }
}

/// The byte-at-a-time checker alone: what `push` did before it had a fast path.
fn push_bytewise(lexer: &mut Lexer, input: &[u8], obs: &mut Log) -> Result<(), (usize, Stop)> {
    let mut runs = Runs::new(input, obs);
    for (i, &b) in input.iter().enumerate() {
        runs.pos = i;
        if let Err(stop) = lexer.byte(b, &mut runs) {
            runs.flush();
            return Err((i, stop));
        }
    }
    runs.flush();
    Ok(())
}

/// How a reading ended: stopped in chunk `.0` at offset `.1`, or the document's end.
type Verdict = Result<JsonType, (usize, usize, Stop)>;

/// Reads `doc` cut at `cuts` (ascending offsets), by the fast path or byte by byte.
fn read(doc: &[u8], cuts: &[usize], bytewise: bool) -> (Vec<Told>, Verdict) {
    let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
    let mut log = Log::default();
    let mut start = 0;
    let ends = cuts.iter().copied().chain([doc.len()]);
    for (chunk, end) in ends.enumerate() {
        let input = doc.get(start..end.max(start)).unwrap_or_default();
        log.chunk = chunk;
        let pushed = if bytewise {
            push_bytewise(&mut lexer, input, &mut log)
        } else {
            lexer.push(input, &mut log)
        };
        if let Err((at, stop)) = pushed {
            return (log.told, Err((chunk, at, stop)));
        }
        start = end.max(start);
    }
    log.chunk = cuts.len() + 1;
    let verdict = lexer.end(&mut log).map_err(|stop| (usize::MAX, 0, stop));
    (log.told, verdict)
}

fn same(doc: &[u8], cuts: &[usize]) {
    let fast = read(doc, cuts, false);
    let slow = read(doc, cuts, true);
    assert_eq!(
        fast,
        slow,
        "{:?} cut at {cuts:?}",
        String::from_utf8_lossy(doc)
    );
}

/// Whole, one byte at a time, and cut once at each offset in `around`.
fn same_in_chunkings(doc: &[u8], around: core::ops::Range<usize>) {
    same(doc, &[]);
    let every: Vec<usize> = (1..doc.len()).collect();
    same(doc, &every);
    for cut in around {
        if cut <= doc.len() {
            same(doc, &[cut]);
        }
    }
}

/// A canonical record with something of everything the fast path takes or leaves:
/// keys in UTF-16 order (U+1F600 before U+E000), escapes of every canonical kind,
/// multi-byte text, numbers of every spelling, and numbers with no canonical encoding
/// (which do not stop reading).
const EVERYTHING: &str = concat!(
    r#"{"":3,"\n":"","a":[],"b":{},"c":[1,-0.5,0,"x",true,false,null,{"k":[[]]}],"#,
    r#""d":"plain text that runs past the sixteen bytes of the head","#,
    r#""e":"esc \" \\ \b \f \n \r \t \u0000 \u001b \u001f end","#,
    r#""f":"é€😀 mixed 日本語 \u000b","#,
    r#""g":[9007199254740992,1e+21,1.5e-7,0.000001,1e-7,12345678901234.5,0.1,-12.5,"#,
    r#"2500,0.30000000000000004,5e-324,1.7976931348623157e+308,100000000000000000000,"#,
    r#"123456789012345680,9007199254740993,1e400,1e-400],"#,
    r#""h\u0001":"key with an escape","é":1,"😀":2,"#,
    "\"\u{e000}\":4}",
);

/// Changes that make [`EVERYTHING`] not canonical, or not JSON: each is read alone.
const CHANGES: [(&str, &str); 17] = [
    ("esc ", "\\u00e9 "),
    ("esc ", "\\/ "),
    ("esc ", "\\u0041 "),
    ("\\u001b", "\\u001B"),
    ("\\u001b", "\\u000a"),
    ("\\u001b", "\\u000d"),
    ("\\u001b", "\\x"),
    ("[1,", "[ 1,"),
    ("[1,", "[01,"),
    ("[1,", "[-0,"),
    ("0.1,", "0.10,"),
    ("1e-7", "1E-7"),
    ("2500", "2.5e3"),
    ("\"a\":[]", "\"a\":[],\"a\":1"),
    ("\"b\":{}", "\"B\":{}"),
    ("\"😀\":2,\"\u{e000}\":4", "\"\u{e000}\":4,\"😀\":2"),
    ("true", "True"),
];

#[test]
fn fast_path_matches_the_byte_path_on_a_record_with_everything_at_every_cut() {
    let doc = EVERYTHING.as_bytes();
    let (told, verdict) = read(doc, &[], false);
    assert_eq!(verdict, Ok(JsonType::Object));
    let unserialisable = told
        .iter()
        .filter(|t| matches!(t, Told::Unserialisable(..)))
        .count();
    assert_eq!(unserialisable, 3);
    same_in_chunkings(doc, 0..doc.len() + 1);
    // Prefixes too: every place a chunk can end a document early.
    for end in 0..doc.len() {
        same(doc.get(..end).unwrap_or_default(), &[]);
    }
}

#[test]
fn fast_path_matches_the_byte_path_where_a_record_departs_or_breaks() {
    for (from, to) in CHANGES {
        assert!(EVERYTHING.contains(from), "{from}");
        let doc = EVERYTHING.replacen(from, to, 1);
        let (_, verdict) = read(doc.as_bytes(), &[], false);
        assert!(verdict.is_err(), "{to}: {verdict:?}");
        let at = EVERYTHING.find(from).unwrap_or(0);
        same_in_chunkings(doc.as_bytes(), at.saturating_sub(2)..at + to.len() + 2);
    }
}

/// Bytes that stop or start something in a string: quote, backslash, control bytes,
/// DEL, continuation bytes, lead bytes of every length, bytes that are never UTF-8.
const SPECIALS: [u8; 17] = [
    b'"', b'\\', 0x00, 0x09, 0x0a, 0x1f, 0x20, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0,
    0xf4, 0xff,
];

#[test]
fn fast_path_matches_the_byte_path_for_each_special_byte_at_each_place() {
    // A value long enough for the head, whole words, the SIMD search's blocks and a
    // remainder; and a key, whose body is read the same way without escapes.
    for template in [
        r#"{"k":"0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW","z":1}"#,
        r#"{"0123456789abcdefghijklmnopqrstuvwxyz":1}"#,
    ] {
        let body = template.find('0').unwrap_or(0);
        let len = template.len();
        for special in SPECIALS {
            for at in body..len - 7 {
                let mut doc = template.as_bytes().to_vec();
                doc[at] = special;
                same(&doc, &[]);
                same(&doc, &[at]);
                same(&doc, &[at + 1]);
                same(&doc, &[body, at + 1]);
            }
        }
    }
}

/// UTF-8 sequences, good and bad (RFC 3629: overlong forms, surrogates and code points
/// past U+10FFFF are refused).
const SEQUENCES: [(&[u8], bool); 14] = [
    (&[0xc3, 0xa9], true),              // é
    (&[0xe2, 0x82, 0xac], true),        // €
    (&[0xed, 0x9f, 0xbf], true),        // U+D7FF, the last before the surrogates
    (&[0xee, 0x80, 0x80], true),        // U+E000
    (&[0xf0, 0x9f, 0x98, 0x80], true),  // 😀
    (&[0xf4, 0x8f, 0xbf, 0xbf], true),  // U+10FFFF
    (&[0xc0, 0x80], false),             // overlong U+0000
    (&[0xc1, 0xbf], false),             // overlong U+007F
    (&[0xe0, 0x9f, 0xbf], false),       // overlong U+07FF
    (&[0xf0, 0x8f, 0xbf, 0xbf], false), // overlong U+FFFF
    (&[0xed, 0xa0, 0x80], false),       // U+D800, a surrogate
    (&[0xed, 0xbf, 0xbf], false),       // U+DFFF, a surrogate
    (&[0xf4, 0x90, 0x80, 0x80], false), // U+110000
    (&[0xe2, 0x82], false),             // cut by an ASCII byte
];

#[test]
fn fast_path_matches_the_byte_path_on_utf8_split_anywhere_and_refuses_bad_sequences() {
    for (sequence, good) in SEQUENCES {
        for key in [false, true] {
            for pad in [0usize, 1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65] {
                let text: Vec<u8> = core::iter::repeat_n(b'a', pad)
                    .chain(sequence.iter().copied())
                    .chain(*b"zz")
                    .collect();
                let mut doc = if key {
                    b"{\"".to_vec()
                } else {
                    b"{\"k\":\"".to_vec()
                };
                let at = doc.len() + pad;
                doc.extend_from_slice(&text);
                doc.extend_from_slice(if key { b"\":1}" } else { b"\"}" });
                // Whole, and cut before, inside and after the sequence.
                same_in_chunkings(&doc, at..at + sequence.len() + 1);
                let (_, verdict) = read(&doc, &[], false);
                if good {
                    assert_eq!(verdict, Ok(JsonType::Object), "{sequence:x?}");
                } else {
                    let refused = matches!(verdict, Err((_, _, Stop::Bad(Syntax::InvalidUtf8))));
                    assert!(refused, "{sequence:x?} in {doc:x?}: {verdict:?}");
                }
            }
        }
    }
}

#[test]
fn fast_path_matches_the_byte_path_on_numbers_cut_anywhere() {
    let numbers = [
        "0",
        "-0",
        "7",
        "-7",
        "10",
        "0.5",
        "-0.5",
        "0.000001",
        "0.0000001",
        "1e-7",
        "1E-7",
        "1.5e+300",
        "1e400",
        "-1e400",
        "1e-400",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740992",
        "18446744073709551616",
        "123456789012345.6",
        "12345678901234.5",
        "0.1",
        "0.30000000000000004",
        "5e-324",
        "3e-324",
        "1.0",
        "1.50",
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "-",
        "--1",
        "1.2.3",
        "1e5e5",
        "123456789012345678901234567890123",
        "0.00000000000000000000000000000000001",
        "100000000000000000000",
        "1e21",
        "2.5E3",
    ];
    for number in numbers {
        for doc in [
            alloc::format!(r#"{{"n":{number}}}"#),
            alloc::format!(r#"{{"n":[{number},{number}]}}"#),
            alloc::format!(r#"[{number}]"#),
            String::from(number),
        ] {
            same_in_chunkings(doc.as_bytes(), 0..doc.len() + 1);
        }
    }
}

#[test]
fn fast_path_matches_the_byte_path_at_the_key_limits() {
    // One key up to and past MAX_KEY_BYTES, plain or with an escape (read byte by byte).
    for len in [
        MAX_KEY_BYTES - 1,
        MAX_KEY_BYTES,
        MAX_KEY_BYTES + 1,
        MAX_KEY_BYTES + 40,
    ] {
        for escaped in [false, true] {
            let mut key = "k".repeat(len);
            if escaped {
                key.replace_range(len / 2..len / 2 + 1, "\\n");
            }
            let doc = alloc::format!(r#"{{"a":1,"{key}":2}}"#);
            same_in_chunkings(doc.as_bytes(), 0..12);
            let (_, verdict) = read(doc.as_bytes(), &[], false);
            // `\n` stands for one byte: the key is `len` bytes unescaped either way.
            let over = len > MAX_KEY_BYTES;
            assert_eq!(verdict.is_err(), over, "{len} {escaped}: {verdict:?}");
        }
    }
    // The keys along the open path past KEY_PATH_BYTES: five nested objects with keys
    // of 250 bytes.
    let key = "p".repeat(250);
    let mut doc = String::new();
    for _ in 0..5 {
        doc.push_str(&alloc::format!(r#"{{"{key}":"#));
    }
    doc.push('1');
    doc.push_str(&"}".repeat(5));
    same_in_chunkings(doc.as_bytes(), 1000..1030);
    let (_, verdict) = read(doc.as_bytes(), &[], false);
    assert!(
        matches!(verdict, Err((_, _, Stop::Limit(Limit::KeyPathTooLong)))),
        "{verdict:?}"
    );
}

/// A decimal or integer literal of any length, with leading zeros after the point.
fn literal() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop_oneof![Just(String::from("0")), "[1-9][0-9]{0,17}"],
        proptest::option::of((0usize..9, "[0-9]{0,17}[1-9]")),
    )
        .prop_map(|(negative, int, frac)| {
            let sign = if negative { "-" } else { "" };
            match frac {
                None => alloc::format!("{sign}{int}"),
                Some((zeros, digits)) => {
                    alloc::format!("{sign}{int}.{}{digits}", "0".repeat(zeros))
                }
            }
        })
}

/// Checks a literal against the definition: accepted (nested, and as a record's member)
/// exactly when it is what ECMAScript writes for the double it denotes. The shortcuts
/// (small integers, short decimals) must not change that.
fn accepted_iff_canonical(literal: &str) -> Result<(), String> {
    let value: f64 = literal.parse().unwrap_or(f64::NAN);
    let mut buf = [0u8; 32];
    let len = crate::number::format_f64(value, &mut buf).unwrap_or(0);
    let canonical = buf.get(..len) == Some(literal.as_bytes());
    for doc in [
        alloc::format!("[{literal}]"),
        alloc::format!(r#"{{"n":{literal}}}"#),
    ] {
        let checked = check_canonical(doc.as_bytes(), MAX_DEPTH);
        if checked.is_ok() != canonical {
            return Err(alloc::format!("{doc}: {checked:?}, canonical: {canonical}"));
        }
    }
    Ok(())
}

#[test]
fn literals_at_the_edges_of_the_shortcuts_are_accepted_exactly_when_canonical() {
    let literals = [
        // 15 and 16 significant digits: only 15 always come back from their double.
        "123456789012345",
        "1234567890123456",
        "12345678901234.5",
        "0.123456789012345",
        "89140.25694303032",
        "9211798.845827562",
        "0.08808984424808678",
        "0.009372594179023644",
        "0.000001",
        "0.0000001",
        "0.0000012",
        "0.00000123456789012345",
        // Integers around 2^53: exact up to it, and even ones past it.
        "9007199254740991",
        "9007199254740992",
        "9007199254740993",
        "9007199254740994",
        "18014398509481984",
        "-9007199254740992",
        "1000000000000000",
        "999999999999999",
    ];
    for literal in literals {
        if let Err(e) = accepted_iff_canonical(literal) {
            panic!("{e}");
        }
    }
}

proptest! {
    #[test]
    fn a_literal_is_accepted_exactly_when_it_is_the_canonical_spelling_of_its_double(
        literal in literal(),
    ) {
        prop_assert_eq!(accepted_iff_canonical(&literal), Ok(()));
    }
}

/// Pieces of JSON, right and wrong, for documents of any shape.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let tokens: &'static [&'static str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"k\"",
        "\"kind\"",
        "\"a b\\\"c\"",
        "\"é😀\"",
        "\"\\u001f\"",
        "\"\\u0041\"",
        "\"\\/\"",
        "\"",
        "\\",
        "0",
        "-1.5",
        "1e-7",
        "12345678",
        "0.1",
        "1e400",
        "true",
        "fal",
        "null",
        " ",
        "\n",
        "\t",
    ];
    prop_oneof![
        4 => proptest::sample::select(tokens).prop_map(|t| t.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 1..4),
        1 => proptest::collection::vec(0x20u8..0x7f, 1..40),
    ]
}

proptest! {
    #[test]
    fn fast_path_matches_the_byte_path_on_any_bytes_in_any_chunking(
        pieces in proptest::collection::vec(piece(), 0..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let doc: Vec<u8> = pieces.concat();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (doc.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(read(&doc, &cuts, false), read(&doc, &cuts, true));
    }

    #[test]
    fn fast_path_matches_the_byte_path_on_a_canonical_record_with_one_byte_changed(
        at in any::<usize>(),
        byte in prop_oneof![proptest::sample::select(SPECIALS.to_vec()), any::<u8>()],
        cut in any::<usize>(),
    ) {
        let mut doc = EVERYTHING.as_bytes().to_vec();
        let at = at % doc.len();
        doc[at] = byte;
        let cut = cut % (doc.len() + 1);
        prop_assert_eq!(read(&doc, &[cut], false), read(&doc, &[cut], true));
    }
}

#[test]
fn the_number_table_is_the_json_number_grammar() {
    // The grammar as the byte-at-a-time checker had it before the table.
    let grammar = |n: Num, b: u8| -> Option<Num> {
        Some(match (n, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::E, b'+' | b'-') => Num::ESign,
            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
            _ => return None,
        })
    };
    let states = [
        Num::Minus,
        Num::Zero,
        Num::Int,
        Num::Dot,
        Num::Frac,
        Num::E,
        Num::ESign,
        Num::Exp,
    ];
    for n in states {
        for b in 0..=255u8 {
            assert_eq!(n.next(b), grammar(n, b), "{n:?} {b:#x}");
        }
    }
}

/// Characters from every range where UTF-8 and UTF-16 order could part: ASCII, two and
/// three bytes below the surrogates, U+E000..U+FFFF, and past U+FFFF.
fn key_text() -> impl Strategy<Value = String> {
    let chars = proptest::sample::select(alloc::vec![
        'a',
        'b',
        '\u{7f}',
        'é',
        '\u{7ff}',
        '\u{800}',
        '\u{d7ff}',
        '\u{e000}',
        '\u{fffd}',
        '\u{ffff}',
        '\u{10000}',
        '😀',
        '\u{10ffff}',
    ]);
    proptest::collection::vec(chars, 0..5).prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #[test]
    fn keys_compare_as_their_utf16_units(a in key_text(), b in key_text()) {
        let want = a.encode_utf16().cmp(b.encode_utf16());
        prop_assert_eq!(super::string::cmp_utf16(a.as_bytes(), b.as_bytes()), want);
    }
}
