//! The JSON value type and its strict parser: the crate agentloop-json, re-exported.
//!
//! Objects keep their members sorted in canonical order (by key, compared as UTF-16
//! code units) with no duplicate keys, so encoding never sorts and lookups are binary
//! searches.
//!
//! With the `serde` feature, [`Value`] is serde data both ways, `to_value` turns any
//! `T: Serialize` into a value and `from_value` reads a value as any
//! `T: Deserialize`; both keep numbers' meaning (see their docs: an integer is taken only
//! when it is exact as a double — every integer up to 2^53 in magnitude — and NaN and
//! infinities are refused).
//!
//! The canonical encoding of values is part of [`crate::jcs`].

pub use agentloop_json::{
    cmp_keys, parse, parse_record_line, parse_with, Object, ParseError, ParseErrorKind,
    ParseOptions, Value, MAX_DEPTH, RECORD_MAX_DEPTH,
};
#[cfg(feature = "serde")]
pub use agentloop_json::{from_value, to_value, DeserializeError, SerializeError};

// What core's verifiers build on (`#[doc(hidden)]` in agentloop-json).
pub(crate) use agentloop_json::__private::parse_tolerant;
