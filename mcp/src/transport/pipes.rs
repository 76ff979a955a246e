//! The pipe threads: the writer draining the queue into stdin, the reader taking bounded lines from stdout and routing each message — an answer to its waiter, a server request answered, garbage noted.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::Duration;

use agentloop_core::json::{Object, Value};

use super::message::{self, Incoming};
use super::*;
use crate::error::{Garbage, McpError};

pub(super) fn write_loop(mut stdin: ChildStdin, queue: Receiver<Out>) {
    let mut open = true;
    for out in queue {
        match out {
            Out::Line(line) if open => {
                // A failed write means the server closed its stdin or is gone: the
                // reader sees the rest. Later messages are dropped; their requests
                // end by the reader's verdict or their timeout.
                open = stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok();
            }
            Out::Line(_) => {}
            Out::Close => return,
        }
    }
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// A line (in the buffer, without its newline; the last one may have none).
    Complete,
    /// A line of this many bytes, more than the limit; its bytes were dropped.
    TooLong(usize),
    /// The end of the stream.
    End,
}

/// Reads one line into `buffer`, keeping at most `max` bytes of it.
pub(super) fn read_line(
    reader: &mut impl BufRead,
    buffer: &mut Vec<u8>,
    max: usize,
) -> io::Result<Line> {
    buffer.clear();
    let mut len = 0usize;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match len {
                0 => Line::End,
                len if len > max => Line::TooLong(len),
                _ => Line::Complete,
            });
        }
        let (chunk, newline) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], true),
            None => (available, false),
        };
        let taken = chunk.len();
        if len + taken <= max {
            buffer.extend_from_slice(chunk);
        } else {
            buffer.clear();
        }
        len += taken;
        reader.consume(taken + usize::from(newline));
        if newline {
            return Ok(if len > max {
                Line::TooLong(len)
            } else {
                Line::Complete
            });
        }
    }
}

pub(super) fn read_loop(
    stdout: ChildStdout,
    shared: &Shared,
    out: &SyncSender<Out>,
    max_line: usize,
    grace: Duration,
) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    // A read error is the end of the stream too.
    while let Ok(found) = read_line(&mut reader, &mut line, max_line) {
        match found {
            Line::Complete => handle(&line, shared, out),
            Line::TooLong(len) => {
                shared.fail_waiting(|_| McpError::Garbage(Garbage::TooLong { len, max: max_line }))
            }
            Line::End => break,
        }
    }
    let status = shared.exit_status(grace);
    shared.die(status);
}

/// Handles one line from the server.
pub(super) fn handle(line: &[u8], shared: &Shared, out: &SyncSender<Out>) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let garbage = |garbage: Garbage| shared.fail_waiting(|_| McpError::Garbage(garbage.clone()));
    let message = match message::parse(line) {
        Ok(message) => message,
        Err(error) => return garbage(error),
    };
    match message::classify(&message) {
        Err(error) => garbage(error),
        // A full queue drops the reply: the server is not reading anyway.
        Ok(Incoming::Request { method, id }) => {
            let _ = send(out, &message::reply_to(method, id));
        }
        Ok(Incoming::Notification(method)) => {
            if method == message::TOOLS_LIST_CHANGED {
                shared.tools_changed.store(true, Ordering::Relaxed);
            }
        }
        Ok(Incoming::Orphan(error)) => {
            shared.fail_waiting(|method| message::rpc_error(method, error))
        }
        Ok(Incoming::Response(id)) => answer(&message, id, shared),
    }
}

/// Hands a response to the request waiting for its id; one nobody waits for (its
/// request timed out, or the id is not one of ours) is dropped.
pub(super) fn answer(response: &Object, id: &Value, shared: &Shared) {
    let Some(id) = message::our_id(id) else {
        return;
    };
    let Some(waiter) = lock(&shared.waiters).by_id.remove(&id) else {
        return;
    };
    let _ = waiter
        .answer
        .send(message::outcome(response, &waiter.method));
}
