//! Map keys: a string, or something that serializes as one.

use alloc::string::{String, ToString};

use serde::ser::{self, Impossible, Serialize};

use super::*;

/// A map key: a string, or something that serializes as one.
pub(super) struct KeySerializer;

pub(super) fn not_a_string<T>(what: &'static str) -> Result<T, SerializeError> {
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
