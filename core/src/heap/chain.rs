//! Appending records: the writer's side of the hash chain.

use alloc::vec::Vec;
use core::fmt;

use sha2::{Digest, Sha256};

use crate::anchor::{Anchor, MAX_SEQ};
use crate::hash::Hash;
use crate::jcs::EncodeError;
use crate::json::{self, ParseError, Value, MAX_DEPTH};
use crate::merkle::{record_leaf, CompactRange};
use crate::record::{write_body, LINE_PREFIX};
use crate::verify::MAX_LINE_BYTES;

/// Why a record could not be appended. The chain is unchanged after any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendError {
    /// `kind` must be a non-empty string.
    EmptyKind,
    /// The next `seq` would pass 2^53 − 1.
    SeqExhausted,
    /// The payload holds a NaN or infinite number, which has no canonical encoding.
    Payload(EncodeError),
    /// The payload given as JSON text is not I-JSON or has no canonical encoding.
    PayloadJson(ParseError),
    /// The payload nests arrays and objects more than `max` levels deep
    /// ([`crate::json::MAX_DEPTH`], 128, as the strict parser reads them): a verifier
    /// would refuse the line as `bad_json`. Only a value built by hand can.
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// The record's line would be longer than the line limit (`max` bytes without its
    /// newline: [`crate::verify::MAX_LINE_BYTES`], 16 MiB, for a [`Chain`]; a writer
    /// may keep to a lower one): a verifier would refuse it as `bad_json`.
    LineTooLong {
        /// The line's length in bytes, without its newline.
        len: usize,
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendError::EmptyKind => f.write_str("a record's kind must be a non-empty string"),
            AppendError::SeqExhausted => f.write_str("the chain has reached seq 2^53-1"),
            AppendError::Payload(e) => write!(f, "the payload cannot be encoded: {e}"),
            AppendError::PayloadJson(e) => write!(f, "the payload is not acceptable JSON: {e}"),
            AppendError::TooDeep { max } => write!(
                f,
                "the payload nests arrays and objects more than {max} levels deep: a verifier \
                 would refuse it"
            ),
            AppendError::LineTooLong { len, max } => write!(
                f,
                "the record's line would be {len} bytes, past the line limit of {max} bytes: \
                 a verifier would refuse it"
            ),
        }
    }
}

impl core::error::Error for AppendError {}

/// Why [`Chain::append_serialize`] appended nothing (feature `serde`).
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendSerializeError {
    /// The payload could not become a JSON value: what, and where in it.
    Serialize(json::SerializeError),
    /// The record was refused as [`Chain::append`] refuses it.
    Append(AppendError),
}

#[cfg(feature = "serde")]
impl fmt::Display for AppendSerializeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendSerializeError::Serialize(e) => {
                write!(f, "the payload cannot be written as JSON: {e}")
            }
            AppendSerializeError::Append(e) => e.fmt(f),
        }
    }
}

#[cfg(feature = "serde")]
impl core::error::Error for AppendSerializeError {}

/// The head of a hash chain, and a reusable buffer for the lines it produces.
///
/// ```
/// use agentloop_core::chain::Chain;
/// let mut chain = Chain::new();
/// let line = chain.append_json("task", br#"{"task":"add 2 and 40"}"#).unwrap();
/// assert!(line.starts_with(b"{\"hash\":\"dc8128e3"));
/// assert_eq!(chain.count(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Chain {
    anchor: Anchor,
    next_seq: u64,
    head: Hash,
    /// The Merkle tree of the records appended since the anchor (O(log n) state).
    tree: CompactRange,
    line: Vec<u8>,
}

impl Default for Chain {
    fn default() -> Self {
        Chain::new()
    }
}

impl Chain {
    /// A chain starting at `(0, 64 zeros)`.
    pub fn new() -> Self {
        Chain::from_anchor(Anchor::GENESIS)
    }

    /// A chain whose first record will have `seq = seq0` and `prev = prev0`: to continue
    /// another transcript, or a file already holding records (its next seq and head).
    pub fn from_anchor(anchor: Anchor) -> Self {
        Chain {
            anchor,
            next_seq: anchor.seq0,
            head: anchor.prev0,
            tree: CompactRange::new(),
            line: Vec::new(),
        }
    }

    /// Appends a record and returns its canonical line, ending in `\n`.
    ///
    /// A line longer than [`MAX_LINE_BYTES`] (without its newline) is refused
    /// ([`AppendError::LineTooLong`]): no verifier would read it back.
    ///
    /// The line borrows the chain's buffer, which is reused by the next append, so a
    /// long-running writer allocates only when a record is longer than any before it.
    pub fn append(&mut self, kind: &str, payload: &Value) -> Result<&[u8], AppendError> {
        if kind.is_empty() {
            return Err(AppendError::EmptyKind);
        }
        if self.next_seq > MAX_SEQ {
            return Err(AppendError::SeqExhausted);
        }
        if payload.deeper_than(MAX_DEPTH) {
            return Err(AppendError::TooDeep { max: MAX_DEPTH });
        }
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(LINE_PREFIX);
        let hex_at = line.len();
        line.extend_from_slice(&[b'0'; 64]);
        line.extend_from_slice(b"\",");
        let body_at = line.len();
        write_body(kind, payload, &self.head, self.next_seq, line).map_err(AppendError::Payload)?;
        if line.len() > MAX_LINE_BYTES {
            let len = line.len();
            // Not kept for the next line: it is larger than any line should need.
            *line = Vec::new();
            return Err(AppendError::LineTooLong {
                len,
                max: MAX_LINE_BYTES,
            });
        }
        let mut hasher = Sha256::new();
        hasher.update(b"{");
        hasher.update(&line[body_at..]);
        let hash = Hash(hasher.finalize().into());
        line[hex_at..hex_at + 64].copy_from_slice(&hash.to_hex());
        line.push(b'\n');
        self.head = hash;
        // At most 2^53 records: the range never fills.
        let _ = self.tree.push(record_leaf(&hash));
        self.next_seq += 1;
        Ok(&self.line)
    }

    /// Parses `payload_json` strictly and appends it (see [`Chain::append`]).
    pub fn append_json(&mut self, kind: &str, payload_json: &[u8]) -> Result<&[u8], AppendError> {
        let payload = json::parse(payload_json).map_err(AppendError::PayloadJson)?;
        self.append(kind, &payload)
    }

    /// Appends a record whose payload is any `T: Serialize` (feature `serde`): the
    /// same line as [`Chain::append`] with `json::to_value(payload)` (see
    /// [`crate::json::to_value`] for what is refused: inexact integers, NaN, infinities,
    /// non-string or repeated map keys). The chain is unchanged after any error.
    ///
    /// ```
    /// use agentloop_core::chain::Chain;
    /// #[derive(serde::Serialize)]
    /// struct Task<'a> { task: &'a str }
    ///
    /// let mut chain = Chain::new();
    /// let line = chain.append_serialize("task", &Task { task: "add 2 and 40" }).unwrap();
    /// assert!(line.starts_with(b"{\"hash\":\"dc8128e3")); // as `append_json` writes it
    /// ```
    #[cfg(feature = "serde")]
    pub fn append_serialize<T: serde::Serialize + ?Sized>(
        &mut self,
        kind: &str,
        payload: &T,
    ) -> Result<&[u8], AppendSerializeError> {
        let payload = json::to_value(payload).map_err(AppendSerializeError::Serialize)?;
        self.append(kind, &payload)
            .map_err(AppendSerializeError::Append)
    }

    /// The `hash` of the last record, or `prev0` before the first.
    pub fn head(&self) -> Hash {
        self.head
    }

    /// The RFC 6962 Merkle root of the records this chain appended since its anchor
    /// (leaf `i`: record `i`'s `hash`; for a chain from nothing, the whole transcript's
    /// root, as the verifier's `Report::root` and a checkpoint carry it). A chain that
    /// continues a file knows only its own records: take that file's root from
    /// `verify`.
    pub fn root(&self) -> Hash {
        self.tree.root()
    }

    /// How many records this chain has appended since its anchor.
    pub fn count(&self) -> u64 {
        self.next_seq - self.anchor.seq0
    }

    /// The `seq` the next record will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Where this chain started.
    pub fn anchor(&self) -> Anchor {
        self.anchor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_CHAIN: &str = concat!(
        r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#,
        "\n",
        r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#,
        "\n",
        r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#,
        "\n",
    );

    /// `levels` arrays around `null`, built without recursion.
    fn nested(levels: usize) -> Value {
        let mut value = Value::Null;
        for _ in 0..levels {
            value = Value::Array(alloc::vec![value]);
        }
        value
    }

    #[test]
    fn a_payload_deeper_than_a_verifier_reads_is_refused_and_the_chain_is_unchanged() {
        let mut chain = Chain::new();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(chain.append("deep", &nested(MAX_DEPTH)).unwrap());
        let (head, seq) = (chain.head(), chain.next_seq());
        for levels in [MAX_DEPTH + 1, 1000] {
            assert_eq!(
                chain.append("deep", &nested(levels)),
                Err(AppendError::TooDeep { max: MAX_DEPTH })
            );
            assert_eq!((chain.head(), chain.next_seq()), (head, seq));
        }
        // The deepest payload accepted is one a verifier reads.
        let report = crate::verify::verify_bytes(&bytes, &crate::verify::Options::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(
            alloc::format!("{}", AppendError::TooDeep { max: 128 }),
            "the payload nests arrays and objects more than 128 levels deep: a verifier would \
             refuse it"
        );
    }

    #[test]
    fn spec_section_5_chain_byte_for_byte() {
        let mut chain = Chain::new();
        let mut out = Vec::new();
        // Payload member order in the input does not matter: output is canonical.
        for (kind, payload) in [
            ("task", r#"{"task":"add 2 and 40"}"#),
            (
                "assistant",
                r#"{"tool_calls":[{"name":"add","arguments":{"b":40,"a":2}}],"text":""}"#,
            ),
            ("tool", r#"{"value":{"sum":42},"ok":true,"name":"add"}"#),
        ] {
            out.extend_from_slice(chain.append_json(kind, payload.as_bytes()).unwrap());
        }
        assert_eq!(core::str::from_utf8(&out).unwrap(), SPEC_CHAIN);
        assert_eq!(
            alloc::format!("{}", chain.head()),
            "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"
        );
        assert_eq!(chain.count(), 3);
        assert_eq!(chain.next_seq(), 3);
    }

    #[test]
    fn refusals_leave_the_chain_unchanged() {
        let mut chain = Chain::new();
        chain.append_json("task", b"{}").unwrap();
        let head = chain.head();
        assert_eq!(chain.append("", &Value::Null), Err(AppendError::EmptyKind));
        assert_eq!(
            chain.append("x", &Value::Number(f64::NAN)),
            Err(AppendError::Payload(EncodeError::NonFiniteNumber))
        );
        assert!(matches!(
            chain.append_json("x", b"9007199254740993"),
            Err(AppendError::PayloadJson(_))
        ));
        assert_eq!((chain.head(), chain.count()), (head, 1));
        let next = chain.append("x", &Value::Null).unwrap().to_vec();
        let mut again = Chain::new();
        again.append_json("task", b"{}").unwrap();
        assert_eq!(again.append("x", &Value::Null).unwrap(), &next[..]);
    }

    #[test]
    fn anchored_chain_and_seq_limit() {
        let prev0 = Hash([7; 32]);
        let mut chain = Chain::from_anchor(Anchor {
            seq0: MAX_SEQ,
            prev0,
        });
        let line = chain.append("k", &Value::Null).unwrap();
        let text = core::str::from_utf8(line).unwrap();
        assert!(text.ends_with(&alloc::format!(
            "\"prev\":\"{prev0}\",\"seq\":9007199254740991}}\n"
        )));
        assert_eq!(chain.count(), 1);
        assert_eq!(
            chain.anchor(),
            Anchor {
                seq0: MAX_SEQ,
                prev0
            }
        );
        assert_eq!(
            chain.append("k", &Value::Null),
            Err(AppendError::SeqExhausted)
        );
    }

    #[test]
    fn a_record_past_the_line_limit_is_refused_and_one_at_it_verifies() {
        use crate::verify::{verify_bytes, Options, MAX_LINE_BYTES};
        let text = |n: usize| Value::String(alloc::string::String::from("a").repeat(n));
        // The line without its newline, for an empty string payload.
        let overhead = Chain::new().append("k", &text(0)).unwrap().len() - 1;
        let fits = MAX_LINE_BYTES - overhead;
        let mut chain = Chain::new();
        let line = chain.append("k", &text(fits)).unwrap().to_vec();
        assert_eq!(line.len(), MAX_LINE_BYTES + 1);
        assert!(verify_bytes(&line, &Options::default()).ok());
        let head = chain.head();
        assert_eq!(
            chain.append("k", &text(fits + 1)),
            Err(AppendError::LineTooLong {
                len: MAX_LINE_BYTES + 1,
                max: MAX_LINE_BYTES
            })
        );
        assert_eq!((chain.head(), chain.count()), (head, 1));
        assert_eq!(
            alloc::format!(
                "{}",
                AppendError::LineTooLong {
                    len: MAX_LINE_BYTES + 1,
                    max: MAX_LINE_BYTES
                }
            ),
            "the record's line would be 16777217 bytes, past the line limit of 16777216 bytes: \
             a verifier would refuse it"
        );
    }

    #[test]
    fn errors_read_as_sentences() {
        let parse_error = json::parse(b"1e400").unwrap_err();
        let cases = [
            (AppendError::EmptyKind, "a record's kind must be a non-empty string"),
            (AppendError::SeqExhausted, "the chain has reached seq 2^53-1"),
            (
                AppendError::Payload(EncodeError::NonFiniteNumber),
                "the payload cannot be encoded: NaN and infinite numbers have no canonical encoding",
            ),
            (
                AppendError::PayloadJson(parse_error),
                "the payload is not acceptable JSON: number outside the double range at byte 0",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(alloc::format!("{error}"), text);
        }
        assert_eq!(
            alloc::format!("{}", EncodeError::BufferFull),
            "the output buffer is too small"
        );
    }
}
