//! The bytes of a number literal, and the check of a whole literal: its canonical
//! spelling, or no canonical encoding at all.

use super::events::Events;
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
        let next = match (n, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') => Num::Int,
            (Num::Minus, b'I') => return Err(Stop::Bad(Syntax::NonFiniteLiteral)),
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::E, b'+' | b'-') => Num::ESign,
            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
            (n, _) if n.complete() && !b.is_ascii_digit() => {
                // The literal ended: check it, then read `b` as what follows it.
                let value = self.number_end(obs)?;
                self.value_done(JsonType::Number, value, obs);
                return self.byte(b, obs);
            }
            _ => return Err(Stop::Bad(Syntax::InvalidNumber)),
        };
        if self.num.push(b).is_err() {
            self.num_long = true;
        }
        obs.byte(self.inside());
        self.state = State::Number(next);
        Ok(())
    }

    /// Checks a complete literal: its canonical spelling, or no canonical form at all.
    pub(super) fn number_end<E: Events + ?Sized>(&mut self, obs: &mut E) -> Result<f64, Stop> {
        if self.num_long {
            return Err(Stop::NotCanonical(Departure::NumberSpelling));
        }
        let literal = self.num.as_slice();
        if let Some(value) = small_integer(literal) {
            return Ok(value);
        }
        let value: f64 = core::str::from_utf8(literal)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or(Stop::Bad(Syntax::InvalidNumber))?;
        let problem = if !value.is_finite() {
            Some(NumberProblem::OutOfRange)
        } else if value == 0.0 && number::literal_is_nonzero(literal) {
            Some(NumberProblem::Underflow)
        } else {
            None
        };
        if let Some(problem) = problem {
            obs.unserialisable(problem);
            return Ok(value);
        }
        let mut buf = [0u8; 32];
        let len = number::format_f64(value, &mut buf).unwrap_or(0);
        let canonical = buf.get(..len).unwrap_or_default();
        let integer = !literal.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
        if integer && !number::same_decimal_value(literal, canonical) {
            obs.unserialisable(NumberProblem::InexactInteger);
            return Ok(value);
        }
        if canonical != literal {
            return Err(Stop::NotCanonical(Departure::NumberSpelling));
        }
        Ok(value)
    }
}

/// The value of a literal that is an integer of at most 15 digits in canonical form
/// (no leading zero, not `-0`): exact as a double, and spelled as ECMAScript spells it.
/// `None` for any other literal, which is checked in full.
fn small_integer(literal: &[u8]) -> Option<f64> {
    let (negative, digits) = match literal {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, literal),
    };
    let canonical = match digits {
        [b'0'] => !negative,
        [b'1'..=b'9', ..] => digits.len() <= 15,
        _ => false,
    };
    if !canonical || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
    let value = n as f64;
    Some(if negative { -value } else { value })
}
