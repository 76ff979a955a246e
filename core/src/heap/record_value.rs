//! Records from a [`Value`] payload: the hashed body and the record hash. Public as
//! part of [`crate::record`].

use sha2::{Digest, Sha256};

use crate::hash::Hash;
use crate::jcs::EncodeError;
use crate::json::Value;
use crate::sink::ByteSink;
use crate::stream::internals::write_fields;

/// Writes the hashed form of a record, `{"kind":…,"payload":…,"prev":"…","seq":…}`
/// minus its opening `{` (so it can follow either `{` or `{"hash":"…",`).
pub fn write_body<S: ByteSink + ?Sized>(
    kind: &str,
    payload: &Value,
    prev: &Hash,
    seq: u64,
    out: &mut S,
) -> Result<(), EncodeError> {
    write_fields(out, kind, payload, prev, seq)
}

/// The `hash` of a record: SHA-256 of its canonical encoding without `hash`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::Hash;

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
