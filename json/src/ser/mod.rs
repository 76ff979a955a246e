//! Rust data to JSON values with serde (feature `serde`): [`to_value`], and `Value` as
//! serde data (`impl Serialize for Value`).

use serde::ser::{self, Serialize, SerializeMap as _, SerializeSeq as _};

use super::{Object, Value};
use crate::exact::exact_integer;
use crate::number::is_integral;

mod builders;
mod error;
mod key;
mod value;

use builders::*;
pub(crate) use error::Inexact;
pub use error::SerializeError;
pub(crate) use error::SerializeErrorKind;
use key::*;
use value::*;

/// Rust data as a JSON value (feature `serde`).
///
/// The data model maps as serde_json maps it, with every change of data refused
/// instead of made:
///
/// | Rust (serde data model) | JSON value |
/// | --- | --- |
/// | `bool` | `true` / `false` |
/// | integers (`u8` … `u128`, `i8` … `i128`) | a number, when its canonical spelling denotes the same integer (every integer up to 2^53 in magnitude; above, only those such as `10^20` — the strict parser's rule; [`from_value`](crate::from_value) reads it back unchanged); otherwise refused ("the integer … would become … as a JSON number") |
/// | `f32`, `f64` | a number (an `f32` widened exactly: `0.1f32` is `0.10000000149011612`); NaN and infinities refused ("… have no JSON encoding") |
/// | `char`, `str` | a string |
/// | `()`, unit struct, `None` | `null` |
/// | `Some(v)`, newtype struct | `v` |
/// | bytes | an array of numbers |
/// | sequence, tuple, tuple struct | an array |
/// | map, struct | an object, members in canonical order; a key must be a string, a `char`, a unit variant or a newtype around one ("a map key must be a string, not …"), and may appear once ("the key '…' appears twice") |
/// | unit variant | its name, as a string |
/// | newtype, tuple or struct variant | `{"<variant>": <content>}` |
///
/// Arrays and objects may nest [`MAX_DEPTH`](crate::MAX_DEPTH) (128) deep, as the strict parser reads
/// them; deeper data is refused ("arrays and objects nest deeper than 128 levels …"), so whatever `to_value`
/// gives encodes to bytes every reader here accepts.
///
/// ```
/// use agentloop_json::{self as json, Value};
/// #[derive(serde::Serialize)]
/// struct Reading { sensor: &'static str, celsius: f64 }
///
/// let value = json::to_value(&Reading { sensor: "t1", celsius: 21.5 }).unwrap();
/// assert_eq!(value, json::parse(br#"{"celsius":21.5,"sensor":"t1"}"#).unwrap());
///
/// let error = json::to_value(&[f64::NAN]).unwrap_err();
/// assert_eq!(error.to_string(), "NaN and infinite numbers have no JSON encoding at $[0]");
/// ```
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, SerializeError> {
    value.serialize(ValueSerializer { depth: 0 })
}

/// A number from an integer, if it is exact.
fn integer(negative: bool, magnitude: u128) -> Result<Value, SerializeError> {
    match exact_integer(negative, magnitude) {
        Some(n) => Ok(Value::Number(n)),
        None => {
            let sign = if negative { "-" } else { "" };
            Err(SerializeError::new(SerializeErrorKind::InexactInteger(
                alloc::format!("{sign}{magnitude}"),
            )))
        }
    }
}

/// `{"<variant>": content}`.
fn tagged(variant: &'static str, content: Value) -> Value {
    let mut object = Object::new();
    object.insert(variant, content);
    Value::Object(object)
}

/// A value as serde data: `null`, booleans and strings as themselves, an array as a
/// sequence, an object as a map in canonical key order. A number whose value is an
/// integer of magnitude up to 2^53 is an integer (`u64`, or `i64` when negative), so
/// serde_json writes `3`, not `3.0`; any other number an `f64`. A NaN or infinity (which
/// only a hand-built value can hold) is refused, not written as another format's
/// stand-in (serde_json would write `null`).
impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => serialize_number(*n, serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// 2^53: every integer up to it in magnitude is a double.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn serialize_number<S: ser::Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if !n.is_finite() {
        return Err(<S::Error as ser::Error>::custom(
            "NaN and infinite numbers have no JSON encoding",
        ));
    }
    if is_integral(n) && n.abs() <= EXACT {
        // Exact conversions: integral and within ±2^53.
        if n < 0.0 {
            serializer.serialize_i64(n as i64)
        } else {
            serializer.serialize_u64(n as u64)
        }
    } else {
        serializer.serialize_f64(n)
    }
}

#[cfg(test)]
mod tests;
