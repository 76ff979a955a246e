//! A byte-at-a-time checker of canonical (RFC 8785) JSON, with a fixed amount of state.
//!
//! `Lexer::byte` takes one byte and either accepts it or stops with the reason the
//! bytes so far cannot be the start of a canonical document: a [`Departure`] (valid JSON
//! could still follow, but not in canonical form — `not_canonical`), a [`Syntax`] error
//! (no JSON document starts with these bytes — `bad_json`), or a [`Limit`] of this
//! checker (`bad_json`, naming the limit). Every canonical document within the limits
//! is accepted, and nothing else is: white space, escapes other than the canonical ones,
//! keys out of UTF-16 order and number spellings other than ECMAScript's are departures.
//!
//! An `Observer` sees every accepted byte with its place in a record line, the keys
//! of the outermost object, the end of each of its members' values and any number with
//! no canonical encoding; the record layer hashes and checks a record with it.

use core::fmt;

use heapless::Vec;

use crate::number;

/// The deepest nesting of a record line: a payload may nest [`crate::stream::MAX_DEPTH`]
/// deep and the record object adds one level (the outermost object or array is depth 1).
pub const RECORD_MAX_DEPTH: usize = MAX_DEPTH + 1;

/// The deepest nesting of a payload (as the allocating parser's `json::MAX_DEPTH`).
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

/// Why the bytes are not JSON at all (the verifier's `bad_json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// A byte that cannot start or continue a value here.
    UnexpectedByte(u8),
    /// The line ended inside a value (or before one).
    UnexpectedEnd,
    /// Invalid UTF-8 (a byte-order mark is an unexpected byte).
    InvalidUtf8,
    /// A raw control character (U+0000..=U+001F) inside a string.
    ControlCharacter,
    /// A backslash escape JSON does not define, or a `\u` without four hex digits.
    InvalidEscape,
    /// `NaN` or `Infinity`.
    NonFiniteLiteral,
    /// A malformed number literal (leading zero, missing digits, …).
    InvalidNumber,
    /// The same key twice in one object.
    DuplicateKey,
    /// Nesting deeper than the limit.
    TooDeep,
    /// Something other than white space after the value.
    TrailingCharacters,
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Syntax::UnexpectedByte(b) if b.is_ascii_graphic() => {
                write!(f, "unexpected character '{}'", char::from(*b))
            }
            Syntax::UnexpectedByte(b) => write!(f, "unexpected byte 0x{b:02x}"),
            Syntax::UnexpectedEnd => f.write_str("unexpected end of input"),
            Syntax::InvalidUtf8 => f.write_str("invalid UTF-8"),
            Syntax::ControlCharacter => f.write_str("unescaped control character in a string"),
            Syntax::InvalidEscape => f.write_str("invalid escape sequence"),
            Syntax::NonFiniteLiteral => f.write_str("NaN and Infinity are not JSON numbers"),
            Syntax::InvalidNumber => f.write_str("malformed number"),
            Syntax::DuplicateKey => f.write_str("duplicate object key"),
            Syntax::TooDeep => f.write_str("nesting deeper than the limit"),
            Syntax::TrailingCharacters => f.write_str("unexpected data after the value"),
        }
    }
}

/// How the bytes depart from canonical form while they may still be JSON
/// (the verifier's `not_canonical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Departure {
    /// White space between tokens.
    WhiteSpace,
    /// An escape canonical form does not use (`\/`, `\u00e9`, `\u001F`, `\u000a`).
    Escape,
    /// A key that does not sort after the one before it (UTF-16 order).
    KeyOrder,
    /// A number not spelled as ECMAScript's `Number.prototype.toString` spells it.
    NumberSpelling,
}

impl fmt::Display for Departure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Departure::WhiteSpace => "white space between tokens",
            Departure::Escape => "an escape canonical form does not use",
            Departure::KeyOrder => "a key out of canonical (UTF-16) order",
            Departure::NumberSpelling => "a number not in its canonical spelling",
        })
    }
}

/// A limit of the streaming checker that a line went past (the verifier's `bad_json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A key longer than [`MAX_KEY_BYTES`].
    KeyTooLong,
    /// The keys along the open path need more than [`KEY_PATH_BYTES`].
    KeyPathTooLong,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::KeyTooLong => write!(
                f,
                "an object key longer than the streaming verifier's limit of {MAX_KEY_BYTES} bytes"
            ),
            Limit::KeyPathTooLong => write!(
                f,
                "the keys of the open objects need more than the streaming verifier's {KEY_PATH_BYTES} bytes"
            ),
        }
    }
}

/// A number literal with no canonical encoding (the verifier's `unserialisable_payload`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberProblem {
    /// An integer literal whose canonical encoding would denote another number.
    InexactInteger,
    /// A number outside the double range.
    OutOfRange,
    /// A non-zero literal that rounds to zero.
    Underflow,
}

impl fmt::Display for NumberProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberProblem::InexactInteger => {
                "integer literal cannot be represented exactly as a double (send big integers as strings)"
            }
            NumberProblem::OutOfRange => "number outside the double range",
            NumberProblem::Underflow => "non-zero number rounds to zero as a double",
        })
    }
}

/// Why the checker stopped reading a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Not JSON.
    Bad(Syntax),
    /// Not in canonical form.
    NotCanonical(Departure),
    /// Past a limit of this checker.
    Limit(Limit),
}

/// Where an accepted byte sits in a record line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Where {
    /// The outermost object's own `{`, `:`, `,` and `}`.
    Record,
    /// A key of the outermost object, quotes included.
    Key,
    /// Inside the value of a member of the outermost object.
    Value,
    /// Anything of a document whose outermost value is not an object.
    Top,
}

/// The end of the value of a member of the outermost object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ValueEnd {
    pub ty: JsonType,
    /// For a number: its nearest double (infinite when out of range); else 0.
    pub number: f64,
}

/// What the record layer sees of a document as it is checked.
pub(crate) trait Observer {
    /// A run of accepted bytes, all in the same place. Adjacent bytes in the same place
    /// come as one run as far as the input chunk allows (a string's body is one run).
    fn bytes(&mut self, _run: &[u8], _at: Where) {}
    /// A key of the outermost object, unescaped, once it is complete and in order.
    fn key(&mut self, _key: &[u8]) {}
    /// The value of a member of the outermost object is complete.
    fn value_end(&mut self, _end: ValueEnd) {}
    /// A number anywhere with no canonical encoding (reading goes on). `offset` is the
    /// 0-based offset, in the chunk being read, of the byte that ended the literal (the
    /// chunk's length when the document's end did).
    fn unserialisable(&mut self, _problem: NumberProblem, _offset: usize) {}
}

impl Observer for () {}

/// What the checker's state machine tells as it accepts bytes: one byte at a time, or a
/// run of plain string bytes; [`Runs`] joins them into runs for an [`Observer`].
trait Events {
    /// The byte at the current position was accepted, in this place.
    fn byte(&mut self, at: Where);
    /// `len` bytes from the current position were accepted, in this place.
    fn run(&mut self, len: usize, at: Where);
    fn key(&mut self, key: &[u8]);
    fn value_end(&mut self, end: ValueEnd);
    fn unserialisable(&mut self, problem: NumberProblem);
}

/// Joins accepted bytes of one input chunk into runs of the same place, so that the
/// observer (the record hasher) takes slices, not single bytes.
struct Runs<'a, 'o, O: ?Sized> {
    input: &'a [u8],
    /// The position of the byte being read.
    pos: usize,
    /// `input[start..end]`, all in place `at`, accepted but not yet passed on.
    start: usize,
    end: usize,
    at: Where,
    obs: &'o mut O,
}

impl<'a, 'o, O: Observer + ?Sized> Runs<'a, 'o, O> {
    fn new(input: &'a [u8], obs: &'o mut O) -> Self {
        Runs {
            input,
            pos: 0,
            start: 0,
            end: 0,
            at: Where::Top,
            obs,
        }
    }

    fn accept(&mut self, len: usize, at: Where) {
        let from = self.pos;
        if from != self.end || at != self.at {
            self.flush();
            self.start = from;
            self.at = at;
        }
        self.end = from + len;
    }

    /// Passes on the pending run.
    fn flush(&mut self) {
        if self.end > self.start {
            let run = self.input.get(self.start..self.end).unwrap_or_default();
            self.obs.bytes(run, self.at);
        }
        self.start = self.end;
    }
}

impl<O: Observer + ?Sized> Events for Runs<'_, '_, O> {
    fn byte(&mut self, at: Where) {
        self.accept(1, at);
    }

    fn run(&mut self, len: usize, at: Where) {
        self.accept(len, at);
    }

    fn key(&mut self, key: &[u8]) {
        self.flush();
        self.obs.key(key);
    }

    fn value_end(&mut self, end: ValueEnd) {
        self.flush();
        self.obs.value_end(end);
    }

    fn unserialisable(&mut self, problem: NumberProblem) {
        self.flush();
        self.obs.unserialisable(problem, self.pos);
    }
}

/// How many bytes at the start of `bytes` are plain string content: printable ASCII
/// other than `"` and `\\`. Eight bytes at a time, with bit tricks on a `u64` (a byte
/// is flagged only if it, or a byte below it, is not plain, so the lowest flag is the
/// first byte that is not plain). Measured faster here than 16- or 32-byte blocks left
/// to the compiler's vectoriser.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut n = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        // Below 0x20 (for bytes below 0x80), `"`, `\\`, or 0x80 and above.
        let stop = (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
            | zero_in(x ^ (ONES * u64::from(b'"')))
            | zero_in(x ^ (ONES * u64::from(b'\\')))
            | (x & HIGH);
        if stop != 0 {
            return n + (stop.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + words.remainder().iter().take_while(|&&b| plain(b)).count()
}

/// How many bytes at the start of `bytes` are the body of a string that needs no state
/// to check: plain bytes, complete well-formed UTF-8 sequences, and (with `escapes`) the
/// short escapes canonical form uses (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`).
/// It stops before a quote, any other escape, a control character, malformed or cut
/// UTF-8: the byte-at-a-time checker takes it from there.
fn string_body(bytes: &[u8], escapes: bool) -> usize {
    let mut n = 0;
    loop {
        n += plain_run(bytes.get(n..).unwrap_or_default());
        match bytes.get(n..).unwrap_or_default() {
            [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] if escapes => n += 2,
            [lead @ 0x80..=0xff, rest @ ..] => match utf8_sequence(*lead, rest) {
                Some(len) => n += len,
                None => return n,
            },
            _ => return n,
        }
    }
}

/// The length of the UTF-8 sequence that starts with `lead` and goes on with `rest`,
/// if it is well-formed and complete.
fn utf8_sequence(lead: u8, rest: &[u8]) -> Option<usize> {
    let (need, lo, hi) = utf8_lead(lead)?;
    let tail = rest.get(..usize::from(need))?;
    let (first, others) = tail.split_first()?;
    let ok = (lo..=hi).contains(first) && others.iter().all(|&b| (0x80..=0xbf).contains(&b));
    ok.then_some(1 + usize::from(need))
}

/// For a byte that starts a multi-byte UTF-8 sequence: the continuation bytes it needs
/// and the range the first of them must fall in (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF). `None` for a byte that cannot start one.
fn utf8_lead(b: u8) -> Option<(u8, u8, u8)> {
    Some(match b {
        0xc2..=0xdf => (1, 0x80, 0xbf),
        0xe0 => (2, 0xa0, 0xbf),
        0xe1..=0xec | 0xee..=0xef => (2, 0x80, 0xbf),
        0xed => (2, 0x80, 0x9f),
        0xf0 => (3, 0x90, 0xbf),
        0xf1..=0xf3 => (3, 0x80, 0xbf),
        0xf4 => (3, 0x80, 0x8f),
        _ => return None,
    })
}

fn plain(b: u8) -> bool {
    (0x20..0x80).contains(&b) && b != b'"' && b != b'\\'
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    object: bool,
    /// Whether the object has a key yet; its last key starts at `key_start`.
    has_key: bool,
    key_start: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    /// `\u` and `n` of its hex digits, their value, and whether one was uppercase.
    Hex {
        n: u8,
        value: u16,
        upper: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl Num {
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a value (`first`: right after `[`, where `]` may come instead).
    Value { first: bool },
    /// Right after `{`.
    ObjectFirst,
    /// After `,` in an object.
    KeyStart,
    /// After a key.
    Colon,
    /// After a value inside a container.
    After,
    /// After the outermost value.
    End,
    /// Inside a string: a key or not, the escape being read, the UTF-8 continuation
    /// bytes still needed and the range the next one must fall in.
    Str {
        key: bool,
        escape: Escape,
        need: u8,
        lo: u8,
        hi: u8,
    },
    /// Inside `true`, `false` or `null`: which one, and how many bytes were read.
    Literal { word: u8, at: u8 },
    /// Inside a number.
    Number(Num),
}

const WORDS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// The canonical-form checker. Its size is fixed: see the module docs of
/// [`crate::stream`] for the figures.
#[derive(Debug, Clone)]
pub struct Lexer {
    max_depth: u8,
    state: State,
    top: Option<JsonType>,
    frames: Vec<Frame, RECORD_MAX_DEPTH, u8>,
    keys: Vec<u8, KEY_PATH_BYTES, u16>,
    key_at: u16,
    num: Vec<u8, MAX_NUMBER_BYTES, u8>,
    num_long: bool,
}

fn whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
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
            keys: Vec::new(),
            key_at: 0,
            num: Vec::new(),
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
        while let Some(&b) = input.get(i) {
            runs.pos = i;
            if let State::Str {
                key,
                escape: Escape::None,
                need: 0,
                ..
            } = self.state
            {
                // The body of a string: take what needs no state as one run (a key's
                // escapes are read byte by byte, as the key is kept unescaped).
                let n = string_body(input.get(i..).unwrap_or_default(), !key);
                if n > 0 && (!key || self.key_fits(n)) {
                    let at = if key {
                        let _ = self
                            .keys
                            .extend_from_slice(input.get(i..i + n).unwrap_or_default());
                        self.structural(true)
                    } else {
                        self.inside()
                    };
                    runs.run(n, at);
                    i += n;
                    continue;
                }
            }
            if let Err(stop) = self.byte(b, &mut runs) {
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
        let ended = self.end_events(&mut runs);
        runs.flush();
        ended
    }

    /// Whether `n` more key bytes fit both key limits.
    fn key_fits(&self, n: usize) -> bool {
        let len = self.keys.len();
        len.saturating_sub(usize::from(self.key_at)) + n <= MAX_KEY_BYTES
            && len + n <= KEY_PATH_BYTES
    }

    /// Checks one byte.
    fn byte<E: Events + ?Sized>(&mut self, b: u8, obs: &mut E) -> Result<(), Stop> {
        match self.state {
            State::Value { first } => {
                if first && b == b']' {
                    return self.close(false, obs);
                }
                self.value_start(b, obs)
            }
            State::ObjectFirst | State::KeyStart => match b {
                b'"' => {
                    obs.byte(self.structural(true));
                    self.key_at = self.keys.len() as u16;
                    self.state = string(true);
                    Ok(())
                }
                b'}' if self.state == State::ObjectFirst => self.close(true, obs),
                _ => Err(unexpected(b)),
            },
            State::Colon => match b {
                b':' => {
                    obs.byte(self.structural(false));
                    self.state = State::Value { first: false };
                    Ok(())
                }
                _ => Err(unexpected(b)),
            },
            State::After => self.after(b, obs),
            State::End if whitespace(b) => Err(Stop::NotCanonical(Departure::WhiteSpace)),
            State::End => Err(Stop::Bad(Syntax::TrailingCharacters)),
            State::Str {
                key,
                escape,
                need,
                lo,
                hi,
            } => self.string_byte(b, key, escape, need, lo, hi, obs),
            State::Literal { word, at } => {
                let w = WORDS.get(usize::from(word)).copied().unwrap_or_default();
                if w.get(usize::from(at)) != Some(&b) {
                    return Err(unexpected(b));
                }
                obs.byte(self.inside());
                if usize::from(at) + 1 == w.len() {
                    let ty = if word == 2 {
                        JsonType::Null
                    } else {
                        JsonType::Boolean
                    };
                    self.value_done(ty, 0.0, obs);
                } else {
                    self.state = State::Literal { word, at: at + 1 };
                }
                Ok(())
            }
            State::Number(n) => self.number_byte(b, n, obs),
        }
    }

    fn end_events<E: Events + ?Sized>(&mut self, obs: &mut E) -> Result<JsonType, Stop> {
        if let State::Number(n) = self.state {
            if !n.complete() {
                return Err(Stop::Bad(Syntax::InvalidNumber));
            }
            let value = self.number_end(obs)?;
            self.value_done(JsonType::Number, value, obs);
        }
        match (self.state, self.top) {
            (State::End, Some(ty)) => Ok(ty),
            _ => Err(Stop::Bad(Syntax::UnexpectedEnd)),
        }
    }

    fn value_start<E: Events + ?Sized>(&mut self, b: u8, obs: &mut E) -> Result<(), Stop> {
        let ty = match b {
            b'{' => JsonType::Object,
            b'[' => JsonType::Array,
            b'"' => JsonType::String,
            b't' | b'f' => JsonType::Boolean,
            b'n' => JsonType::Null,
            b'-' | b'0'..=b'9' => JsonType::Number,
            b'N' | b'I' => return Err(Stop::Bad(Syntax::NonFiniteLiteral)),
            _ => return Err(unexpected(b)),
        };
        let at = if self.top.is_none() {
            self.top = Some(ty);
            if ty == JsonType::Object {
                Where::Record
            } else {
                Where::Top
            }
        } else {
            self.inside()
        };
        if matches!(ty, JsonType::Object | JsonType::Array) {
            if self.frames.len() >= usize::from(self.max_depth) {
                return Err(Stop::Bad(Syntax::TooDeep));
            }
            let frame = Frame {
                object: ty == JsonType::Object,
                has_key: false,
                key_start: self.keys.len() as u16,
            };
            self.frames
                .push(frame)
                .map_err(|_| Stop::Bad(Syntax::TooDeep))?;
        }
        obs.byte(at);
        self.state = match b {
            b'{' => State::ObjectFirst,
            b'[' => State::Value { first: true },
            b'"' => string(false),
            b't' => State::Literal { word: 0, at: 1 },
            b'f' => State::Literal { word: 1, at: 1 },
            b'n' => State::Literal { word: 2, at: 1 },
            b'-' => self.number_start(b, Num::Minus),
            b'0' => self.number_start(b, Num::Zero),
            _ => self.number_start(b, Num::Int),
        };
        Ok(())
    }

    fn number_start(&mut self, b: u8, n: Num) -> State {
        self.num.clear();
        self.num_long = false;
        let _ = self.num.push(b);
        State::Number(n)
    }

    fn after<E: Events + ?Sized>(&mut self, b: u8, obs: &mut E) -> Result<(), Stop> {
        let object = match self.frames.last() {
            Some(frame) => frame.object,
            None => return Err(Stop::Bad(Syntax::TrailingCharacters)),
        };
        match b {
            b',' => {
                obs.byte(self.structural(false));
                self.state = if object {
                    State::KeyStart
                } else {
                    State::Value { first: false }
                };
                Ok(())
            }
            b'}' if object => self.close(true, obs),
            b']' if !object => self.close(false, obs),
            _ => Err(unexpected(b)),
        }
    }

    fn close<E: Events + ?Sized>(&mut self, object: bool, obs: &mut E) -> Result<(), Stop> {
        obs.byte(self.structural(false));
        if let Some(frame) = self.frames.pop() {
            self.keys.truncate(usize::from(frame.key_start));
        }
        let ty = if object {
            JsonType::Object
        } else {
            JsonType::Array
        };
        self.value_done(ty, 0.0, obs);
        Ok(())
    }

    /// A value is complete: tell the observer if it is a member of the outermost object.
    fn value_done<E: Events + ?Sized>(&mut self, ty: JsonType, number: f64, obs: &mut E) {
        if self.top_object() && self.frames.len() == 1 {
            obs.value_end(ValueEnd { ty, number });
        }
        self.state = if self.frames.is_empty() {
            State::End
        } else {
            State::After
        };
    }

    #[allow(clippy::too_many_arguments)]
    fn string_byte<E: Events + ?Sized>(
        &mut self,
        b: u8,
        key: bool,
        escape: Escape,
        need: u8,
        lo: u8,
        hi: u8,
        obs: &mut E,
    ) -> Result<(), Stop> {
        let at = if key {
            self.structural(true)
        } else {
            self.inside()
        };
        let mut next = State::Str {
            key,
            escape: Escape::None,
            need: 0,
            lo: 0x80,
            hi: 0xbf,
        };
        let decoded = match escape {
            Escape::Backslash => match b {
                b'"' | b'\\' => Some(b),
                b'b' => Some(0x08),
                b't' => Some(b'\t'),
                b'n' => Some(b'\n'),
                b'f' => Some(0x0c),
                b'r' => Some(b'\r'),
                b'u' => {
                    next = State::Str {
                        key,
                        escape: Escape::Hex {
                            n: 0,
                            value: 0,
                            upper: false,
                        },
                        need: 0,
                        lo: 0x80,
                        hi: 0xbf,
                    };
                    None
                }
                b'/' => return Err(Stop::NotCanonical(Departure::Escape)),
                _ => return Err(Stop::Bad(Syntax::InvalidEscape)),
            },
            Escape::Hex { n, value, upper } => {
                let digit = match b {
                    b'0'..=b'9' => b - b'0',
                    b'a'..=b'f' => b - b'a' + 10,
                    b'A'..=b'F' => b - b'A' + 10,
                    _ => return Err(Stop::Bad(Syntax::InvalidEscape)),
                };
                let value = (value << 4) | u16::from(digit);
                let upper = upper || b.is_ascii_uppercase();
                if n < 3 {
                    next = State::Str {
                        key,
                        escape: Escape::Hex {
                            n: n + 1,
                            value,
                            upper,
                        },
                        need: 0,
                        lo: 0x80,
                        hi: 0xbf,
                    };
                    None
                } else {
                    // Canonical form writes `\u00xx` (lowercase) only for the control
                    // characters without a short escape.
                    let short = matches!(value, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
                    if upper || value >= 0x20 || short {
                        return Err(Stop::NotCanonical(Departure::Escape));
                    }
                    Some(value as u8)
                }
            }
            Escape::None if need > 0 => {
                if b < lo || b > hi {
                    return Err(Stop::Bad(Syntax::InvalidUtf8));
                }
                if let State::Str { need: n, .. } = &mut next {
                    *n = need - 1;
                }
                Some(b)
            }
            Escape::None => match b {
                b'"' => {
                    obs.byte(at);
                    return self.string_end(key, obs);
                }
                b'\\' => {
                    next = State::Str {
                        key,
                        escape: Escape::Backslash,
                        need: 0,
                        lo: 0x80,
                        hi: 0xbf,
                    };
                    None
                }
                0x00..=0x1f => return Err(Stop::Bad(Syntax::ControlCharacter)),
                0x20..=0x7f => Some(b),
                _ => {
                    let (need, lo, hi) = utf8_lead(b).ok_or(Stop::Bad(Syntax::InvalidUtf8))?;
                    next = State::Str {
                        key,
                        escape: Escape::None,
                        need,
                        lo,
                        hi,
                    };
                    Some(b)
                }
            },
        };
        if key {
            if let Some(d) = decoded {
                self.push_key(d)?;
            }
        }
        obs.byte(at);
        self.state = next;
        Ok(())
    }

    fn push_key(&mut self, b: u8) -> Result<(), Stop> {
        if self.keys.len().saturating_sub(usize::from(self.key_at)) >= MAX_KEY_BYTES {
            return Err(Stop::Limit(Limit::KeyTooLong));
        }
        self.keys
            .push(b)
            .map_err(|_| Stop::Limit(Limit::KeyPathTooLong))
    }

    fn string_end<E: Events + ?Sized>(&mut self, key: bool, obs: &mut E) -> Result<(), Stop> {
        if !key {
            self.value_done(JsonType::String, 0.0, obs);
            return Ok(());
        }
        let key_at = usize::from(self.key_at);
        let Some(frame) = self.frames.last_mut() else {
            return Err(Stop::Bad(Syntax::UnexpectedByte(b'"')));
        };
        let start = usize::from(frame.key_start);
        if frame.has_key {
            let prev = self.keys.get(start..key_at).unwrap_or_default();
            let cur = self.keys.get(key_at..).unwrap_or_default();
            match cmp_utf16(prev, cur) {
                core::cmp::Ordering::Less => {}
                core::cmp::Ordering::Equal => return Err(Stop::Bad(Syntax::DuplicateKey)),
                core::cmp::Ordering::Greater => {
                    return Err(Stop::NotCanonical(Departure::KeyOrder))
                }
            }
            // Keep only the new key as the object's last (`start <= key_at <= len`
            // by construction; checked so that no input can make this panic).
            if start <= key_at && key_at <= self.keys.len() {
                let len = self.keys.len() - key_at;
                self.keys.copy_within(key_at.., start);
                self.keys.truncate(start + len);
            }
        }
        frame.has_key = true;
        if self.top_object() && self.frames.len() == 1 {
            obs.key(self.keys.get(start..).unwrap_or_default());
        }
        self.state = State::Colon;
        Ok(())
    }

    fn number_byte<E: Events + ?Sized>(&mut self, b: u8, n: Num, obs: &mut E) -> Result<(), Stop> {
        let next = match (n, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') => Num::Int,
            (Num::Minus, b'I') => return Err(Stop::Bad(Syntax::NonFiniteLiteral)),
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::E, b'+' | b'-') => Num::ESign,
            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
            (n, _) if n.complete() && !b.is_ascii_digit() => {
                // The literal ended: check it, then read `b` as what follows it.
                let value = self.number_end(obs)?;
                self.value_done(JsonType::Number, value, obs);
                return self.byte(b, obs);
            }
            _ => return Err(Stop::Bad(Syntax::InvalidNumber)),
        };
        if self.num.push(b).is_err() {
            self.num_long = true;
        }
        obs.byte(self.inside());
        self.state = State::Number(next);
        Ok(())
    }

    /// Checks a complete literal: its canonical spelling, or no canonical form at all.
    fn number_end<E: Events + ?Sized>(&mut self, obs: &mut E) -> Result<f64, Stop> {
        if self.num_long {
            return Err(Stop::NotCanonical(Departure::NumberSpelling));
        }
        let literal = self.num.as_slice();
        if let Some(value) = small_integer(literal) {
            return Ok(value);
        }
        let value: f64 = core::str::from_utf8(literal)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or(Stop::Bad(Syntax::InvalidNumber))?;
        let problem = if !value.is_finite() {
            Some(NumberProblem::OutOfRange)
        } else if value == 0.0 && number::literal_is_nonzero(literal) {
            Some(NumberProblem::Underflow)
        } else {
            None
        };
        if let Some(problem) = problem {
            obs.unserialisable(problem);
            return Ok(value);
        }
        let mut buf = [0u8; 32];
        let len = number::format_f64(value, &mut buf).unwrap_or(0);
        let canonical = buf.get(..len).unwrap_or_default();
        let integer = !literal.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
        if integer && !number::same_decimal_value(literal, canonical) {
            obs.unserialisable(NumberProblem::InexactInteger);
            return Ok(value);
        }
        if canonical != literal {
            return Err(Stop::NotCanonical(Departure::NumberSpelling));
        }
        Ok(value)
    }
}

/// The value of a literal that is an integer of at most 15 digits in canonical form
/// (no leading zero, not `-0`): exact as a double, and spelled as ECMAScript spells it.
/// `None` for any other literal, which is checked in full.
fn small_integer(literal: &[u8]) -> Option<f64> {
    let (negative, digits) = match literal {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, literal),
    };
    let canonical = match digits {
        [b'0'] => !negative,
        [b'1'..=b'9', ..] => digits.len() <= 15,
        _ => false,
    };
    if !canonical || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
    let value = n as f64;
    Some(if negative { -value } else { value })
}

fn string(key: bool) -> State {
    State::Str {
        key,
        escape: Escape::None,
        need: 0,
        lo: 0x80,
        hi: 0xbf,
    }
}

fn unexpected(b: u8) -> Stop {
    if whitespace(b) {
        Stop::NotCanonical(Departure::WhiteSpace)
    } else {
        Stop::Bad(Syntax::UnexpectedByte(b))
    }
}

/// Compares two UTF-8 strings as sequences of UTF-16 code units (RFC 8785's key order).
fn cmp_utf16(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    // Below U+E000 (lead bytes under 0xee; U+D800..U+DFFF is not UTF-8) a character is
    // one UTF-16 unit equal to its code point, and UTF-8 bytes sort as code points.
    if a.iter().chain(b).all(|&c| c < 0xee) {
        return a.cmp(b);
    }
    match (core::str::from_utf8(a), core::str::from_utf8(b)) {
        (Ok(a), Ok(b)) => a.encode_utf16().cmp(b.encode_utf16()),
        // Unreachable: keys are checked UTF-8. Bytes order is a safe fallback.
        _ => a.cmp(b),
    }
}

/// Where a canonical-form check of a whole document stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckError {
    /// 0-based byte offset of the byte that stopped it (the length for an early end).
    pub offset: usize,
    /// Why: not JSON, not canonical, past a limit, or a number with no canonical form.
    pub reason: CheckReason,
}

/// Why a document is not accepted as canonical.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckReason {
    /// Stopped reading (see [`Stop`]).
    Stop(Stop),
    /// A number has no canonical encoding.
    Unserialisable(NumberProblem),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            CheckReason::Stop(Stop::Bad(s)) => write!(f, "not JSON: {s}")?,
            CheckReason::Stop(Stop::NotCanonical(d)) => {
                write!(f, "not in canonical (RFC 8785) form: {d}")?
            }
            CheckReason::Stop(Stop::Limit(l)) => write!(f, "past a limit: {l}")?,
            CheckReason::Unserialisable(p) => write!(f, "no canonical encoding: {p}")?,
        }
        write!(f, " at byte {}", self.offset)
    }
}

impl core::error::Error for CheckError {}

/// The first number with no canonical encoding, and where it ended.
#[derive(Default)]
struct FirstProblem {
    first: Option<(NumberProblem, usize)>,
    /// Set once the whole input was read: the offset a problem found at the end gets.
    ending: Option<usize>,
}

impl Observer for FirstProblem {
    fn unserialisable(&mut self, problem: NumberProblem, offset: usize) {
        let offset = self.ending.unwrap_or(offset);
        self.first.get_or_insert((problem, offset));
    }
}

/// Checks that `bytes` are exactly the canonical encoding of one JSON document nested
/// at most `max_depth` deep, within the checker's limits. No allocation.
pub fn check_canonical(bytes: &[u8], max_depth: usize) -> Result<JsonType, CheckError> {
    let mut lexer = Lexer::new(max_depth);
    let mut first = FirstProblem::default();
    lexer
        .push(bytes, &mut first)
        .map_err(|(offset, stop)| CheckError {
            offset,
            reason: CheckReason::Stop(stop),
        })?;
    first.ending = Some(bytes.len());
    let ty = lexer.end(&mut first).map_err(|stop| CheckError {
        offset: bytes.len(),
        reason: CheckReason::Stop(stop),
    })?;
    match first.first {
        Some((problem, offset)) => Err(CheckError {
            offset,
            reason: CheckReason::Unserialisable(problem),
        }),
        None => Ok(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec::Vec as AllocVec;
    use proptest::prelude::*;

    /// The plain bytes at the start of `bytes`, one at a time: printable ASCII (and
    /// DEL) other than `"` and `\\`.
    fn plain_prefix(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .take_while(|&&b| (0x20..=0x7f).contains(&b) && b != b'"' && b != b'\\')
            .count()
    }

    #[test]
    fn plain_run_stops_at_the_first_byte_that_is_not_plain_wherever_it_is() {
        // Each kind of stop at each place of the first two words and the remainder.
        let stops = [0x00, 0x1f, b'"', b'\\', 0x7f + 1, 0xff];
        for stop in stops {
            for at in 0..20 {
                let mut bytes = AllocVec::from([b'a'; 20]);
                bytes[at] = stop;
                assert_eq!(plain_run(&bytes), at, "0x{stop:02x} at {at}");
            }
        }
        // The edges of the plain range: space and `~` (and DEL, 0x7f, is plain here).
        assert_eq!(plain_run(&[b' '; 17]), 17);
        assert_eq!(plain_run(&[b'~'; 17]), 17);
        assert_eq!(plain_run(&[0x7f; 9]), 9);
        assert_eq!(plain_run(b""), 0);
    }

    proptest! {
        #[test]
        fn plain_run_counts_what_a_byte_loop_counts(
            bytes in proptest::collection::vec(
                prop_oneof![8 => 0x20u8..0x7f, 1 => any::<u8>()],
                0..40,
            ),
        ) {
            prop_assert_eq!(plain_run(&bytes), plain_prefix(&bytes));
        }
    }

    #[test]
    fn string_body_takes_plain_bytes_whole_utf8_and_short_escapes() {
        assert_eq!(string_body(b"ab\\nc\"", true), 5);
        assert_eq!(string_body(b"ab\\nc\"", false), 2);
        for escape in [b'"', b'\\', b'b', b'f', b'n', b'r', b't'] {
            assert_eq!(string_body(&[b'x', b'\\', escape, b'y', b'"'], true), 4);
        }
        // `\u` and `\/` are read byte by byte.
        assert_eq!(string_body(b"x\\u0041\"", true), 1);
        assert_eq!(string_body(b"x\\/\"", true), 1);
        // Whole UTF-8 sequences of two, three and four bytes; a cut or bad one stops it.
        assert_eq!(string_body("é€😀\"".as_bytes(), false), 9);
        // Each lead byte with its own range for the next byte: U+0800 (E0), U+D7FF
        // (ED, the last before the surrogates), U+40000 (F1), U+10FFFF (F4).
        for c in ['\u{800}', '\u{d7ff}', '\u{40000}', '\u{10ffff}'] {
            let mut bytes = [0u8; 5];
            let len = c.encode_utf8(&mut bytes).len();
            bytes[len] = b'"';
            assert_eq!(string_body(&bytes[..=len], false), len, "{c:?}");
        }
        assert_eq!(string_body(&[b'x', 0xc3], false), 1);
        assert_eq!(string_body(&[b'x', 0xed, 0xa0, 0x80], false), 1);
        assert_eq!(string_body(&[b'x', 0xc0, 0x80], false), 1);
        assert_eq!(string_body(b"\x01", true), 0);
    }

    /// What an observer is told: every run with its place, each member value of the
    /// outermost object as it ends (type, number), and each of that object's keys.
    #[derive(Default)]
    struct RunLog {
        runs: AllocVec<(AllocVec<u8>, Where)>,
        ends: AllocVec<(JsonType, f64)>,
        keys: AllocVec<AllocVec<u8>>,
    }

    impl Observer for RunLog {
        fn bytes(&mut self, run: &[u8], at: Where) {
            self.runs.push((run.to_vec(), at));
        }

        fn key(&mut self, key: &[u8]) {
            self.keys.push(key.to_vec());
        }

        fn value_end(&mut self, end: ValueEnd) {
            self.ends.push((end.ty, end.number));
        }
    }

    #[test]
    fn each_member_value_ends_with_its_type_and_a_number_with_its_value() {
        let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
        let mut log = RunLog::default();
        // Values nested inside a member's value are not members: no end of their own.
        let line = br#"{"a":true,"b":false,"c":null,"d":-7,"e":"s","f":[2],"g":{"x":null}}"#;
        lexer.push(line, &mut log).unwrap();
        assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
        assert_eq!(
            log.ends,
            [
                (JsonType::Boolean, 0.0),
                (JsonType::Boolean, 0.0),
                (JsonType::Null, 0.0),
                (JsonType::Number, -7.0),
                (JsonType::String, 0.0),
                (JsonType::Array, 0.0),
                (JsonType::Object, 0.0)
            ]
        );
        // Only the outermost object's keys are told, not `x`.
        let keys: AllocVec<&[u8]> = log.keys.iter().map(|k| &k[..]).collect();
        assert_eq!(keys, [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]);
    }

    #[test]
    fn escaped_and_multibyte_keys_are_read_byte_by_byte_and_told_unescaped() {
        // Keys take the byte-at-a-time path for escapes: each short escape, in order of
        // what it stands for (U+0008, 0009, 000A, 000C, 000D, 0022, 005C).
        let line = br#"{"\b":1,"\t":2,"\n":3,"\f":4,"\r":5,"\"":6,"\\":7}"#;
        let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
        let mut log = RunLog::default();
        lexer.push(line, &mut log).unwrap();
        assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
        let keys: AllocVec<&[u8]> = log.keys.iter().map(|k| &k[..]).collect();
        assert_eq!(keys, [b"\x08", b"\t", b"\n", b"\x0c", b"\r", b"\"", b"\\"]);
        // Multi-byte characters cut between chunks are read byte by byte too, every
        // continuation byte up to the top of its lead's range (BF; 9F after ED; 8F after
        // F4), in a key and in a value.
        let text = "¿\u{d7ff}\u{10ffff}";
        let line = format!(r#"{{"{text}":"{text}"}}"#);
        let mut lexer = Lexer::new(MAX_DEPTH);
        for b in line.bytes() {
            lexer.push(&[b], &mut ()).unwrap();
        }
        assert_eq!(lexer.end(&mut ()), Ok(JsonType::Object));
    }

    #[test]
    fn a_container_closes_only_with_its_own_bracket_where_a_value_may_end() {
        assert_eq!(check_canonical(b"{}", MAX_DEPTH), Ok(JsonType::Object));
        for (wrong, at) in [(&br#"{"a":1]"#[..], 6), (b"[1}", 2), (b"{]", 1)] {
            let e = check_canonical(wrong, MAX_DEPTH).unwrap_err();
            let b = wrong[at];
            assert_eq!(
                (e.offset, e.reason),
                (at, CheckReason::Stop(Stop::Bad(Syntax::UnexpectedByte(b))))
            );
        }
        let e = check_canonical(br#"{"a":1,}"#, MAX_DEPTH).unwrap_err();
        assert_eq!(
            (e.offset, e.reason),
            (
                7,
                CheckReason::Stop(Stop::Bad(Syntax::UnexpectedByte(b'}')))
            )
        );
    }

    #[test]
    fn the_observer_gets_one_run_per_place_and_never_an_empty_one() {
        let line = br#"{"kind":"ab\n","seq":12}"#;
        let mut lexer = Lexer::new(RECORD_MAX_DEPTH);
        let mut log = RunLog::default();
        lexer.push(line, &mut log).unwrap();
        assert_eq!(lexer.end(&mut log), Ok(JsonType::Object));
        let runs: AllocVec<(&[u8], Where)> = log.runs.iter().map(|(r, w)| (&r[..], *w)).collect();
        assert_eq!(
            runs,
            [
                (&b"{"[..], Where::Record),
                (b"\"kind\"", Where::Key),
                (b":", Where::Record),
                (b"\"ab\\n\"", Where::Value),
                (b",", Where::Record),
                (b"\"seq\"", Where::Key),
                (b":", Where::Record),
                (b"12", Where::Value),
                (b"}", Where::Record),
            ]
        );
    }

    #[test]
    fn a_document_that_is_not_an_object_is_all_top() {
        let mut lexer = Lexer::new(MAX_DEPTH);
        let mut log = RunLog::default();
        lexer.push(br#"[1,{"a":"b"}]"#, &mut log).unwrap();
        assert_eq!(lexer.end(&mut log), Ok(JsonType::Array));
        assert_eq!(
            log.runs.len(),
            1,
            "one place, one run: {:?}",
            log.runs.len()
        );
        assert_eq!(log.runs[0].1, Where::Top);
        assert_eq!(log.ends, [], "an array has no members");
    }

    #[test]
    fn keys_are_ordered_by_what_their_escapes_stand_for() {
        // A newline (U+000A) sorts before `A`, and `"` (U+0022) before `#`, though their
        // escapes start with a backslash (U+005C), which sorts after both.
        for ok in [r#"{"\n":1,"A":2}"#, r##"{"\"":1,"#":2}"##] {
            assert_eq!(
                check_canonical(ok.as_bytes(), MAX_DEPTH),
                Ok(JsonType::Object),
                "{ok}"
            );
        }
        for swapped in [r#"{"A":1,"\n":2}"#, r##"{"#":1,"\"":2}"##] {
            let e = check_canonical(swapped.as_bytes(), MAX_DEPTH).unwrap_err();
            assert!(
                matches!(e.reason, CheckReason::Stop(Stop::NotCanonical(_))),
                "{swapped}: {e}"
            );
        }
    }

    #[test]
    fn types_and_syntax_errors_read_as_words() {
        let types = [
            JsonType::Object,
            JsonType::Array,
            JsonType::String,
            JsonType::Number,
            JsonType::Boolean,
            JsonType::Null,
        ];
        let words: AllocVec<&str> = types.iter().map(|t| t.with_article()).collect();
        assert_eq!(
            words,
            [
                "an object",
                "an array",
                "a string",
                "a number",
                "a boolean",
                "null"
            ]
        );
        let errors = [
            (Syntax::UnexpectedByte(b'x'), "unexpected character 'x'"),
            (Syntax::UnexpectedByte(b' '), "unexpected byte 0x20"),
            (Syntax::UnexpectedByte(0x01), "unexpected byte 0x01"),
            (Syntax::UnexpectedEnd, "unexpected end of input"),
            (Syntax::InvalidUtf8, "invalid UTF-8"),
            (
                Syntax::ControlCharacter,
                "unescaped control character in a string",
            ),
            (Syntax::InvalidEscape, "invalid escape sequence"),
            (
                Syntax::NonFiniteLiteral,
                "NaN and Infinity are not JSON numbers",
            ),
            (Syntax::InvalidNumber, "malformed number"),
            (Syntax::DuplicateKey, "duplicate object key"),
            (Syntax::TooDeep, "nesting deeper than the limit"),
            (
                Syntax::TrailingCharacters,
                "unexpected data after the value",
            ),
        ];
        for (error, sentence) in errors {
            assert_eq!(format!("{error}"), sentence);
        }
    }
}
