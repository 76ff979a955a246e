//! Integers from elsewhere (a Rust integer, a serde value) as the record format's
//! numbers, taken exactly when their decimal literal would be (feature `serde`).

use crate::number::{format_f64, same_decimal_value, split};

/// The double an integer becomes, if its canonical spelling denotes the same integer:
/// the parser's rule for an integer literal (SPEC section 1), so an integer from
/// elsewhere (a Rust `u64`, a serde value) is taken exactly when its decimal literal
/// would be. Every integer of magnitude up to 2^53 is; above, only those whose
/// ECMAScript spelling has the same digits (`10^20`, `2^60` spelt `1152921504606846976`
/// is not: its spelling `1152921504606847000` names another integer).
pub(crate) fn exact_integer(negative: bool, magnitude: u128) -> Option<f64> {
    // u128 to f64 rounds to nearest, ties to even, as reading a literal does.
    let value = magnitude as f64;
    let signed = if negative { -value } else { value };
    if magnitude <= 1 << 53 {
        return Some(signed);
    }
    let mut digits = [0u8; 39];
    let mut at = digits.len();
    let mut rest = magnitude;
    while rest > 0 {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let mut canonical = [0u8; 32];
    let len = format_f64(value, &mut canonical)?;
    same_decimal_value(&digits[at..], &canonical[..len]).then_some(signed)
}

/// The integer that the ECMAScript spelling of an integral double names, as a
/// magnitude (the sign is the caller's), if it fits a `u128`. Above 2^53 this is not the
/// double's binary value: `2^60` is spelt `1152921504606847000`, and that is the integer
/// a JSON reader sees — and the one [`exact_integer`] took to make that double.
pub(crate) fn spelled_integer(value: f64) -> Option<u128> {
    let mut buf = [0u8; 32];
    let len = format_f64(value.abs(), &mut buf)?;
    let decimal = split(&buf[..len]);
    let mut magnitude: u128 = 0;
    for d in decimal.digits() {
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u128::from(d - b'0'))?;
    }
    let shift = decimal.exponent - decimal.frac_digits.len() as i64;
    if shift < 0 {
        // Only a value with a fraction is spelt with digits after the point past its
        // exponent; an integral double never is.
        return None;
    }
    for _ in 0..shift {
        magnitude = magnitude.checked_mul(10)?;
    }
    Some(magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_is_exact_when_its_literal_would_parse() {
        for (negative, magnitude) in [
            (false, 0u128),
            (true, 1 << 53),
            (false, 100_000_000_000_000_000_000),
            (false, 10u128.pow(22)),
            // Not exact as a double, but spelt `1e+23`: the same integer, as the parser
            // reads it.
            (false, 10u128.pow(23)),
            (true, 9 * 10u128.pow(21)),
        ] {
            let literal = alloc::format!("{}{magnitude}", if negative { "-" } else { "" });
            let parsed = crate::parse(literal.as_bytes()).unwrap();
            assert_eq!(
                exact_integer(negative, magnitude).map(crate::Value::Number),
                Some(parsed),
                "{literal}"
            );
        }
        for (negative, magnitude) in [
            (false, (1u128 << 53) + 1),
            (true, (1 << 53) + 1),
            (false, 1 << 60),
            (false, u64::MAX as u128),
            (false, u128::MAX),
            (false, 10u128.pow(23) + 1),
        ] {
            let literal = alloc::format!("{}{magnitude}", if negative { "-" } else { "" });
            assert!(crate::parse(literal.as_bytes()).is_err(), "{literal}");
            assert_eq!(exact_integer(negative, magnitude), None, "{literal}");
        }
    }

    #[test]
    fn an_integral_double_names_the_integer_of_its_spelling() {
        assert_eq!(spelled_integer(0.0), Some(0));
        assert_eq!(spelled_integer(-42.0), Some(42));
        assert_eq!(spelled_integer(9007199254740993.0), Some(9007199254740992));
        assert_eq!(
            spelled_integer((1u64 << 60) as f64),
            Some(1152921504606847000)
        );
        assert_eq!(spelled_integer(1e23), Some(10u128.pow(23)));
        assert_eq!(spelled_integer(1.2345e30), Some(12345 * 10u128.pow(26)));
        assert_eq!(
            spelled_integer(18446744073709551616.0),
            Some(18446744073709552000)
        );
        assert_eq!(spelled_integer(1e39), None);
        assert_eq!(spelled_integer(0.5), None);
        assert_eq!(spelled_integer(f64::NAN), None);
        // Every integer `exact_integer` takes comes back from its double.
        for magnitude in [
            1152921504606847000,
            10u128.pow(23),
            9 * 10u128.pow(21),
            1 << 53,
        ] {
            let n = exact_integer(false, magnitude).unwrap();
            assert_eq!(spelled_integer(n), Some(magnitude));
        }
    }
}
