//! Records and transcripts: SHA-256 from `sha2` directly, sample chains, forged chains
//! (without the core's record encoder) and tampered lines.

use agentloop_core::chain::Chain;
use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};
use sha2::Digest;

/// SHA-256 of `data`, through the `sha2` crate directly rather than the core's
/// record hashing, so forged records do not reuse the code under test.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The canonical encoding of `value` (panics on a non-finite number).
pub fn canonical(value: &Value) -> Vec<u8> {
    jcs::to_vec(value).expect("the value has a canonical encoding")
}

/// Parses one record line (without its newline) strictly into an object.
pub fn parse_record(line: &[u8]) -> Object {
    match json::parse(line) {
        Ok(Value::Object(o)) => o,
        other => panic!("not a record line: {other:?}"),
    }
}

/// A record object without `hash`: `{kind, payload, prev, seq}`.
pub fn record_object(kind: &str, payload: Value, prev: &Hash, seq: u64) -> Object {
    let mut o = Object::new();
    o.insert("kind", Value::from(kind));
    o.insert("payload", payload);
    o.insert("prev", Value::String(prev.to_string()));
    o.insert("seq", Value::Number(seq as f64));
    o
}

/// The SPEC hash of a record object: SHA-256 (independent implementation) of the
/// canonical encoding of the object without its `hash` member.
pub fn record_hash(record: &Object) -> Hash {
    let mut body = record.clone();
    body.remove("hash");
    Hash(sha256(&canonical(&Value::Object(body))))
}

/// Computes the record's hash, sets its `hash` member, and returns the canonical line
/// (without newline) and the hash.
pub fn seal(mut record: Object) -> (Vec<u8>, Hash) {
    let h = record_hash(&record);
    record.insert("hash", Value::String(h.to_string()));
    (canonical(&Value::Object(record)), h)
}

/// The canonical line of a record object (whatever its `hash` says), without newline.
pub fn encode_record(record: &Object) -> Vec<u8> {
    canonical(&Value::Object(record.clone()))
}

/// The kind of the `i`-th sample record.
pub fn sample_kind(i: usize) -> &'static str {
    ["task", "assistant", "tool", "stop", "note"][i % 5]
}

/// The payload of the `i`-th sample record: an object with unicode text, escapes and
/// numbers whose canonical spelling is not the obvious one.
pub fn sample_payload(i: usize) -> Value {
    let text = format!("record {i}: café ☕ 😀 \"q\" \\ tab\t nl\n ﬁ €");
    let doc = format!(
        r#"{{"i":{i},"text":{},"n":[0.1,1e21,-5,5e-324,1E-7,{i}.5],"ok":true,"nil":null,"nested":{{"b":[],"a":{{}}}}}}"#,
        String::from_utf8(canonical(&Value::String(text))).expect("utf-8")
    );
    json::parse(doc.as_bytes()).expect("sample payload parses")
}

/// A valid transcript of `n` sample records written by the core's [`Chain`]: its lines
/// (without newlines) and the chain.
pub fn sample_chain(n: usize) -> (Vec<Vec<u8>>, Chain) {
    let mut chain = Chain::new();
    let lines = (0..n)
        .map(|i| {
            let line = chain
                .append(sample_kind(i), &sample_payload(i))
                .expect("sample record appends");
            let (body, nl) = line.split_at(line.len() - 1);
            assert_eq!(nl, b"\n", "a Chain line ends with a newline");
            body.to_vec()
        })
        .collect();
    (lines, chain)
}

/// Builds `n` sample records the way a writer would (prev = hash of the record before,
/// seq = position), but lets `edit` change each record object before it is sealed with
/// its recomputed hash. With an `edit` that does nothing the result equals
/// [`sample_chain`] byte for byte. Returns the lines and the stored hash of each.
pub fn forge_chain(
    n: usize,
    mut edit: impl FnMut(usize, &mut Object),
) -> (Vec<Vec<u8>>, Vec<Hash>) {
    let mut prev = Hash::ZERO;
    let mut lines = Vec::new();
    let mut hashes = Vec::new();
    for i in 0..n {
        let mut o = record_object(sample_kind(i), sample_payload(i), &prev, i as u64);
        edit(i, &mut o);
        let (line, h) = seal(o);
        lines.push(line);
        hashes.push(h);
        prev = h;
    }
    (lines, hashes)
}

/// Joins lines into a transcript, each followed by `\n`.
pub fn transcript<L: AsRef<[u8]>>(lines: &[L]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_ref());
        out.push(b'\n');
    }
    out
}

/// Replaces the only occurrence of `from` in `line` by `to` (panics unless there is
/// exactly one, so a tampering step cannot silently do nothing).
pub fn replace_once(line: &[u8], from: &str, to: &str) -> Vec<u8> {
    let f = from.as_bytes();
    let hits: Vec<usize> = line
        .windows(f.len())
        .enumerate()
        .filter(|(_, w)| *w == f)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "expected exactly one {from:?} in {}",
        String::from_utf8_lossy(line)
    );
    let mut out = line[..hits[0]].to_vec();
    out.extend_from_slice(to.as_bytes());
    out.extend_from_slice(&line[hits[0] + f.len()..]);
    out
}
