//! JSON values to Rust data with serde (feature `serde`): [`from_value`] (a
//! `Deserializer` over `&Value`), and `Value` from any serde format
//! (`impl Deserialize for Value`).

use alloc::format;

use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::Deserialize;

use super::{Object, Value};
use crate::exact::spelled_integer;
use crate::number::is_integral;
use crate::quote::escape_controls;

mod access;
mod error;
mod into_value;
use access::*;
pub use error::DeserializeError;

/// Reads `value` as a `T` (feature `serde`). `T` may borrow strings from the value
/// (`&'a str` fields).
///
/// A number whose value is an integer is offered as the
/// integer its canonical spelling names (within the range of `u64` or `i64`; of `i128`
/// or `u128` for those types), so integer fields read it; any number is offered to a
/// float field; a fractional number to an integer field, or an integer out of the
/// field's range (`300` for a `u8`), is an error naming the value, never truncated.
/// Up to 2^53 in magnitude the spelling names the double's own value; above, the double
/// `2^60` is spelt `1152921504606847000` and reads as that integer — the one the JSON
/// text shows, and the one `to_value` takes to make that double — so every integer
/// `to_value` accepts reads back unchanged. An enum is read from `"<variant>"` or
/// `{"<variant>": content}`. Array items or object members the type did not read are an
/// error, not dropped (a struct ignores unknown members unless it says
/// `#[serde(deny_unknown_fields)]`, as with serde_json).
///
/// ```
/// use agentloop_json::{self as json, from_value};
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Add { a: u32, b: u32 }
///
/// let args = json::parse(br#"{"a":2,"b":40}"#).unwrap();
/// assert_eq!(from_value::<Add>(&args).unwrap(), Add { a: 2, b: 40 });
///
/// let bad = json::parse(br#"{"a":2,"b":-1}"#).unwrap();
/// assert_eq!(
///     from_value::<Add>(&bad).unwrap_err().to_string(),
///     "invalid value: integer `-1`, expected u32 at $.b"
/// );
/// ```
pub fn from_value<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, DeserializeError> {
    T::deserialize(value)
}

/// What a value is, for serde's "invalid type" sentences.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        // As `visit_number` offers it.
        Value::Number(n) => match offer(*n) {
            Offer::Unsigned(m) => Unexpected::Unsigned(m),
            Offer::Signed(m) => Unexpected::Signed(m),
            Offer::Float(f) => Unexpected::Float(f),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// 2^53: up to it in magnitude, an integral double's spelling names its own value.
const TWO_53: f64 = 9_007_199_254_740_992.0;

/// How a number is offered to a visitor.
enum Offer {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

/// An integral number as the integer its canonical spelling names (the integer the JSON
/// text shows, and the one `to_value` took to make this double): exact up to 2^53, and
/// above it `2^60` reads as `1152921504606847000`, not `…846976`. Within `u64` or `i64`;
/// anything else is a float.
fn offer(n: f64) -> Offer {
    if is_integral(n) {
        if n.abs() <= TWO_53 {
            // Exact conversions.
            return if n < 0.0 {
                Offer::Signed(n as i64)
            } else {
                Offer::Unsigned(n as u64)
            };
        }
        if let Some(magnitude) = spelled_integer(n) {
            if n > 0.0 {
                if let Ok(m) = u64::try_from(magnitude) {
                    return Offer::Unsigned(m);
                }
            } else if let Ok(m) = i64::try_from(magnitude) {
                return Offer::Signed(-m);
            }
        }
    }
    Offer::Float(n)
}

fn visit_number<'de, V: Visitor<'de>>(n: f64, visitor: V) -> Result<V::Value, DeserializeError> {
    match offer(n) {
        Offer::Unsigned(m) => visitor.visit_u64(m),
        Offer::Signed(m) => visitor.visit_i64(m),
        Offer::Float(f) => visitor.visit_f64(f),
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: &'de [Value],
    visitor: V,
) -> Result<V::Value, DeserializeError> {
    let mut seq = Items {
        items: items.iter(),
        index: 0,
    };
    let out = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(
            items.len(),
            &"fewer items: the type read only the first ones",
        ))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    object: &'de Object,
    visitor: V,
) -> Result<V::Value, DeserializeError> {
    let mut map = Members {
        members: object.iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut map)?;
    match map.members.next() {
        None => Ok(out),
        Some((key, _)) => Err(de::Error::custom(format!(
            "the member '{}' (and any after it) was not read by the type",
            escape_controls(key)
        ))),
    }
}

/// A value is a serde `Deserializer`: `T::deserialize(&value)` reads it as a `T`.
impl<'de> Deserializer<'de> for &'de Value {
    type Error = DeserializeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(*n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(object) => visit_object(object, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        match self {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self {
            Value::String(variant) => visitor.visit_enum(Variant {
                name: variant,
                content: None,
            }),
            Value::Object(object) if object.len() == 1 => {
                let Some((name, content)) = object.iter().next() else {
                    return Err(de::Error::invalid_length(0, &"one member"));
                };
                visitor.visit_enum(Variant {
                    name,
                    content: Some(content),
                })
            }
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"an enum: a variant name, or an object with one member",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        visitor.visit_unit()
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        // The integer of the spelling, when it fits an i128 (as `visit_number`).
        if let Value::Number(n) = self {
            if is_integral(*n) {
                if let Some(m) = spelled_integer(*n).and_then(|m| i128::try_from(m).ok()) {
                    return visitor.visit_i128(if *n < 0.0 { -m } else { m });
                }
            }
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeserializeError> {
        // The integer of the spelling (as `visit_number`); a negative one is offered as
        // itself, for the type to refuse.
        if let Value::Number(n) = self {
            if is_integral(*n) && *n >= 0.0 {
                if let Some(m) = spelled_integer(*n) {
                    return visitor.visit_u128(m);
                }
            }
        }
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string bytes
        byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

#[cfg(test)]
mod tests;
