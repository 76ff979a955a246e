//! `Value` from any serde format (`impl Deserialize for Value`), refusing every change of data.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::exact::exact_integer;
use crate::quote::escape_controls;
use crate::ser::Inexact;
use crate::{Object, Value, MAX_DEPTH};

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
pub(super) struct ValueVisitor {
    pub(super) depth: usize,
}

impl ValueVisitor {
    /// The nesting of an array or object read here, if the strict parser would read it.
    pub(super) fn nest<E: de::Error>(&self) -> Result<usize, E> {
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
pub(super) struct ValueSeed {
    pub(super) depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor { depth: self.depth })
    }
}

pub(super) fn integer<E: de::Error>(negative: bool, magnitude: u128) -> Result<Value, E> {
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
