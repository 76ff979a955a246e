//! A Server-Sent Events stream read as the HTML standard's "event stream
//! interpretation" says, for the data of each event: `data:` lines joined with
//! newlines, dispatched at a blank line; comments (`:`), `event:`, `id:` and `retry:`
//! ignored. Lines are bounded as the stdio transport's are.

use std::io::{self, BufRead};

use super::super::pipes::{read_line, Line};

/// What ended the reading before `each` had what it wanted.
pub(super) enum Stop {
    /// The stream ended.
    End,
    /// A line longer than the limit (its length).
    TooLong(usize),
    /// The body could not be read.
    Io(io::Error),
}

/// Hands the data of each event of `reader` to `each` until it returns `Some`; a line
/// (a field) is at most `max` bytes.
pub(super) fn until<T>(
    reader: &mut impl BufRead,
    max: usize,
    mut each: impl FnMut(&[u8]) -> Option<T>,
) -> Result<T, Stop> {
    let mut line = Vec::new();
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    loop {
        match read_line(reader, &mut line, max).map_err(Stop::Io)? {
            Line::End => return Err(Stop::End),
            Line::TooLong(len) => return Err(Stop::TooLong(len)),
            Line::Complete => {}
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            if has_data {
                if let Some(found) = each(&data) {
                    return Ok(found);
                }
            }
            data.clear();
            has_data = false;
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(at) => (&line[..at], &line[at + 1..]),
            None => (&line[..], &[][..]),
        };
        if field == b"data" {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            if has_data {
                data.push(b'\n');
            }
            if data.len() + value.len() > max {
                return Err(Stop::TooLong(data.len() + value.len()));
            }
            data.extend_from_slice(value);
            has_data = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(stream: &[u8], max: usize) -> (Vec<String>, &'static str) {
        let mut seen = Vec::new();
        let stop = until(&mut io::BufReader::new(stream), max, |data| {
            seen.push(String::from_utf8_lossy(data).into_owned());
            None::<()>
        });
        let why = match stop {
            Err(Stop::End) => "end",
            Err(Stop::TooLong(_)) => "too long",
            _ => "other",
        };
        (seen, why)
    }

    #[test]
    fn events_are_read_with_comments_and_other_fields_ignored() {
        let stream = b": keep-alive\r\n\r\nid: 1\r\nevent: message\r\ndata: {\"a\":\r\ndata:1}\r\n\r\ndata\n\nretry: 5\n\n";
        assert_eq!(
            all(stream, 100),
            (vec![String::from("{\"a\":\n1}"), String::new()], "end")
        );
    }

    #[test]
    fn a_long_line_or_event_stops_the_reading() {
        assert_eq!(all(b"data: 0123456789\n\n", 10).1, "too long");
        let many = b"data: 0123\ndata: 4567\ndata: 89ab\n\n";
        assert_eq!(all(many, 10), (Vec::new(), "too long"));
        assert_eq!(
            all(b"data: 0123\n\n", 10),
            (vec![String::from("0123")], "end")
        );
    }
}
