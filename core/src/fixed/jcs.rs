//! The RFC 8785 encoder's fixed-size part: strings and numbers into a [`ByteSink`].
//! Public as part of [`crate::jcs`] (values are encoded in `heap/jcs_value.rs`).

use core::fmt;

use crate::number;
use crate::sink::{BufferFull, ByteSink};

/// Why a value could not be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// A NaN or infinite number, which has no JSON spelling.
    NonFiniteNumber,
    /// The sink ran out of room.
    BufferFull,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::NonFiniteNumber => {
                f.write_str("NaN and infinite numbers have no canonical encoding")
            }
            EncodeError::BufferFull => f.write_str("the output buffer is too small"),
        }
    }
}

impl core::error::Error for EncodeError {}

impl From<BufferFull> for EncodeError {
    fn from(_: BufferFull) -> Self {
        EncodeError::BufferFull
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `s` as a JSON string the way ECMAScript's `JSON.stringify` does.
pub fn write_str<S: ByteSink + ?Sized>(s: &str, out: &mut S) -> Result<(), BufferFull> {
    out.write(b"\"")?;
    let bytes = s.as_bytes();
    let mut run_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0x00..=0x1f => &[],
            _ => continue,
        };
        out.write(&bytes[run_start..i])?;
        if escaped.is_empty() {
            let hex = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ];
            out.write(&hex)?;
        } else {
            out.write(escaped)?;
        }
        run_start = i + 1;
    }
    out.write(&bytes[run_start..])?;
    out.write(b"\"")
}

/// Writes a double the way ECMAScript's `Number.prototype.toString` does.
pub fn write_f64<S: ByteSink + ?Sized>(value: f64, out: &mut S) -> Result<(), EncodeError> {
    let mut buf = [0u8; 32];
    let len = number::format_f64(value, &mut buf).ok_or(EncodeError::NonFiniteNumber)?;
    Ok(out.write(&buf[..len])?)
}

/// Writes a non-negative integer in decimal (exact for every `u64`; the record format
/// keeps `seq` at or below 2^53 − 1 so that it stays exact as a double).
pub fn write_u64<S: ByteSink + ?Sized>(value: u64, out: &mut S) -> Result<(), BufferFull> {
    let mut buf = [0u8; 20];
    let len = number::format_u64(value, &mut buf);
    out.write(&buf[..len])
}

#[cfg(test)]
mod tests {
    // The whole encoder, values included (`heap/jcs_value.rs`).
    use crate::jcs::*;
    use crate::json::{parse, Value};
    use alloc::string::String;

    fn canon(input: &str) -> String {
        String::from_utf8(canonicalize(input.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn spec_section_5_vector() {
        let input = r#"{"€":1,"\r":2,"😀":3,"ﬁ":4,"a":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}"#;
        assert_eq!(
            canon(input),
            r#"{"\r":2,"a":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],"€":1,"😀":3,"ﬁ":4}"#
        );
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        assert_eq!(
            canon(r#""\u0000\u0001\u001f\b\t\n\f\r\"\\\/\u007f\u00e9\u2028""#),
            "\"\\u0000\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\u{7f}é\u{2028}\""
        );
    }

    #[test]
    fn rfc8785_number_table() {
        // RFC 8785 Appendix B: IEEE-754 bit patterns and their canonical spellings.
        let table: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for &(bits, expected) in table {
            let mut out = alloc::vec::Vec::new();
            write_f64(f64::from_bits(bits), &mut out).unwrap();
            assert_eq!(core::str::from_utf8(&out).unwrap(), expected, "{bits:016x}");
        }
        for bits in [
            0x7fffffffffffffff_u64,
            0x7ff0000000000000,
            0xfff0000000000000,
        ] {
            assert_eq!(
                write_f64(f64::from_bits(bits), &mut alloc::vec::Vec::new()),
                Err(EncodeError::NonFiniteNumber)
            );
        }
    }

    #[test]
    fn canonical_output_reads_back_to_itself() {
        for input in [
            "1e21",
            "[1000000000000000000000]",
            "1152921504606847000",
            "{\"a\":0.1}",
        ] {
            let once = canon(input);
            assert_eq!(canon(&once), once);
        }
    }

    #[test]
    fn object_without_member_and_buffer_full() {
        let v = parse(br#"{"hash":"x","kind":"k","seq":0}"#).unwrap();
        let mut out = alloc::vec::Vec::new();
        write_object_except(v.as_object().unwrap(), Some("hash"), &mut out).unwrap();
        assert_eq!(out, br#"{"kind":"k","seq":0}"#);
        let mut small = [0u8; 5];
        let mut sink = crate::sink::SliceSink::new(&mut small);
        assert_eq!(write_value(&v, &mut sink), Err(EncodeError::BufferFull));
        assert_eq!(
            write_value(&Value::Number(f64::NAN), &mut alloc::vec::Vec::new()),
            Err(EncodeError::NonFiniteNumber)
        );
    }
}
