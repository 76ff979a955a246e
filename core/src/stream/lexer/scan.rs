//! The body of a string taken as one run: what needs no state to check.

/// How many bytes at the start of `bytes` are plain string content: printable ASCII
/// other than `"` and `\\`. Eight bytes at a time, with bit tricks on a `u64` (a byte
/// is flagged only if it, or a byte below it, is not plain, so the lowest flag is the
/// first byte that is not plain). Measured faster here than 16- or 32-byte blocks left
/// to the compiler's vectoriser.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut n = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // Below 0x20 (for bytes below 0x80), `"`, `\\`, or 0x80 and above.
        let stop = (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
            | zero_in(x ^ (ONES * u64::from(b'"')))
            | zero_in(x ^ (ONES * u64::from(b'\\')))
            | (x & HIGH);
        if stop != 0 {
            return n + (stop.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + words.remainder().iter().take_while(|&&b| plain(b)).count()
}

/// How many bytes at the start of `bytes` are the body of a string that needs no state
/// to check: plain bytes, complete well-formed UTF-8 sequences, and (with `escapes`) the
/// short escapes canonical form uses (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`).
/// It stops before a quote, any other escape, a control character, malformed or cut
/// UTF-8: the byte-at-a-time checker takes it from there.
pub(super) fn string_body(bytes: &[u8], escapes: bool) -> usize {
    let mut n = 0;
    loop {
        n += plain_run(bytes.get(n..).unwrap_or_default());
        match bytes.get(n..).unwrap_or_default() {
            [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] if escapes => n += 2,
            [lead @ 0x80..=0xff, rest @ ..] => match utf8_sequence(*lead, rest) {
                Some(len) => n += len,
                None => return n,
            },
            _ => return n,
        }
    }
}

/// The length of the UTF-8 sequence that starts with `lead` and goes on with `rest`,
/// if it is well-formed and complete.
fn utf8_sequence(lead: u8, rest: &[u8]) -> Option<usize> {
    let (need, lo, hi) = utf8_lead(lead)?;
    let tail = rest.get(..usize::from(need))?;
    let (first, others) = tail.split_first()?;
    let ok = (lo..=hi).contains(first) && others.iter().all(|&b| (0x80..=0xbf).contains(&b));
    ok.then_some(1 + usize::from(need))
}

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

fn plain(b: u8) -> bool {
    (0x20..0x80).contains(&b) && b != b'"' && b != b'\\'
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec as AllocVec;
    use proptest::prelude::*;

    /// The plain bytes at the start of `bytes`, one at a time: printable ASCII (and
    /// DEL) other than `"` and `\\`.
    fn plain_prefix(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .take_while(|&&b| (0x20..=0x7f).contains(&b) && b != b'"' && b != b'\\')
            .count()
    }

    #[test]
    fn plain_run_stops_at_the_first_byte_that_is_not_plain_wherever_it_is() {
        // Each kind of stop at each place of the first two words and the remainder.
        let stops = [0x00, 0x1f, b'"', b'\\', 0x7f + 1, 0xff];
        for stop in stops {
            for at in 0..20 {
                let mut bytes = AllocVec::from([b'a'; 20]);
                bytes[at] = stop;
                assert_eq!(plain_run(&bytes), at, "0x{stop:02x} at {at}");
            }
        }
        // The edges of the plain range: space and `~` (and DEL, 0x7f, is plain here).
        assert_eq!(plain_run(&[b' '; 17]), 17);
        assert_eq!(plain_run(&[b'~'; 17]), 17);
        assert_eq!(plain_run(&[0x7f; 9]), 9);
        assert_eq!(plain_run(b""), 0);
    }

    proptest! {
        #[test]
        fn plain_run_counts_what_a_byte_loop_counts(
            bytes in proptest::collection::vec(
                prop_oneof![8 => 0x20u8..0x7f, 1 => any::<u8>()],
                0..40,
            ),
        ) {
            prop_assert_eq!(plain_run(&bytes), plain_prefix(&bytes));
        }
    }

    #[test]
    fn string_body_takes_plain_bytes_whole_utf8_and_short_escapes() {
        assert_eq!(string_body(b"ab\\nc\"", true), 5);
        assert_eq!(string_body(b"ab\\nc\"", false), 2);
        for escape in [b'"', b'\\', b'b', b'f', b'n', b'r', b't'] {
            assert_eq!(string_body(&[b'x', b'\\', escape, b'y', b'"'], true), 4);
        }
        // `\u` and `\/` are read byte by byte.
        assert_eq!(string_body(b"x\\u0041\"", true), 1);
        assert_eq!(string_body(b"x\\/\"", true), 1);
        // Whole UTF-8 sequences of two, three and four bytes; a cut or bad one stops it.
        assert_eq!(string_body("é€😀\"".as_bytes(), false), 9);
        // Each lead byte with its own range for the next byte: U+0800 (E0), U+D7FF
        // (ED, the last before the surrogates), U+40000 (F1), U+10FFFF (F4).
        for c in ['\u{800}', '\u{d7ff}', '\u{40000}', '\u{10ffff}'] {
            let mut bytes = [0u8; 5];
            let len = c.encode_utf8(&mut bytes).len();
            bytes[len] = b'"';
            assert_eq!(string_body(&bytes[..=len], false), len, "{c:?}");
        }
        assert_eq!(string_body(&[b'x', 0xc3], false), 1);
        assert_eq!(string_body(&[b'x', 0xed, 0xa0, 0x80], false), 1);
        assert_eq!(string_body(&[b'x', 0xc0, 0x80], false), 1);
        assert_eq!(string_body(b"\x01", true), 0);
    }
}
