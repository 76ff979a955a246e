//! Arrays, objects and enum variants being built by the value serializer.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use serde::ser::{self, Serialize};

use super::*;
use crate::{Object, Value};

/// Capacity to reserve from a size hint, bounded so a lying hint cannot reserve much.
pub(super) fn capacity(len: Option<usize>) -> usize {
    len.unwrap_or(0).min(4096)
}

/// The items of an array being built, `depth` arrays and objects deep (itself included).
pub(super) struct SeqBuilder {
    pub(super) items: Vec<Value>,
    pub(super) depth: usize,
}

impl SeqBuilder {
    pub(super) fn new(len: Option<usize>, depth: usize) -> SeqBuilder {
        SeqBuilder {
            items: Vec::with_capacity(capacity(len)),
            depth,
        }
    }

    pub(super) fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerializeError> {
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
pub(super) struct MapBuilder {
    pub(super) members: Vec<(String, Value)>,
    /// The key given by `serialize_key`, waiting for its value.
    pub(super) key: Option<String>,
    pub(super) depth: usize,
}

impl MapBuilder {
    pub(super) fn new(len: Option<usize>, depth: usize) -> MapBuilder {
        MapBuilder {
            members: Vec::with_capacity(capacity(len)),
            key: None,
            depth,
        }
    }

    pub(super) fn push<T: Serialize + ?Sized>(
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

    pub(super) fn finish(self) -> Result<Value, SerializeError> {
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
pub(super) struct VariantBuilder<B> {
    pub(super) variant: &'static str,
    pub(super) inner: B,
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
