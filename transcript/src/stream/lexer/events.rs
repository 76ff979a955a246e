//! What the state machine tells as it accepts bytes, and what an [`Observer`] (the
//! record layer) gets of it: runs of bytes with their place, keys, value ends.

use super::{JsonType, NumberProblem};

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
pub(super) trait Events {
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
pub(super) struct Runs<'a, 'o, O: ?Sized> {
    input: &'a [u8],
    /// The position of the byte being read.
    pub(super) pos: usize,
    /// `input[start..end]`, all in place `at`, accepted but not yet passed on.
    start: usize,
    end: usize,
    at: Where,
    obs: &'o mut O,
}

impl<'a, 'o, O: Observer + ?Sized> Runs<'a, 'o, O> {
    pub(super) fn new(input: &'a [u8], obs: &'o mut O) -> Self {
        Runs {
            input,
            pos: 0,
            start: 0,
            end: 0,
            at: Where::Top,
            obs,
        }
    }

    #[inline]
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
    pub(super) fn flush(&mut self) {
        if self.end > self.start {
            let run = self.input.get(self.start..self.end).unwrap_or_default();
            self.obs.bytes(run, self.at);
        }
        self.start = self.end;
    }
}

impl<O: Observer + ?Sized> Events for Runs<'_, '_, O> {
    #[inline]
    fn byte(&mut self, at: Where) {
        self.accept(1, at);
    }

    #[inline]
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
