//! What a detail names of a value found: member-name starts, string excerpts, numbers in their ECMAScript spelling ([`Found`]).

use core::fmt;

use heapless::String;

use super::*;
use crate::jcs::write_str;
use crate::number::format_f64;
use crate::sink::{BufferFull, ByteSink};
use crate::stream::buf::ByteBuf;
use crate::stream::lexer::JsonType;

/// The start of a member's name as a detail keeps it: whole characters, at most
/// [`NAME_BYTES`] bytes.
pub fn name_start(name: &str) -> String<NAME_BYTES> {
    let mut start = String::new();
    for c in name.chars() {
        if start.push(c).is_err() {
            break;
        }
    }
    start
}

/// The bytes of a found string kept for a detail sentence (its canonical encoding,
/// without the quotes, cut at a character).
pub const EXCERPT_BYTES: usize = 40;

/// The start of a found string: its canonical encoding without the quotes (escapes
/// as canonical form writes them), at most [`EXCERPT_BYTES`] bytes, cut at a character.
pub type Excerpt = String<EXCERPT_BYTES, u8>;

/// A value found where something else was expected, as far as a detail names it.
///
/// Both verifiers describe a value the same way: the streaming one from the bytes of a
/// canonical line, the allocating one from the parsed value through its canonical
/// encoding (which on a canonical line is the bytes as written).
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// The empty string.
    EmptyString,
    /// A non-empty string.
    String {
        /// Bytes between the quotes, escapes as canonical form writes them.
        len: u64,
        /// Its first bytes ([`EXCERPT_BYTES`] at most).
        start: Excerpt,
    },
    /// A number (its nearest double; infinite when out of range).
    Number(f64),
    /// A value of another type.
    Type(JsonType),
}

impl Found {
    /// A string found, from its canonical encoding's bytes without the quotes: `len`
    /// of them in all, `first` the first of them (at least [`EXCERPT_BYTES`] when
    /// there are that many; valid UTF-8 up to a cut character).
    pub(crate) fn string(len: u64, first: &[u8]) -> Found {
        if len == 0 {
            return Found::EmptyString;
        }
        let keep = usize::try_from(len).map_or(EXCERPT_BYTES, |len| len.min(EXCERPT_BYTES));
        let first = first.get(..keep).unwrap_or(first);
        let text = match core::str::from_utf8(first) {
            Ok(text) => text,
            Err(e) => core::str::from_utf8(first.get(..e.valid_up_to()).unwrap_or_default())
                .unwrap_or_default(),
        };
        let mut start = Excerpt::new();
        let _ = start.push_str(text);
        Found::String { len, start }
    }

    /// A string found, from its text: its canonical encoding's length without the quotes
    /// and its start, as the streaming verifier names the same string on a canonical line.
    pub fn of_str(text: &str) -> Found {
        let mut sink = ExcerptSink {
            bytes: ByteBuf::new(),
            count: 0,
        };
        let _ = write_str(text, &mut sink);
        // The sink holds the opening quote and up to EXCERPT_BYTES bytes after it.
        let first = sink.bytes.as_slice().get(1..).unwrap_or_default();
        Found::string(sink.count.saturating_sub(2), first)
    }
}

/// Counts the bytes written and keeps the first `EXCERPT_BYTES + 1` of them.
pub(super) struct ExcerptSink {
    pub(super) bytes: ByteBuf<{ EXCERPT_BYTES + 1 }>,
    pub(super) count: u64,
}

impl ByteSink for ExcerptSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        let room = EXCERPT_BYTES + 1 - self.bytes.len();
        let _ = self
            .bytes
            .extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        self.count = self.count.saturating_add(bytes.len() as u64);
        Ok(())
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::EmptyString => f.write_str("\"\""),
            Found::String { len, start } => {
                f.write_str("\"")?;
                // Canonical form escapes C0 controls; DEL and C1 controls are not
                // written raw into a sentence either.
                for c in start.chars() {
                    if c.is_control() {
                        write!(f, "{}", c.escape_debug())?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                if start.len() as u64 == *len {
                    f.write_str("\"")
                } else {
                    write!(f, "…\" ({len} bytes)")
                }
            }
            Found::Number(n) if n.is_finite() => write!(f, "the number {}", Spelled(*n)),
            Found::Number(_) => f.write_str("a number outside the double range"),
            Found::Type(t) => f.write_str(t.with_article()),
        }
    }
}

// A `Found::Number` is never NaN: it is read from a JSON number literal (out of range
// is infinite), and JSON has no NaN. So equality is an equivalence.
impl Eq for Found {}

/// A double in its ECMAScript spelling.
pub(super) struct Spelled(pub(super) f64);

impl fmt::Display for Spelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 32];
        match format_f64(self.0, &mut buf) {
            Some(len) => {
                let text = buf.get(..len).unwrap_or_default();
                f.write_str(core::str::from_utf8(text).unwrap_or("?"))
            }
            None => f.write_str("a non-finite number"),
        }
    }
}
