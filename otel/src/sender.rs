//! The live export: [`Sender`] maps each record as the run writes it, with the clock's
//! time, and hands its spans to a thread that posts them to an OTLP/HTTP collector
//! (`POST …/v1/traces`, OTLP/JSON). The run never waits for the collector: the queue
//! between them is bounded, a span that finds it full is dropped and counted, and at
//! the end the thread is given a bounded time to flush what is left.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentloop_core::jcs;
use agentloop_core::json::Value;
use agentloop_core::Hash;

use crate::error::MapError;
use crate::mapping::{Content, Entry, Mapping};
use crate::names::{AGENTLOOP, SERVICE_NAME, TRANSCRIPT_FIRST};
use crate::otlp::{trace_request, Attributes};

/// Where and how the live export sends.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    /// The collector: a base URL (`http://localhost:4318`), to which `/v1/traces` is
    /// added, or a URL whose path already ends in `/v1/traces`, taken as it is.
    pub endpoint: String,
    /// Headers sent with each request (`authorization`, say); never shown.
    pub headers: Vec<(String, String)>,
    /// The most one request may take (connect to the last byte), and the most the end
    /// of the run waits for the spans still queued.
    pub timeout: Duration,
    /// The most spans waiting to be sent; a span that finds the queue full is dropped.
    pub queue: usize,
    /// Whether spans carry content.
    pub content: Content,
}

/// The most spans one request carries.
const BATCH: usize = 256;

/// A live export that could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SenderError {
    /// The endpoint is not an `http://` or `https://` URL with a host.
    Endpoint(String),
    /// The sending thread could not be started.
    Thread(String),
}

impl fmt::Display for SenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SenderError::Endpoint(url) => write!(
                f,
                "the OTLP endpoint {url:?} is not an http:// or https:// URL with a host"
            ),
            SenderError::Thread(why) => write!(f, "the OTLP sender could not start: {why}"),
        }
    }
}

impl std::error::Error for SenderError {}

/// What the live export did, said at the end of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The collector's URL.
    pub url: String,
    /// Spans the collector accepted (a 2xx answer).
    pub sent: u64,
    /// Spans dropped because the queue was full.
    pub dropped: u64,
    /// Spans refused, lost to a failed request, or still queued when the wait ended.
    pub unsent: u64,
    /// The last failure, if a request failed.
    pub failure: Option<String>,
    /// The record the mapping stopped at, if one could not be mapped.
    pub unmapped: Option<String>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "otlp: {} span{} sent to {}",
            self.sent,
            if self.sent == 1 { "" } else { "s" },
            self.url
        )?;
        if self.dropped > 0 || self.unsent > 0 {
            write!(
                f,
                ", {} not sent ({} dropped with the queue full, {} failed or still queued at \
                 the end)",
                self.dropped + self.unsent,
                self.dropped,
                self.unsent
            )?;
        }
        if let Some(failure) = &self.failure {
            write!(f, "; last failure: {failure}")?;
        }
        if let Some(record) = &self.unmapped {
            write!(f, "; mapping stopped: {record}")?;
        }
        Ok(())
    }
}

/// The counts the run and the sending thread share.
#[derive(Debug, Default)]
struct Counts {
    queued: AtomicU64,
    dropped: AtomicU64,
    sent: AtomicU64,
    failed: AtomicU64,
    failure: Mutex<Option<String>>,
}

/// The live export of one run (see the module docs).
pub struct Sender {
    mapping: Mapping,
    queue: Option<SyncSender<(Hash, Value)>>,
    counts: Arc<Counts>,
    done: Receiver<()>,
    url: String,
    timeout: Duration,
    unmapped: Option<MapError>,
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The headers may hold a key: not shown.
        f.debug_struct("Sender")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// Now, in unix nanoseconds: the live export's times are the clock's (they reach no
/// transcript).
#[allow(clippy::disallowed_methods)]
fn now() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// The URL spans are posted to.
fn traces_url(endpoint: &str) -> Result<String, SenderError> {
    let bad = || SenderError::Endpoint(endpoint.to_owned());
    let rest = endpoint
        .strip_prefix("http://")
        .or_else(|| endpoint.strip_prefix("https://"))
        .ok_or_else(bad)?;
    if rest.split('/').next().is_none_or(str::is_empty) || endpoint.contains(['?', '#']) {
        return Err(bad());
    }
    if endpoint.ends_with("/v1/traces") {
        return Ok(endpoint.to_owned());
    }
    Ok(format!("{}/v1/traces", endpoint.trim_end_matches('/')))
}

impl Sender {
    /// Starts the sending thread. Nothing is sent before the first span.
    pub fn start(config: SenderConfig) -> Result<Sender, SenderError> {
        let url = traces_url(&config.endpoint)?;
        let (queue, spans) = mpsc::sync_channel(config.queue.max(1));
        let (finished, done) = mpsc::channel();
        let counts = Arc::new(Counts::default());
        let post = Post {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_global(Some(config.timeout))
                .build()
                .into(),
            url: url.clone(),
            headers: config.headers,
            counts: Arc::clone(&counts),
        };
        thread::Builder::new()
            .name(String::from("otlp-sender"))
            .spawn(move || {
                post.run(spans);
                let _ = finished.send(());
            })
            .map_err(|e| SenderError::Thread(e.to_string()))?;
        Ok(Sender {
            mapping: Mapping::new(config.content),
            queue: Some(queue),
            counts,
            done,
            url,
            timeout: config.timeout,
            unmapped: None,
        })
    }

    /// A record written before this run (a resumed transcript's): mapped, so that the
    /// run's spans have their parents and trace, but not sent.
    pub fn prime(&mut self, entry: &Entry<'_>) {
        self.map(entry);
    }

    /// A record the run just wrote: its spans are queued, or dropped and counted when
    /// the queue is full. Never waits.
    pub fn record(&mut self, entry: &Entry<'_>) {
        let spans = self.map(entry);
        self.enqueue(spans);
    }

    fn map(&mut self, entry: &Entry<'_>) -> Vec<Value> {
        if self.unmapped.is_some() {
            return Vec::new();
        }
        match self.mapping.push(entry, now()) {
            Ok(spans) => spans,
            Err(error) => {
                self.unmapped = Some(error);
                Vec::new()
            }
        }
    }

    fn enqueue(&mut self, spans: Vec<Value>) {
        let (Some(queue), Some(first)) = (&self.queue, self.mapping.first()) else {
            return;
        };
        for span in spans {
            match queue.try_send((first, span)) {
                Ok(()) => self.counts.queued.fetch_add(1, Ordering::Relaxed),
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                    self.counts.dropped.fetch_add(1, Ordering::Relaxed)
                }
            };
        }
    }

    /// Ends the export: the span of a run left open (a run that failed) is queued, the
    /// queue closed, and the thread given at most the timeout to send what is left.
    pub fn finish(mut self) -> Summary {
        let spans = self.mapping.finish();
        self.enqueue(spans);
        drop(self.queue.take());
        match self.done.recv_timeout(self.timeout) {
            Ok(()) | Err(RecvTimeoutError::Disconnected | RecvTimeoutError::Timeout) => {}
        }
        let counts = &self.counts;
        let sent = counts.sent.load(Ordering::Relaxed);
        let queued = counts.queued.load(Ordering::Relaxed);
        Summary {
            url: self.url.clone(),
            sent,
            dropped: counts.dropped.load(Ordering::Relaxed),
            unsent: queued.saturating_sub(sent),
            failure: counts.failure.lock().ok().and_then(|f| f.clone()),
            unmapped: self.unmapped.as_ref().map(ToString::to_string),
        }
    }
}

/// The sending thread's side.
struct Post {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    counts: Arc<Counts>,
}

impl Post {
    /// Sends batches until the queue is closed and empty.
    fn run(&self, spans: Receiver<(Hash, Value)>) {
        while let Ok((first, span)) = spans.recv() {
            let mut batch = vec![span];
            while batch.len() < BATCH {
                match spans.try_recv() {
                    Ok((_, span)) => batch.push(span),
                    Err(_) => break,
                }
            }
            let n = batch.len() as u64;
            match self.post(first, batch) {
                Ok(()) => self.counts.sent.fetch_add(n, Ordering::Relaxed),
                Err(failure) => {
                    if let Ok(mut last) = self.counts.failure.lock() {
                        *last = Some(failure);
                    }
                    self.counts.failed.fetch_add(n, Ordering::Relaxed)
                }
            };
        }
    }

    /// One request; a failure in words.
    fn post(&self, first: Hash, spans: Vec<Value>) -> Result<(), String> {
        let mut resource = Attributes::default();
        resource.string(SERVICE_NAME, AGENTLOOP);
        resource.string(TRANSCRIPT_FIRST, first.to_string());
        let body = jcs::to_vec(&trace_request(resource, spans)).map_err(|e| e.to_string())?;
        let mut request = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json");
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send(&body[..]).map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        match status {
            200..=299 => Ok(()),
            _ => Err(format!("the collector answered HTTP {status}")),
        }
    }
}

#[cfg(test)]
mod tests;
