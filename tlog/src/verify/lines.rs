//! Splitting input into lines, as the verifier, the loop audit and `agentloop show`
//! read it: complete lines, lines longer than the limit (reported by length only, never
//! buffered whole), and a last line with no `\n` (a torn tail).

use crate::scan::find_newline;

/// What [`for_each_line_in`] and (with `std`) `for_each_line` over a reader find, in input order;
/// [`super::Verifier::push_event`] takes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEvent<'a> {
    /// A complete line within the limit, without its `\n`.
    Line(&'a [u8]),
    /// A complete line of this many bytes, longer than the limit.
    TooLong(usize),
    /// The input ended with these bytes, within the limit, and no `\n` (a torn tail).
    TornTail(&'a [u8]),
    /// The input ended with this many bytes, more than the limit, and no `\n` (a torn
    /// tail whose bytes a reader does not keep).
    LongTornTail(usize),
}

/// Splits bytes held in memory into lines: a line longer than `max_line_bytes` (without
/// its `\n`) is [`LineEvent::TooLong`].
pub fn for_each_line_in(bytes: &[u8], max_line_bytes: usize, mut on: impl FnMut(LineEvent<'_>)) {
    let mut rest = bytes;
    while let Some(nl) = find_newline(rest) {
        let line = &rest[..nl];
        if line.len() > max_line_bytes {
            on(LineEvent::TooLong(line.len()));
        } else {
            on(LineEvent::Line(line));
        }
        rest = &rest[nl + 1..];
    }
    if rest.len() > max_line_bytes {
        on(LineEvent::LongTornTail(rest.len()));
    } else if !rest.is_empty() {
        on(LineEvent::TornTail(rest));
    }
}
