//! The state machine for the bytes between strings and numbers: values, containers,
//! `:` and `,`, the literals `true`, `false` and `null`.

use super::events::{Events, ValueEnd, Where};
use super::{Departure, JsonType, Lexer, Stop, Syntax};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Frame {
    pub(super) object: bool,
    /// Whether the object has a key yet; its last key starts at `key_start`.
    pub(super) has_key: bool,
    pub(super) key_start: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Escape {
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
pub(super) enum Num {
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
    pub(super) fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }

    /// The state after `b`, if `b` continues the literal (JSON's number grammar: a row
    /// of [`NUM_NEXT`] per state, a column per class of byte); `None` where the literal
    /// ends or is malformed.
    #[inline(always)]
    pub(super) fn next(self, b: u8) -> Option<Num> {
        let class = NUM_CLASS[usize::from(b)];
        let next = NUM_NEXT[self as usize][usize::from(class)];
        NUMS.get(usize::from(next)).copied()
    }
}

const NUMS: [Num; 8] = [
    Num::Minus,
    Num::Zero,
    Num::Int,
    Num::Dot,
    Num::Frac,
    Num::E,
    Num::ESign,
    Num::Exp,
];

/// The class of each byte in a number literal: `0`, `1`-`9`, `.`, `e`/`E`, `+`, `-`,
/// anything else.
const NUM_CLASS: [u8; 256] = {
    let mut class = [6u8; 256];
    class[b'0' as usize] = 0;
    let mut d = b'1';
    while d <= b'9' {
        class[d as usize] = 1;
        d += 1;
    }
    class[b'.' as usize] = 2;
    class[b'e' as usize] = 3;
    class[b'E' as usize] = 3;
    class[b'+' as usize] = 4;
    class[b'-' as usize] = 5;
    class
};

/// The next state (an index into `NUMS`; `NONE` for none) by state and class.
const NUM_NEXT: [[u8; 7]; 8] = {
    const NONE: u8 = u8::MAX;
    [
        /* Minus */ [1, 2, NONE, NONE, NONE, NONE, NONE],
        /* Zero  */ [NONE, NONE, 3, 5, NONE, NONE, NONE],
        /* Int   */ [2, 2, 3, 5, NONE, NONE, NONE],
        /* Dot   */ [4, 4, NONE, NONE, NONE, NONE, NONE],
        /* Frac  */ [4, 4, NONE, 5, NONE, NONE, NONE],
        /* E     */ [7, 7, NONE, NONE, 6, 6, NONE],
        /* ESign */ [7, 7, NONE, NONE, NONE, NONE, NONE],
        /* Exp   */ [7, 7, NONE, NONE, NONE, NONE, NONE],
    ]
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
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

impl Lexer {
    /// Checks one byte.
    pub(super) fn byte<E: Events + ?Sized>(&mut self, b: u8, obs: &mut E) -> Result<(), Stop> {
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
            State::End if whitespace(b) => Err(white_space(b)),
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

    pub(super) fn end_events<E: Events + ?Sized>(&mut self, obs: &mut E) -> Result<JsonType, Stop> {
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

    pub(super) fn value_start<E: Events + ?Sized>(
        &mut self,
        b: u8,
        obs: &mut E,
    ) -> Result<(), Stop> {
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

    pub(super) fn number_start(&mut self, b: u8, n: Num) -> State {
        self.num.clear();
        self.num_long = false;
        let _ = self.num.push(b);
        State::Number(n)
    }

    pub(super) fn after<E: Events + ?Sized>(&mut self, b: u8, obs: &mut E) -> Result<(), Stop> {
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

    pub(super) fn close<E: Events + ?Sized>(
        &mut self,
        object: bool,
        obs: &mut E,
    ) -> Result<(), Stop> {
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
    pub(super) fn value_done<E: Events + ?Sized>(
        &mut self,
        ty: JsonType,
        number: f64,
        obs: &mut E,
    ) {
        if self.member_value() {
            obs.value_end(ValueEnd { ty, number });
        }
        self.state = if self.frames.is_empty() {
            State::End
        } else {
            State::After
        };
    }
}

pub(super) fn string(key: bool) -> State {
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
        white_space(b)
    } else {
        Stop::Bad(Syntax::UnexpectedByte(b))
    }
}

/// The departure of the white space byte `b`: a carriage return is named.
fn white_space(b: u8) -> Stop {
    Stop::NotCanonical(if b == b'\r' {
        Departure::CarriageReturn
    } else {
        Departure::WhiteSpace
    })
}

fn whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}
