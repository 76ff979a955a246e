//! Splitting input into lines, as the verifier and the loop audit read it: complete
//! lines, lines longer than the limit (reported by length only), and a last line with
//! no `\n` (a torn tail).

use crate::scan::find_newline;

/// What [`for_each_line_in`] and (with `std`) [`for_each_line`] find, in input order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEvent<'a> {
    /// A complete line within the limit, without its `\n`.
    Line(&'a [u8]),
    /// A complete line of this many bytes, longer than the limit.
    TooLong(usize),
    /// The input ended with this many bytes and no `\n` (a torn tail; a reader does
    /// not keep its bytes when it is longer than the limit).
    TornTail(usize),
}

/// Splits bytes held in memory into lines.
pub(crate) fn for_each_line_in(
    bytes: &[u8],
    max_line_bytes: usize,
    mut on: impl FnMut(LineEvent<'_>),
) {
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
    if !rest.is_empty() {
        on(LineEvent::TornTail(rest.len()));
    }
}

/// Splits a reader's bytes into lines, buffering at most `max_line_bytes` of a line
/// (plus one read block): a longer line stops being buffered and is reported by
/// length. Interrupted reads are retried; another read error is returned at once,
/// with no torn tail reported.
#[cfg(feature = "std")]
pub(crate) fn for_each_line<R: std::io::BufRead>(
    mut reader: R,
    max_line_bytes: usize,
    mut on: impl FnMut(LineEvent<'_>),
) -> std::io::Result<()> {
    let mut line = std::vec::Vec::new();
    // Length of the current line when it outgrew the limit and stopped being buffered.
    let mut overflow: Option<usize> = None;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        let (taken, complete) = match find_newline(chunk) {
            Some(nl) => (&chunk[..nl], true),
            None => (chunk, false),
        };
        let used = taken.len() + usize::from(complete);
        if complete && overflow.is_none() && line.is_empty() && taken.len() <= max_line_bytes {
            // The whole line is in the reader's buffer: no copy.
            on(LineEvent::Line(taken));
            reader.consume(used);
            continue;
        }
        match overflow.as_mut() {
            Some(len) => *len += taken.len(),
            None if line.len() + taken.len() > max_line_bytes => {
                overflow = Some(line.len() + taken.len());
                line.clear();
            }
            None => line.extend_from_slice(taken),
        }
        reader.consume(used);
        if complete {
            match overflow.take() {
                Some(len) => on(LineEvent::TooLong(len)),
                None => on(LineEvent::Line(&line)),
            }
            line.clear();
        }
    }
    match overflow {
        Some(len) => on(LineEvent::TornTail(len)),
        None if !line.is_empty() => on(LineEvent::TornTail(line.len())),
        None => {}
    }
    Ok(())
}
