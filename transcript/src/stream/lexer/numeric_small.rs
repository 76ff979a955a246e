//! The canonical-number check without `f64::from_str` (feature `small`, for
//! microcontrollers; docs/embedded.md): the same verdicts and values as
//! [`super::numeric::judge_exact`] with no 128-bit power-of-five table.
//!
//! A literal is canonical exactly when some double's ECMAScript spelling is the literal,
//! and a double whose spelling has the literal's decimal value is the literal's nearest
//! double (the spelling reads back as it). So no correctly rounded parse is needed: the
//! literal's first 19 significant digits, scaled by a power of ten in integer
//! arithmetic, land within an ulp of its nearest double, and the doubles around that
//! estimate, nearest first, are spelled by ryu-js and compared by decimal value (read as
//! the literal is read, so no second decimal reader is linked). A wrong estimate can
//! only miss, never accept another double. Where no double is found:
//! - an integer literal of at most 38 digits is read exactly as a `u128`, whose
//!   conversion rounds correctly: its double, and the verdict, are today's (this is
//!   where `InexactInteger` and its value come from);
//! - any other literal is not canonical (an integer of more digits is `InexactInteger`
//!   with the estimate's double, which may be an ulp from the nearest; the lexer passes
//!   no literal longer than `MAX_NUMBER_BYTES`, 32 bytes).
//!
//! Before that, the literal is compared digit by digit with the two rounding thresholds
//! of the double range, exactly for literals of at most [`KEPT`] significant digits:
//! from `2^1024 - 2^970` up it reads as infinity (`OutOfRange`), from `2^-1075` down it
//! reads as zero (`Underflow`). `numeric_tests` holds this check to the default one on
//! the spellings of random doubles, their near misses, random literals and the edges.
//! (Text the lexer never passes may differ: `inf` and `NaN`, which `str::parse` reads,
//! are `Invalid` here.)

use core::cmp::Ordering;

use super::numeric::Judged;
use super::NumberProblem;
use crate::number;

/// Significant digits of a literal kept for the comparisons with the thresholds: more
/// than a literal of `MAX_NUMBER_BYTES` has.
const KEPT: usize = 40;

/// The first [`KEPT`] significant digits of `2^1024 - 2^970` (of 309), the least
/// magnitude that reads as infinity, whose leading digit's power of ten is 308.
const OVERFLOW: (&[u8; KEPT], i64) = (b"1797693134862315807937289714053034150799", 308);

/// The first [`KEPT`] significant digits of `2^-1075` (of 752), the greatest magnitude
/// that reads as zero (a tie, rounded to the even zero), whose leading digit's power of
/// ten is -324.
const UNDERFLOW: (&[u8; KEPT], i64) = (b"2470328229206232720882843964341106861825", -324);

/// Doubles tried on each side of the estimate, which is within an ulp of the nearest.
const WINDOW: u64 = 4;

/// The largest finite double's bits, sign aside.
const MAX_BITS: u64 = 0x7fef_ffff_ffff_ffff;

/// A number literal reduced to what the check reads.
struct Literal {
    negative: bool,
    /// No `.` and no exponent.
    integer: bool,
    /// The first [`KEPT`] significant digits (values 0-9), trailing zeros cut.
    digits: [u8; KEPT],
    kept: usize,
    /// Non-zero digits beyond the kept ones.
    more: bool,
    /// The power of ten of the first significant digit (saturated far out of range).
    lead: i64,
}

/// [`super::numeric::judge_exact`]'s verdict, found as the module says.
pub(super) fn judge(text: &str) -> Judged {
    let literal = text.as_bytes();
    let Some(read) = read(literal) else {
        return Judged::Invalid;
    };
    // The sign by negation, not multiplication: no floating-point arithmetic.
    let sign = |x: f64| if read.negative { -x } else { x };
    if read.kept > 0 && compare(&read, OVERFLOW) != Ordering::Less {
        return Judged::Unserialisable(NumberProblem::OutOfRange, sign(f64::INFINITY));
    }
    if read.kept > 0 && compare(&read, UNDERFLOW) != Ordering::Greater {
        return Judged::Unserialisable(NumberProblem::Underflow, sign(0.0));
    }
    let exact = match (read.kept, read.integer) {
        (0, _) => Some(0.0),
        (_, true) => exact_integer(literal),
        _ => None,
    };
    let (found, value) = match exact {
        Some(y) => (spelled(literal, &read, sign(y)), y),
        None => {
            let estimate = estimate(&read);
            let found = nearby(estimate, |y| {
                spelled(literal, &read, sign(y)).map(|same| (same, y))
            });
            match found {
                Some((same, y)) => (Some(same), y),
                None => (None, estimate),
            }
        }
    };
    match found {
        Some(true) => Judged::Canonical(sign(value)),
        Some(false) => Judged::NotCanonical,
        None if read.integer => Judged::Unserialisable(NumberProblem::InexactInteger, sign(value)),
        None => Judged::NotCanonical,
    }
}

/// How the ECMAScript spelling of `y` compares with the literal: `None` when it denotes
/// another decimal value, else whether it is the literal's very bytes. (For an integer
/// literal, another value is `InexactInteger`: the spelling would change the number.)
fn spelled(literal: &[u8], read: &Literal, y: f64) -> Option<bool> {
    let mut buf = ryu_js::Buffer::new();
    let spelling = number::spelling(y, &mut buf)?;
    let theirs = self::read(spelling)?;
    let zeros = read.kept == 0 && theirs.kept == 0;
    let same = zeros
        || (read.negative == theirs.negative
            && read.lead == theirs.lead
            && read.kept == theirs.kept
            && read.digits == theirs.digits
            && !read.more);
    same.then_some(spelling == literal)
}

/// Reads a literal of `-?[0-9]*(\.[0-9]*)?([eE][+-]?[0-9]+)?` with at least one digit
/// before the exponent (JSON's grammar, and the forms `1.` and `.5` that `str::parse`
/// also reads); `None` for anything else.
fn read(b: &[u8]) -> Option<Literal> {
    let negative = b.first() == Some(&b'-');
    let mut out = Literal {
        negative,
        integer: true,
        digits: [0; KEPT],
        kept: 0,
        more: false,
        lead: 0,
    };
    let mut i = usize::from(negative);
    // Digits seen, significant digits seen, and digits before the point.
    let (mut seen, mut significant, mut before_point) = (0usize, 0usize, None);
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                let d = c - b'0';
                if significant > 0 || d != 0 {
                    if significant == 0 {
                        out.lead = -(seen as i64);
                    }
                    match out.digits.get_mut(significant) {
                        Some(slot) => *slot = d,
                        None => out.more |= d != 0,
                    }
                    significant += 1;
                    if d != 0 && significant <= KEPT {
                        out.kept = significant;
                    }
                }
                seen += 1;
            }
            b'.' if before_point.is_none() => before_point = Some(seen),
            _ => break,
        }
        i += 1;
    }
    if seen == 0 {
        return None;
    }
    out.integer = before_point.is_none();
    // The first significant digit's power of ten: digits before the point, less its
    // index among the digits, less one; then the exponent.
    out.lead += before_point.unwrap_or(seen) as i64 - 1;
    if let Some(&(b'e' | b'E')) = b.get(i) {
        out.integer = false;
        let (exponent, end) = exponent(b, i + 1)?;
        out.lead = out.lead.saturating_add(exponent);
        i = end;
    }
    (i == b.len()).then_some(out)
}

/// The exponent after `e` at `from`, saturated far beyond any double's range, and where
/// it ends; `None` without a digit.
fn exponent(b: &[u8], from: usize) -> Option<(i64, usize)> {
    let (negative, mut i) = match b.get(from) {
        Some(b'-') => (true, from + 1),
        Some(b'+') => (false, from + 1),
        _ => (false, from),
    };
    let start = i;
    let mut value: i64 = 0;
    while let Some(&c @ b'0'..=b'9') = b.get(i) {
        value = (value * 10 + i64::from(c - b'0')).min(1_000_000_000);
        i += 1;
    }
    (i > start).then_some((if negative { -value } else { value }, i))
}

/// The literal's magnitude against a threshold's: by the power of ten of the leading
/// digit, then digit by digit. The thresholds have non-zero digits past [`KEPT`], so a
/// literal equal to a threshold's kept digits is below it; one with more digits than
/// that is taken as below it too (no literal the lexer passes has them).
fn compare(read: &Literal, (digits, lead): (&[u8; KEPT], i64)) -> Ordering {
    read.lead.cmp(&lead).then_with(|| {
        let theirs = digits.iter().map(|&c| c - b'0');
        read.digits.iter().copied().cmp(theirs).then(Ordering::Less)
    })
}

/// An integer literal's magnitude, exactly rounded, when it has at most 38 digits (a
/// `u128` holds it); `None` for a longer one.
fn exact_integer(literal: &[u8]) -> Option<f64> {
    let digits = literal.strip_prefix(b"-").unwrap_or(literal);
    if digits.len() > 38 {
        return None;
    }
    let n = digits.iter().fold(0u128, |n, &c| {
        n * 10 + u128::from(c.wrapping_sub(b'0') % 10)
    });
    Some(n as f64)
}

/// The double nearest the literal's magnitude, within an ulp: its first 19 significant
/// digits (exact in a `u64`) times the power of ten of the last of them, in integers
/// (no floating-point arithmetic, which a microcontroller without a double FPU links
/// as code): 10^e as a 64-bit significand and a power of two, built a ten (or a tenth)
/// at a time, each step cut to 64 bits (a relative error of 2^-63 each, at most 342 of
/// them), then rounded to a double's 53 bits. Kept finite and non-zero.
fn estimate(read: &Literal) -> f64 {
    /// A tenth: 0xCCCC_CCCC_CCCC_CCCD × 2^-67 (above it by 2^-66 of it).
    const TENTH: (u64, i64) = (0xCCCC_CCCC_CCCC_CCCD, -67);
    let n = read.kept.min(19);
    let m = read
        .digits
        .iter()
        .take(n)
        .fold(0u64, |m, &d| m * 10 + u64::from(d));
    let e10 = read.lead - (n as i64 - 1);
    let (factor, steps) = if e10 >= 0 {
        ((10, 0), e10)
    } else {
        (TENTH, -e10)
    };
    let power = (0..steps).fold((1 << 63, -63), |p, _| times(p, factor));
    let shift = m.leading_zeros();
    let (sig, exp) = times(power, (m << shift, -i64::from(shift)));
    f64::from_bits(double_bits(sig, exp).clamp(1, MAX_BITS))
}

/// `sig × 2^exp` (`sig` with its top bit set) times `factor × 2^factor_exp`, cut to a
/// 64-bit significand with its top bit set.
fn times((sig, exp): (u64, i64), (factor, factor_exp): (u64, i64)) -> (u64, i64) {
    let product = u128::from(sig) * u128::from(factor);
    let zeros = product.leading_zeros();
    let top = ((product << zeros) >> 64) as u64;
    (top, exp + factor_exp + 64 - i64::from(zeros))
}

/// The bits of the double nearest `sig × 2^exp` (`sig` with its top bit set), half an
/// ulp rounded up; past the largest double, more than its bits.
fn double_bits(sig: u64, exp: i64) -> u64 {
    // The value is 1.f × 2^(exp + 63): that exponent, biased.
    let biased = exp + 63 + 1023;
    if biased >= 2047 {
        return u64::MAX;
    }
    // Bits of `sig` below the double's last: 11 for a normal double, more below.
    let cut = if biased >= 1 { 11 } else { 11 + (1 - biased) };
    let Ok(cut) = u32::try_from(cut) else {
        return 0;
    };
    let kept = sig.checked_shr(cut).unwrap_or(0);
    let half = sig.checked_shr(cut - 1).unwrap_or(0) & 1;
    // A normal double's significand has its leading 1 at bit 52: its exponent field
    // is `biased - 1` plus that bit (which carries when rounding overflows it).
    let exponent = u64::try_from(biased - 1).unwrap_or(0) << 52;
    exponent + kept + half
}

/// What `hit` makes of the first positive finite double within [`WINDOW`] ulps of
/// `estimate` that it takes, nearest first.
fn nearby<T>(estimate: f64, mut hit: impl FnMut(f64) -> Option<T>) -> Option<T> {
    let bits = estimate.to_bits();
    for d in 0..=WINDOW {
        for candidate in [bits.wrapping_add(d), bits.wrapping_sub(d)] {
            if (1..=MAX_BITS).contains(&candidate) {
                if let Some(found) = hit(f64::from_bits(candidate)) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// The estimate of a non-zero literal's magnitude, for the tests.
#[cfg(test)]
pub(super) fn estimate_of(text: &str) -> Option<f64> {
    read(text.as_bytes())
        .filter(|read| read.kept > 0)
        .map(|read| estimate(&read))
}
