//! JSON values to Rust data with serde (feature `serde`): [`from_value`] (a
//! `Deserializer` over `&Value`), and `Value` from any serde format
//! (`impl Deserialize for Value`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde::Deserialize;

use super::ser::Inexact;
use super::steps::Steps;
use super::{Object, Value, MAX_DEPTH};
use crate::json::exact::{exact_integer, spelled_integer};
use crate::number::is_integral;
use crate::quote::escape_controls;

/// Why a JSON value could not become the Rust data asked for ([`from_value`]): serde's
/// sentence (`invalid type: string "x", expected u32`, `missing field 'b'`), and where
/// in the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeserializeError {
    message: String,
    steps: Steps,
}

impl DeserializeError {
    /// What was wrong, in serde's words (the type's `Deserialize` implementation may
    /// word its own).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where, as a JSON path into the value: `$` (the value itself), `$.calls[0].name`.
    pub fn path(&self) -> String {
        self.steps.spell()
    }

    fn at_key(mut self, key: &str) -> DeserializeError {
        self.steps.push_key(key);
        self
    }

    fn at_index(mut self, index: usize) -> DeserializeError {
        self.steps.push_index(index);
        self
    }
}

impl fmt::Display for DeserializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", escape_controls(&self.message), self.path())
    }
}

impl core::error::Error for DeserializeError {}

impl de::Error for DeserializeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DeserializeError {
            message: message.to_string(),
            steps: Steps::default(),
        }
    }
}

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
/// use agentloop_core::json::{self, from_value};
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

/// The items of an array, for a visitor.
struct Items<'de> {
    items: core::slice::Iter<'de, Value>,
    index: usize,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = DeserializeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeserializeError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(item)
            .map(Some)
            .map_err(|e| e.at_index(index))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The members of an object, for a visitor.
struct Members<'de, I> {
    members: I,
    /// The member whose key was read, waiting for its value to be.
    value: Option<(&'de str, &'de Value)>,
}

impl<'de, I: Iterator<Item = (&'de str, &'de Value)>> MapAccess<'de> for Members<'de, I> {
    type Error = DeserializeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeserializeError> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
            .map_err(|e: DeserializeError| e.at_key(key))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, DeserializeError> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom(
                "a member's value was asked for before its key",
            ));
        };
        seed.deserialize(value).map_err(|e| e.at_key(key))
    }
}

/// An enum variant: its name, and its content unless it is a bare name.
struct Variant<'de> {
    name: &'de str,
    content: Option<&'de Value>,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = DeserializeError;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self), DeserializeError> {
        let variant =
            seed.deserialize(BorrowedStrDeserializer::<DeserializeError>::new(self.name))?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = DeserializeError;

    fn unit_variant(self) -> Result<(), DeserializeError> {
        match self.content {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(<DeserializeError as de::Error>::invalid_type(
                unexpected(other),
                &"a unit variant",
            )
            .at_key(self.name)),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, DeserializeError> {
        match self.content {
            Some(content) => seed.deserialize(content).map_err(|e| e.at_key(self.name)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a variant with content",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self.content {
            Some(Value::Array(items)) => {
                visit_array(items, visitor).map_err(|e| e.at_key(self.name))
            }
            Some(other) => Err(<DeserializeError as de::Error>::invalid_type(
                unexpected(other),
                &"a tuple variant",
            )
            .at_key(self.name)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeserializeError> {
        match self.content {
            Some(Value::Object(object)) => {
                visit_object(object, visitor).map_err(|e| e.at_key(self.name))
            }
            Some(other) => Err(<DeserializeError as de::Error>::invalid_type(
                unexpected(other),
                &"a struct variant",
            )
            .at_key(self.name)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a struct variant",
            )),
        }
    }
}

/// Reads any serde data as a JSON value.
///
/// An integer is taken only when its canonical spelling names the same integer, the
/// strict parser's rule (`9007199254740993` is refused, naming it: it would silently
/// become `…992`); NaN and infinities are refused; a repeated object key is refused;
/// arrays and objects nested deeper than [`MAX_DEPTH`] (128, as
/// the strict parser) are refused, which also bounds the recursion whatever the format.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor { depth: 0 })
    }
}

/// Reads a value nested inside `depth` arrays and objects.
struct ValueVisitor {
    depth: usize,
}

impl ValueVisitor {
    /// The nesting of an array or object read here, if the strict parser would read it.
    fn nest<E: de::Error>(&self) -> Result<usize, E> {
        if self.depth < MAX_DEPTH {
            Ok(self.depth + 1)
        } else {
            Err(E::custom(format!(
                "arrays and objects nest deeper than {MAX_DEPTH} levels, which a JSON value \
                 here cannot hold"
            )))
        }
    }
}

/// Reads a value nested inside `depth` arrays and objects (an item, a member's value).
struct ValueSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor { depth: self.depth })
    }
}

fn integer<E: de::Error>(negative: bool, magnitude: u128) -> Result<Value, E> {
    exact_integer(negative, magnitude)
        .map(Value::Number)
        .ok_or_else(|| {
            let sign = if negative { "-" } else { "" };
            E::custom(Inexact(&format!("{sign}{magnitude}")))
        })
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        integer(v < 0, v.unsigned_abs().into())
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        integer(v < 0, v.unsigned_abs())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        integer(false, v.into())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        integer(false, v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if v.is_finite() {
            Ok(Value::Number(v))
        } else {
            Err(E::custom(format!(
                "the number {v} has no JSON encoding (NaN and infinities)"
            )))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.nest()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(ValueSeed { depth })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.nest()?;
        let mut members: Vec<(String, Value)> =
            Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(ValueSeed { depth })?;
            members.push((key, value));
        }
        Object::from_members(members)
            .map(Value::Object)
            .map_err(|key| {
                de::Error::custom(format!(
                    "the key '{}' appears twice in an object",
                    escape_controls(&key)
                ))
            })
    }
}

#[cfg(test)]
mod tests;
