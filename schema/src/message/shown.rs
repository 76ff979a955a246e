//! Values as messages show them: canonical JSON (RFC 8785), cut at [`SHOWN_BYTES`]
//! bytes with `...`, written only as far as shown; numbers as ECMAScript prints them.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use agentloop_json::__private::path::push_decimal;
use agentloop_json::jcs;
use agentloop_json::Value;
use agentloop_transcript::__private::number::is_integral;
use agentloop_transcript::sink::{BufferFull, ByteSink};

/// Longest spelling of a value in a message, in bytes, before it is cut with `...`.
pub(crate) const SHOWN_BYTES: usize = 100;

/// `value` as canonical JSON, cut at [`SHOWN_BYTES`]: only what is shown is written, so
/// a violation costs the same for a value of a megabyte as for a short one.
pub(crate) fn show(value: &Value) -> String {
    let mut out = Shown::default();
    match write_shown(value, &mut out) {
        Err(Cut::NonFinite) => String::from("(a value with a non-finite number)"),
        Ok(()) | Err(Cut::Full) => out.text(),
    }
}

/// `values` as a canonical JSON array, cut at [`SHOWN_BYTES`].
pub(crate) fn show_list(values: &[Value]) -> String {
    let mut out = Shown::default();
    let _ = out.write(b"[");
    for (i, value) in values.iter().enumerate() {
        if i != 0 && out.write(b",").is_err() {
            break;
        }
        match write_shown(value, &mut out) {
            Ok(()) => {}
            Err(Cut::Full) => break,
            Err(Cut::NonFinite) => {
                if out.write(b"(non-finite)").is_err() {
                    break;
                }
            }
        }
    }
    let _ = out.write(b"]");
    out.text()
}

/// Why [`write_shown`] stopped.
enum Cut {
    /// [`Shown`] holds all it shows.
    Full,
    /// A NaN or an infinity (only in a hand-built value).
    NonFinite,
}

impl From<BufferFull> for Cut {
    fn from(_: BufferFull) -> Cut {
        Cut::Full
    }
}

/// Writes the canonical encoding of `value` into `out` until it is full, each string
/// read only as far as it can be shown.
fn write_shown(value: &Value, out: &mut Shown) -> Result<(), Cut> {
    match value {
        Value::String(s) => jcs::write_str(shown_part(s), out)?,
        Value::Array(items) => {
            out.write(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write(b",")?;
                }
                write_shown(item, out)?;
            }
            out.write(b"]")?;
        }
        Value::Object(members) => {
            out.write(b"{")?;
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.write(b",")?;
                }
                jcs::write_str(shown_part(key), out)?;
                out.write(b":")?;
                write_shown(member, out)?;
            }
            out.write(b"}")?;
        }
        // An integer as its digits, as the canonical writer writes it (faster: no
        // shortest-digits search). Exact: the magnitude is below 2^53, and `-0` is `0`.
        Value::Number(n) if is_small_integer(*n) => {
            let mut digits = heapless::String::<24>::new();
            let _ = write!(digits, "{}", *n as i64);
            out.write(digits.as_bytes())?;
        }
        scalar => jcs::write_value(scalar, out).map_err(|e| match e {
            jcs::EncodeError::BufferFull => Cut::Full,
            _ => Cut::NonFinite,
        })?,
    }
    Ok(())
}

/// The start of `s` that shows as much of it as a message can: more than
/// [`SHOWN_BYTES`] bytes (ending at a character boundary), or all of it.
pub(crate) fn shown_part(s: &str) -> &str {
    let end = (SHOWN_BYTES + 1..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    s.get(..end).unwrap_or(s)
}

/// The first [`SHOWN_BYTES`] + 1 bytes written: enough to know whether to cut.
#[derive(Default)]
struct Shown {
    bytes: Vec<u8>,
}

impl ByteSink for Shown {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        let room = (SHOWN_BYTES + 1).saturating_sub(self.bytes.len());
        self.bytes
            .extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        if bytes.len() > room {
            return Err(BufferFull);
        }
        Ok(())
    }
}

impl Shown {
    /// What was written, cut at [`SHOWN_BYTES`] with `...` if there was more.
    fn text(self) -> String {
        cut(self.bytes)
    }
}

/// Appends `n` as ECMAScript prints it. An integer below 2^53 in magnitude is its
/// decimal digits (ECMAScript writes every integer below 10^21 without an exponent, and
/// `-0` as `0`), written directly; anything else goes through the canonical writer.
pub(crate) fn push_number(out: &mut String, n: f64) {
    if is_small_integer(n) {
        if n < 0.0 {
            out.push('-');
        }
        // Exact: the magnitude is an integer below 2^53.
        push_decimal(out, (n as i64).unsigned_abs());
    } else {
        out.push_str(&show(&Value::Number(n)));
    }
}

/// Whether `n` is an integer below 2^53 in magnitude: one [`push_number`] writes by its
/// digits (the canonical writer would write it the same, only slower).
fn is_small_integer(n: f64) -> bool {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    n.abs() < TWO_53 && is_integral(n)
}

/// Cuts UTF-8 `bytes` (perhaps ending inside a character) at a character boundary at
/// or before [`SHOWN_BYTES`], adding `...`.
fn cut(bytes: Vec<u8>) -> String {
    if bytes.len() <= SHOWN_BYTES {
        return String::from_utf8(bytes).unwrap_or_default();
    }
    // Back to the start of the character at SHOWN_BYTES (a continuation byte is
    // 0b10xxxxxx).
    let mut end = SHOWN_BYTES;
    while end > 0 && bytes.get(end).is_some_and(|b| b & 0xC0 == 0x80) {
        end -= 1;
    }
    let text = core::str::from_utf8(bytes.get(..end).unwrap_or_default()).unwrap_or_default();
    format!("{text}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_json::parse;

    #[test]
    fn long_values_are_cut_on_a_character_boundary() {
        let long = Value::String("é".repeat(200));
        let shown = show(&long);
        assert!(shown.ends_with("..."), "{shown}");
        assert!(shown.len() <= SHOWN_BYTES + 3);
        let many: Vec<Value> = (0..100).map(|i| Value::Number(f64::from(i))).collect();
        let shown = show_list(&many);
        assert!(
            shown.starts_with("[0,1,2,") && shown.ends_with("..."),
            "{shown}"
        );
        assert!(shown.len() <= SHOWN_BYTES + 3);
        let v = parse(br#"{"b":1,"a":[true,null]}"#).unwrap();
        assert_eq!(show(&v), r#"{"a":[true,null],"b":1}"#);
    }
}
