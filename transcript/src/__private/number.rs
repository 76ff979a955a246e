//! Numbers: ECMAScript `Number.prototype.toString` output, and the check that an
//! integer literal survives canonicalisation unchanged (SPEC section 1).

use core::cmp::Ordering;

/// Writes the ECMAScript spelling of a finite double into `out`, returning its length.
///
/// `-0` is written `0`; integers below 1e21 in full; others in shortest round-trip form
/// with `e+`/`e-` exponents. Returns `None` for NaN and infinities, which have none.
pub fn format_f64(value: f64, out: &mut [u8; 32]) -> Option<usize> {
    let mut buf = ryu_js::Buffer::new();
    let s = spelling(value, &mut buf)?;
    out.get_mut(..s.len())?.copy_from_slice(s);
    Some(s.len())
}

/// [`format_f64`]'s bytes, written in `buf` (or a constant) and lent, not copied: for a
/// caller that only compares them.
pub fn spelling(value: f64, buf: &mut ryu_js::Buffer) -> Option<&[u8]> {
    if !value.is_finite() {
        return None;
    }
    if value == 0.0 {
        return Some(b"0");
    }
    Some(buf.format_finite(value).as_bytes())
}

/// Writes a `u64` in decimal into `out`, returning its length.
pub fn format_u64(mut value: u64, out: &mut [u8; 20]) -> usize {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    let len = tmp.len() - i;
    out[..len].copy_from_slice(&tmp[i..]);
    len
}

/// A decimal number reduced to sign, significant digits (no leading or trailing zeros)
/// and a power of ten; zero has no digits and is never negative.
pub struct Decimal<'a> {
    negative: bool,
    int_digits: &'a [u8],
    pub frac_digits: &'a [u8],
    pub exponent: i64,
}

impl Decimal<'_> {
    /// Digits of the significand, in order, int part then fraction.
    pub fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.int_digits.iter().chain(self.frac_digits).copied()
    }

    /// (first significant digit position, significant digit count, exponent of the last
    /// significant digit), or `None` for zero.
    fn normal(&self) -> Option<(usize, usize, i64)> {
        let mut first = None;
        let mut last = 0;
        for (i, d) in self.digits().enumerate() {
            if d != b'0' {
                first.get_or_insert(i);
                last = i;
            }
        }
        let first = first?;
        // The digit at index `last` has weight 10^(int_len - 1 - last + exponent).
        let weight = self.int_digits.len() as i64 - 1 - last as i64 + self.exponent;
        Some((first, last - first + 1, weight))
    }
}

/// Splits a JSON number literal (already checked for syntax) into its parts.
pub fn split(literal: &[u8]) -> Decimal<'_> {
    let (negative, rest) = match literal.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, literal),
    };
    let mantissa_end = rest
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .unwrap_or(rest.len());
    let (mantissa, exp_part) = rest.split_at(mantissa_end);
    let exponent = parse_exponent(exp_part.get(1..).unwrap_or(&[]));
    let (int_digits, frac_digits) = match mantissa.iter().position(|&c| c == b'.') {
        Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
        None => (mantissa, &mantissa[mantissa.len()..]),
    };
    Decimal {
        negative,
        int_digits,
        frac_digits,
        exponent,
    }
}

/// The exponent's value, saturated far beyond any double's range.
fn parse_exponent(exp: &[u8]) -> i64 {
    let (negative, digits) = match exp.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, exp),
    };
    let mut value: i64 = 0;
    for &d in digits {
        value = (value * 10 + i64::from(d - b'0')).min(1_000_000_000);
    }
    if negative {
        -value
    } else {
        value
    }
}

/// Whether two number literals denote the same decimal value (`-0` equals `0`).
pub fn same_decimal_value(a: &[u8], b: &[u8]) -> bool {
    let (da, db) = (split(a), split(b));
    match (da.normal(), db.normal()) {
        (None, None) => true,
        (Some((fa, ca, wa)), Some((fb, cb, wb))) => {
            da.negative == db.negative
                && ca == cb
                && wa == wb
                && da
                    .digits()
                    .skip(fa)
                    .take(ca)
                    .cmp(db.digits().skip(fb).take(cb))
                    == Ordering::Equal
        }
        _ => false,
    }
}

/// Significant digits kept when a literal is reduced for [`parse_f64`]: more than the
/// 768 that can decide the rounding of a double, plus a sticky digit.
const REDUCED_DIGITS: usize = 800;

/// Reads a JSON number literal (syntax already checked) as the correctly rounded double;
/// `None` only for a literal `str::parse` refuses.
///
/// `str::parse::<f64>` stops accumulating an exponent near 65,536 while it reads it. That
/// is exact unless tens of thousands of digits offset the exponent: `1`, 70,000 zeros,
/// `e-70000` is 1 but would read as infinity, and `0.`, 65,536 zeros, `1e+999999` (far
/// beyond the double range) would read as a finite number — a silent change of value.
/// A literal whose exponent has five or more digits is therefore reduced first, without
/// allocating, to its first 800 significant digits (plus a sticky `1`
/// where non-zero digits were cut, so rounding cannot change) and the exponent of its
/// first digit, which reads exactly; past the double range either way it is infinity or
/// zero at once.
pub fn parse_f64(literal: &str) -> Option<f64> {
    let bytes = literal.as_bytes();
    let exponent_digits = bytes
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .map(|e| {
            bytes[e + 1..]
                .iter()
                .skip_while(|&&c| matches!(c, b'+' | b'-' | b'0'))
                .count()
        })
        .unwrap_or(0);
    if exponent_digits < 5 {
        return literal.parse().ok();
    }
    let decimal = split(bytes);
    let Some((first, count, weight)) = decimal.normal() else {
        return literal.parse().ok();
    };
    let sign = if decimal.negative { -1.0 } else { 1.0 };
    // The power of ten of the first significant digit.
    let lead = weight.saturating_add(count as i64 - 1);
    if lead > 400 {
        return Some(sign * f64::INFINITY);
    }
    if lead < -400 {
        return Some(sign * 0.0);
    }
    // `-0.` + digits + sticky digit + `e` + exponent (at most 4 characters).
    let mut buf = [0u8; REDUCED_DIGITS + 12];
    let mut n = 0;
    let mut push = |b: u8| {
        buf[n] = b;
        n += 1;
    };
    if decimal.negative {
        push(b'-');
    }
    push(b'0');
    push(b'.');
    let keep = count.min(REDUCED_DIGITS);
    decimal.digits().skip(first).take(keep).for_each(&mut push);
    // The last significant digit is non-zero: cutting any digit cuts a non-zero one.
    if count > keep {
        push(b'1');
    }
    push(b'e');
    let exponent = lead + 1;
    if exponent < 0 {
        push(b'-');
    }
    let mut digits = [0u8; 20];
    let len = format_u64(exponent.unsigned_abs(), &mut digits);
    digits[..len].iter().copied().for_each(&mut push);
    core::str::from_utf8(&buf[..n]).ok()?.parse().ok()
}

/// Whether a number literal has a non-zero digit in its significand.
pub fn literal_is_nonzero(literal: &[u8]) -> bool {
    split(literal).normal().is_some()
}

/// Whether `n` is a finite number with no fractional part (`1.0` and `1e300` are
/// integers; NaN and the infinities are not).
///
/// `core` has no `f64::trunc`, but every finite double of magnitude 2^52 or more is an
/// integer, and below that the cast to `i64` truncates exactly.
pub fn is_integral(n: f64) -> bool {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    if !n.is_finite() {
        return false;
    }
    if n >= TWO_52 || n <= -TWO_52 {
        return true;
    }
    (n as i64) as f64 == n
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn read(literal: &str) -> f64 {
        parse_f64(literal).unwrap()
    }

    #[test]
    fn long_digit_strings_offset_huge_exponents_exactly() {
        let zeros = |n: usize| "0".repeat(n);
        // std alone reads these wrong (infinity; a finite number for an out-of-range one).
        assert_eq!(read(&format!("1{}e-70000", zeros(70_000))), 1.0);
        assert_eq!(read(&format!("-0.{}25e+70001", zeros(70_000))), -2.5);
        assert_eq!(
            read(&format!("0.{}1e+999999", zeros(65_536))),
            f64::INFINITY
        );
        assert_eq!(read(&format!("1{}e-999999", zeros(65_536))), 0.0);
        assert_eq!(read(&format!("{}e-999990", "9".repeat(1_000_000))), 1e10);
        // Cut digits keep the rounding: just above and at the midpoint between 1 and
        // the next double (1 + 2^-52), 2^-53 = 1.1102230246251565404236316680908203125e-16.
        let half_ulp = "0000000000000001110223024625156540423631668090820312";
        let above = format!("1.{half_ulp}5{}1e+00000", zeros(2000));
        assert_eq!(read(&above), 1.0 + f64::EPSILON);
        let at = format!("1.{half_ulp}5{}e+00000", zeros(2000));
        assert_eq!(read(&at), 1.0, "ties to even");
        // Ordinary literals are untouched.
        assert_eq!(read("1e5"), 1e5);
        assert_eq!(read("1e-0000000000000000400"), 0.0);
        assert_eq!(read("0e99999999"), 0.0);
        assert_eq!(read("-0"), 0.0);
    }

    fn fmt(v: f64) -> alloc::string::String {
        let mut out = [0u8; 32];
        let n = format_f64(v, &mut out).unwrap();
        alloc::string::String::from_utf8(out[..n].to_vec()).unwrap()
    }

    #[test]
    fn ecmascript_spellings() {
        assert_eq!(fmt(-0.0), "0");
        assert_eq!(fmt(0.0), "0");
        assert_eq!(fmt(1e21), "1e+21");
        assert_eq!(fmt(1e20), "100000000000000000000");
        assert_eq!(fmt(1e-7), "1e-7");
        assert_eq!(fmt(0.000001), "0.000001");
        assert_eq!(fmt(5e-324), "5e-324");
        assert_eq!(fmt(-1.5), "-1.5");
        assert_eq!(fmt(9007199254740992.0), "9007199254740992");
        assert_eq!(fmt(f64::MAX), "1.7976931348623157e+308");
        assert!(format_f64(f64::NAN, &mut [0; 32]).is_none());
        assert!(format_f64(f64::INFINITY, &mut [0; 32]).is_none());
    }

    #[test]
    fn u64_spelling() {
        let mut out = [0u8; 20];
        let n = format_u64(0, &mut out);
        assert_eq!(&out[..n], b"0");
        let n = format_u64(u64::MAX, &mut out);
        assert_eq!(&out[..n], b"18446744073709551615");
        let n = format_u64(1203, &mut out);
        assert_eq!(&out[..n], b"1203");
    }

    #[test]
    fn decimal_normal_form() {
        // (first significant digit, significant digits, power of ten of the last one)
        assert_eq!(split(b"125").normal(), Some((0, 3, 0)));
        assert_eq!(split(b"-0.0125").normal(), Some((2, 3, -4)));
        assert_eq!(split(b"1200e-1").normal(), Some((0, 2, 1)));
        assert_eq!(split(b"0.000").normal(), None);
    }

    #[test]
    fn decimal_value_comparison() {
        assert!(same_decimal_value(b"100000000000000000000", b"1e+20"));
        assert!(same_decimal_value(b"1000000000000000000000", b"1e+21"));
        assert!(same_decimal_value(b"-0", b"0"));
        assert!(same_decimal_value(b"0", b"0.000"));
        assert!(same_decimal_value(
            b"1152921504606847000",
            b"1152921504606847000"
        ));
        assert!(!same_decimal_value(
            b"1152921504606846976",
            b"1152921504606847000"
        ));
        assert!(!same_decimal_value(
            b"9007199254740993",
            b"9007199254740992"
        ));
        assert!(same_decimal_value(b"12.5e1", b"125"));
        assert!(same_decimal_value(b"0.0125", b"1.25e-2"));
        assert!(!same_decimal_value(b"-1", b"1"));
        assert!(!same_decimal_value(b"1", b"0"));
        assert!(!same_decimal_value(b"1", b"10"));
        assert!(!same_decimal_value(b"12", b"21"));
        assert!(literal_is_nonzero(b"1e-400"));
        assert!(!literal_is_nonzero(b"0.000e5"));
        assert!(!literal_is_nonzero(b"-0"));
    }
}
