//! The bytes of a string, one at a time: escapes, UTF-8 sequences, and a key's order
//! against the one before it.

use super::events::Events;
use super::scan::utf8_lead;
use super::state::{Escape, State};
use super::{Departure, JsonType, Lexer, Limit, Stop, Syntax, MAX_KEY_BYTES};

impl Lexer {
    /// Checks one byte of a string's body (after its opening quote), in the state the
    /// string's reading is in: `escape`, and `need` UTF-8 continuation bytes still to
    /// come, the next in `lo..=hi`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn string_byte<E: Events + ?Sized>(
        &mut self,
        b: u8,
        key: bool,
        escape: Escape,
        need: u8,
        lo: u8,
        hi: u8,
        obs: &mut E,
    ) -> Result<(), Stop> {
        let at = if key {
            self.structural(true)
        } else {
            self.inside()
        };
        let step = match escape {
            Escape::Backslash => after_backslash(b)?,
            Escape::Hex { n, value, upper } => hex_digit(b, n, value, upper)?,
            Escape::None if need > 0 => continuation(b, need, lo, hi)?,
            Escape::None if b == b'"' => {
                obs.byte(at);
                return self.string_end(key, obs);
            }
            Escape::None => unescaped(b)?,
        };
        if key {
            if let Some(d) = step.decoded {
                self.push_key(d)?;
            }
        }
        obs.byte(at);
        self.state = State::Str {
            key,
            escape: step.escape,
            need: step.need,
            lo: step.lo,
            hi: step.hi,
        };
        Ok(())
    }

    pub(super) fn push_key(&mut self, b: u8) -> Result<(), Stop> {
        if self.keys.len().saturating_sub(usize::from(self.key_at)) >= MAX_KEY_BYTES {
            return Err(Stop::Limit(Limit::KeyTooLong));
        }
        self.keys
            .push(b)
            .map_err(|_| Stop::Limit(Limit::KeyPathTooLong))
    }

    pub(super) fn string_end<E: Events + ?Sized>(
        &mut self,
        key: bool,
        obs: &mut E,
    ) -> Result<(), Stop> {
        if !key {
            self.value_done(JsonType::String, 0.0, obs);
            return Ok(());
        }
        let key_at = usize::from(self.key_at);
        let Some(frame) = self.frames.last_mut() else {
            return Err(Stop::Bad(Syntax::UnexpectedByte(b'"')));
        };
        let start = usize::from(frame.key_start);
        if frame.has_key {
            let prev = self.keys.as_slice().get(start..key_at).unwrap_or_default();
            let cur = self.keys.as_slice().get(key_at..).unwrap_or_default();
            match cmp_utf16(prev, cur) {
                core::cmp::Ordering::Less => {}
                core::cmp::Ordering::Equal => return Err(Stop::Bad(Syntax::DuplicateKey)),
                core::cmp::Ordering::Greater => {
                    return Err(Stop::NotCanonical(Departure::KeyOrder))
                }
            }
            // Keep only the new key as the object's last.
            self.keys.remove_range(start, key_at);
        }
        frame.has_key = true;
        if self.top_object() && self.frames.len() == 1 {
            obs.key(self.keys.as_slice().get(start..).unwrap_or_default());
        }
        self.state = State::Colon;
        Ok(())
    }
}

/// Compares two UTF-8 strings as sequences of UTF-16 code units (RFC 8785's key order).
///
/// UTF-8 bytes sort as code points, and so do UTF-16 units but in one case: a character
/// from U+10000 on (lead byte F0..F4; a surrogate pair D800..DFFF in UTF-16) sorts
/// before one of U+E000..U+FFFF (lead byte EE or EF) in UTF-16, after it in UTF-8.
/// Where two strings first differ, either both bytes are the lead bytes of the
/// characters that differ, or both are continuation bytes of characters with the same
/// lead byte (whose order is the same in both encodings); so that byte decides.
pub(super) fn cmp_utf16(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    let Some((&x, &y)) = a.iter().zip(b).find(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    match (x, y) {
        (0xf0..=0xf4, 0xee..=0xef) => core::cmp::Ordering::Less,
        (0xee..=0xef, 0xf0..=0xf4) => core::cmp::Ordering::Greater,
        _ => x.cmp(&y),
    }
}

/// What one byte of a string's body leaves: the byte it stands for in the unescaped
/// string (`None` inside an escape), and the string's state after it.
struct Step {
    decoded: Option<u8>,
    escape: Escape,
    need: u8,
    lo: u8,
    hi: u8,
}

impl Step {
    /// A byte that stands for itself (or ends an escape), with nothing pending after it.
    fn byte(decoded: u8) -> Step {
        Step {
            decoded: Some(decoded),
            escape: Escape::None,
            need: 0,
            lo: 0x80,
            hi: 0xbf,
        }
    }

    /// A byte inside an escape, which goes on as `escape`.
    fn escape(escape: Escape) -> Step {
        Step {
            decoded: None,
            escape,
            need: 0,
            lo: 0x80,
            hi: 0xbf,
        }
    }
}

/// The byte after a backslash.
fn after_backslash(b: u8) -> Result<Step, Stop> {
    Ok(match b {
        b'"' | b'\\' => Step::byte(b),
        b'b' => Step::byte(0x08),
        b't' => Step::byte(b'\t'),
        b'n' => Step::byte(b'\n'),
        b'f' => Step::byte(0x0c),
        b'r' => Step::byte(b'\r'),
        b'u' => Step::escape(Escape::Hex {
            n: 0,
            value: 0,
            upper: false,
        }),
        b'/' => return Err(Stop::NotCanonical(Departure::Escape)),
        _ => return Err(Stop::Bad(Syntax::InvalidEscape)),
    })
}

/// A hex digit of a `\u` escape, after `n` digits making `value` (`upper`: one of them
/// was an uppercase letter).
fn hex_digit(b: u8, n: u8, value: u16, upper: bool) -> Result<Step, Stop> {
    let digit = match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => return Err(Stop::Bad(Syntax::InvalidEscape)),
    };
    let value = (value << 4) | u16::from(digit);
    let upper = upper || b.is_ascii_uppercase();
    if n < 3 {
        return Ok(Step::escape(Escape::Hex {
            n: n + 1,
            value,
            upper,
        }));
    }
    // Canonical form writes `\u00xx` (lowercase) only for the control characters
    // without a short escape.
    let short = matches!(value, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
    if upper || value >= 0x20 || short {
        return Err(Stop::NotCanonical(Departure::Escape));
    }
    Ok(Step::byte(value as u8))
}

/// A continuation byte of a UTF-8 sequence, `need` of them still to come (this one
/// included), this one in `lo..=hi`.
fn continuation(b: u8, need: u8, lo: u8, hi: u8) -> Result<Step, Stop> {
    if b < lo || b > hi {
        return Err(Stop::Bad(Syntax::InvalidUtf8));
    }
    let mut step = Step::byte(b);
    step.need = need - 1;
    Ok(step)
}

/// A byte of a string's body outside any escape or UTF-8 sequence, other than `"`.
fn unescaped(b: u8) -> Result<Step, Stop> {
    Ok(match b {
        b'\\' => Step::escape(Escape::Backslash),
        0x00..=0x1f => return Err(Stop::Bad(Syntax::ControlCharacter)),
        0x20..=0x7f => Step::byte(b),
        _ => {
            let (need, lo, hi) = utf8_lead(b).ok_or(Stop::Bad(Syntax::InvalidUtf8))?;
            Step {
                decoded: Some(b),
                escape: Escape::None,
                need,
                lo,
                hi,
            }
        }
    })
}
