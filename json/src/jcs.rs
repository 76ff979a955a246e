//! The RFC 8785 (JSON Canonicalization Scheme) encoder, whole: strings and numbers
//! from `agentloop_transcript::jcs` (no allocator), re-exported here, and values, which
//! need one to exist: [`write_value`], [`to_vec`], [`canonicalize`] and, with `serde`,
//! any `T: Serialize`. Everything goes to a [`ByteSink`].

use alloc::vec::Vec;

pub use agentloop_transcript::jcs::*;
use agentloop_transcript::sink::ByteSink;

use crate::{Object, Value};

/// Writes the canonical encoding of `value`.
pub fn write_value<S: ByteSink + ?Sized>(value: &Value, out: &mut S) -> Result<(), EncodeError> {
    match value {
        Value::Null => out.write(b"null")?,
        Value::Bool(true) => out.write(b"true")?,
        Value::Bool(false) => out.write(b"false")?,
        Value::Number(n) => write_f64(*n, out)?,
        Value::String(s) => write_str(s, out)?,
        Value::Array(items) => {
            out.write(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write(b",")?;
                }
                write_value(item, out)?;
            }
            out.write(b"]")?;
        }
        Value::Object(object) => write_object_except(object, None, out)?,
    }
    Ok(())
}

/// Writes `object` canonically, leaving out the member named `skip` if given (a
/// record is hashed without its `hash` member). Internal (`#[doc(hidden)]`, not API):
/// agentloop-tlog's verifier hashes a parsed record with it.
#[doc(hidden)]
pub fn write_object_except<S: ByteSink + ?Sized>(
    object: &Object,
    skip: Option<&str>,
    out: &mut S,
) -> Result<(), EncodeError> {
    out.write(b"{")?;
    let mut first = true;
    for (key, value) in object.iter() {
        if Some(key) == skip {
            continue;
        }
        if !first {
            out.write(b",")?;
        }
        first = false;
        write_str(key, out)?;
        out.write(b":")?;
        write_value(value, out)?;
    }
    out.write(b"}")?;
    Ok(())
}

/// The canonical encoding of `value` as a new buffer.
pub fn to_vec(value: &Value) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    write_value(value, &mut out)?;
    Ok(out)
}

/// Writes the canonical (RFC 8785) encoding of any `T: Serialize` (feature
/// `serde`): byte for byte what [`write_value`] writes for the same data as a
/// [`Value`] ([`crate::to_value`], whose rules it follows: inexact integers,
/// NaN, infinities, non-string and repeated map keys are refused, naming where).
/// Object members are written in canonical order (UTF-16 code units), whatever
/// order the type gives them in, so the data is collected as a value first: the sort
/// needs every member of an object before the first can be written. On an error
/// nothing was written, except when the sink ran out of room
/// ([`SerializeError::buffer_full`](crate::SerializeError::buffer_full)), after which
/// the sink may hold a prefix.
///
/// ```
/// use agentloop_json::jcs;
/// use agentloop_transcript::sink::SliceSink;
/// #[derive(serde::Serialize)]
/// struct Reading { sensor: &'static str, celsius: f64, ok: bool }
///
/// let mut buf = [0u8; 64];
/// let mut sink = SliceSink::new(&mut buf);
/// jcs::write_serialize(&Reading { sensor: "t1", celsius: 1e21, ok: true }, &mut sink)
///     .unwrap();
/// assert_eq!(sink.written(), br#"{"celsius":1e+21,"ok":true,"sensor":"t1"}"#);
/// ```
#[cfg(feature = "serde")]
pub fn write_serialize<T, S>(value: &T, out: &mut S) -> Result<(), crate::SerializeError>
where
    T: serde::Serialize + ?Sized,
    S: ByteSink + ?Sized,
{
    use crate::ser::SerializeErrorKind;
    use crate::SerializeError;
    let value = crate::to_value(value)?;
    write_value(&value, out).map_err(|e| {
        SerializeError::new(match e {
            EncodeError::BufferFull => SerializeErrorKind::BufferFull,
            // Not reached: `to_value` refuses these.
            EncodeError::NonFiniteNumber => SerializeErrorKind::NonFiniteNumber,
        })
    })
}

/// The canonical encoding of any `T: Serialize` as a new buffer (see
/// [`write_serialize`]).
#[cfg(feature = "serde")]
pub fn serialize_to_vec<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<Vec<u8>, crate::SerializeError> {
    let mut out = Vec::new();
    write_serialize(value, &mut out)?;
    Ok(out)
}

/// Parses `input` strictly and returns its canonical encoding.
pub fn canonicalize(input: &[u8]) -> Result<Vec<u8>, crate::ParseError> {
    let value = crate::parse(input)?;
    // A parsed value holds only finite numbers, and a Vec never fills up.
    Ok(to_vec(&value).unwrap_or_default())
}
