//! # agentloop-json
//!
//! JSON for agentloop: the [`Value`] type, whose [`Object`]s keep their members sorted in
//! canonical order (by key, compared as UTF-16 code units) with no duplicate keys, so
//! encoding never sorts and lookups are binary searches; the strict I-JSON parser
//! ([`parse`], SPEC section 1); the RFC 8785 canonical encoding of any value ([`jcs`]);
//! and, internal to the workspace (`#[doc(hidden)]`), `quote`: record text made safe to
//! show in a sentence. `no_std` + `alloc`; its
//! dependencies are `agentloop-transcript` (the canonical strings and numbers, the byte
//! sinks, the parse error) and, with the feature `serde`, serde — no regex, no ed25519,
//! no base64.
//!
//! With the `serde` feature, [`Value`] is serde data both ways, `to_value` turns any
//! `T: Serialize` into a value and `from_value` reads a value as any
//! `T: Deserialize`; both keep numbers' meaning (see their docs: an integer is taken only
//! when it is exact as a double — every integer up to 2^53 in magnitude — and NaN and
//! infinities are refused).
//!
//! `agentloop-core` re-exports this crate's items as `agentloop_core::json`, its
//! [`jcs`] as part of `agentloop_core::jcs` (and the hidden `quote` as
//! `agentloop_core::quote`).
//!
//! ```
//! use agentloop_json::{jcs, parse, Value};
//!
//! let value = parse(br#"{"b":[1e0,"\u0041"],"a":null}"#).unwrap();
//! assert_eq!(value.as_object().and_then(|o| o.get("a")), Some(&Value::Null));
//! assert_eq!(jcs::to_vec(&value).unwrap(), br#"{"a":null,"b":[1,"A"]}"#);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod jcs;
// Internal: the sentences of core, the CLI and the MCP client build on it (not API).
#[doc(hidden)]
pub mod quote;

mod payload;

#[doc(hidden)]
pub mod __private;

use agentloop_transcript::__private::number;

#[cfg(feature = "serde")]
mod de;
#[cfg(feature = "serde")]
mod exact;
mod parse;
mod path;
#[cfg(feature = "serde")]
mod ser;
#[cfg(feature = "serde")]
mod steps;

#[cfg(feature = "serde")]
pub use de::{from_value, DeserializeError};
#[cfg(feature = "serde")]
pub use ser::{to_value, SerializeError};

pub use parse::{
    parse, parse_record_line, parse_with, ParseError, ParseErrorKind, ParseOptions, MAX_DEPTH,
    RECORD_MAX_DEPTH,
};

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// A JSON value.
///
/// Numbers are IEEE-754 doubles, as in RFC 8785 and I-JSON. A value built by hand may
/// hold a NaN or an infinity; such a value has no canonical encoding and the encoder
/// refuses it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as a double.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Object),
}

impl Value {
    /// Whether arrays and objects nest more than `limit` levels deep (`[[1]]` is 2
    /// levels, a scalar 0). The walk stops at the limit, so a value nested deeper than
    /// the stack could follow is answered without exhausting it.
    pub fn deeper_than(&self, limit: usize) -> bool {
        match self {
            Value::Array(items) => limit == 0 || items.iter().any(|v| v.deeper_than(limit - 1)),
            Value::Object(object) => {
                limit == 0 || object.iter().any(|(_, v)| v.deeper_than(limit - 1))
            }
            _ => false,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The name of this value's JSON type (`"object"`, `"string"`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<Object> for Value {
    fn from(o: Object) -> Self {
        Value::Object(o)
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Self {
        Value::Array(a)
    }
}

/// Compares two keys as RFC 8785 does: as sequences of UTF-16 code units.
///
/// This differs from byte (and code point) order only between characters above
/// U+FFFF and those in U+E000..=U+FFFF: `"😀"` sorts before `"ﬁ"`.
///
/// Internal (`#[doc(hidden)]`, not API): [`Object`] keeps its members in this order;
/// agentloop-schema and the workspace's tests compare keys with it.
#[doc(hidden)]
pub fn cmp_keys(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A JSON object: members sorted by key as RFC 8785 sorts them (as sequences of UTF-16
/// code units), keys unique.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    members: Vec<(String, Value)>,
}

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Object::default()
    }

    /// Inserts a member, keeping canonical order; returns the value it replaced.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.search(&key) {
            Ok(i) => Some(core::mem::replace(&mut self.members[i].1, value)),
            Err(i) => {
                self.members.insert(i, (key, value));
                None
            }
        }
    }

    /// Builds an object from members in any order; `Err` names the first duplicate key.
    pub fn from_members(mut members: Vec<(String, Value)>) -> Result<Self, String> {
        members.sort_by(|a, b| cmp_keys(&a.0, &b.0));
        if let Some(pair) = members.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(pair[0].0.clone());
        }
        Ok(Object { members })
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.search(key).ok().map(|i| &self.members[i].1)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.search(key).is_ok()
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.search(key).ok().map(|i| self.members.remove(i).1)
    }

    /// Members in canonical order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.members.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    fn search(&self, key: &str) -> Result<usize, usize> {
        self.members.binary_search_by(|(k, _)| cmp_keys(k, key))
    }

    /// An object from members already in canonical order with unique keys (the parser
    /// checked both).
    pub(crate) fn from_sorted_unique(members: Vec<(String, Value)>) -> Self {
        Object { members }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn keys_sort_by_utf16_code_units() {
        assert_eq!(cmp_keys("😀", "ﬁ"), Ordering::Less);
        // Byte order would say the opposite.
        assert!("😀".as_bytes() > "ﬁ".as_bytes());
        assert_eq!(cmp_keys("a", "b"), Ordering::Less);
        assert_eq!(cmp_keys("", "a"), Ordering::Less);
        assert_eq!(cmp_keys("€", "\r"), Ordering::Greater);
    }

    #[test]
    fn object_keeps_canonical_order_and_unique_keys() {
        let mut o = Object::new();
        assert_eq!(o.insert("ﬁ", Value::Null), None);
        o.insert("😀", Value::Bool(true));
        o.insert("a", Value::Number(1.0));
        assert_eq!(o.insert("a", Value::Number(2.0)), Some(Value::Number(1.0)));
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["a", "😀", "ﬁ"]);
        assert_eq!(o.get("a"), Some(&Value::Number(2.0)));
        assert_eq!(o.get("a").and_then(Value::as_f64), Some(2.0));
        assert_eq!(Value::Null.as_f64(), None);
        assert!(!o.is_empty());
        assert!(Object::new().is_empty());
        assert_eq!(o.remove("a"), Some(Value::Number(2.0)));
        assert!(!o.contains_key("a"));
        assert_eq!(o.len(), 2);
        let dup = Object::from_members(vec![("x".into(), Value::Null), ("x".into(), Value::Null)]);
        assert_eq!(dup, Err(String::from("x")));
    }
}
