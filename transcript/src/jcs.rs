//! The RFC 8785 encoder's fixed-size part: strings and numbers into a [`ByteSink`].
//! Public as part of [`crate::jcs`] (values are encoded in agentloop-json's `jcs`).

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
pub(crate) fn write_u64<S: ByteSink + ?Sized>(value: u64, out: &mut S) -> Result<(), BufferFull> {
    let mut buf = [0u8; 20];
    let len = number::format_u64(value, &mut buf);
    out.write(&buf[..len])
}
