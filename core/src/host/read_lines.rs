//! Splitting a reader's bytes into lines (`std`), with the events the in-memory
//! splitting ([`crate::verify::for_each_line_in`]) gives for the same bytes: the verifier's
//! and the loop audit's readers and `agentloop show` read through it.

use std::io::BufRead;

use crate::scan::find_newline;
use crate::verify::LineEvent;

/// Splits a reader's bytes into lines, buffering at most `max_line_bytes` of a line
/// (plus one read block): a longer line stops being buffered and is reported by
/// length, so memory stays bounded whatever the input (an endless line is read, and
/// counted, for as long as it lasts). The events are those [`crate::verify::for_each_line_in`] gives
/// for the same bytes. Interrupted reads are retried; another read error is returned
/// at once (converted into `E`), with no torn tail reported. `on` stops the reading
/// by returning an error, which is returned.
pub fn for_each_line<R: BufRead, E: From<std::io::Error>>(
    mut reader: R,
    max_line_bytes: usize,
    mut on: impl FnMut(LineEvent<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut line = std::vec::Vec::new();
    // Length of the current line when it outgrew the limit and stopped being buffered.
    let mut overflow: Option<usize> = None;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
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
            on(LineEvent::Line(taken))?;
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
                Some(len) => on(LineEvent::TooLong(len))?,
                None => on(LineEvent::Line(&line))?,
            }
            line.clear();
        }
    }
    match overflow {
        Some(len) => on(LineEvent::LongTornTail(len)),
        None if !line.is_empty() => on(LineEvent::TornTail(&line)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::for_each_line_in;
    use std::vec::Vec;

    #[test]
    fn the_consumer_stops_the_reading_and_its_error_comes_back() {
        #[derive(Debug, PartialEq)]
        enum Stop {
            Asked,
            Read,
        }
        impl From<std::io::Error> for Stop {
            fn from(_: std::io::Error) -> Self {
                Stop::Read
            }
        }
        let input: &[u8] = b"a\nbbbbbb\nc\nd";
        let mut all = Vec::new();
        for_each_line_in(input, 3, |e| all.push(std::format!("{e:?}")));
        assert_eq!(
            all,
            ["Line([97])", "TooLong(6)", "Line([99])", "TornTail([100])"]
        );
        let mut long = Vec::new();
        for_each_line_in(b"a\nbbbb", 3, |e| long.push(std::format!("{e:?}")));
        let reader = std::io::BufReader::with_capacity(2, &b"a\nbbbb"[..]);
        let _ = for_each_line(reader, 3, |e| {
            long.push(std::format!("{e:?}"));
            Ok::<(), Stop>(())
        });
        assert_eq!(
            long,
            [
                "Line([97])",
                "LongTornTail(4)",
                "Line([97])",
                "LongTornTail(4)"
            ]
        );
        for stop_after in 0..all.len() {
            let mut seen = Vec::new();
            let reader = std::io::BufReader::with_capacity(2, input);
            let done = for_each_line(reader, 3, |e| {
                seen.push(std::format!("{e:?}"));
                if seen.len() > stop_after {
                    Err(Stop::Asked)
                } else {
                    Ok(())
                }
            });
            assert_eq!(done, Err(Stop::Asked));
            assert_eq!(seen, all[..=stop_after]);
        }
    }
}
