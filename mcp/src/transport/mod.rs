//! The stdio transport: one child process, newline-delimited JSON-RPC 2.0 on its
//! standard input and output, two threads.
//!
//! - The **writer** thread owns the child's stdin and writes the lines it is sent over
//!   a bounded channel ([`QUEUE`] messages). Nobody else ever blocks on the pipe: a
//!   request that finds the queue full fails with [`McpError::Busy`].
//! - The **reader** thread reads the child's stdout line by line, each line bounded
//!   (longer ones are dropped as they come and reported), and hands each answer to
//!   the request waiting for its id. It answers the server's own requests itself
//!   (`ping` → `{}`, anything else → error -32601) and ignores notifications but
//!   `notifications/tools/list_changed`, which it notes
//!   ([`Connection::take_tools_changed`]), so a server never waits on us.
//! - A request waits for its answer on its own channel, at most its timeout.
//!
//! When stdout ends, the reader waits (at most the shutdown grace period) for the
//! process's exit status, marks the connection dead, and fails every waiting request
//! with [`McpError::Exited`]; a request made later fails at once with the same error.
//!
//! Dropping the [`Connection`] always reaps the process: stdin is closed, the process
//! gets the grace period to exit, then its process group gets SIGTERM, another grace
//! period, then SIGKILL, and the process is waited for.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use agentloop_core::jcs;
use agentloop_core::json::{Object, Value};

use crate::error::McpError;
use crate::{McpOptions, Stderr};

mod http;
mod link;
mod message;
mod pipes;
mod process;
pub(crate) use http::{header_safe, HttpConnection};
pub(crate) use link::Link;
use pipes::*;
use process::Process;
pub use process::{end_process_groups, ProcessGroup};

/// How many messages may wait to be written to the server.
pub(crate) const QUEUE: usize = 256;

/// How long the shutdown and exit-status waits sleep between looks at the process.
const POLL: Duration = Duration::from_millis(10);

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: f64 = -32601.0;

/// The environment variables a server inherits unless told to inherit all: the
/// MCP TypeScript SDK's list (`getDefaultEnvironment`), so that API keys and other
/// secrets in agentloop's environment do not reach a third-party server.
#[cfg(not(windows))]
pub const INHERITED_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
/// The environment variables a server inherits unless told to inherit all: the
/// MCP TypeScript SDK's list (`getDefaultEnvironment`), so that API keys and other
/// secrets in agentloop's environment do not reach a third-party server.
#[cfg(windows)]
pub const INHERITED_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// What the writer thread is sent.
enum Out {
    /// A message, with its newline.
    Line(Vec<u8>),
    /// Close the server's stdin and stop.
    Close,
}

/// The answer a waiting request gets: the `result` member, or why there is none.
type Answer = Result<Value, McpError>;

/// A request waiting for its answer.
struct Waiter {
    method: String,
    answer: Sender<Answer>,
}

/// The requests waiting for answers, and whether the connection is dead.
#[derive(Default)]
struct Waiters {
    /// `Some` once stdout ended: the exit status, if known.
    dead: Option<Option<ExitStatus>>,
    by_id: BTreeMap<u64, Waiter>,
}

/// What the reader thread shares with the requests.
struct Shared {
    waiters: Mutex<Waiters>,
    process: Mutex<Process>,
    /// Set when the server sends `notifications/tools/list_changed`.
    tools_changed: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing here panics while holding a lock; if something did, the data is still
    // consistent (each critical section is a single insert, remove or swap).
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Fails every waiting request; the connection stays up.
    fn fail_waiting(&self, error: impl Fn(&str) -> McpError) {
        let waiting = std::mem::take(&mut lock(&self.waiters).by_id);
        for (_, waiter) in waiting {
            let _ = waiter.answer.send(Err(error(&waiter.method)));
        }
    }

    /// Marks the connection dead and fails every waiting request.
    fn die(&self, status: Option<ExitStatus>) {
        let waiting = {
            let mut waiters = lock(&self.waiters);
            waiters.dead = Some(status);
            std::mem::take(&mut waiters.by_id)
        };
        for (_, waiter) in waiting {
            let _ = waiter.answer.send(Err(McpError::Exited(status)));
        }
    }

    /// The exit status, waiting at most `grace` for the process to exit.
    fn exit_status(&self, grace: Duration) -> Option<ExitStatus> {
        let mut waited = Duration::ZERO;
        loop {
            if let Some(status) = lock(&self.process).try_wait() {
                return Some(status);
            }
            if waited >= grace {
                return None;
            }
            thread::sleep(POLL);
            waited += POLL;
        }
    }
}

/// A running server process and the two threads that talk to it.
pub(crate) struct Connection {
    shared: Arc<Shared>,
    out: SyncSender<Out>,
    next_id: AtomicU64,
    pid: u32,
    grace: Duration,
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
}

impl Connection {
    /// Starts `program` with `args` (no shell), stdin and stdout piped, stderr where
    /// `options.stderr` says, in its own process group (so a Ctrl-C at the terminal
    /// reaches agentloop, not the server, and shutdown can signal the whole group).
    pub(crate) fn spawn(
        program: &OsStr,
        args: &[&OsStr],
        options: &McpOptions,
    ) -> Result<Connection, McpError> {
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr(&options.stderr)?);
        if !options.inherit_env {
            command.env_clear();
            for name in INHERITED_ENV {
                if let Some(value) = std::env::var_os(name) {
                    // A shell function exported in the environment (`() { …`) is skipped,
                    // as the TypeScript SDK does.
                    if !value.as_encoded_bytes().starts_with(b"()") {
                        command.env(name, value);
                    }
                }
            }
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let spawn_error = |error: String| McpError::Spawn {
            program: program.to_string_lossy().into_owned(),
            error,
        };
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let pid = child.id();
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(spawn_error(String::from(
                    "its stdin or stdout is not a pipe",
                )));
            }
        };
        let shared = Arc::new(Shared {
            waiters: Mutex::new(Waiters::default()),
            process: Mutex::new(Process::new(child)),
            tools_changed: AtomicBool::new(false),
        });
        let (out, queue) = mpsc::sync_channel(QUEUE);
        let mut connection = Connection {
            shared: Arc::clone(&shared),
            out: out.clone(),
            next_id: AtomicU64::new(1),
            pid,
            grace: options.shutdown_grace,
            reader: None,
            writer: None,
        };
        // From here on, dropping `connection` reaps the child.
        connection.writer = Some(
            thread::Builder::new()
                .name(String::from("mcp-writer"))
                .spawn(move || write_loop(stdin, queue))
                .map_err(|e| spawn_error(format!("could not start a thread: {e}")))?,
        );
        let max_line = options.max_line_bytes;
        let grace = options.shutdown_grace;
        connection.reader = Some(
            thread::Builder::new()
                .name(String::from("mcp-reader"))
                .spawn(move || read_loop(stdout, &shared, &out, max_line, grace))
                .map_err(|e| spawn_error(format!("could not start a thread: {e}")))?,
        );
        Ok(connection)
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// The process's group, to end from elsewhere.
    pub(crate) fn process_group(&self) -> ProcessGroup {
        ProcessGroup::of(&self.shared)
    }

    /// The exit status if the connection is dead (`Some(None)`: dead, status unknown).
    pub(crate) fn dead(&self) -> Option<Option<ExitStatus>> {
        lock(&self.shared.waiters).dead
    }

    /// Whether the server said its tool list changed since the last look (the note is
    /// cleared).
    pub(crate) fn take_tools_changed(&self) -> bool {
        self.shared.tools_changed.swap(false, Ordering::Relaxed)
    }

    /// Sends request `method` and waits at most `timeout` for its answer. On a timeout
    /// the server is sent `notifications/cancelled` for it (except for `initialize`,
    /// which the specification says must not be cancelled, and the `server/discover`
    /// probe, which a handshake server may not know).
    pub(crate) fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = mpsc::channel();
        {
            let mut waiters = lock(&self.shared.waiters);
            if let Some(status) = waiters.dead {
                return Err(McpError::Exited(status));
            }
            waiters.by_id.insert(
                id,
                Waiter {
                    method: String::from(method),
                    answer,
                },
            );
        }
        if let Err(error) = self.send(&message::outgoing(Some(id), method, params)) {
            lock(&self.shared.waiters).by_id.remove(&id);
            return Err(error);
        }
        match answered.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => {
                let gone = lock(&self.shared.waiters).by_id.remove(&id);
                if gone.is_none() {
                    // The answer came between the timeout and the removal.
                    if let Ok(answer) = answered.try_recv() {
                        return answer;
                    }
                }
                if method != "initialize" && method != "server/discover" {
                    let params = message::cancelled(id, timeout);
                    let _ = self.notify("notifications/cancelled", Some(params));
                }
                Err(McpError::Timeout {
                    method: String::from(method),
                    after: timeout,
                })
            }
            // The reader always answers before it lets go of a waiter.
            Err(RecvTimeoutError::Disconnected) => Err(McpError::Exited(self.dead().flatten())),
        }
    }

    /// Sends notification `method`.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        self.send(&message::outgoing(None, method, params))
    }

    fn send(&self, message: &Value) -> Result<(), McpError> {
        send(&self.out, message).map_err(|full| match full {
            true => McpError::Busy(QUEUE),
            false => McpError::Exited(self.dead().flatten()),
        })
    }
}

/// Queues `message` for the writer; `Err(true)` when the queue is full, `Err(false)`
/// when the writer has stopped.
fn send(out: &SyncSender<Out>, message: &Value) -> Result<(), bool> {
    // Every value here was built from parsed JSON and finite numbers.
    let mut line = jcs::to_vec(message).unwrap_or_default();
    // Canonical JSON has no raw newline: the line is one message.
    line.push(b'\n');
    out.try_send(Out::Line(line)).map_err(|e| match e {
        TrySendError::Full(_) => true,
        TrySendError::Disconnected(_) => false,
    })
}

/// An object from members in any order (keys here are distinct literals).
pub(crate) fn members(members: Vec<(&str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

fn stderr(to: &Stderr) -> Result<Stdio, McpError> {
    Ok(match to {
        Stderr::Discard => Stdio::null(),
        Stderr::Inherit => Stdio::inherit(),
        Stderr::Append(path) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| McpError::StderrLog {
                path: path.clone(),
                error: e.to_string(),
            })?
            .into(),
    })
}

impl Drop for Connection {
    fn drop(&mut self) {
        let _ = self.out.try_send(Out::Close);
        let mut exited = self.shared.exit_status(self.grace).is_some();
        #[cfg(unix)]
        if !exited {
            self.shared.terminate();
            exited = self.shared.exit_status(self.grace).is_some();
        }
        if !exited {
            self.shared.kill();
        }
        // Again, in case the queue was full: with the process gone the writer drains it.
        let _ = self.out.try_send(Out::Close);
        // Both threads end once the process is gone (stdout and stdin close); one
        // that does not within the grace period (a grandchild that left the process
        // group still holds a pipe) is left to end on its own.
        for handle in [self.writer.take(), self.reader.take()]
            .into_iter()
            .flatten()
        {
            let mut waited = Duration::ZERO;
            while !handle.is_finished() && waited < self.grace {
                thread::sleep(POLL);
                waited += POLL;
            }
            if handle.is_finished() {
                let _ = handle.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], max: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut buffer = Vec::new();
        let mut found = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buffer, max).unwrap();
            if line == Line::End {
                return found;
            }
            found.push((line, buffer.clone()));
        }
    }

    #[test]
    fn lines_are_bounded_and_a_long_one_is_dropped_not_kept() {
        let found = lines(b"ab\n\nabcdef\nabcde\nxyz", 5);
        assert_eq!(
            found,
            [
                (Line::Complete, b"ab".to_vec()),
                (Line::Complete, Vec::new()),
                (Line::TooLong(6), Vec::new()),
                (Line::Complete, b"abcde".to_vec()),
                (Line::Complete, b"xyz".to_vec()),
            ]
        );
        assert_eq!(lines(b"abcdefgh", 5), [(Line::TooLong(8), Vec::new())]);
        assert_eq!(lines(b"", 5), []);
    }
}
