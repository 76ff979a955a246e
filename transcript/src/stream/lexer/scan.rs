//! Wide scans. Once per chunk: how much of it is clean — no control byte (U+0000 to
//! U+001F) and well-formed UTF-8 of whole sequences — which for a canonical line is all
//! of it up to its newline. Within that: the body of a string up to its next `"` or
//! `\\`, which then needs no look at each byte's class.
//!
//! Measured on the `verify_peers.sh` transcripts (docs/performance.md): a control-byte
//! search 64 bytes at a time ([`lanes`]), simdutf8's validation and a search for `"`
//! and `\\` cost less than one pass a word at a time that looks for all of them in
//! every string and validates each string's UTF-8 on its own. A long string value is
//! taken 64 bytes at a time ([`block`]).

mod block;
mod lanes;

/// How many bytes at the start of `bytes` hold no control byte and are well-formed
/// UTF-8 of whole sequences (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF; a sequence cut by the end of `bytes` is left out).
pub(super) fn clean_prefix(bytes: &[u8]) -> usize {
    let end = first_control(bytes).unwrap_or(bytes.len());
    utf8_prefix(bytes.get(..end).unwrap_or_default())
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The position of the first byte below 0x20 in `bytes`: 64 bytes at a time
/// ([`lanes::Lanes`]), then word by word.
pub(super) fn first_control(bytes: &[u8]) -> Option<usize> {
    let mut n = 0;
    while let Some(block) = bytes.get(n..).and_then(<[u8]>::first_chunk::<64>) {
        let found = lanes::Lanes::load(block).controls();
        if found != 0 {
            return Some(n + found.trailing_zeros() as usize);
        }
        n += 64;
    }
    first_control_by_word(bytes.get(n..).unwrap_or_default()).map(|k| n + k)
}

/// The bytes of `x` below 0x20, flagged in their high bit: `x - 0x20` borrows into a
/// byte's high bit only if the byte is below 0x20, or a byte below it was; `!x` drops
/// bytes of 0x80 and above. Exact at the lowest flag.
fn controls(x: u64) -> u64 {
    x.wrapping_sub(ONES * 0x20) & !x & HIGH
}

/// [`first_control`] eight bytes at a time.
fn first_control_by_word(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        let control = controls(word(w));
        if control != 0 {
            return Some(n + (control.trailing_zeros() / 8) as usize);
        }
        n += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b < 0x20)
        .map(|i| n + i)
}

/// How many bytes at the start of `bytes` are well-formed UTF-8 of whole sequences:
/// simdutf8's validation (SIMD when the CPU has it), and `core`'s to say where it stops.
fn utf8_prefix(bytes: &[u8]) -> usize {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return bytes.len();
    }
    match core::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    }
}

/// How many bytes at the start of `clean` (bytes [`clean_prefix`] vouched for) are the
/// body of a string that needs no state to check: anything but `"` and `\`, and (with
/// `escapes`) the escapes canonical form uses: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// and `\u00xx` (lowercase hex) for the other control characters. It stops before a
/// quote or any other escape: the byte-at-a-time checker takes it from there.
///
/// A word (eight bytes) at a time from the byte after the last escape: the word's first
/// `"` or `\` found at once (exactly: no borrow runs between bytes), and a canonical
/// escape stepped over; most keys and short values end within [`SHORT`] bytes. After
/// [`SHORT`] bytes with neither, `memchr2`'s SIMD search finds the next. With `escapes`,
/// the body past its first [`SHORT`] bytes is taken 64 bytes at a time
/// ([`block::body_in_blocks`]), where an escape every few bytes (code, quoted speech)
/// costs no branch.
pub(super) fn string_body(clean: &[u8], escapes: bool) -> usize {
    let mut at = 0;
    let mut quiet = 0;
    while let Some(w) = clean.get(at..at + 8) {
        if escapes && at >= SHORT {
            // `at` follows a word or an escape: it is not escaped.
            return block::body_in_blocks(clean, at);
        }
        let hits = quotes_or_backslashes(word(w));
        if hits != 0 {
            let k = at + (hits.trailing_zeros() / 8) as usize;
            let len = escape_len(clean.get(k..).unwrap_or_default(), escapes);
            if len == 0 {
                return k;
            }
            at = k + len;
            quiet = 0;
            continue;
        }
        at += 8;
        quiet += 8;
        if quiet >= SHORT {
            let rest = clean.get(at..).unwrap_or_default();
            match memchr::memchr2(b'"', b'\\', rest) {
                Some(k) => at += k,
                None => return clean.len(),
            }
            quiet = 0;
        }
    }
    // Fewer than eight bytes left.
    while let Some(&b) = clean.get(at) {
        if b == b'"' || b == b'\\' {
            let len = escape_len(clean.get(at..).unwrap_or_default(), escapes);
            if len == 0 {
                return at;
            }
            at += len;
        } else {
            at += 1;
        }
    }
    clean.len()
}

/// How many ASCII digits `bytes` starts with: a word at a time (a number's digits, 17 of
/// them in a double printed in full, in two or three steps).
pub(super) fn digits(bytes: &[u8]) -> usize {
    const LOW7: u64 = ONES * 0x7f;
    let mut n = 0;
    while let Some(w) = bytes.get(n..n + 8) {
        // A byte is a digit when its distance `d` from `0` is below 10: `d & 0x7f`
        // plus 0x76 reaches the high bit exactly when it is not (no carry leaves the
        // byte), and a byte with its own high bit set is not one either.
        let d = word(w) ^ (ONES * u64::from(b'0'));
        let other = (((d & LOW7) + ONES * 0x76) | d) & HIGH;
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes
        .get(n..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// The `"` and `\\` bytes of `x`, each flagged in its high bit, exactly (no borrow
/// runs from one byte into the next).
#[inline(always)]
fn quotes_or_backslashes(x: u64) -> u64 {
    const LOW7: u64 = ONES * 0x7f;
    let zero = |y: u64| !(((y & LOW7) + LOW7) | y | LOW7);
    zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\')))
}

/// The length of the canonical escape at the start of `rest` that [`string_body`] steps
/// over (with `escapes`), or 0 for a quote or any other backslash.
#[inline(always)]
fn escape_len(rest: &[u8], escapes: bool) -> usize {
    match rest {
        [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] if escapes => 2,
        [b'\\', b'u', b'0', b'0', hi @ (b'0' | b'1'), lo @ (b'0'..=b'9' | b'a'..=b'f'), ..]
            if escapes && !short_escaped(*hi, *lo) =>
        {
            6
        }
        _ => 0,
    }
}

/// Whether `\u00` and these two hex digits stand for a control character with a short
/// escape (U+0008, U+0009, U+000A, U+000C, U+000D), which canonical form writes short.
fn short_escaped(hi: u8, lo: u8) -> bool {
    hi == b'0' && matches!(lo, b'8' | b'9' | b'a' | b'c' | b'd')
}

/// Bytes looked at a word at a time before the SIMD search takes over: most keys and
/// short values end within them, where setting up the search would cost more.
const SHORT: usize = 16;

/// For a byte that starts a multi-byte UTF-8 sequence: the continuation bytes it needs
/// and the range the first of them must fall in (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF). `None` for a byte that cannot start one.
pub(super) fn utf8_lead(b: u8) -> Option<(u8, u8, u8)> {
    Some(match b {
        0xc2..=0xdf => (1, 0x80, 0xbf),
        0xe0 => (2, 0xa0, 0xbf),
        0xe1..=0xec | 0xee..=0xef => (2, 0x80, 0xbf),
        0xed => (2, 0x80, 0x9f),
        0xf0 => (3, 0x90, 0xbf),
        0xf1..=0xf3 => (3, 0x80, 0xbf),
        0xf4 => (3, 0x80, 0x8f),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// The byte-at-a-time meaning of each scan.
    fn control_at(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| b < 0x20)
    }

    fn quote_at(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\')
            .unwrap_or(bytes.len())
    }

    /// [`string_body`] a byte at a time: up to the first quote or backslash that does
    /// not start a canonical escape, escapes stepped over whole. The escapes are told
    /// by what they stand for (RFC 8785: a short form for U+0008, U+0009, U+000A,
    /// U+000C, U+000D, `"` and `\\`; `\u00xx` in lowercase for other controls), not
    /// by the patterns `escape_len` matches.
    fn body_at(bytes: &[u8]) -> usize {
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            let escape = match (b, bytes.get(at + 1)) {
                (b'\\', Some(b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r')) => 2,
                (b'\\', Some(b'u')) => {
                    let hex = bytes.get(at + 2..at + 6).unwrap_or_default();
                    let lower = hex.len() == 4
                        && hex.iter().all(|h| matches!(h, b'0'..=b'9' | b'a'..=b'f'));
                    let code = core::str::from_utf8(hex)
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok());
                    match code {
                        Some(c)
                            if lower
                                && c < 0x20
                                && ![0x08, 0x09, 0x0a, 0x0c, 0x0d].contains(&c) =>
                        {
                            6
                        }
                        _ => return at,
                    }
                }
                (b'"' | b'\\', _) => return at,
                _ => 1,
            };
            at += escape;
        }
        bytes.len()
    }

    fn valid_up_to(bytes: &[u8]) -> usize {
        match core::str::from_utf8(bytes) {
            Ok(_) => bytes.len(),
            Err(e) => e.valid_up_to(),
        }
    }

    #[test]
    fn first_control_finds_each_control_byte_at_each_place_of_a_word() {
        // Every control byte, at every place of a 64-byte block and of the remainder,
        // among neighbours that are not controls but sit at the edges of the trick:
        // space (0x20), DEL, 0x80, 0xa0 (0xa0 - 0x20 = 0x80) and 0xff.
        for fill in [b' ', 0x7f, 0x80, 0xa0, 0xff, b'a'] {
            for control in 0x00..0x20u8 {
                for at in 0..75 {
                    let mut bytes = vec![fill; 75];
                    bytes[at] = control;
                    assert_eq!(
                        first_control(&bytes),
                        Some(at),
                        "{control:#x} at {at} in {fill:#x}"
                    );
                }
            }
            assert_eq!(first_control(&[fill; 75]), None);
        }
        // A control byte after another: the first one counts (borrows run upwards).
        assert_eq!(first_control(b"ab\x00\x00cd\x1fxyz"), Some(2));
        assert_eq!(first_control(b""), None);
    }

    #[test]
    fn string_body_without_escapes_stops_at_the_first_quote_or_backslash_in_a_word_the_tail_or_the_simd_search(
    ) {
        // Places in the first word, the second, right after the words (16) and across
        // the SIMD search's 16- and 32-byte blocks.
        for stop in [b'"', b'\\'] {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100] {
                for at in 0..len {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = stop;
                    // A later stop of the other kind must not win.
                    if at + 1 < len {
                        bytes[len - 1] = if stop == b'"' { b'\\' } else { b'"' };
                    }
                    assert_eq!(string_body(&bytes, false), at, "{stop} at {at} of {len}");
                }
                assert_eq!(string_body(&vec![0xe9; len], false), len);
            }
        }
    }

    #[test]
    fn utf8_prefix_refuses_what_rfc_3629_refuses_wherever_it_falls() {
        let bad: [&[u8]; 11] = [
            &[0x80],                   // a continuation byte alone
            &[0xc0, 0x80],             // overlong (U+0000)
            &[0xc1, 0xbf],             // overlong
            &[0xe0, 0x80, 0x80],       // overlong 3-byte
            &[0xf0, 0x80, 0x80, 0x80], // overlong 4-byte
            &[0xed, 0xa0, 0x80],       // U+D800, a surrogate
            &[0xed, 0xbf, 0xbf],       // U+DFFF
            &[0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
            &[0xf5, 0x80, 0x80, 0x80], // no such lead
            &[0xff],
            &[0xe2, 0x82, 0x41], // a sequence broken by ASCII
        ];
        // Before the error: ASCII and multi-byte text, so that it falls before, across
        // and after simdutf8's 64-byte blocks.
        for lead in [0usize, 1, 31, 62, 63, 64, 65, 127, 130] {
            for b in bad {
                let mut bytes = "é".repeat(lead / 2).into_bytes();
                bytes.extend(core::iter::repeat_n(b'x', lead % 2));
                let at = bytes.len();
                bytes.extend_from_slice(b);
                bytes.extend_from_slice(&[b'y'; 70]);
                assert_eq!(utf8_prefix(&bytes), at, "{b:x?} after {lead}");
            }
        }
        // A sequence cut by the end is left out; whole ones are kept.
        for c in ['é', '€', '😀', '\u{10ffff}', '\u{d7ff}', '\u{e000}'] {
            let mut enc = [0u8; 4];
            let enc = c.encode_utf8(&mut enc).as_bytes();
            for pad in [0usize, 60, 63, 64, 100] {
                let mut bytes = vec![b'x'; pad];
                bytes.extend_from_slice(enc);
                assert_eq!(utf8_prefix(&bytes), bytes.len(), "{c:?} after {pad}");
                for cut in 1..enc.len() {
                    let cut_bytes = &bytes[..pad + cut];
                    assert_eq!(
                        utf8_prefix(cut_bytes),
                        pad,
                        "{c:?} cut at {cut} after {pad}"
                    );
                }
            }
        }
    }

    #[test]
    fn clean_prefix_stops_at_a_control_byte_or_bad_utf8_whichever_comes_first() {
        let mut line = "{\"a\":\"é€😀\"}".as_bytes().to_vec();
        let len = line.len();
        line.push(b'\n');
        line.extend_from_slice(b"{\"b\":1}\n");
        assert_eq!(
            clean_prefix(&line),
            len,
            "a canonical line is clean to its newline"
        );
        assert_eq!(clean_prefix(&[b'a', 0xc3, 0x0a]), 1);
        assert_eq!(clean_prefix(&[b'a', 0x0a, 0xff]), 1);
        assert_eq!(clean_prefix(b"a\tb"), 1);
        assert_eq!(clean_prefix(b""), 0);
    }

    #[test]
    fn string_body_takes_what_needs_no_state_and_short_escapes() {
        assert_eq!(string_body(b"ab\\nc\"", true), 5);
        assert_eq!(string_body(b"ab\\nc\"", false), 2);
        for escape in [b'"', b'\\', b'b', b'f', b'n', b'r', b't'] {
            assert_eq!(string_body(&[b'x', b'\\', escape, b'y', b'"'], true), 4);
        }
        // `\u00xx` for a control character without a short escape is taken (lowercase
        // only); any other `\u` escape, `\/` and a backslash the chunk ends on are read
        // byte by byte, and so is every escape of a key (`escapes` false).
        for hex in 0..0x20u8 {
            let lower = alloc::format!("x\\u{hex:04x}y\"");
            let short = matches!(hex, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
            let taken = if short { 1 } else { 8 };
            assert_eq!(string_body(lower.as_bytes(), true), taken, "{lower}");
            assert_eq!(string_body(lower.as_bytes(), false), 1, "{lower}");
            let upper = alloc::format!("x\\u{hex:04X}y\"");
            if upper != lower {
                assert_eq!(string_body(upper.as_bytes(), true), 1, "{upper}");
            }
        }
        assert_eq!(string_body(b"x\\u0020\"", true), 1);
        assert_eq!(string_body(b"x\\u001", true), 1);
        assert_eq!(string_body(b"x\\u0041\"", true), 1);
        assert_eq!(string_body(b"x\\/\"", true), 1);
        assert_eq!(string_body(b"x\\", true), 1);
        // Multi-byte text is taken whole (the clean prefix vouched for it).
        assert_eq!(string_body("é€😀\"".as_bytes(), false), 9);
        // A long body with escapes on both sides of the SIMD search's start.
        let mut body = vec![b'a'; 40];
        body[15] = b'\\';
        body[16] = b'n';
        body[33] = b'\\';
        body[34] = b'"';
        body.push(b'"');
        assert_eq!(string_body(&body, true), 40);
        assert_eq!(string_body(&body, false), 15);
    }

    #[test]
    fn long_bodies_stop_at_each_place_of_a_block_and_its_seams() {
        // After `at` bytes of text with an escape every third byte (so no quiet run
        // lets `memchr2` jump ahead, and the blocks start at 18: each case falls at
        // every place of the first blocks and of the padded tail): an escape the scan
        // steps over, then the end; the escape cut by the end of `clean`; an escape it
        // refuses.
        for at in 0..200 {
            let mut plain = br"a\n".repeat(at / 3);
            plain.resize(at, b'a');
            let with = |tail: &[u8]| [plain.as_slice(), tail].concat();
            for escape in [&br"\\"[..], br#"\""#, br"\n", br"\u001b"] {
                let bytes = with(&[escape, br#"b"xyz"#].concat());
                assert_eq!(string_body(&bytes, true), at + escape.len() + 1, "{at}");
                // The body runs to the end of `clean`.
                let bytes = with(escape);
                assert_eq!(string_body(&bytes, true), bytes.len(), "{at}");
            }
            for cut in [&br"\"[..], br"\u", br"\u00", br"\u001"] {
                assert_eq!(string_body(&with(cut), true), at, "{at}: cut escape");
            }
            for refused in [&br"\/"[..], br"\u0041", br"\u000a", br"\u001B", br"\x"] {
                let bytes = with(&[refused, b"\""].concat());
                assert_eq!(string_body(&bytes, true), at, "{at}: refused");
            }
            // A run of backslashes: even, the quote after it ends the string; odd, the
            // quote is escaped and the next one ends it.
            for run in 1..6 {
                let mut bytes = with(&vec![b'\\'; run]);
                bytes.extend_from_slice(b"\"z\"");
                let end = if run % 2 == 0 { at + run } else { at + run + 2 };
                assert_eq!(string_body(&bytes, true), end, "{at}: run of {run}");
                // Then a block with nothing else in it: an even run's last backslash,
                // escaped from the block before, escapes nothing after it; an odd
                // run escapes the `a`, which no escape names.
                let mut bytes = with(&vec![b'\\'; run]);
                bytes.extend_from_slice(&[b'a'; 140]);
                bytes.push(b'"');
                let end = if run % 2 == 0 {
                    at + run + 140
                } else {
                    at + run - 1
                };
                assert_eq!(string_body(&bytes, true), end, "{at}: run of {run}, quiet");
            }
        }
    }

    fn bytes_with(specials: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                6 => 0x20u8..0x7f,
                2 => proptest::sample::select(specials),
                1 => any::<u8>(),
            ],
            0..150,
        )
    }

    proptest! {
        #[test]
        fn each_scan_finds_what_a_byte_loop_finds(bytes in bytes_with(b"\"\\\x00\x1f\n\xc3\xa9\xe2\x82\xac\xed\xf0\x9f\x80")) {
            prop_assert_eq!(first_control(&bytes), control_at(&bytes));
            prop_assert_eq!(string_body(&bytes, false), quote_at(&bytes));
            prop_assert_eq!(string_body(&bytes, true), body_at(&bytes));
            let run = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            prop_assert_eq!(digits(&bytes), run);
        }

        #[test]
        fn long_bodies_with_escapes_stop_where_a_byte_loop_stops(
            pieces in proptest::collection::vec(prop_oneof![
                // What canonical form writes, and (rarely) what stops the body.
                60 => proptest::sample::select(alloc::vec![
                    "a", "abcdefghijklmnopq", "é", "😀", "\\n", "\\\"", "\\\\",
                    "\\\\\\\\", "\\t", "\\b", "\\f", "\\r", "\\u001b", "\\u0000",
                ]),
                1 => proptest::sample::select(alloc::vec![
                    "\\u0008", "\\u001B", "\\u00", "\\u0022", "\\/", "\\x", "\\", "\"",
                ]),
            ], 0..300),
            quiet in proptest::sample::select(alloc::vec![0usize, 15, 16, 17, 63, 64, 65]),
        ) {
            // Escapes and runs of backslashes across 64-byte blocks and their seams,
            // after a quiet start of any length (the blocks start where it ends), and
            // a body that runs to the end of `clean`.
            let mut bytes = alloc::vec![b'z'; quiet];
            bytes.extend(pieces.concat().into_bytes());
            prop_assert_eq!(string_body(&bytes, true), body_at(&bytes));
            let quoted: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'"').collect();
            prop_assert_eq!(string_body(&quoted, true), body_at(&quoted));
        }

        #[test]
        fn digits_counts_what_a_byte_loop_counts(bytes in proptest::collection::vec(
            prop_oneof![
                8 => b'0'..=b'9',
                1 => proptest::sample::select(alloc::vec![b'/', b':', 0xb0, 0xb9, 0x30 ^ 0x80, b'.', b'e', 0x00, 0xff, 0x7f]),
            ],
            0..40,
        )) {
            let run = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            prop_assert_eq!(digits(&bytes), run);
        }

        #[test]
        fn string_body_steps_over_the_escapes_a_byte_loop_steps_over(
            pieces in proptest::collection::vec(proptest::sample::select(alloc::vec![
                "a", "abcdefg", "é", "😀", "\"", "\\", "\\n", "\\\"", "\\\\", "\\t", "\\u001f",
                "\\u0008", "\\u001F", "\\u00", "\\u0041", "\\/", "\\x", "#", "]",
            ]), 0..40),
        ) {
            let bytes = pieces.concat().into_bytes();
            prop_assert_eq!(string_body(&bytes, true), body_at(&bytes));
            prop_assert_eq!(string_body(&bytes, false), quote_at(&bytes));
            prop_assert_eq!(utf8_prefix(&bytes), valid_up_to(&bytes));
            let clean = valid_up_to(&bytes[..control_at(&bytes).unwrap_or(bytes.len())]);
            prop_assert_eq!(clean_prefix(&bytes), clean);
        }
    }
}
