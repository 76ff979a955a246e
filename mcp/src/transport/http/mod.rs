//! Streamable HTTP: each message its own POST to the server's endpoint, answered with
//! one JSON body or an event stream (2025-03-26 through 2026-07-28). Blocking, on the
//! calling thread, with ureq — the HTTP stack of the model client.
//!
//! Every POST carries `Accept: application/json, text/event-stream`, `Mcp-Method` (and
//! `Mcp-Name` for `tools/call`), `MCP-Protocol-Version` (the `_meta` version of a
//! stateless request, else the revision the handshake agreed; none on `initialize`),
//! the session the server gave in its answer to `initialize` (`Mcp-Session-Id`), and
//! the caller's headers. The whole exchange, body included, is bounded by the
//! request's timeout (ureq's global timeout: a slow drip or an endless stream ends
//! there) and the body by [`McpOptions::max_line_bytes`]. Redirects are not followed.
//! Every error sentence has the header values and the URL's userinfo hidden.

use std::io::BufReader;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use agentloop_core::jcs;
use agentloop_core::json::Value;

use super::lock;
use super::message::{self, Incoming};
use crate::error::{HttpFailure, McpError};
use crate::McpOptions;

mod remote;
mod sse;
mod wire;

use wire::{failure, hide_whole, mcp_name, media_type, meta_version};

pub(crate) use remote::{check_url, header_safe};

/// What a POST carries and expects.
struct Post<'a> {
    /// The method, for `Mcp-Method` and error sentences (a reply's is the request's it
    /// answers, and sends no `Mcp-Method`).
    method: &'a str,
    /// Whether `Mcp-Method` and `Mcp-Name` are sent (not on a reply).
    is_call: bool,
    /// `Some(id)`: a request, whose answer is waited for; `None`: a notification or a
    /// reply, answered with 202.
    id: Option<u64>,
    /// The message.
    message: Value,
    /// The whole exchange's limit.
    timeout: Duration,
    /// More headers: a call's `Mcp-Param-*`.
    extra: &'a [(String, String)],
}

/// A server at a URL.
pub(crate) struct HttpConnection {
    agent: ureq::Agent,
    /// Where messages are posted, userinfo included (ureq sends it as Basic).
    target: String,
    /// The URL as shown: without its userinfo.
    shown: String,
    headers: Vec<(String, String)>,
    /// What no error sentence may hold: the header values, the userinfo.
    secrets: Vec<String>,
    session: Mutex<Option<String>>,
    /// The revision the handshake agreed, sent as `MCP-Protocol-Version`.
    agreed: Mutex<Option<String>>,
    next_id: AtomicU64,
    max_body: usize,
    /// How long a notification, a reply or the closing DELETE may take.
    short: Duration,
    /// Set when an event stream carried `notifications/tools/list_changed`.
    tools_changed: AtomicBool,
}

impl HttpConnection {
    /// A connection to `url` with `headers` (each value expanded from the environment);
    /// nothing is sent yet.
    pub(crate) fn open(
        url: &str,
        headers: &[(&str, &str)],
        options: &McpOptions,
    ) -> Result<HttpConnection, McpError> {
        let shown = check_url(url)?;
        let headers = headers
            .iter()
            .map(|(name, value)| remote::header(name, value))
            .collect::<Result<Vec<_>, _>>()?;
        let mut secrets: Vec<String> = headers.iter().map(|(_, v)| v.clone()).collect();
        if let Some(userinfo) = agentloop_core::redact::userinfo(url) {
            secrets.push(String::from(userinfo));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("agentloop/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(HttpConnection {
            agent,
            target: String::from(url),
            shown,
            headers,
            secrets,
            session: Mutex::new(None),
            agreed: Mutex::new(None),
            next_id: AtomicU64::new(1),
            max_body: options.max_line_bytes,
            short: options.call_timeout.min(options.init_timeout),
            tools_changed: AtomicBool::new(false),
        })
    }

    /// The URL, without its userinfo.
    pub(crate) fn url(&self) -> &str {
        &self.shown
    }

    /// From now on, `MCP-Protocol-Version` is `version` on requests without `_meta`.
    pub(crate) fn agree(&self, version: &str) {
        *lock(&self.agreed) = Some(String::from(version));
    }

    /// Posts request `method` and waits at most `timeout` for its answer. A handshake
    /// request that timed out is cancelled with `notifications/cancelled`, as the
    /// 2025 revisions ask; a stateless one was cancelled by closing its stream.
    pub(crate) fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        extra: &[(String, String)],
    ) -> Result<Value, McpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let stateless = meta_version(params.as_ref()).is_some();
        let post = Post {
            method,
            is_call: true,
            id: Some(id),
            message: message::outgoing(Some(id), method, params),
            timeout,
            extra,
        };
        let answer = self.post(&post);
        if matches!(answer, Err(McpError::Timeout { .. }))
            && !stateless
            && method != "initialize"
            && method != "server/discover"
        {
            let params = message::cancelled(id, timeout);
            let _ = self.notify("notifications/cancelled", Some(params));
        }
        answer
            .map(|result| result.unwrap_or(Value::Null))
            .map_err(|e| self.hide(e))
    }

    /// Posts notification `method`.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) -> Result<(), McpError> {
        let post = Post {
            method,
            is_call: true,
            id: None,
            message: message::outgoing(None, method, params),
            timeout: self.short,
            extra: &[],
        };
        self.post(&post).map(|_| ()).map_err(|e| self.hide(e))
    }

    /// One POST and its answer: `Some(result)` for a request, `None` for a
    /// notification or reply that was accepted.
    fn post(&self, post: &Post) -> Result<Option<Value>, McpError> {
        let method = post.method;
        let session = lock(&self.session).clone();
        let request = self.request_for(post, session.as_deref());
        // Every value here was built from parsed JSON and finite numbers.
        let body = jcs::to_vec(&post.message).unwrap_or_default();
        let response = request
            .config()
            .timeout_global(Some(post.timeout))
            .build()
            .send(&body[..]);
        let mut response = response.map_err(|e| failure(method, e, post.timeout, self.max_body))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(String::from)
        };
        let http = |failure| McpError::Http {
            method: String::from(method),
            failure,
        };
        if (300..400).contains(&status) {
            let location = header("location")
                .map(|l| agentloop_core::redact::without_userinfo(&l).into_owned());
            return Err(http(HttpFailure::Redirect { status, location }));
        }
        if status == 404 && session.is_some() {
            // The next `initialize` starts a new one.
            let mut current = lock(&self.session);
            if *current == session {
                *current = None;
            }
            return Err(http(HttpFailure::SessionEnded));
        }
        if method == "initialize" && (200..300).contains(&status) {
            if let Some(id) = header("mcp-session-id") {
                *lock(&self.session) = Some(id);
            }
        }
        let kind = header("content-type").map(|kind| media_type(&kind));
        let Some(id) = post.id else {
            return match status {
                200..=299 => Ok(None),
                _ if kind.as_deref() == Some("application/json") => self
                    .json(&mut response, (method, post.timeout), status, None)
                    .map(|_| None),
                _ => Err(http(HttpFailure::Status(status))),
            };
        };
        match kind.as_deref() {
            _ if status == 202 || status == 204 => Err(http(HttpFailure::NoBody(status))),
            Some("application/json") => self
                .json(&mut response, (method, post.timeout), status, Some(id))
                .map(Some),
            Some("text/event-stream") if (200..300).contains(&status) => self
                .stream(&mut response, method, id, post.timeout)
                .map(Some),
            _ if !(200..300).contains(&status) => Err(http(HttpFailure::Status(status))),
            _ => Err(http(HttpFailure::ContentType(kind))),
        }
    }

    /// The POST of `post`, with every header it carries.
    fn request_for(
        &self,
        post: &Post,
        session: Option<&str>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        let method = post.method;
        let params = post.message.as_object().and_then(|m| m.get("params"));
        let mut request = self
            .agent
            .post(&self.target)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if post.is_call {
            request = request.header("mcp-method", method);
            if let Some(name) = mcp_name(method, params) {
                request = request.header("mcp-name", remote::header_safe(name));
            }
        }
        let version = meta_version(params).map(String::from);
        if let Some(version) = version.or_else(|| lock(&self.agreed).clone()) {
            request = request.header("mcp-protocol-version", version);
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        for (name, value) in self.headers.iter().chain(post.extra) {
            request = request.header(name, value);
        }
        request
    }

    /// A JSON body: the answer to request `id` (`None`: an error status to a
    /// notification, whose body may hold a JSON-RPC error).
    fn json(
        &self,
        response: &mut ureq::http::Response<ureq::Body>,
        (method, timeout): (&str, Duration),
        status: u16,
        id: Option<u64>,
    ) -> Result<Value, McpError> {
        let fail = |e| failure(method, e, timeout, self.max_body);
        let bytes = response
            .body_mut()
            .with_config()
            .limit(self.max_body as u64)
            .read_to_vec()
            .map_err(fail)?;
        let ok = (200..300).contains(&status);
        let status_error = McpError::Http {
            method: String::from(method),
            failure: HttpFailure::Status(status),
        };
        let message = match message::parse(&bytes) {
            Ok(message) => message,
            Err(_) if !ok => return Err(status_error),
            Err(garbage) => return Err(McpError::Garbage(garbage)),
        };
        match message::classify(&message) {
            // A modern server's error status (400 `UnsupportedProtocolVersion`, 404
            // "method not found") has the JSON-RPC error in its body.
            Ok(Incoming::Response(_) | Incoming::Orphan(_)) if !ok => match message.get("error") {
                Some(error) => Err(message::rpc_error(method, error)),
                None => Err(status_error),
            },
            _ if !ok => Err(status_error),
            Ok(Incoming::Response(got)) if message::our_id(got) == id => {
                message::outcome(&message, method)
            }
            Ok(Incoming::Orphan(error)) => Err(message::rpc_error(method, error)),
            Ok(_) => Err(McpError::BadAnswer {
                method: String::from(method),
                reason: String::from("its body is not the response to the request"),
            }),
            Err(garbage) => Err(McpError::Garbage(garbage)),
        }
    }

    /// Whether an event stream carried `notifications/tools/list_changed` since the
    /// last look (cleared).
    pub(crate) fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::Relaxed)
    }

    /// An event stream: its events until the answer to request `id`. A server request
    /// on it is answered (`ping`) or refused, each in a POST of its own; notifications
    /// and answers to other requests are passed over.
    fn stream(
        &self,
        response: &mut ureq::http::Response<ureq::Body>,
        method: &str,
        id: u64,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let reader = response
            .body_mut()
            .with_config()
            .limit(self.max_body as u64)
            .reader();
        let mut reader = BufReader::with_capacity(64 << 10, reader);
        let found = sse::until(&mut reader, self.max_body, |data| {
            if data.iter().all(u8::is_ascii_whitespace) {
                return None;
            }
            let message = match message::parse(data) {
                Ok(message) => message,
                Err(garbage) => return Some(Err(McpError::Garbage(garbage))),
            };
            match message::classify(&message) {
                Err(garbage) => Some(Err(McpError::Garbage(garbage))),
                Ok(Incoming::Request { method, id }) => {
                    self.reply(method, message::reply_to(method, id));
                    None
                }
                Ok(Incoming::Notification(method)) => {
                    if method == message::TOOLS_LIST_CHANGED {
                        self.tools_changed.store(true, Ordering::Relaxed);
                    }
                    None
                }
                Ok(Incoming::Orphan(error)) => Some(Err(message::rpc_error(method, error))),
                Ok(Incoming::Response(got)) if message::our_id(got) == Some(id) => {
                    Some(message::outcome(&message, method))
                }
                Ok(Incoming::Response(_)) => None,
            }
        });
        let http = |failure| McpError::Http {
            method: String::from(method),
            failure,
        };
        match found {
            Ok(answer) => answer,
            Err(sse::Stop::End) => Err(http(HttpFailure::StreamEnded)),
            Err(sse::Stop::TooLong(len)) => Err(McpError::Garbage(crate::Garbage::TooLong {
                len,
                max: self.max_body,
            })),
            Err(sse::Stop::Io(e)) => Err(failure(
                method,
                ureq::Error::from(e),
                timeout,
                self.max_body,
            )),
        }
    }

    /// Posts `reply` to the server's request `method` (best effort).
    fn reply(&self, method: &str, reply: Value) {
        let post = Post {
            method,
            is_call: false,
            id: None,
            message: reply,
            timeout: self.short,
            extra: &[],
        };
        let _ = self.post(&post);
    }

    /// `error` with every secret hidden from its sentences.
    fn hide(&self, error: McpError) -> McpError {
        let hide = |text: &str| {
            self.secrets
                .iter()
                .fold(String::from(text), |text, secret| hide_whole(&text, secret))
        };
        match error {
            McpError::Rpc {
                method,
                code,
                message,
                data,
            } => McpError::Rpc {
                method,
                code,
                message: hide(&message),
                data: data.map(|data| hide(&data)),
            },
            McpError::BadAnswer { method, reason } => McpError::BadAnswer {
                method,
                reason: hide(&reason),
            },
            McpError::Http {
                method,
                failure: HttpFailure::NoAnswer(reason),
            } => McpError::Http {
                method,
                failure: HttpFailure::NoAnswer(hide(&reason)),
            },
            other => other,
        }
    }
}

impl Drop for HttpConnection {
    /// Ends the session the server gave, if any: a DELETE, best effort.
    fn drop(&mut self) {
        let Some(session) = lock(&self.session).take() else {
            return;
        };
        let mut request = self
            .agent
            .delete(&self.target)
            .header("mcp-session-id", &session);
        if let Some(version) = lock(&self.agreed).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let _ = request
            .config()
            .timeout_global(Some(self.short))
            .build()
            .call();
    }
}
