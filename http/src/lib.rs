//! HTTP models for agentloop: [`HttpModel`] is a [`Model`] that asks a provider over
//! HTTP — OpenAI Chat Completions (and the servers that speak it: vLLM, llama.cpp's
//! server, Ollama, OpenRouter, Groq, Azure) or Anthropic Messages — with the request
//! built and the answer read by the codecs of [`agentloop_core::provider`].
//!
//! ```no_run
//! use agentloop_core::{agent::Budgets, demo, driver, provider::RequestOptions};
//! use agentloop_http::HttpModel;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut options = RequestOptions::new("gpt-4.1-mini");
//! options.max_output_tokens = Some(1024);
//! let mut model = HttpModel::openai(options)?; // the key from OPENAI_API_KEY
//! let mut tools = demo::toolbox()?;
//! let mut transcript = Vec::new();
//! let outcome = driver::run("add 2 and 40", Budgets::default(), &mut model,
//!                           &mut tools, &mut || false, &mut transcript,
//!                           driver::RunOptions::default())?;
//! println!("{:?} after {} steps", outcome.reason, outcome.steps);
//! # Ok(()) }
//! ```
//!
//! # What is sent
//! `POST <base URL>/chat/completions` (OpenAI) or `POST <base URL>/messages`
//! (Anthropic), with `Content-Type: application/json`, the codec's body, and the
//! API key read from the environment variable the caller names, at each call: OpenAI
//! `Authorization: Bearer <key>`, Anthropic `x-api-key: <key>` (and always
//! `anthropic-version: 2023-06-01`). No variable named: no key header (local servers).
//! A base URL with a userinfo (`https://user:password@host/v1`) sends it as HTTP Basic
//! authorization (`Authorization: Basic …`, as curl does) — with Anthropic beside the
//! `x-api-key`; with an OpenAI key, which takes the same header, it is refused
//! ([`BuildError::UserinfoAndKey`]) — and is never shown: [`HttpModel::url`], its
//! `Debug` and every error sentence give the URL [`without_userinfo`].
//! Redirects are not followed (a redirect would carry the key elsewhere): a `3xx` is
//! an answer the codec reports as an error. Proxies are taken from the environment
//! (`HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`) as ureq does.
//!
//! # The key
//! The key is read from the environment when a call is made and goes into the request
//! header alone: it is not kept in the model, not shown by its `Debug`, and never
//! put in an error sentence — if a provider echoes it in an error body, the codec
//! redacts it before it cuts the quoted text to its bound, and the sentence has
//! `[redacted]` in its place, as it has for any run of 8 characters of the key that a
//! provider echoed in part. This crate logs nothing. ureq
//! (the HTTP client) logs through the `log` crate: at `debug` it redacts the headers,
//! but at `trace` its `ureq_proto` target dumps the bytes it writes, key header
//! included; a program that installs a logger should keep `ureq_proto` below `trace`.
//!
//! # Timeouts, size, retries
//! [`HttpConfig`] sets them. A try is retried when the provider answers 408, 409,
//! 429, 529 or any 5xx, or `x-should-retry: true` (and never with
//! `x-should-retry: false`), and when the request gets no answer (connection refused
//! or reset; a host name that does not resolve, as a resolver may fail for a moment),
//! times out, or its body is cut short. A 4xx, a body the codec cannot read, a body
//! over [`HttpConfig::max_response_bytes`] or a TLS failure are not retried: they fail
//! the same way again. The wait before a
//! retry is the provider's `retry-after-ms` or `Retry-After` (seconds) when it gives
//! one (a wait over [`HttpConfig::max_retry_after`] is not waited: the call fails);
//! otherwise, or for an HTTP-date `Retry-After` (reading it would need the wall
//! clock), the backoff: [`HttpConfig::initial_backoff`] doubled at each retry, at most
//! [`HttpConfig::max_backoff`] — by default 0.5 s, 1 s, 2 s over 4 tries.
//!
//! The backoff has no jitter: the waits are a function of the answers alone, so a
//! run's behaviour can be reproduced and a test can assert the exact waits. Jitter
//! keeps many clients from retrying in step; a program running many agents against
//! one provider can add it in its own [`Sleep`]. The waits are not cancellable.
//!
//! When the last try fails, the turn's error says how many tries were made, why there
//! was no other, and how the last failed, e.g. `the model call failed after 4 tries
//! (the most allowed); the last: <the codec's sentence for HTTP 529>`; the loop records
//! it as the `stop` record's `model_error`. A request the codec refuses (no model, no
//! `max_output_tokens` for Anthropic, …) or a key variable that is not set fails the
//! turn with no HTTP call.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod config;
mod failure;
mod sleep;
mod url;

pub use config::HttpConfig;
pub use sleep::{RecordedSleep, Sleep, ThreadSleep};
pub use url::without_userinfo;

use std::fmt;

use agentloop_core::model::{Message, Model, ModelError, Reply};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::tools::ToolSpec;

use config::retry_after;
use failure::{CallError, Failure};

/// OpenAI's API base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Anthropic's API base URL.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com/v1";
/// A provider's API base URL: [`OPENAI_BASE_URL`] or [`ANTHROPIC_BASE_URL`].
pub fn default_base_url(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => OPENAI_BASE_URL,
        Provider::Anthropic => ANTHROPIC_BASE_URL,
    }
}

/// The environment variable that holds a provider's API key by default:
/// `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`.
pub fn default_key_variable(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "OPENAI_API_KEY",
        Provider::Anthropic => "ANTHROPIC_API_KEY",
    }
}

/// The `anthropic-version` header sent with every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The `User-Agent` sent.
const USER_AGENT: &str = concat!("agentloop/", env!("CARGO_PKG_VERSION"));

/// Why an [`HttpModel`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The base URL is not an `http://` or `https://` URL with a host: the URL (without
    /// its userinfo) and why.
    BadUrl(String, String),
    /// The base URL has a userinfo (sent as HTTP Basic authorization) and an OpenAI key
    /// is to be sent too, in the same `Authorization` header: the URL without it.
    UserinfoAndKey(String),
    /// The API key variable's name is empty or has `=` or NUL in it.
    BadKeyVariable(String),
    /// `max_tries` is 0.
    NoTries,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::BadUrl(url, why) => write!(f, "the base URL {url:?} {why}"),
            BuildError::UserinfoAndKey(url) => write!(
                f,
                "the base URL {url:?} has a user and password, sent as HTTP Basic \
                 authorization, and the OpenAI key goes in the same Authorization header: \
                 give one of them (send no key, or take the user and password out of the URL)"
            ),
            BuildError::BadKeyVariable(name) => write!(
                f,
                "{name:?} cannot name an environment variable (empty, or has '=' or NUL)"
            ),
            BuildError::NoTries => f.write_str("max_tries must be at least 1"),
        }
    }
}

impl std::error::Error for BuildError {}

/// A [`Model`] that asks a provider over HTTP (see the crate docs for what it sends,
/// how it retries and what it records).
pub struct HttpModel {
    provider: Provider,
    /// Where requests are posted, userinfo included.
    target: String,
    /// The same without its userinfo: what is shown.
    url: String,
    options: RequestOptions,
    key_variable: Option<String>,
    config: HttpConfig,
    agent: ureq::Agent,
    sleep: Box<dyn Sleep>,
}

impl fmt::Debug for HttpModel {
    /// The provider, URL (without its userinfo), options, the key variable's name
    /// (never the key) and the configuration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModel")
            .field("provider", &self.provider)
            .field("url", &self.url)
            .field("options", &self.options)
            .field("key_variable", &self.key_variable)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HttpModel {
    /// A model asking `provider` at `base_url` (the endpoint's path is added:
    /// `/chat/completions` or `/messages`), with `options` in each request and the API
    /// key read from the environment variable `key_variable` (`None`: no key header),
    /// the default [`HttpConfig`] and real sleeping between tries.
    pub fn new(
        provider: Provider,
        base_url: &str,
        options: RequestOptions,
        key_variable: Option<&str>,
    ) -> Result<HttpModel, BuildError> {
        HttpModel::with_config(
            provider,
            base_url,
            options,
            key_variable,
            HttpConfig::default(),
        )
    }

    /// OpenAI at [`OPENAI_BASE_URL`], the key from `OPENAI_API_KEY`.
    pub fn openai(options: RequestOptions) -> Result<HttpModel, BuildError> {
        HttpModel::new_default(Provider::OpenAi, options)
    }

    /// Anthropic at [`ANTHROPIC_BASE_URL`], the key from `ANTHROPIC_API_KEY`.
    pub fn anthropic(options: RequestOptions) -> Result<HttpModel, BuildError> {
        HttpModel::new_default(Provider::Anthropic, options)
    }

    /// `provider` at its [`default_base_url`], the key from its [`default_key_variable`].
    fn new_default(provider: Provider, options: RequestOptions) -> Result<HttpModel, BuildError> {
        let key_variable = default_key_variable(provider);
        HttpModel::new(
            provider,
            default_base_url(provider),
            options,
            Some(key_variable),
        )
    }

    /// Like [`HttpModel::new`], with `config`.
    pub fn with_config(
        provider: Provider,
        base_url: &str,
        options: RequestOptions,
        key_variable: Option<&str>,
        config: HttpConfig,
    ) -> Result<HttpModel, BuildError> {
        if config.max_tries == 0 {
            return Err(BuildError::NoTries);
        }
        if let Some(name) = key_variable {
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(BuildError::BadKeyVariable(name.to_string()));
            }
        }
        let endpoint = match provider {
            Provider::OpenAi => "/chat/completions",
            Provider::Anthropic => "/messages",
        };
        let url = format!("{}{endpoint}", base_url.trim_end_matches('/'));
        let shown = without_userinfo(base_url);
        let bad = |why: &str| BuildError::BadUrl(shown.to_string(), why.to_string());
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(bad("does not start with http:// or https://"));
        }
        let uri: ureq::http::Uri = url
            .parse()
            .map_err(|e: ureq::http::uri::InvalidUri| bad(&format!("is not a URL: {e}")))?;
        if uri.host().is_none_or(str::is_empty) {
            return Err(bad("has no host"));
        }
        if uri.query().is_some() {
            return Err(bad("has a query (the endpoint's path is added after it)"));
        }
        if provider == Provider::OpenAi && key_variable.is_some() && url::userinfo(&url).is_some() {
            return Err(BuildError::UserinfoAndKey(shown.into_owned()));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(USER_AGENT)
            .accept("application/json")
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.call_timeout))
            .build()
            .into();
        Ok(HttpModel {
            provider,
            url: without_userinfo(&url).into_owned(),
            target: url,
            options,
            key_variable: key_variable.map(str::to_string),
            config,
            agent,
            sleep: Box::new(ThreadSleep),
        })
    }

    /// The same model, waiting between tries with `sleep` (a [`RecordedSleep`] in
    /// tests).
    pub fn with_sleep(mut self, sleep: impl Sleep + 'static) -> HttpModel {
        self.sleep = Box::new(sleep);
        self
    }

    /// The wire format.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The URL requests are posted to, without its userinfo (which is sent as HTTP
    /// Basic authorization, never shown).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The configuration.
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// The key, read from its variable now: `Ok(None)` when no variable is named.
    fn key(&self) -> Result<Option<String>, CallError> {
        let Some(name) = &self.key_variable else {
            return Ok(None);
        };
        let Some(value) = std::env::var_os(name) else {
            return Err(CallError::KeyNotSet(name.clone()));
        };
        let Some(key) = value.to_str() else {
            return Err(CallError::KeyUnusable(name.clone(), "is not UTF-8"));
        };
        if key.is_empty() {
            return Err(CallError::KeyUnusable(name.clone(), "is empty"));
        }
        if !key.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return Err(CallError::KeyUnusable(
                name.clone(),
                "has a character a header cannot carry (only printable ASCII can be sent)",
            ));
        }
        Ok(Some(key.to_string()))
    }

    /// One try: post `body`, read the answer, parse it; a reply reports the SHA-256 of
    /// the response body.
    fn try_once(&self, body: &[u8], key: Option<&str>) -> Result<Reply, Failure> {
        let config = &self.config;
        let fail = |error, in_body| {
            Failure::from_ureq(
                error,
                in_body,
                config.connect_timeout,
                config.call_timeout,
                config.max_response_bytes,
            )
        };
        let mut request = self
            .agent
            .post(&self.target)
            .header("content-type", "application/json");
        match (self.provider, key) {
            (Provider::OpenAi, Some(key)) => {
                request = request.header("authorization", format!("Bearer {key}"));
            }
            (Provider::Anthropic, Some(key)) => request = request.header("x-api-key", key),
            (_, None) => {}
        }
        if self.provider == Provider::Anthropic {
            request = request.header("anthropic-version", ANTHROPIC_VERSION);
        }
        let mut response = request.send(body).map_err(|e| fail(e, false))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = retry_after(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
        );
        let should_retry = match header("x-should-retry").as_deref() {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        };
        let bytes = response
            .body_mut()
            .with_config()
            .limit(config.max_response_bytes)
            .read_to_vec()
            .map_err(|e| fail(e, true))?;
        let reply =
            self.provider
                .parse(status, &bytes, key)
                .map_err(|error| Failure::Provider {
                    error,
                    retry_after,
                    should_retry,
                })?;
        let report = reply.provider.clone().with_response_body(&bytes);
        Ok(reply.with_provider(report))
    }

    /// The turn: build the body, then try until a reply, a failure that is not
    /// retried, or the last try. The reply's report carries the SHA-256 of the body
    /// sent and of the response body it was read from (the successful try's).
    fn call(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        let body = self
            .provider
            .request(messages, manifest, &self.options)
            .map_err(|e| CallError::NotBuilt(e).into_model_error(None))?;
        let key = self.key().map_err(|e| e.into_model_error(None))?;
        let mut tries = 0;
        loop {
            tries += 1;
            let failure = match self.try_once(&body, key.as_deref()) {
                Ok(reply) => {
                    let report = reply.provider.clone().with_request_body(&body);
                    return Ok(reply.with_provider(report));
                }
                Err(failure) => failure,
            };
            match self.config.next_wait(tries, &failure) {
                Ok(wait) => self.sleep.sleep(wait),
                Err(give_up) => {
                    let error = CallError::Failed {
                        tries,
                        give_up,
                        last: failure,
                    };
                    return Err(error.into_model_error(key.as_deref()));
                }
            }
        }
    }
}

impl Model for HttpModel {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        self.call(messages, manifest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(base: &str) -> Result<HttpModel, BuildError> {
        HttpModel::new(Provider::OpenAi, base, RequestOptions::new("m"), None)
    }

    #[test]
    fn the_endpoint_is_added_to_the_base_url() {
        assert_eq!(
            build("https://api.openai.com/v1").unwrap().url(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            build("http://127.0.0.1:8080/v1/").unwrap().url(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        let anthropic = HttpModel::anthropic(RequestOptions::new("m")).unwrap();
        assert_eq!(anthropic.url(), "https://api.anthropic.com/v1/messages");
        assert_eq!(anthropic.provider(), Provider::Anthropic);
    }

    #[test]
    fn refuses_what_cannot_be_called() {
        for (base, says) in [
            (
                "api.openai.com/v1",
                "does not start with http:// or https://",
            ),
            ("ftp://host/v1", "does not start with http:// or https://"),
            ("http://", "is not a URL"),
            ("http://host/v1?x=1", "has a query"),
            ("http://ho st/v1", "is not a URL"),
        ] {
            let err = build(base).unwrap_err();
            assert!(err.to_string().contains(says), "{base}: {err}");
            assert!(err.to_string().contains(&format!("{base:?}")), "{err}");
        }
        for name in ["", "A=B", "A\0"] {
            let err = HttpModel::new(
                Provider::OpenAi,
                "http://h",
                RequestOptions::new("m"),
                Some(name),
            )
            .unwrap_err();
            assert_eq!(err, BuildError::BadKeyVariable(name.to_string()));
        }
        let config = HttpConfig {
            max_tries: 0,
            ..HttpConfig::default()
        };
        let err = HttpModel::with_config(
            Provider::OpenAi,
            "http://h",
            RequestOptions::new("m"),
            None,
            config,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "max_tries must be at least 1");
    }
}
