//! The record format's fixed parts: member names and the line prefix. Public as part
//! of [`crate::record`].

/// The members every record has, in canonical order.
pub const FIELDS: [&str; 5] = ["hash", "kind", "payload", "prev", "seq"];

/// The bytes before the hash in every record line: `{"hash":"`.
pub const LINE_PREFIX: &[u8] = b"{\"hash\":\"";
