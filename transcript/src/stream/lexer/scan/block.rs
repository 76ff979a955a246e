//! A string body sixty-four bytes at a time, for long strings with an escape every few
//! bytes (code, logs, quoted speech), where a scan that stops at each escape spends its
//! time mispredicting where the next one is. Here every block costs about the same
//! whatever it holds; only the string's end and a `\u` escape (whose four digits are
//! looked at) take a branch that depends on the text.
//!
//! Per block: the masks of `"` and `\` ([`Lanes`]); from the backslashes alone, which
//! bytes are escaped ([`escaped`], branch-free, with one bit carried to the next block);
//! the string ends at the first quote that is not escaped; every escaped byte before it
//! must name an escape canonical form writes.

use super::escape_len;
use super::lanes::Lanes;

/// The bytes a backslash stands before in a short escape (besides `"` and `\`).
const SHORT_LETTERS: [u8; 5] = *b"bfnrt";

/// [`super::string_body`] with escapes, from `at`, which must not be an escaped byte: up
/// to the closing quote or the backslash of an escape canonical form does not write,
/// or all of `clean`.
pub(super) fn body_in_blocks(clean: &[u8], mut at: usize) -> usize {
    // 1 when the block's first byte is escaped by the last byte of the block before.
    let mut carry = 0;
    while let Some(block) = clean.get(at..).and_then(<[u8]>::first_chunk::<64>) {
        if let Some(stop) = block_stop(clean, at, block, &mut carry) {
            return stop;
        }
        at += 64;
    }
    // The last bytes, padded with NUL: neither a quote nor a backslash, nor anything a
    // backslash may stand before.
    let mut tail = [0u8; 64];
    for (t, &b) in tail.iter_mut().zip(clean.get(at..).unwrap_or_default()) {
        *t = b;
    }
    block_stop(clean, at, &tail, &mut carry).unwrap_or(clean.len())
}

/// Where the body stops within `block` (the bytes of `clean` from `at`), if it does.
#[inline(always)]
fn block_stop(clean: &[u8], at: usize, block: &[u8; 64], carry: &mut u64) -> Option<usize> {
    let lanes = Lanes::load(block);
    let quote = lanes.any_of([b'"']);
    let backslash = lanes.any_of([b'\\']);
    if quote | backslash | *carry == 0 {
        return None;
    }
    let escaped = escaped(backslash, carry);
    let end = quote & !escaped;
    // The escaped bytes before the end (all of them when it is not here).
    let codes = escaped & end.wrapping_sub(1) & !end;
    if codes != 0 {
        let short = quote | backslash | lanes.any_of(SHORT_LETTERS);
        let unicode = lanes.any_of([b'u']);
        if let Some(stop) = first_refused(clean, at, codes, short, unicode) {
            return Some(stop);
        }
    }
    (end != 0).then(|| at + end.trailing_zeros() as usize)
}

/// The backslash of the first escape among `codes` (escaped bytes of the block at `at`)
/// that canonical form does not write: one whose byte is neither in `short` nor a `u`,
/// or a `\u` escape [`escape_len`] refuses. `None` when all are written so.
fn first_refused(clean: &[u8], at: usize, codes: u64, short: u64, unicode: u64) -> Option<usize> {
    // An escaped byte always follows its backslash, so `at + i >= 1`.
    let backslash_of = |bit: u64| at + bit.trailing_zeros() as usize - 1;
    let bad = codes & !short & !unicode;
    // The `\u` escapes before the first bad one, each with its digits to look at.
    let mut u = codes & unicode & bad.wrapping_sub(1) & !bad;
    while u != 0 {
        let backslash = backslash_of(u);
        if escape_len(clean.get(backslash..).unwrap_or_default(), true) != 6 {
            return Some(backslash);
        }
        u &= u - 1;
    }
    (bad != 0).then(|| backslash_of(bad))
}

/// The bytes of a block escaped by a backslash, given its backslashes and `carry` (1
/// when its first byte is escaped from the block before), which it updates for the next
/// block. A run of backslashes escapes its second, fourth, … byte, and the byte after
/// it when the run is odd; runs are told apart without a loop by subtracting each run's
/// start from the odd bits (simdjson's escape scanner: Langdale and Lemire, "Parsing
/// gigabytes of JSON per second", VLDB Journal 2019).
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;
    // A backslash that is itself escaped starts nothing.
    let starts = backslash & !*carry;
    // Odd positions, with the bit after each escaping backslash flipped: the
    // subtraction borrows through each run from its start, which inverts the
    // pattern for runs that start on an odd position.
    let code = ((starts << 1 | ODD).wrapping_sub(starts)) ^ ODD;
    let escaped = code ^ (backslash | *carry);
    *carry = (code & backslash) >> 63;
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Which bytes a backslash escapes, a byte at a time, with the carry in and out.
    fn escaped_by_loop(bytes: &[u8; 64], carry_in: bool) -> (u64, bool) {
        let mut mask = 0;
        let mut escaping = carry_in;
        for (i, &b) in bytes.iter().enumerate() {
            if escaping {
                mask |= 1 << i;
                escaping = false;
            } else {
                escaping = b == b'\\';
            }
        }
        (mask, escaping)
    }

    proptest! {
        #[test]
        fn escaped_marks_what_a_byte_loop_marks(
            bytes in proptest::collection::vec(prop_oneof![
                3 => Just(b'\\'),
                1 => Just(b'a'),
                1 => Just(b'"'),
            ], 64),
            carry_in in any::<bool>(),
        ) {
            let mut block = [0u8; 64];
            block.copy_from_slice(&bytes);
            let backslash = block.iter().enumerate()
                .filter(|(_, &b)| b == b'\\')
                .fold(0u64, |m, (i, _)| m | 1 << i);
            let mut carry = u64::from(carry_in);
            let mask = escaped(backslash, &mut carry);
            prop_assert_eq!((mask, carry == 1), escaped_by_loop(&block, carry_in));
        }
    }
}
