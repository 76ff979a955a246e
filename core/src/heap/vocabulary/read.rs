//! Reading a payload's members for the decodes: each reader names the member and what
//! it must be in the [`PayloadError`] it returns.

use alloc::string::String;
use alloc::vec::Vec;

use super::{as_count, PayloadError, PayloadErrorKind, RecordKind};
use crate::hash::Hash;
use crate::json::{Object, Value};

/// What a count must be.
pub(crate) const A_COUNT: &str = "a count (an integer from 0 to 2^53-1)";

/// What a digest must be.
pub(crate) const A_DIGEST: &str = "a SHA-256 (64 lowercase hex digits)";

/// The members of one payload (or of an object inside it), read for `kind`.
#[derive(Clone, Copy)]
pub(crate) struct Members<'a> {
    kind: RecordKind,
    object: &'a Object,
}

impl<'a> Members<'a> {
    /// The payload's members: it must be an object.
    pub(crate) fn of(kind: RecordKind, payload: &'a Value) -> Result<Members<'a>, PayloadError> {
        match payload.as_object() {
            Some(object) => Ok(Members { kind, object }),
            None => Err(PayloadErrorKind::Malformed {
                kind,
                member: "",
                expected: "an object",
            }
            .into()),
        }
    }

    pub(crate) fn malformed(&self, member: &'static str, expected: &'static str) -> PayloadError {
        PayloadErrorKind::Malformed {
            kind: self.kind,
            member,
            expected,
        }
        .into()
    }

    /// The member `key`, if present.
    pub(crate) fn optional(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key)
    }

    /// The member `key`; `shown` names it in the error when it is absent.
    pub(crate) fn value(&self, key: &str, shown: &'static str) -> Result<&'a Value, PayloadError> {
        Ok(self.object.get(key).ok_or(PayloadErrorKind::Missing {
            kind: self.kind,
            member: shown,
        })?)
    }

    /// A string member.
    pub(crate) fn string(&self, key: &str, shown: &'static str) -> Result<&'a str, PayloadError> {
        self.value(key, shown)?
            .as_str()
            .ok_or(self.malformed(shown, "a string"))
    }

    /// A count member.
    pub(crate) fn count(&self, key: &str, shown: &'static str) -> Result<u64, PayloadError> {
        count(self.value(key, shown)?).ok_or(self.malformed(shown, A_COUNT))
    }

    /// A boolean member.
    pub(crate) fn boolean(&self, key: &str, shown: &'static str) -> Result<bool, PayloadError> {
        match self.value(key, shown)? {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.malformed(shown, "a boolean")),
        }
    }

    /// An array member.
    pub(crate) fn array(
        &self,
        key: &str,
        shown: &'static str,
    ) -> Result<&'a [Value], PayloadError> {
        match self.value(key, shown)? {
            Value::Array(items) => Ok(items),
            _ => Err(self.malformed(shown, "an array")),
        }
    }

    /// An object member, read as members of the same payload.
    pub(crate) fn object(
        &self,
        key: &str,
        shown: &'static str,
    ) -> Result<Members<'a>, PayloadError> {
        self.inner(self.value(key, shown)?, shown)
    }

    /// `value`, found inside this payload at `shown`, as an object's members.
    pub(crate) fn inner(
        &self,
        value: &'a Value,
        shown: &'static str,
    ) -> Result<Members<'a>, PayloadError> {
        match value.as_object() {
            Some(object) => Ok(Members {
                kind: self.kind,
                object,
            }),
            None => Err(self.malformed(shown, "an object")),
        }
    }

    /// An optional string member (absent: `None`).
    pub(crate) fn opt_string(
        &self,
        key: &str,
        shown: &'static str,
    ) -> Result<Option<String>, PayloadError> {
        match self.object.get(key) {
            None => Ok(None),
            Some(_) => self.string(key, shown).map(|s| Some(String::from(s))),
        }
    }

    /// An optional count member (absent: `None`).
    pub(crate) fn opt_count(
        &self,
        key: &str,
        shown: &'static str,
    ) -> Result<Option<u64>, PayloadError> {
        match self.object.get(key) {
            None => Ok(None),
            Some(_) => self.count(key, shown).map(Some),
        }
    }

    /// An optional SHA-256 member: 64 lowercase hex digits (absent: `None`).
    pub(crate) fn opt_hash(
        &self,
        key: &str,
        shown: &'static str,
    ) -> Result<Option<Hash>, PayloadError> {
        match self.object.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_str()
                .and_then(|hex| Hash::from_hex(hex.as_bytes()))
                .map(Some)
                .ok_or(self.malformed(shown, A_DIGEST)),
        }
    }

    /// Every member as a count, in name order (`shown` names the object).
    pub(crate) fn counts(&self, shown: &'static str) -> Result<Vec<(String, u64)>, PayloadError> {
        self.object
            .iter()
            .map(|(name, value)| {
                count(value)
                    .map(|n| (String::from(name), n))
                    .ok_or(self.malformed(shown, "an object of counts"))
            })
            .collect()
    }
}

/// `value` as a count, if it is one.
pub(crate) fn count(value: &Value) -> Option<u64> {
    value.as_f64().and_then(as_count)
}

/// A count as a JSON number (exact: counts and limits stay at or below 2^53 − 1).
pub(crate) fn number(n: u64) -> Value {
    Value::Number(n as f64)
}

/// An object of `members`.
pub(crate) fn object<'k>(members: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}
