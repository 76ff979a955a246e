//! The bytes of a number literal, and the check of a whole literal: its canonical
//! spelling, or no canonical encoding at all.

use super::events::Events;
use super::scan::digits;
use super::state::{Num, State};
use super::{Departure, JsonType, Lexer, NumberProblem, Stop, Syntax};
use crate::number;

impl Lexer {
    pub(super) fn number_byte<E: Events + ?Sized>(
        &mut self,
        b: u8,
        n: Num,
        obs: &mut E,
    ) -> Result<(), Stop> {
        let next = match n.next(b) {
            Some(next) => next,
            None if n == Num::Minus && b == b'I' => {
                return Err(Stop::Bad(Syntax::NonFiniteLiteral))
            }
            None if n.complete() && !b.is_ascii_digit() => {
                // The literal ended: check it, then read `b` as what follows it.
                let value = self.number_end(obs)?;
                self.value_done(JsonType::Number, value, obs);
                return self.byte(b, obs);
            }
            None => return Err(Stop::Bad(Syntax::InvalidNumber)),
        };
        if self.num.push(b).is_err() {
            self.num_long = true;
        }
        obs.byte(self.inside());
        self.state = State::Number(next);
        Ok(())
    }

    /// Checks a complete literal: its canonical spelling, or no canonical form at all.
    /// Returns its value, which only the value of a member of the outermost object is
    /// read for (`value_done`); for any other number it may be left at 0.
    pub(super) fn number_end<E: Events + ?Sized>(&mut self, obs: &mut E) -> Result<f64, Stop> {
        if self.num_long {
            return Err(Stop::NotCanonical(Departure::NumberSpelling));
        }
        match judge(self.num.as_slice(), self.member_value()) {
            Judged::Canonical(value) => Ok(value),
            Judged::Unserialisable(problem, value) => {
                obs.unserialisable(problem);
                Ok(value)
            }
            Judged::NotCanonical => Err(Stop::NotCanonical(Departure::NumberSpelling)),
            Judged::Invalid => Err(Stop::Bad(Syntax::InvalidNumber)),
        }
    }
}

/// What [`judge`] makes of a literal that follows JSON's number grammar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Judged {
    /// Canonical; its value (0 when it was not asked for and need not be computed).
    Canonical(f64),
    /// No canonical encoding at all, and the value it reads as.
    Unserialisable(NumberProblem, f64),
    /// A number, but not spelled as ECMAScript spells it.
    NotCanonical,
    /// Not a number `f64` parsing accepts.
    Invalid,
}

/// Judges a literal of JSON's number grammar: canonical (with its value, computed only
/// when `need_value` or when the check needs it), unserialisable, or misspelled.
pub(super) fn judge(literal: &[u8], need_value: bool) -> Judged {
    match core::str::from_utf8(literal) {
        Ok(text) => judge_text(text, need_value),
        Err(_) => Judged::Invalid,
    }
}

/// [`judge`] of a literal already known to be text.
pub(super) fn judge_text(text: &str, need_value: bool) -> Judged {
    let literal = text.as_bytes();
    if let Some(value) = small_integer(literal) {
        return Judged::Canonical(value);
    }
    if crate::SMALL {
        // No shortcut by the literal's shape: its code is more than a microcontroller
        // can spare for the time it saves.
        return judge_exact(text);
    }
    let at_a_glance = || {
        Shape::of(literal)
            .is_some_and(|shape| shape.len == literal.len() && shape.canonical_at_a_glance(text))
    };
    if !need_value && at_a_glance() {
        // Canonical as it stands, and no one reads its value.
        return Judged::Canonical(0.0);
    }
    judge_exact(text)
}

/// [`judge_text`] without its shortcuts: the literal converted to the nearest double and
/// that double printed as ECMAScript prints it. The same verdict for every literal (the
/// shortcuts only spare the work where they apply), so a caller that knows they do not
/// apply may come here directly.
///
/// The double is printed first by zmij, which writes the same digits as ECMAScript in
/// fewer instructions, and compared; ECMAScript's own spelling (ryu-js, what the encoder writes)
/// is printed only where the two spellings may differ and zmij's does not settle it:
/// see [`judge_by_zmij`].
///
/// Small (`crate::SMALL`, microcontrollers): the same verdicts without
/// `f64::from_str` and zmij, in less code and more time (`numeric_small`).
pub(super) fn judge_exact(text: &str) -> Judged {
    if crate::SMALL {
        return super::numeric_small::judge(text);
    }
    judge_parsed(text, |literal, value| {
        judge_by_zmij(literal, value).unwrap_or_else(|| judge_by_ecmascript(literal, value))
    })
}

/// The literal converted to the nearest double: no number, out of range, or a nonzero
/// literal that underflowed to zero; any other double is judged by `spelled` (the
/// literal and its double).
pub(super) fn judge_parsed(text: &str, spelled: impl FnOnce(&[u8], f64) -> Judged) -> Judged {
    let literal = text.as_bytes();
    let Ok(value) = text.parse::<f64>() else {
        return Judged::Invalid;
    };
    if !value.is_finite() {
        return Judged::Unserialisable(NumberProblem::OutOfRange, value);
    }
    if value == 0.0 && number::literal_is_nonzero(literal) {
        return Judged::Unserialisable(NumberProblem::Underflow, value);
    }
    spelled(literal, value)
}

/// [`judge_exact`]'s verdict on a finite literal, from zmij's spelling of its double:
/// `None` where that does not settle it.
///
/// zmij (`Buffer::format_finite`) writes the same shortest round-trip digits as
/// ECMAScript's `Number.prototype.toString` (its own tests hold it to ryu, which ryu-js
/// follows; `numeric_tests` holds this verdict to ryu-js's), and lays them out as
/// ECMAScript does except in three places. Call `e` the decimal exponent of the leading
/// digit (the value is `d.ddd × 10^e`). zmij writes without an exponent for `e` in
/// -5..=15 (its `FIXED_DEC_EXP`), ECMAScript for -6..=20; in the exponent form both
/// write `d` or `d.ddd`, then `e`, the sign, and the exponent's digits. So they differ:
/// for an integer below 10^16 (zero too), which zmij writes with `.0` (`5.0`, `-0.0`)
/// and ECMAScript without; for `e = -6` (`1.5e-6` against `0.0000015`); for `e` in 16..=20 (`1e+16`
/// against `10000000000000000`). [`same_layout`] tells those apart by how zmij's
/// spelling ends.
/// - zmij's spelling is the literal: canonical exactly when it is laid out as
///   ECMAScript's ([`same_layout`]). (It has a `.` or an `e`, so the literal is not an
///   integer and has no `InexactInteger` to report.)
/// - It is not, and the literal is a decimal or has an exponent, and (sign aside) does
///   not start `0.00000`: not canonical. Were ECMAScript to write such a literal, with
///   an exponent it would be for `e <= -7` or `e >= 21`, where zmij writes the same
///   exponent form; without one, the value would not be an integer, so below 2^53 and
///   `e <= 15`, and not `0.00000`-something, so `e >= -5`: in zmij's fixed range, which
///   writes a non-integer as ECMAScript does. Either way zmij would have written the
///   literal too.
/// - Else (integers, `0.00000`…): `None`, for ryu-js to settle.
pub(super) fn judge_by_zmij(literal: &[u8], value: f64) -> Option<Judged> {
    let mut buf = zmij::Buffer::new();
    let spelling = buf.format_finite(value).as_bytes();
    if spelling == literal {
        return Some(if same_layout(spelling) {
            Judged::Canonical(value)
        } else {
            Judged::NotCanonical
        });
    }
    let digits = literal.strip_prefix(b"-").unwrap_or(literal);
    let decimal = literal.iter().any(|&b| matches!(b, b'.' | b'e' | b'E'));
    (decimal && !digits.starts_with(b"0.00000")).then_some(Judged::NotCanonical)
}

/// Whether ECMAScript writes a double as zmij does, told by how zmij's spelling of it
/// ends: not with `.0` (an integer), `e-6`, or `e+16` to `e+20` (see [`judge_by_zmij`]).
fn same_layout(spelling: &[u8]) -> bool {
    !matches!(
        spelling,
        [.., b'.', b'0']
            | [.., b'e', b'-', b'6']
            | [.., b'e', b'+', b'1', b'6'..=b'9']
            | [.., b'e', b'+', b'2', b'0']
    )
}

/// [`judge_exact`]'s verdict on a finite literal whose double is not a zero it
/// underflowed to, from the double's ECMAScript spelling.
pub(super) fn judge_by_ecmascript(literal: &[u8], value: f64) -> Judged {
    let mut buf = ryu_js::Buffer::new();
    let canonical = number::spelling(value, &mut buf).unwrap_or_default();
    let integer = !literal.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
    if integer && !number::same_decimal_value(literal, canonical) {
        return Judged::Unserialisable(NumberProblem::InexactInteger, value);
    }
    if canonical != literal {
        return Judged::NotCanonical;
    }
    Judged::Canonical(value)
}

/// The value of a literal that is an integer of at most 2^53 in canonical form (no
/// leading zero, not `-0`): exact as a double, and spelled as ECMAScript spells it.
/// `None` for any other literal, which is checked in full.
fn small_integer(literal: &[u8]) -> Option<f64> {
    const EXACT: u64 = 1 << 53;
    let (negative, digits) = match literal {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, literal),
    };
    let canonical = match digits {
        [b'0'] => !negative,
        [b'1'..=b'9', ..] => digits.len() <= 16,
        _ => false,
    };
    if !canonical || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
    if n > EXACT {
        return None;
    }
    let value = n as f64;
    Some(if negative { -value } else { value })
}

/// The number literal of JSON's grammar at the start of some bytes
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), read in one pass.
pub(super) struct Shape {
    pub(super) len: usize,
    /// Digits before the exponent, of the integer part and the fraction.
    pub(super) digits: usize,
    /// Leading zeros among them (`0.00` has 3).
    pub(super) zeros: usize,
    pub(super) fraction: bool,
    pub(super) exponent: bool,
}

impl Shape {
    /// Whether `literal` (of this shape) is canonical by its spelling alone: an integer
    /// of at most 15 digits but `-0` (the grammar leaves no leading zero, and below
    /// 10^15 every integer is exact and printed as it is), or a decimal without
    /// exponent of at most 15 significant digits, no trailing zero and at most five
    /// zeros after `0.`, so from 10^-6 up to (below) 10^15.
    ///
    /// Why that is enough for the decimal: one of at most 15 significant digits in the
    /// normal range comes back from its nearest double as itself (15 is `f64::DIGITS`),
    /// so no other decimal of as few digits rounds to that double, and the shortest
    /// digits ECMAScript's `Number.prototype.toString` writes are the literal's own;
    /// from 10^-6 to 10^21 it writes them without an exponent, with no leading zero
    /// before the point but one, and no trailing zero after it — the literal's
    /// spelling. `false` for any other literal, which is checked in full
    /// (`fast_tests::literals_at_the_edges_of_the_shortcuts_are_accepted_exactly_when_canonical`,
    /// `whole_line_tests::the_shape_takes_short_integers_and_short_decimals_and_nothing_else`).
    pub(super) fn canonical_at_a_glance(&self, literal: &str) -> bool {
        if self.exponent {
            return false;
        }
        if !self.fraction {
            return self.digits <= 15 && literal != "-0";
        }
        // `zeros` counts the integer part's `0` and the fraction's leading zeros.
        self.digits - self.zeros <= 15 && self.zeros <= 6 && !literal.ends_with('0')
    }

    pub(super) fn of(b: &[u8]) -> Option<Shape> {
        let digits_from = |from: usize| from + digits(b.get(from..).unwrap_or_default());
        let mut i = usize::from(b.first() == Some(&b'-'));
        let start = i;
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits_from(i + 1),
            _ => return None,
        }
        let int_digits = i - start;
        let mut shape = Shape {
            len: 0,
            digits: int_digits,
            zeros: usize::from(b.get(start) == Some(&b'0')),
            fraction: false,
            exponent: false,
        };
        if b.get(i) == Some(&b'.') {
            let end = digits_from(i + 1);
            if end == i + 1 {
                return None;
            }
            let fraction = b.get(i + 1..end).unwrap_or_default();
            if shape.zeros == 1 {
                shape.zeros += fraction.iter().take_while(|&&d| d == b'0').count();
            }
            shape.digits += fraction.len();
            shape.fraction = true;
            i = end;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits_from(i);
            if end == i {
                return None;
            }
            shape.exponent = true;
            i = end;
        }
        shape.len = i;
        Some(shape)
    }
}
