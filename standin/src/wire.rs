//! The HTTP/1.1 the stand-in speaks: one request per connection (a request line,
//! headers, a body by `Content-Length` or `chunked`), one answer, `Connection: close`.

use std::fmt;
use std::io::{self, Read, Write};

use crate::{Exchange, Request};

/// The most bytes of a request line and headers.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most bytes of a request body.
pub const MAX_BODY_BYTES: usize = 64 << 20;

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The connection closed before the first byte (nothing to answer).
    ClosedEarly,
    /// The socket failed.
    Io(io::Error),
    /// The bytes are not an HTTP/1.1 request: what was wrong.
    Malformed(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::ClosedEarly => f.write_str("the connection closed before a request"),
            ReadError::Io(e) => write!(f, "reading the request failed: {e}"),
            ReadError::Malformed(what) => write!(f, "the request is malformed: {what}"),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

fn malformed(what: impl Into<String>) -> ReadError {
    ReadError::Malformed(what.into())
}

/// Bytes read from a stream, with what is buffered but not yet consumed.
struct Input<'a, S> {
    stream: &'a mut S,
    buf: Vec<u8>,
    pos: usize,
}

impl<S: Read> Input<'_, S> {
    /// Reads more; `false` at the end of the stream.
    fn fill(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk)?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() - self.pos < n {
            if !self.fill()? {
                return Err(malformed("the connection closed inside the body"));
            }
        }
        let out = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        Ok(out)
    }

    /// The next line without its CRLF (at most `limit` bytes).
    fn line(&mut self, limit: usize) -> Result<String, ReadError> {
        loop {
            if let Some(end) = find(&self.buf[self.pos..], b"\r\n") {
                let line = std::str::from_utf8(&self.buf[self.pos..self.pos + end])
                    .map_err(|_| malformed("a chunk line is not UTF-8"))?
                    .to_string();
                self.pos += end + 2;
                return Ok(line);
            }
            if self.buf.len() - self.pos > limit {
                return Err(malformed("a chunk line is too long"));
            }
            if !self.fill()? {
                return Err(malformed("the connection closed inside a chunk line"));
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads one request. Answers `100 Continue` when the client expects it.
pub fn read_request<S: Read + Write>(stream: &mut S) -> Result<Request, ReadError> {
    let mut input = Input {
        stream,
        buf: Vec::new(),
        pos: 0,
    };
    let head_end = loop {
        if let Some(end) = find(&input.buf, b"\r\n\r\n") {
            break end;
        }
        if input.buf.len() > MAX_HEAD_BYTES {
            return Err(malformed(format!(
                "the request line and headers pass {MAX_HEAD_BYTES} bytes"
            )));
        }
        if !input.fill()? {
            return Err(if input.buf.is_empty() {
                ReadError::ClosedEarly
            } else {
                malformed("the connection closed inside the headers")
            });
        }
    };
    let mut request = parse_head(&input.buf[..head_end]).map_err(ReadError::Malformed)?;
    input.pos = head_end + 4;

    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        input.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        let mut body = Vec::new();
        loop {
            let line = input.line(1024)?;
            let size = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| malformed(format!("a chunk size {line:?} is not hexadecimal")))?;
            if size == 0 {
                // Trailers, then the empty line.
                while !input.line(MAX_HEAD_BYTES)?.is_empty() {}
                break;
            }
            if body.len() + size > MAX_BODY_BYTES {
                return Err(malformed(format!("the body passes {MAX_BODY_BYTES} bytes")));
            }
            body.extend(input.take(size)?);
            if !input.take(2)?.eq(b"\r\n") {
                return Err(malformed("a chunk does not end with CRLF"));
            }
        }
        request.body = body;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .trim()
            .parse()
            .map_err(|_| malformed(format!("Content-Length {length:?} is not a number")))?;
        if length > MAX_BODY_BYTES {
            return Err(malformed(format!(
                "Content-Length {length} passes {MAX_BODY_BYTES} bytes"
            )));
        }
        request.body = input.take(length)?;
    }
    Ok(request)
}

/// A request line and headers (without the blank line), as a request with no body.
pub fn parse_head(head: &[u8]) -> Result<Request, String> {
    let head = std::str::from_utf8(head).map_err(|_| "the headers are not UTF-8".to_string())?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "the request line {request_line:?} is not METHOD TARGET VERSION"
        ));
    };
    if method.is_empty() || target.is_empty() || !version.starts_with("HTTP/1.") {
        return Err(format!(
            "the request line {request_line:?} is not METHOD TARGET HTTP/1.x"
        ));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("the header line {line:?} has no ':'"));
        };
        if name.is_empty() || name.contains([' ', '\t']) {
            return Err(format!("the header name {name:?} is not a token"));
        }
        headers.push((name.to_string(), value.trim().to_string()));
    }
    Ok(Request {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        body: Vec::new(),
    })
}

/// The reason phrase sent with a status.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// The head of an exchange's answer: status line, its headers, `Content-Type` (JSON
/// unless the exchange sets one), `Content-Length` (the whole body's, even when it is
/// cut short) and `Connection: close`.
pub fn response_head(exchange: &Exchange) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        exchange.status,
        reason(exchange.status)
    );
    let has = |name: &str| {
        exchange
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    if !has("content-type") {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in &exchange.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", exchange.body.len()));
    head.push_str("Connection: close\r\n\r\n");
    head.into_bytes()
}

/// Writes an exchange's answer: the whole body, or its first `cut_after` bytes.
pub fn write_response<W: Write>(out: &mut W, exchange: &Exchange) -> io::Result<()> {
    let mut bytes = response_head(exchange);
    let sent = exchange
        .cut_after
        .map_or(exchange.body.len(), |n| n.min(exchange.body.len()));
    bytes.extend_from_slice(&exchange.body[..sent]);
    out.write_all(&bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream that reads from a script of bytes and keeps what is written.
    struct Pipe {
        input: io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            // A byte at a time: the reader must cope with any split.
            let n = buf.len().min(1);
            self.input.read(&mut buf[..n])
        }
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn read(bytes: &[u8]) -> (Result<Request, ReadError>, Vec<u8>) {
        let mut pipe = Pipe {
            input: io::Cursor::new(bytes.to_vec()),
            output: Vec::new(),
        };
        let result = read_request(&mut pipe);
        (result, pipe.output)
    }

    #[test]
    fn reads_a_request_with_a_content_length_body() {
        let (request, written) = read(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-Api-Key:  k \r\nContent-Length: 4\r\n\r\nbodyEXTRA",
        );
        let request = request.unwrap();
        assert_eq!(
            (request.method.as_str(), request.target.as_str()),
            ("POST", "/v1/messages")
        );
        assert_eq!(request.header("x-api-key"), Some("k"));
        assert_eq!(request.body, b"body");
        assert!(written.is_empty());
    }

    #[test]
    fn reads_a_chunked_body_and_answers_expect_continue() {
        let (request, written) = read(
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
        );
        assert_eq!(request.unwrap().body, b"abcde");
        assert_eq!(written, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn refuses_malformed_requests_with_a_reason() {
        for (bytes, reason) in [
            (&b"GET /\r\n\r\n"[..], "is not METHOD TARGET VERSION"),
            (b"GET / SPDY/3\r\n\r\n", "is not METHOD TARGET HTTP/1.x"),
            (b"GET / HTTP/1.1\r\nNoColon\r\n\r\n", "has no ':'"),
            (
                b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                "is not a number",
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc",
                "closed inside the body",
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
                "passes",
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "not hexadecimal",
            ),
            (b"POST / HTTP/1.1\r\nHost", "closed inside the headers"),
        ] {
            match read(bytes).0 {
                Err(ReadError::Malformed(what)) => assert!(what.contains(reason), "{what}"),
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(bytes)),
            }
        }
        assert!(matches!(read(b"").0, Err(ReadError::ClosedEarly)));
    }

    #[test]
    fn a_cut_answer_declares_the_whole_length_and_sends_the_start() {
        let exchange = Exchange::new(200, "0123456789")
            .with_header("Retry-After", "3")
            .cut_after(4);
        let mut out = Vec::new();
        write_response(&mut out, &exchange).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nRetry-After: 3\r\n\
             Content-Length: 10\r\nConnection: close\r\n\r\n0123"
        );
    }
}
