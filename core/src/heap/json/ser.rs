//! Rust data to JSON values with serde (feature `serde`): [`to_value`], and `Value` as
//! serde data (`impl Serialize for Value`).

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeMap as _, SerializeSeq as _};

use super::steps::Steps;
use super::{Object, Value, MAX_DEPTH};
use crate::json::exact::exact_integer;
use crate::number::is_integral;
use crate::quote::escape_controls;

/// What was wrong with the data being serialized.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SerializeErrorKind {
    /// A NaN or infinite float, which has no JSON spelling.
    NonFiniteNumber,
    /// An integer (its decimal digits here) whose canonical spelling would denote another
    /// number, as I-JSON numbers are doubles: `9007199254740993` would be written
    /// `9007199254740992`. The strict parser refuses the same integers.
    InexactInteger(String),
    /// A map key that is not a string; says what it is (`"an integer"`, …).
    KeyNotString(&'static str),
    /// A map gave the same key twice.
    DuplicateKey(String),
    /// The data's own `Serialize` implementation failed, saying this.
    Custom(String),
    /// Arrays and objects nested deeper than [`MAX_DEPTH`] (a variant with content
    /// counts as an object), which the strict parser and the verifiers refuse.
    TooDeep,
    /// The sink ran out of room (writing canonical bytes: `jcs::write_serialize`).
    BufferFull,
}

impl fmt::Display for SerializeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SerializeErrorKind::NonFiniteNumber => {
                f.write_str("NaN and infinite numbers have no JSON encoding")
            }
            SerializeErrorKind::InexactInteger(digits) => Inexact(digits).fmt(f),
            SerializeErrorKind::KeyNotString(what) => {
                write!(f, "a map key must be a string, not {what}")
            }
            SerializeErrorKind::DuplicateKey(key) => {
                write!(f, "the key '{}' appears twice", escape_controls(key))
            }
            SerializeErrorKind::Custom(message) => f.write_str(&escape_controls(message)),
            SerializeErrorKind::TooDeep => write!(
                f,
                "arrays and objects nest deeper than {MAX_DEPTH} levels, which JSON readers \
                 here refuse"
            ),
            SerializeErrorKind::BufferFull => f.write_str("the output buffer is too small"),
        }
    }
}

/// The sentence for an integer that would change as a JSON number (`digits`: its
/// decimal digits, `-` first if negative).
pub(crate) struct Inexact<'a>(pub(crate) &'a str);

impl fmt::Display for Inexact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 32];
        let spelt = self
            .0
            .parse::<f64>()
            .ok()
            .and_then(|n| crate::number::format_f64(n, &mut buf))
            .and_then(|len| core::str::from_utf8(&buf[..len]).ok())
            .unwrap_or("another number");
        write!(
            f,
            "the integer {} would become {spelt} as a JSON number (a double: integers are \
             exact up to 2^53 in magnitude); send it as a string",
            self.0
        )
    }
}

/// Why Rust data could not become a JSON value ([`to_value`]) or canonical bytes
/// (`jcs::write_serialize`): what was wrong, and where in the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerializeError {
    kind: SerializeErrorKind,
    steps: Steps,
}

impl SerializeError {
    pub(crate) fn new(kind: SerializeErrorKind) -> SerializeError {
        SerializeError {
            kind,
            steps: Steps::default(),
        }
    }

    /// What was wrong.
    pub fn kind(&self) -> &SerializeErrorKind {
        &self.kind
    }

    /// Where, as a JSON path of the value being built: `$` (the whole value),
    /// `$.readings[2].celsius`.
    pub fn path(&self) -> String {
        self.steps.spell()
    }

    fn at_key(mut self, key: &str) -> SerializeError {
        self.steps.push_key(key);
        self
    }

    fn at_index(mut self, index: usize) -> SerializeError {
        self.steps.push_index(index);
        self
    }
}

impl fmt::Display for SerializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.kind, self.path())
    }
}

impl core::error::Error for SerializeError {}

impl ser::Error for SerializeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        SerializeError::new(SerializeErrorKind::Custom(message.to_string()))
    }
}

/// Rust data as a JSON value (feature `serde`).
///
/// The data model maps as serde_json maps it, with every change of data refused
/// instead of made:
///
/// | Rust (serde data model) | JSON value |
/// | --- | --- |
/// | `bool` | `true` / `false` |
/// | integers (`u8` … `u128`, `i8` … `i128`) | a number, when its canonical spelling denotes the same integer (every integer up to 2^53 in magnitude; above, only those such as `10^20` — the strict parser's rule; [`from_value`](crate::json::from_value) reads it back unchanged); otherwise refused ([`SerializeErrorKind::InexactInteger`]) |
/// | `f32`, `f64` | a number (an `f32` widened exactly: `0.1f32` is `0.10000000149011612`); NaN and infinities refused ([`SerializeErrorKind::NonFiniteNumber`]) |
/// | `char`, `str` | a string |
/// | `()`, unit struct, `None` | `null` |
/// | `Some(v)`, newtype struct | `v` |
/// | bytes | an array of numbers |
/// | sequence, tuple, tuple struct | an array |
/// | map, struct | an object, members in canonical order; a key must be a string, a `char`, a unit variant or a newtype around one ([`SerializeErrorKind::KeyNotString`]), and may appear once ([`SerializeErrorKind::DuplicateKey`]) |
/// | unit variant | its name, as a string |
/// | newtype, tuple or struct variant | `{"<variant>": <content>}` |
///
/// Arrays and objects may nest [`MAX_DEPTH`] (128) deep, as the strict parser reads
/// them; deeper data is refused ([`SerializeErrorKind::TooDeep`]), so whatever `to_value`
/// gives encodes to bytes every reader here accepts.
///
/// ```
/// use agentloop_core::json::{self, Value};
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

/// Builds a [`Value`] nested inside `depth` arrays and objects.
struct ValueSerializer {
    depth: usize,
}

impl ValueSerializer {
    /// The nesting of a container `levels` deep inside this value (a variant with
    /// content is an object around its array or object: 2), if the strict parser would
    /// read it.
    fn nest(&self, levels: usize) -> Result<usize, SerializeError> {
        let depth = self.depth + levels;
        if depth > MAX_DEPTH {
            Err(SerializeError::new(SerializeErrorKind::TooDeep))
        } else {
            Ok(depth)
        }
    }
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = SerializeError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = VariantBuilder<SeqBuilder>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = VariantBuilder<MapBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Value, SerializeError> {
        Ok(Value::Bool(v))
    }

    fn serialize_i8(self, v: i8) -> Result<Value, SerializeError> {
        self.serialize_i128(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<Value, SerializeError> {
        self.serialize_i128(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<Value, SerializeError> {
        self.serialize_i128(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result<Value, SerializeError> {
        self.serialize_i128(v.into())
    }

    fn serialize_i128(self, v: i128) -> Result<Value, SerializeError> {
        integer(v < 0, v.unsigned_abs())
    }

    fn serialize_u8(self, v: u8) -> Result<Value, SerializeError> {
        self.serialize_u128(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<Value, SerializeError> {
        self.serialize_u128(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<Value, SerializeError> {
        self.serialize_u128(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<Value, SerializeError> {
        self.serialize_u128(v.into())
    }

    fn serialize_u128(self, v: u128) -> Result<Value, SerializeError> {
        integer(false, v)
    }

    fn serialize_f32(self, v: f32) -> Result<Value, SerializeError> {
        self.serialize_f64(v.into())
    }

    fn serialize_f64(self, v: f64) -> Result<Value, SerializeError> {
        if v.is_finite() {
            Ok(Value::Number(v))
        } else {
            Err(SerializeError::new(SerializeErrorKind::NonFiniteNumber))
        }
    }

    fn serialize_char(self, v: char) -> Result<Value, SerializeError> {
        let mut buf = [0u8; 4];
        Ok(Value::from(&*v.encode_utf8(&mut buf)))
    }

    fn serialize_str(self, v: &str) -> Result<Value, SerializeError> {
        Ok(Value::from(v))
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<Value, SerializeError> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Number(b.into())).collect(),
        ))
    }

    fn serialize_none(self) -> Result<Value, SerializeError> {
        Ok(Value::Null)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, SerializeError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Value, SerializeError> {
        Ok(Value::Null)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, SerializeError> {
        Ok(Value::Null)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, SerializeError> {
        Ok(Value::from(variant))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, SerializeError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, SerializeError> {
        let depth = self.nest(1)?;
        let content = value
            .serialize(ValueSerializer { depth })
            .map_err(|e| e.at_key(variant))?;
        Ok(tagged(variant, content))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, SerializeError> {
        Ok(SeqBuilder::new(len, self.nest(1)?))
    }

    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, SerializeError> {
        Ok(SeqBuilder::new(Some(len), self.nest(1)?))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, SerializeError> {
        Ok(SeqBuilder::new(Some(len), self.nest(1)?))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<SeqBuilder>, SerializeError> {
        Ok(VariantBuilder {
            variant,
            inner: SeqBuilder::new(Some(len), self.nest(2)?),
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder, SerializeError> {
        Ok(MapBuilder::new(len, self.nest(1)?))
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<MapBuilder, SerializeError> {
        Ok(MapBuilder::new(Some(len), self.nest(1)?))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<MapBuilder>, SerializeError> {
        Ok(VariantBuilder {
            variant,
            inner: MapBuilder::new(Some(len), self.nest(2)?),
        })
    }
}

/// Capacity to reserve from a size hint, bounded so a lying hint cannot reserve much.
fn capacity(len: Option<usize>) -> usize {
    len.unwrap_or(0).min(4096)
}

/// The items of an array being built, `depth` arrays and objects deep (itself included).
struct SeqBuilder {
    items: Vec<Value>,
    depth: usize,
}

impl SeqBuilder {
    fn new(len: Option<usize>, depth: usize) -> SeqBuilder {
        SeqBuilder {
            items: Vec::with_capacity(capacity(len)),
            depth,
        }
    }

    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerializeError> {
        let item = value
            .serialize(ValueSerializer { depth: self.depth })
            .map_err(|e| e.at_index(self.items.len()))?;
        self.items.push(item);
        Ok(())
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_element<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), SerializeError> {
        self.push(value)
    }

    fn end(self) -> Result<Value, SerializeError> {
        Ok(Value::Array(self.items))
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_element<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), SerializeError> {
        self.push(value)
    }

    fn end(self) -> Result<Value, SerializeError> {
        Ok(Value::Array(self.items))
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerializeError> {
        self.push(value)
    }

    fn end(self) -> Result<Value, SerializeError> {
        Ok(Value::Array(self.items))
    }
}

/// The members of an object being built, in the order given; sorted (and checked for
/// a repeated key) at the end. `depth` arrays and objects deep (itself included).
struct MapBuilder {
    members: Vec<(String, Value)>,
    /// The key given by `serialize_key`, waiting for its value.
    key: Option<String>,
    depth: usize,
}

impl MapBuilder {
    fn new(len: Option<usize>, depth: usize) -> MapBuilder {
        MapBuilder {
            members: Vec::with_capacity(capacity(len)),
            key: None,
            depth,
        }
    }

    fn push<T: Serialize + ?Sized>(
        &mut self,
        key: String,
        value: &T,
    ) -> Result<(), SerializeError> {
        let value = value
            .serialize(ValueSerializer { depth: self.depth })
            .map_err(|e| e.at_key(&key))?;
        self.members.push((key, value));
        Ok(())
    }

    fn finish(self) -> Result<Value, SerializeError> {
        Object::from_members(self.members)
            .map(Value::Object)
            .map_err(|key| SerializeError::new(SerializeErrorKind::DuplicateKey(key)))
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerializeError> {
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerializeError> {
        // serde calls `serialize_key` first; a `Serialize` impl that does not is a bug
        // named here rather than a panic.
        let key = self.key.take().ok_or_else(|| {
            <SerializeError as ser::Error>::custom("a map value was given before its key")
        })?;
        self.push(key, value)
    }

    fn end(self) -> Result<Value, SerializeError> {
        self.finish()
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerializeError> {
        self.push(key.to_owned(), value)
    }

    fn end(self) -> Result<Value, SerializeError> {
        self.finish()
    }
}

/// The content of a tuple or struct variant, to be wrapped in `{"<variant>": …}`.
struct VariantBuilder<B> {
    variant: &'static str,
    inner: B,
}

impl ser::SerializeTupleVariant for VariantBuilder<SeqBuilder> {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerializeError> {
        self.inner.push(value).map_err(|e| e.at_key(self.variant))
    }

    fn end(self) -> Result<Value, SerializeError> {
        Ok(tagged(self.variant, Value::Array(self.inner.items)))
    }
}

impl ser::SerializeStructVariant for VariantBuilder<MapBuilder> {
    type Ok = Value;
    type Error = SerializeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerializeError> {
        self.inner
            .push(key.to_owned(), value)
            .map_err(|e| e.at_key(self.variant))
    }

    fn end(self) -> Result<Value, SerializeError> {
        let variant = self.variant;
        let content = self.inner.finish().map_err(|e| e.at_key(variant))?;
        Ok(tagged(variant, content))
    }
}

/// A map key: a string, or something that serializes as one.
struct KeySerializer;

fn not_a_string<T>(what: &'static str) -> Result<T, SerializeError> {
    Err(SerializeError::new(SerializeErrorKind::KeyNotString(what)))
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = SerializeError;
    type SerializeSeq = Impossible<String, SerializeError>;
    type SerializeTuple = Impossible<String, SerializeError>;
    type SerializeTupleStruct = Impossible<String, SerializeError>;
    type SerializeTupleVariant = Impossible<String, SerializeError>;
    type SerializeMap = Impossible<String, SerializeError>;
    type SerializeStruct = Impossible<String, SerializeError>;
    type SerializeStructVariant = Impossible<String, SerializeError>;

    fn serialize_str(self, v: &str) -> Result<String, SerializeError> {
        Ok(v.into())
    }

    fn serialize_char(self, v: char) -> Result<String, SerializeError> {
        Ok(v.to_string())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, SerializeError> {
        Ok(variant.into())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, SerializeError> {
        value.serialize(self)
    }

    fn serialize_bool(self, _: bool) -> Result<String, SerializeError> {
        not_a_string("a boolean")
    }

    fn serialize_i8(self, _: i8) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_i16(self, _: i16) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_i32(self, _: i32) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_i64(self, _: i64) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_i128(self, _: i128) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_u8(self, _: u8) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_u16(self, _: u16) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_u32(self, _: u32) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_u64(self, _: u64) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_u128(self, _: u128) -> Result<String, SerializeError> {
        not_a_string("an integer")
    }

    fn serialize_f32(self, _: f32) -> Result<String, SerializeError> {
        not_a_string("a float")
    }

    fn serialize_f64(self, _: f64) -> Result<String, SerializeError> {
        not_a_string("a float")
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<String, SerializeError> {
        not_a_string("bytes")
    }

    fn serialize_none(self) -> Result<String, SerializeError> {
        not_a_string("an Option")
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, SerializeError> {
        not_a_string("an Option")
    }

    fn serialize_unit(self) -> Result<String, SerializeError> {
        not_a_string("a unit")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<String, SerializeError> {
        not_a_string("a unit struct")
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, SerializeError> {
        not_a_string("an enum variant with data")
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, SerializeError> {
        not_a_string("a sequence")
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, SerializeError> {
        not_a_string("a tuple")
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SerializeError> {
        not_a_string("a tuple struct")
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SerializeError> {
        not_a_string("an enum variant with data")
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, SerializeError> {
        not_a_string("a map")
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, SerializeError> {
        not_a_string("a struct")
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SerializeError> {
        not_a_string("an enum variant with data")
    }
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
