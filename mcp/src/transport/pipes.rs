//! The pipe threads: the writer draining the queue into stdin, the reader taking bounded lines from stdout and routing each message — an answer to its waiter, a server request answered, garbage noted.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::Duration;

use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};

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
    let message = match json::parse(line) {
        Ok(Value::Object(message)) => message,
        Ok(_) => return garbage(Garbage::NotMessage("it is not a JSON object")),
        Err(error) => return garbage(Garbage::NotJson(error)),
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return garbage(Garbage::NotMessage("it has no \"jsonrpc\": \"2.0\""));
    }
    match (message.get("method"), message.get("id")) {
        // A request from the server: answered at once, never left waiting.
        (Some(Value::String(method)), Some(id)) => {
            let answer = if method == "ping" {
                ("result", Value::Object(Object::new()))
            } else {
                let error = members(vec![
                    ("code", Value::Number(METHOD_NOT_FOUND)),
                    (
                        "message",
                        Value::from(format!(
                            "Method not found: agentloop does not support '{method}'"
                        )),
                    ),
                ]);
                ("error", error)
            };
            let reply = members(vec![
                ("jsonrpc", Value::from("2.0")),
                ("id", id.clone()),
                answer,
            ]);
            // A full queue drops the reply: the server is not reading anyway.
            let _ = send(out, &reply);
        }
        // A notification (logging, progress, list changed): nothing to do.
        (Some(Value::String(_)), None) => {}
        (Some(_), _) => garbage(Garbage::NotMessage("its \"method\" is not a string")),
        (None, Some(Value::Null)) => match message.get("error") {
            // An error the server could not tie to a request (it could not read one).
            Some(error) => shared.fail_waiting(|method| rpc_error(method, error)),
            None => garbage(Garbage::NotMessage("it has a null \"id\" and no \"error\"")),
        },
        (None, Some(id)) => answer(&message, id, shared),
        (None, None) => garbage(Garbage::NotMessage(
            "it has neither a \"method\" nor an \"id\"",
        )),
    }
}

/// Hands a response to the request waiting for its id; one nobody waits for (its
/// request timed out, or the id is not one of ours) is dropped.
pub(super) fn answer(message: &Object, id: &Value, shared: &Shared) {
    let Some(id) = id
        .as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n < 2f64.powi(53))
    else {
        return;
    };
    let Some(waiter) = lock(&shared.waiters).by_id.remove(&(id as u64)) else {
        return;
    };
    let method = &waiter.method;
    let answer = match (message.get("result"), message.get("error")) {
        (Some(result), None) => Ok(result.clone()),
        (None, Some(error)) => Err(rpc_error(method, error)),
        (Some(_), Some(_)) => Err(McpError::BadAnswer {
            method: method.clone(),
            reason: String::from("it has both \"result\" and \"error\""),
        }),
        (None, None) => Err(McpError::BadAnswer {
            method: method.clone(),
            reason: String::from("it has neither \"result\" nor \"error\""),
        }),
    };
    let _ = waiter.answer.send(answer);
}

/// The error a JSON-RPC `error` member stands for.
pub(super) fn rpc_error(method: &str, error: &Value) -> McpError {
    let bad = |reason: &str| McpError::BadAnswer {
        method: String::from(method),
        reason: format!("its \"error\" {reason}"),
    };
    let Some(error) = error.as_object() else {
        return bad("is not an object");
    };
    let code = match error.get("code").and_then(Value::as_f64) {
        Some(code) if code.fract() == 0.0 && code.abs() < 2f64.powi(53) => code as i64,
        _ => return bad("has no integer \"code\""),
    };
    let Some(message) = error.get("message").and_then(Value::as_str) else {
        return bad("has no string \"message\"");
    };
    let data = error
        .get("data")
        .map(|data| String::from_utf8_lossy(&jcs::to_vec(data).unwrap_or_default()).into_owned());
    McpError::Rpc {
        method: String::from(method),
        code,
        message: String::from(message),
        data,
    }
}
