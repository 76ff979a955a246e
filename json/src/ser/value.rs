//! The serializer that builds a [`Value`] from Rust data, nested `depth` deep.

use serde::ser::{self, Serialize};

use super::*;
use crate::{Value, MAX_DEPTH};

/// Builds a [`Value`] nested inside `depth` arrays and objects.
pub(super) struct ValueSerializer {
    pub(super) depth: usize,
}

impl ValueSerializer {
    /// The nesting of a container `levels` deep inside this value (a variant with
    /// content is an object around its array or object: 2), if the strict parser would
    /// read it.
    pub(super) fn nest(&self, levels: usize) -> Result<usize, SerializeError> {
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
