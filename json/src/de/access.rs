//! A value's parts for a visitor: array items, object members, an enum variant.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};

use super::*;
use crate::Value;

/// The items of an array, for a visitor.
pub(super) struct Items<'de> {
    pub(super) items: core::slice::Iter<'de, Value>,
    pub(super) index: usize,
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
pub(super) struct Members<'de, I> {
    pub(super) members: I,
    /// The member whose key was read, waiting for its value to be.
    pub(super) value: Option<(&'de str, &'de Value)>,
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
pub(super) struct Variant<'de> {
    pub(super) name: &'de str,
    pub(super) content: Option<&'de Value>,
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
