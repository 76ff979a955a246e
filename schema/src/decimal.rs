//! `multipleOf` on the numbers as written: a number is read as the shortest decimal
//! that rounds to it (what ECMAScript prints, and what the canonical encoding writes),
//! and divisibility is decided exactly on those decimals. So `0.0075` is a multiple of
//! `0.0001` (75 times), though their doubles are not, and `1e308` is a multiple of
//! `0.5` without overflowing.

use agentloop_transcript::__private::number::format_f64;

/// `|x| = digits × 10^exponent`, from the shortest decimal spelling of `x`; `None`
/// for a non-finite number.
fn decimal(x: f64) -> Option<(u64, i32)> {
    let mut buf = [0u8; 32];
    let len = format_f64(x.abs(), &mut buf)?;
    let text = core::str::from_utf8(buf.get(..len)?).ok()?;
    let (significand, exponent) = match text.split_once('e') {
        Some((s, e)) => (s, e.trim_start_matches('+').parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
    let mut digits: u64 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        digits = digits.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    let mut exponent = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    // Trailing zeros of an integer (`100` → 1 × 10^2) keep the digits small.
    while digits != 0 && digits.is_multiple_of(10) {
        digits /= 10;
        exponent += 1;
    }
    Some((digits, exponent))
}

/// `base^exponent mod modulus` (modulus > 0).
fn pow_mod(base: u128, mut exponent: u32, modulus: u128) -> u128 {
    let mut result = 1 % modulus;
    let mut base = base % modulus;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result * base % modulus;
        }
        base = base * base % modulus;
        exponent >>= 1;
    }
    result
}

/// Whether `value` is an integer multiple of `divisor` (> 0), exactly, on their
/// shortest decimal spellings. Non-finite inputs are never multiples.
pub(crate) fn is_multiple_of(value: f64, divisor: f64) -> bool {
    if value == 0.0 && value.is_finite() {
        return true;
    }
    let (Some((v, ve)), Some((d, de))) = (decimal(value), decimal(divisor)) else {
        return false;
    };
    if d == 0 {
        return false;
    }
    let (v, d) = (u128::from(v), u128::from(d));
    let k = ve - de;
    if k >= 0 {
        // d | v × 10^k. Both below 10^17, so the products stay below 2^128.
        let Ok(k) = u32::try_from(k) else {
            return false;
        };
        ((v % d) * pow_mod(10, k, d)).is_multiple_of(d)
    } else {
        // d × 10^-k | v, with v below 10^17: possible only for -k up to 17.
        match 10u128.checked_pow(k.unsigned_abs()) {
            Some(scale) if k.unsigned_abs() <= 21 => v.is_multiple_of(d * scale),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_the_shortest_spellings() {
        assert_eq!(decimal(0.0075), Some((75, -4)));
        assert_eq!(decimal(0.0001), Some((1, -4)));
        assert_eq!(decimal(100.0), Some((1, 2)));
        assert_eq!(decimal(1e308), Some((1, 308)));
        assert_eq!(decimal(-1.5e-7), Some((15, -8)));
        assert_eq!(decimal(123.456), Some((123456, -3)));
        assert_eq!(decimal(5e-324), Some((5, -324)));
        assert_eq!(decimal(f64::NAN), None);
    }

    #[test]
    fn multiples_are_exact_on_the_decimals() {
        for (value, divisor) in [
            (0.0075, 0.0001),
            (10.0, 2.0),
            (-10.0, 2.0),
            (0.0, 0.3),
            (4.5, 1.5),
            (1e308, 0.5),
            (0.3, 0.1),
            (19.99, 0.01),
            (1e-300, 1e-300),
            (9007199254740992.0, 2.0),
        ] {
            assert!(is_multiple_of(value, divisor), "{value} / {divisor}");
        }
        for (value, divisor) in [
            (0.00751, 0.0001),
            (7.0, 2.0),
            (35.0, 1.5),
            (1e-7, 0.5),
            (0.5, 1e308),
            (1.0, 3.0),
            (f64::INFINITY, 1.0),
        ] {
            assert!(!is_multiple_of(value, divisor), "{value} / {divisor}");
        }
    }
}
