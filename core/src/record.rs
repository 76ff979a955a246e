//! The record format (SPEC section 2): five members, hashed without `hash`.
//!
//! A valid line is `{"hash":"<64 hex>",` followed by the hashed bytes minus their `{`,
//! then `\n`, because `hash` sorts first among `hash`, `kind`, `payload`, `prev`, `seq`.
//!
//! The member names and the line prefix need no allocator; encoding a record from a
//! `json::Value` payload needs `alloc` (without it, `stream::write_record`
//! writes a record from payload bytes that are already canonical).

#[cfg(feature = "alloc")]
use sha2::{Digest, Sha256};

#[cfg(feature = "alloc")]
use crate::hash::Hash;
#[cfg(feature = "alloc")]
use crate::jcs::{write_str, write_u64, write_value, EncodeError};
#[cfg(feature = "alloc")]
use crate::json::Value;
#[cfg(feature = "alloc")]
use crate::sink::ByteSink;

/// The members every record has, in canonical order.
pub const FIELDS: [&str; 5] = ["hash", "kind", "payload", "prev", "seq"];

/// The bytes before the hash in every record line: `{"hash":"`.
pub const LINE_PREFIX: &[u8] = b"{\"hash\":\"";

/// Writes the hashed form of a record, `{"kind":…,"payload":…,"prev":"…","seq":…}`
/// minus its opening `{` (so it can follow either `{` or `{"hash":"…",`).
#[cfg(feature = "alloc")]
pub fn write_body<S: ByteSink + ?Sized>(
    kind: &str,
    payload: &Value,
    prev: &Hash,
    seq: u64,
    out: &mut S,
) -> Result<(), EncodeError> {
    out.write(b"\"kind\":")?;
    write_str(kind, out)?;
    out.write(b",\"payload\":")?;
    write_value(payload, out)?;
    out.write(b",\"prev\":\"")?;
    out.write(&prev.to_hex())?;
    out.write(b"\",\"seq\":")?;
    write_u64(seq, out)?;
    out.write(b"}")?;
    Ok(())
}

/// The `hash` of a record: SHA-256 of its canonical encoding without `hash`.
#[cfg(feature = "alloc")]
pub fn record_hash(
    kind: &str,
    payload: &Value,
    prev: &Hash,
    seq: u64,
) -> Result<Hash, EncodeError> {
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    write_body(kind, payload, prev, seq, &mut hasher)?;
    Ok(Hash(hasher.finalize().into()))
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn spec_first_record_hash() {
        let payload = parse(br#"{"task":"add 2 and 40"}"#).unwrap();
        let mut body = alloc::vec::Vec::from(&b"{"[..]);
        write_body("task", &payload, &Hash::ZERO, 0, &mut body).unwrap();
        assert_eq!(
            body,
            br#"{"kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#
        );
        assert_eq!(
            alloc::format!("{}", record_hash("task", &payload, &Hash::ZERO, 0).unwrap()),
            "dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949"
        );
    }
}
