//! The common paths of the grammar without a call per byte: a string's body and its
//! closing quote, `:` and `,`, the start of a value, a whole literal, the bytes of a
//! number (by the same table as `Num::next`). Anything else — an escape the body scan
//! leaves, a byte that may be an error, a literal cut by the chunk's end — is left to
//! the byte-at-a-time checker ([`Lexer::byte`]). `push` gives these steps only the clean
//! prefix of its chunk (no control byte, well-formed UTF-8), so a string's body is
//! scanned for `"` and `\` alone.
//!
//! The steps follow the grammar rather than a dispatch on the state for every token: a
//! member of an object is read as `,` → key → `:` → value in straight-line code (a
//! dispatch per token was the cost of the byte-at-a-time checker: its indirect jump is
//! hard to predict). Each step writes the state it leaves, so the checker can take over
//! after any of them.
//!
//! Every step here is a step `byte` would take on the same bytes: the same state after
//! it, the same bytes passed on in the same places, the same keys, value ends and
//! number problems, and the same stop at the same offset (`fast_tests.rs` compares the
//! two on every chunking).

use super::events::{Events, Observer, Runs};
use super::scan::string_body;
use super::state::{string, Escape, Frame, Num, State};
use super::{JsonType, Lexer, Stop};

/// Where a step stopped: the position of the next byte to read (the same position as
/// it started at when it read nothing), or the offset and reason of a stop.
type Step = Result<usize, (usize, Stop)>;

impl Lexer {
    /// Reads `input` from `i` as far as the common paths go, passing what it accepts to
    /// `runs`. Returns the position of the first byte left to [`Lexer::byte`] (the
    /// input's length when none is left), or the offset and reason of a stop.
    pub(super) fn fast<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        mut i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        while i < input.len() {
            let next = match self.state {
                State::After => self.member(input, i, runs)?,
                State::Str {
                    key,
                    escape: Escape::None,
                    need: 0,
                    ..
                } => {
                    if key {
                        self.key_rest(input, i, runs)?
                    } else {
                        self.string_rest(input, i, runs)?
                    }
                }
                State::Number(n) => self.number_rest(input, i, n, runs)?,
                State::Value { first } => self.value(input, i, first, runs)?,
                State::ObjectFirst | State::KeyStart => self.key(input, i, runs)?,
                State::Colon => self.colon(input, i, runs)?,
                _ => i,
            };
            if next == i {
                return Ok(i);
            }
            i = next;
        }
        Ok(i)
    }

    /// After a value inside a container: `,` and the next member or item, or the
    /// container's end.
    #[inline]
    fn member<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        let (Some(&b), Some(frame)) = (input.get(i), self.frames.last()) else {
            return Ok(i);
        };
        let object = frame.object;
        runs.pos = i;
        match b {
            b',' => {
                runs.byte(self.structural(false));
                if object {
                    self.state = State::KeyStart;
                    self.key(input, i + 1, runs)
                } else {
                    self.state = State::Value { first: false };
                    self.value(input, i + 1, false, runs)
                }
            }
            b'}' if object => {
                self.close(true, runs).map_err(|stop| (i, stop))?;
                Ok(i + 1)
            }
            b']' if !object => {
                self.close(false, runs).map_err(|stop| (i, stop))?;
                Ok(i + 1)
            }
            _ => Ok(i),
        }
    }

    /// A key's opening quote, then the rest of the key.
    #[inline]
    fn key<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        if input.get(i) != Some(&b'"') {
            return Ok(i);
        }
        runs.pos = i;
        runs.byte(self.structural(true));
        self.key_at = self.keys.len() as u16;
        self.state = string(true);
        self.key_rest(input, i + 1, runs)
    }

    /// The rest of a key from `i` (its body and closing quote), then `:` and the value.
    #[inline]
    fn key_rest<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        let rest = input.get(i..).unwrap_or_default();
        // A key's escapes are read byte by byte, as the key is kept unescaped.
        let mut n = string_body(rest, false);
        if !self.key_fits(n) {
            n = 0;
        }
        let at = self.structural(true);
        if n > 0 {
            let _ = self.keys.extend_from_prefix(rest, n);
            runs.pos = i;
            runs.run(n, at);
        }
        let quote = i + n;
        if input.get(quote) != Some(&b'"') {
            return Ok(quote);
        }
        runs.pos = quote;
        runs.byte(at);
        self.string_end(true, runs).map_err(|stop| (quote, stop))?;
        self.colon(input, quote + 1, runs)
    }

    /// `:` after a key, then the value.
    #[inline]
    fn colon<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        if input.get(i) != Some(&b':') {
            return Ok(i);
        }
        runs.pos = i;
        runs.byte(self.structural(false));
        self.state = State::Value { first: false };
        self.value(input, i + 1, false, runs)
    }

    /// A value from `i` (`first`: right after `[`, where `]` may come instead): all of a
    /// string, number or literal the chunk holds, or the opening of a container. Inside
    /// the document each start is `value_start`'s for a document that has begun; the
    /// outermost value (once a line) is left to it.
    #[inline]
    fn value<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        first: bool,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        let Some(&b) = input.get(i) else {
            return Ok(i);
        };
        if self.top.is_none() {
            return Ok(i);
        }
        runs.pos = i;
        let at = self.inside();
        let (word, ty): (&[u8], JsonType) = match b {
            b'"' => {
                runs.byte(at);
                self.state = string(false);
                return self.string_rest(input, i + 1, runs);
            }
            b'-' | b'0'..=b'9' => {
                runs.byte(at);
                let n = match b {
                    b'-' => Num::Minus,
                    b'0' => Num::Zero,
                    _ => Num::Int,
                };
                self.state = self.number_start(b, n);
                return self.number_rest(input, i + 1, n, runs);
            }
            b'{' | b'[' => return Ok(self.open(b == b'{', i, runs)),
            b']' if first => {
                self.close(false, runs).map_err(|stop| (i, stop))?;
                return Ok(i + 1);
            }
            b't' => (b"true", JsonType::Boolean),
            b'f' => (b"false", JsonType::Boolean),
            b'n' => (b"null", JsonType::Null),
            _ => return Ok(i),
        };
        if input.get(i..i + word.len()) != Some(word) {
            return Ok(i);
        }
        runs.run(word.len(), at);
        self.value_done(ty, 0.0, runs);
        Ok(i + word.len())
    }

    /// The `{` (`object`) or `[` at `i` opening a container inside the document, unless
    /// that would nest too deep (left to `byte`, which says so).
    #[inline]
    fn open<O: Observer + ?Sized>(
        &mut self,
        object: bool,
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> usize {
        let frame = Frame {
            object,
            has_key: false,
            key_start: self.keys.len() as u16,
        };
        if self.frames.len() >= usize::from(self.max_depth) || self.frames.push(frame).is_err() {
            return i;
        }
        runs.byte(self.inside());
        self.state = if object {
            State::ObjectFirst
        } else {
            State::Value { first: true }
        };
        i + 1
    }

    /// The rest of a string value from `i`: its body, then its closing quote if the
    /// body scan reaches it.
    #[inline]
    fn string_rest<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        let n = string_body(input.get(i..).unwrap_or_default(), true);
        let at = self.inside();
        if n > 0 {
            runs.pos = i;
            runs.run(n, at);
        }
        let quote = i + n;
        if input.get(quote) != Some(&b'"') {
            return Ok(quote);
        }
        runs.pos = quote;
        runs.byte(at);
        self.value_done(JsonType::String, 0.0, runs);
        Ok(quote + 1)
    }

    /// The rest of a number from `i`, in state `n`, and its end if a byte that cannot
    /// continue it follows in the chunk.
    #[inline]
    fn number_rest<O: Observer + ?Sized>(
        &mut self,
        input: &[u8],
        i: usize,
        n: Num,
        runs: &mut Runs<'_, '_, O>,
    ) -> Step {
        let mut state = n;
        let mut j = i;
        loop {
            // A run of digits keeps an integer, fraction or exponent part as it is.
            if matches!(state, Num::Int | Num::Frac | Num::Exp) {
                while input.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
            }
            match input.get(j).and_then(|&b| state.next(b)) {
                Some(next) => state = next,
                None => break,
            }
            j += 1;
        }
        if j > i {
            let digits = input.get(i..).unwrap_or_default();
            if self.num.extend_from_prefix(digits, j - i).is_err() {
                // Only a literal of at most MAX_NUMBER_BYTES is read back.
                self.num_long = true;
            }
            runs.pos = i;
            runs.run(j - i, self.inside());
            self.state = State::Number(state);
        }
        match input.get(j) {
            Some(b) if state.complete() && !b.is_ascii_digit() => {
                runs.pos = j;
                let value = self.number_end(runs).map_err(|stop| (j, stop))?;
                self.value_done(JsonType::Number, value, runs);
                Ok(j)
            }
            _ => Ok(j),
        }
    }
}
