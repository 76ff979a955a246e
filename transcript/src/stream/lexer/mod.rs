//! A checker of canonical (RFC 8785) JSON with a fixed amount of state, fed in chunks.
//!
//! `Lexer::byte` takes one byte and either accepts it or stops with the reason the
//! bytes so far cannot be the start of a canonical document: a [`Departure`] (valid JSON
//! could still follow, but not in canonical form — `not_canonical`), a [`Syntax`] error
//! (no JSON document starts with these bytes — `bad_json`), or a [`Limit`] of this
//! checker (`bad_json`, naming the limit). Every canonical document within the limits
//! is accepted, and nothing else is: white space, escapes other than the canonical ones,
//! keys out of UTF-16 order and number spellings other than ECMAScript's are departures.
//! `Lexer::push` gives it a chunk: wide scans and grammar-shaped steps (`fast.rs`) take
//! what they can, every byte they take taken as `byte` would take it, and `byte` the
//! rest (`fast_tests.rs` holds the two equal on any bytes in any chunking).
//!
//! An `Observer` sees every accepted byte with its place in a record line, the keys
//! of the outermost object, the end of each of its members' values and any number with
//! no canonical encoding; the record layer hashes and checks a record with it.
//!
//! The files: `kinds.rs` (the reasons a document stops, as enums with their sentences),
//! `events.rs` (what the state machine tells an [`Observer`]), `state.rs` (the
//! structural bytes, one at a time), `string.rs` and `numeric.rs` (the bytes of a
//! string and of a number literal), `scan.rs` (the wide scans: the clean prefix of a
//! chunk, a string's body), `fast.rs` (the common paths without a call per byte),
//! `check.rs` ([`check_canonical`], a whole document at once), `whole_line.rs` (a
//! record line as writers write it, contiguous, in one pass of recursive descent over
//! the same scans; it only says yes, and leaves any other line to the lexer).

use heapless::Vec;

use super::buf::ByteBuf;

mod check;
mod events;
mod fast;
#[cfg(test)]
mod fast_tests;
mod kinds;
mod numeric;
// The size path (`crate::SMALL`), compiled on every build: the tests hold it to the
// default path.
mod numeric_small;
#[cfg(test)]
mod numeric_tests;
mod scan;
mod state;
mod string;
#[cfg(test)]
mod tests;
pub(crate) mod whole_line;
#[cfg(test)]
mod whole_line_tests;

pub use check::{check_canonical, CheckError, CheckReason};
pub(crate) use events::{Observer, ValueEnd, Where};
pub use kinds::{Departure, Limit, NumberProblem, Stop, Syntax};

use events::{Events, Runs};
use scan::clean_prefix;
use state::{Frame, State};

/// The deepest nesting of a record line (a transcript line): its payload may nest
/// [`MAX_DEPTH`] deep and the record object adds one level around it (SPEC section 1).
/// One limit for the streaming lexer and the allocating parser (agentloop-json
/// re-exports it).
pub const RECORD_MAX_DEPTH: usize = MAX_DEPTH + 1;

/// The deepest nesting a payload may have: the outermost array or object is depth 1.
/// A record line wraps its payload in one more object, so a record may be one deeper
/// ([`RECORD_MAX_DEPTH`]). One limit for the streaming lexer and the allocating parser
/// (agentloop-json re-exports it).
pub const MAX_DEPTH: usize = 128;

/// The longest object key, in bytes of UTF-8 after unescaping, whose order can be checked.
pub const MAX_KEY_BYTES: usize = 256;

/// Room for the keys kept while reading: the last key of every open object along the
/// path from the outermost object, plus the key being read (bytes after unescaping).
pub const KEY_PATH_BYTES: usize = 1024;

/// The longest number literal kept for checking. No canonical number is longer than 25
/// bytes (`-0.0000012345678901234567`), so a longer literal is a departure.
pub const MAX_NUMBER_BYTES: usize = 32;

/// The JSON type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

impl JsonType {
    /// The type with its article, as a detail sentence names it ("an object", "null").
    pub fn with_article(self) -> &'static str {
        match self {
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::String => "a string",
            JsonType::Number => "a number",
            JsonType::Boolean => "a boolean",
            JsonType::Null => "null",
        }
    }
}

/// The canonical-form checker. Its size is fixed: see the module docs of
/// [`crate::stream`] for the figures.
#[derive(Debug, Clone)]
pub struct Lexer {
    max_depth: u8,
    state: State,
    top: Option<JsonType>,
    frames: Vec<Frame, RECORD_MAX_DEPTH, u8>,
    keys: ByteBuf<KEY_PATH_BYTES>,
    key_at: u16,
    num: ByteBuf<MAX_NUMBER_BYTES>,
    num_long: bool,
}

impl Lexer {
    /// A checker for one document nested at most `max_depth` deep (capped at
    /// [`RECORD_MAX_DEPTH`]).
    pub fn new(max_depth: usize) -> Self {
        Lexer {
            max_depth: max_depth.min(RECORD_MAX_DEPTH) as u8,
            state: State::Value { first: false },
            top: None,
            frames: Vec::new(),
            keys: ByteBuf::new(),
            key_at: 0,
            num: ByteBuf::new(),
            num_long: false,
        }
    }

    /// Forgets the document read so far, to read another.
    pub fn reset(&mut self) {
        self.state = State::Value { first: false };
        self.top = None;
        self.frames.clear();
        self.keys.clear();
        self.key_at = 0;
        self.num.clear();
        self.num_long = false;
    }

    fn top_object(&self) -> bool {
        self.top == Some(JsonType::Object)
    }

    /// Where a structural byte or key byte of the innermost container sits.
    fn structural(&self, key: bool) -> Where {
        match (self.top_object(), self.frames.len()) {
            (false, _) => Where::Top,
            (true, 1) if key => Where::Key,
            (true, 1) => Where::Record,
            (true, _) => Where::Value,
        }
    }

    /// Whether the value being read is the value of a member of the outermost object
    /// (the record layer reads those).
    fn member_value(&self) -> bool {
        self.top_object() && self.frames.len() == 1
    }

    /// Where a byte inside a value sits.
    fn inside(&self) -> Where {
        if self.top_object() {
            Where::Value
        } else {
            Where::Top
        }
    }

    /// Checks the next bytes of the document, passing what it accepts to `obs`. On a
    /// stop, returns the 0-based offset in `input` of the byte that stopped it.
    pub(crate) fn push<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        obs: &mut O,
    ) -> Result<(), (usize, Stop)> {
        let mut runs = Runs::new(input, obs);
        let mut i = 0;
        // `input[..clean]` has no control byte and is well-formed UTF-8 (the fast path
        // scans strings only there); found again only once reading gets past it, so
        // the whole input is scanned once.
        let mut clean = 0;
        loop {
            // Small (`crate::SMALL`): every byte goes to `byte`; the fast paths and the
            // wide scans are speed bought with code, which a microcontroller's flash
            // cannot spare (docs/embedded.md).
            if i >= clean && !crate::SMALL {
                clean = i + clean_prefix(input.get(i..).unwrap_or_default());
            }
            let fast_input = input.get(..clean).unwrap_or_default();
            i = match self.fast(fast_input, i, &mut runs) {
                Ok(i) => i,
                Err(stop) => {
                    runs.flush();
                    return Err(stop);
                }
            };
            let Some(&b) = input.get(i) else {
                break;
            };
            runs.pos = i;
            // Small: one copy of the state machine serves every observer, through a
            // trait object; else one copy per observer, each inlined.
            let step = if crate::SMALL {
                self.byte(b, &mut runs as &mut dyn Events)
            } else {
                self.byte(b, &mut runs)
            };
            if let Err(stop) = step {
                runs.flush();
                return Err((i, stop));
            }
            i += 1;
        }
        runs.flush();
        Ok(())
    }

    /// The document ended (the line's `\n`, or the end of a payload): returns the
    /// outermost value's type.
    pub(crate) fn end<O: Observer + ?Sized>(&mut self, obs: &mut O) -> Result<JsonType, Stop> {
        let mut runs = Runs::new(&[], obs);
        let ended = if crate::SMALL {
            self.end_events(&mut runs as &mut dyn Events)
        } else {
            self.end_events(&mut runs)
        };
        runs.flush();
        ended
    }

    /// Whether `n` more key bytes fit both key limits.
    fn key_fits(&self, n: usize) -> bool {
        let len = self.keys.len();
        len.saturating_sub(usize::from(self.key_at)) + n <= MAX_KEY_BYTES
            && len + n <= KEY_PATH_BYTES
    }
}
