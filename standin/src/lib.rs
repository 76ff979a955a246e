//! A loopback stand-in for the OpenAI and Anthropic HTTP APIs, for tests.
//!
//! [`Server::start`] listens on `127.0.0.1` (a free port) and answers each request
//! with the next [`Exchange`] of a script: a status, headers (`Retry-After`, …), a
//! body, optionally after a delay, optionally cut short (the `Content-Length` of the
//! whole body, then only its first bytes, then the connection closes). It records
//! every request (method, target, headers, body) for the test to assert on, and
//! answers `500` with a body saying so when the script has run out. [`canned`] has
//! answers in each provider's documented shapes.
//!
//! ```
//! use agentloop_standin::{canned, Server};
//! use std::io::{Read, Write};
//!
//! let server = Server::start([canned::openai::text("hello")]).unwrap();
//! let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
//! stream.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}").unwrap();
//! let mut answer = String::new();
//! stream.read_to_string(&mut answer).unwrap();
//! assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"));
//! assert_eq!(server.requests()[0].body, b"{}");
//! ```
//!
//! It speaks just enough HTTP/1.1 for a client: one request per connection
//! (`Connection: close`), a body by `Content-Length` or `chunked`, `100 Continue` when
//! asked. It shares no code with the library it tests (its own JSON reader and
//! writer). The binary `agentloop-standin` serves a script file for programs in other
//! languages (see `src/main.rs`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod canned;
pub mod json;
pub mod script;
mod wire;

pub use wire::{MAX_BODY_BYTES, MAX_HEAD_BYTES};

use std::collections::VecDeque;
use std::fs;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The HTTP status.
    pub status: u16,
    /// Headers sent besides `Content-Type` (`application/json` unless set here),
    /// `Content-Length` and `Connection: close`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// How long to wait before answering.
    pub delay: Duration,
    /// Send only this many bytes of the body (with the whole body's
    /// `Content-Length`), then close the connection.
    pub cut_after: Option<usize>,
}

impl Exchange {
    /// An answer with this status and body, no extra headers, no delay.
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Exchange {
        Exchange {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    /// A `200` answer with this body.
    pub fn ok(body: impl Into<Vec<u8>>) -> Exchange {
        Exchange::new(200, body)
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Exchange {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Answers after `delay`.
    pub fn with_delay(mut self, delay: Duration) -> Exchange {
        self.delay = delay;
        self
    }

    /// Sends only the first `bytes` of the body, then closes the connection.
    pub fn cut_after(mut self, bytes: usize) -> Exchange {
        self.cut_after = Some(bytes);
        self
    }
}

/// A request the stand-in received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `POST`, `GET`, …
    pub method: String,
    /// The request target (`/v1/chat/completions`).
    pub target: String,
    /// The headers, in the order received, names as the client spelled them.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as UTF-8 text, or `None` when it is not.
    pub fn body_text(&self) -> Option<&str> {
        std::str::from_utf8(&self.body).ok()
    }

    /// The request line and headers as the stand-in writes them to a `.head` file.
    pub fn head_text(&self) -> String {
        let mut text = format!("{} {} HTTP/1.1\r\n", self.method, self.target);
        for (name, value) in &self.headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text
    }
}

/// The status of the answer given when the script has run out.
pub const EXHAUSTED_STATUS: u16 = 500;

/// The body of the answer given when the script has run out: the error names the
/// request (1-based) and how many exchanges the script had.
pub fn exhausted_body(request_number: usize, scripted: usize) -> String {
    canned::openai::error_body(
        &format!(
            "agentloop-standin: request {request_number} came after the script's {scripted} exchanges ran out"
        ),
        "standin_script_exhausted",
        None,
    )
}

/// What the server threads share.
struct Shared {
    script: Mutex<VecDeque<Exchange>>,
    scripted: usize,
    requests: Mutex<Vec<Request>>,
    answered: AtomicUsize,
    stop: AtomicBool,
    record_dir: Option<PathBuf>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

/// A lock that a panicked holder did not poison for good (the data is plain values).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running stand-in. Dropping it stops it (waiting for answers still being sent).
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

/// How often the accepting thread looks for a connection or a stop (it polls, so that
/// stopping needs no connection to itself).
const POLL: Duration = Duration::from_millis(2);

/// How long reading a request or writing an answer may block.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

impl Server {
    /// Starts a server on `127.0.0.1` and a free port that answers with `script`.
    pub fn start(script: impl IntoIterator<Item = Exchange>) -> io::Result<Server> {
        Server::start_on(script, None)
    }

    /// Like [`Server::start`], and also writes each request to `dir` as it arrives:
    /// `NNNN.body` (the body's bytes) and then `NNNN.head` (the request line and
    /// headers, CRLF-separated), `NNNN` the 0-based request number, both written to a
    /// temporary name and renamed, so a `.head` file means the request is whole.
    /// [`read_requests`] reads them back. A request that cannot be written is
    /// answered `500` with a body saying why, not with the script's next exchange.
    pub fn start_recording(
        script: impl IntoIterator<Item = Exchange>,
        dir: &Path,
    ) -> io::Result<Server> {
        fs::create_dir_all(dir)?;
        Server::start_on(script, Some(dir.to_path_buf()))
    }

    fn start_on(
        script: impl IntoIterator<Item = Exchange>,
        record_dir: Option<PathBuf>,
    ) -> io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let script: VecDeque<Exchange> = script.into_iter().collect();
        let shared = Arc::new(Shared {
            scripted: script.len(),
            script: Mutex::new(script),
            requests: Mutex::new(Vec::new()),
            answered: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            record_dir,
            workers: Mutex::new(Vec::new()),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("standin-accept".into())
                .spawn(move || accept_loop(listener, &shared))?
        };
        Ok(Server {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: a base URL for a client.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests received so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.requests).clone()
    }

    /// How many scripted exchanges are left.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// How many answers have been sent (or failed to send: the client had gone), the
    /// scripted ones and the ones past the script alike. An answer is counted after
    /// its last byte is written and before the connection is closed: a client that
    /// reads to the end of the stream sees it counted; one that stops at
    /// `Content-Length` may look a moment too early.
    pub fn answered(&self) -> usize {
        self.shared.answered.load(Ordering::SeqCst)
    }

    /// Whether every scripted exchange has been answered.
    pub fn done(&self) -> bool {
        self.remaining() == 0 && self.answered() >= self.shared.scripted
    }

    /// Stops accepting, cuts short any delay still running, and waits for the
    /// threads. Dropping the server does the same.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let workers = std::mem::take(&mut *lock(&self.shared.workers));
        for worker in workers {
            let _ = worker.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn accept_loop(listener: TcpListener, shared: &Arc<Shared>) {
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => serve(stream, shared),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => thread::sleep(POLL),
            Err(_) => thread::sleep(POLL),
        }
    }
}

/// Reads one request, records it, picks its answer and leaves the answer (and its
/// delay) to a thread of its own, so the next connection is accepted meanwhile.
fn serve(mut stream: TcpStream, shared: &Arc<Shared>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let request = match wire::read_request(&mut stream) {
        Ok(request) => request,
        Err(wire::ReadError::ClosedEarly) => return,
        Err(e) => {
            let body = canned::openai::error_body(
                &format!("agentloop-standin: {e}"),
                "standin_bad_request",
                None,
            );
            let _ = wire::write_response(&mut stream, &Exchange::new(400, body));
            return;
        }
    };
    let number = {
        let mut requests = lock(&shared.requests);
        requests.push(request.clone());
        requests.len() - 1
    };
    let exchange = match record(shared.record_dir.as_deref(), number, &request) {
        Err(e) => Exchange::new(
            500,
            canned::openai::error_body(
                &format!("agentloop-standin: could not record request {number}: {e}"),
                "standin_record_failed",
                None,
            ),
        ),
        Ok(()) => lock(&shared.script).pop_front().unwrap_or_else(|| {
            Exchange::new(
                EXHAUSTED_STATUS,
                exhausted_body(number + 1, shared.scripted),
            )
        }),
    };
    let worker = {
        let shared = Arc::clone(shared);
        thread::spawn(move || {
            pause(exchange.delay, &shared.stop);
            let _ = wire::write_response(&mut stream, &exchange);
            // Counted before the close, so a client that reads to the end of the
            // stream sees the count include its answer.
            shared.answered.fetch_add(1, Ordering::SeqCst);
            let _ = stream.shutdown(std::net::Shutdown::Write);
        })
    };
    let mut workers = lock(&shared.workers);
    workers.retain(|w| !w.is_finished());
    workers.push(worker);
}

/// Sleeps for `delay` in short steps, returning early when `stop` is set (no clock is
/// read: the steps are counted).
fn pause(delay: Duration, stop: &AtomicBool) {
    let step = Duration::from_millis(5);
    let mut left = delay;
    while !left.is_zero() && !stop.load(Ordering::SeqCst) {
        let now = left.min(step);
        thread::sleep(now);
        left -= now;
    }
}

/// Writes request `number` to `dir` (see [`Server::start_recording`]).
fn record(dir: Option<&Path>, number: usize, request: &Request) -> io::Result<()> {
    let Some(dir) = dir else { return Ok(()) };
    let write = |extension: &str, bytes: &[u8]| -> io::Result<()> {
        let name = format!("{number:04}.{extension}");
        let tmp = dir.join(format!(".{name}.tmp"));
        fs::write(&tmp, bytes)?;
        fs::rename(&tmp, dir.join(name))
    };
    write("body", &request.body)?;
    write("head", request.head_text().as_bytes())
}

/// Reads back the requests a recording server wrote to `dir`, in order: each
/// `NNNN.head` with its `NNNN.body`, from `0000` on while they exist.
pub fn read_requests(dir: &Path) -> io::Result<Vec<Request>> {
    let mut requests = Vec::new();
    for number in 0.. {
        let head_path = dir.join(format!("{number:04}.head"));
        let head = match fs::read(&head_path) {
            Ok(head) => head,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(e),
        };
        let head = head.strip_suffix(b"\r\n").unwrap_or(&head);
        let mut request = wire::parse_head(head).map_err(|what| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {what}", head_path.display()),
            )
        })?;
        request.body = fs::read(dir.join(format!("{number:04}.body")))?;
        requests.push(request);
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn post(addr: SocketAddr, body: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\nx-api-key: k\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn answers_in_script_order_then_500_and_records_every_request() {
        let server = Server::start([
            Exchange::new(429, "slow down").with_header("Retry-After", "3"),
            Exchange::ok("fine"),
        ])
        .unwrap();
        let first = post(server.addr(), "one");
        assert!(
            first.starts_with("HTTP/1.1 429 Too Many Requests\r\n"),
            "{first}"
        );
        assert!(first.contains("\r\nRetry-After: 3\r\n"));
        assert!(first.ends_with("\r\n\r\nslow down"));
        assert!(post(server.addr(), "two").ends_with("\r\n\r\nfine"));
        assert!(server.done());
        let third = post(server.addr(), "three");
        assert!(third.starts_with("HTTP/1.1 500 "), "{third}");
        assert!(third.contains("request 3 came after the script's 2 exchanges ran out"));
        let requests = server.requests();
        let bodies: Vec<&str> = requests.iter().map(|r| r.body_text().unwrap()).collect();
        assert_eq!(bodies, ["one", "two", "three"]);
        assert_eq!(requests[0].header("X-API-KEY"), Some("k"));
        assert_eq!(requests[0].target, "/v1/messages");
        assert_eq!(server.answered(), 3);
    }

    #[test]
    fn a_malformed_request_gets_400_and_takes_no_exchange() {
        let server = Server::start([Exchange::ok("fine")]).unwrap();
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.write_all(b"NONSENSE\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{answer}"
        );
        assert!(answer.contains("is not METHOD TARGET VERSION"));
        assert_eq!(server.remaining(), 1);
        assert!(server.requests().is_empty());
    }

    #[test]
    fn a_recording_server_writes_requests_that_read_back_whole() {
        let dir = std::env::temp_dir().join(format!("standin-record-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let server = Server::start_recording([Exchange::ok("a")], &dir).unwrap();
        post(server.addr(), "{\"x\":1}");
        post(server.addr(), "");
        let read = read_requests(&dir).unwrap();
        assert_eq!(read, server.requests());
        assert_eq!(read.len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stopping_cuts_a_long_delay_short() {
        let server =
            Server::start([Exchange::ok("late").with_delay(Duration::from_secs(3600))]).unwrap();
        let addr = server.addr();
        let client = thread::spawn(move || post(addr, ""));
        while server.requests().is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        server.stop();
        // The answer is still sent, at once, when the stop cuts the delay.
        assert!(client.join().unwrap().ends_with("late"));
    }
}
