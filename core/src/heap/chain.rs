//! Appending records: the writer's side of the hash chain, in memory.
//!
//! A [`Chain`] is the fixed-size layer's [`ChainState`] (the one append rule: line
//! assembly and hashing, `stream::append`) with the Merkle range of its records and a
//! reusable line buffer; a `json::Value` is a
//! [`CanonicalPayload`](crate::stream::CanonicalPayload) (agentloop-json implements it)
//! encoded as it is written.

use alloc::vec::Vec;
#[cfg(feature = "serde")]
use core::fmt;

use crate::anchor::Anchor;
use crate::hash::Hash;
use crate::json::{self, Value};
use crate::merkle::{record_leaf, CompactRange};
use crate::stream::ChainState;
use crate::verify::MAX_LINE_BYTES;

/// Why a record could not be appended: the one append error of every writer
/// (`stream::AppendError`). The chain is unchanged after any of them.
pub use crate::stream::AppendError;

pub use super::record_log::{Log, LogError, Logged};

#[cfg(feature = "serde")]
crate::heap::opaque::opaque_error! {
    /// Why [`Chain::append_serialize`] appended nothing (feature `serde`): the payload
    /// could not become a JSON value (what, and where in it), or the record was
    /// refused as [`Chain::append`] refuses it.
    #[derive(Clone, PartialEq, Eq)]
    pub struct AppendSerializeError(AppendSerializeErrorKind);
}

/// What [`AppendSerializeError`] says.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AppendSerializeErrorKind {
    /// The payload could not become a JSON value: what, and where in it.
    Serialize(json::SerializeError),
    /// The record was refused as [`Chain::append`] refuses it.
    Append(AppendError),
}

#[cfg(feature = "serde")]
impl fmt::Display for AppendSerializeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendSerializeErrorKind::Serialize(e) => {
                write!(f, "the payload cannot be written as JSON: {e}")
            }
            AppendSerializeErrorKind::Append(e) => e.fmt(f),
        }
    }
}

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
    state: ChainState,
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
            state: ChainState::from_anchor(anchor),
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
        Ok(self.append_within(kind, payload, MAX_LINE_BYTES)?.line)
    }

    /// [`Chain::append`] with a line limit of `max` bytes (without the newline), for a
    /// writer that keeps to a lower limit than a verifier's default.
    pub(crate) fn append_within(
        &mut self,
        kind: &str,
        payload: &Value,
        max: usize,
    ) -> Result<Logged<'_>, AppendError> {
        let seq = self.state.next_seq();
        match self.state.append_to(&mut self.line, kind, payload, max) {
            Ok(hash) => {
                // At most 2^53 records: the range never fills.
                let _ = self.tree.push(record_leaf(&hash));
                Ok(Logged {
                    line: self.line(),
                    seq,
                    hash,
                })
            }
            Err(error) => {
                if matches!(error, AppendError::LineTooLong { .. }) {
                    // Not kept for the next line: it is larger than any line should need.
                    self.line = Vec::new();
                }
                Err(error)
            }
        }
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
        let payload = json::to_value(payload).map_err(AppendSerializeErrorKind::Serialize)?;
        Ok(self
            .append(kind, &payload)
            .map_err(AppendSerializeErrorKind::Append)?)
    }

    /// The `hash` of the last record, or `prev0` before the first.
    pub fn head(&self) -> Hash {
        self.state.head()
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
        self.state.count()
    }

    /// The `seq` the next record will carry.
    pub fn next_seq(&self) -> u64 {
        self.state.next_seq()
    }

    /// Where this chain started.
    pub fn anchor(&self) -> Anchor {
        self.state.anchor()
    }

    /// Where the next record continues: its `seq` and its `prev` (the head).
    pub fn next(&self) -> Anchor {
        self.state.next()
    }

    /// The line of the last append (what the buffer holds after a refused one is not a
    /// line).
    pub(crate) fn line(&self) -> &[u8] {
        &self.line
    }
}

/// In memory: the line is the chain's buffer, until the next append.
impl Log for Chain {
    fn append(&mut self, kind: &str, payload: &Value) -> Result<Logged<'_>, LogError> {
        self.append_within(kind, payload, MAX_LINE_BYTES)
            .map_err(LogError::Append)
    }

    fn next(&self) -> Anchor {
        Chain::next(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::MAX_SEQ;
    use crate::jcs::EncodeError;
    use crate::json::MAX_DEPTH;

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
