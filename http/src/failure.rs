//! What one try ended with, and the sentence a turn's failure becomes.

use std::fmt;
use std::time::Duration;

use agentloop_core::model::ModelError;
use agentloop_core::provider::RequestError;
use agentloop_core::redact;

use crate::config::GiveUp;

/// How one try failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The provider answered, with an error the codec read (an error status, or a
    /// body it could not read), and what the answer said about retrying.
    Provider {
        /// The codec's error: its sentence names the status and the provider's message.
        error: ModelError,
        /// `retry-after-ms` / `retry-after`, when given as a number.
        retry_after: Option<Duration>,
        /// `x-should-retry: true|false`, when given.
        should_retry: Option<bool>,
    },
    /// The request went unanswered: the host name did not resolve, or the connection
    /// was refused, reset or closed before an answer's head came (the OS's words).
    NoAnswer(String),
    /// No connection within the connect timeout.
    ConnectTimeout(Duration),
    /// No whole answer within the call timeout.
    CallTimeout(Duration),
    /// The answer's body ended early (the connection closed or broke inside it).
    CutShort(String),
    /// The body passed the size limit.
    TooLarge(u64),
    /// Anything that fails the same way again: a TLS failure, an answer that is not
    /// HTTP (ureq's words).
    Other(String),
}

impl Failure {
    /// Whether another try may succeed.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            Failure::Provider {
                error,
                should_retry,
                ..
            } => should_retry.unwrap_or_else(|| error.is_retryable()),
            Failure::NoAnswer(_)
            | Failure::ConnectTimeout(_)
            | Failure::CallTimeout(_)
            | Failure::CutShort(_) => true,
            Failure::TooLarge(_) | Failure::Other(_) => false,
        }
    }

    /// The provider's HTTP status, when it answered with one.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            Failure::Provider { error, .. } => error.status(),
            _ => None,
        }
    }

    /// A failure from ureq: `in_body` when it came while reading the body, after the
    /// answer's head.
    pub(crate) fn from_ureq(
        error: ureq::Error,
        in_body: bool,
        connect_timeout: Duration,
        call_timeout: Duration,
        limit: u64,
    ) -> Failure {
        use ureq::Timeout;
        match error {
            ureq::Error::Timeout(Timeout::Connect | Timeout::Resolve) => {
                Failure::ConnectTimeout(connect_timeout)
            }
            ureq::Error::Timeout(_) => Failure::CallTimeout(call_timeout),
            ureq::Error::BodyExceedsLimit(_) => Failure::TooLarge(limit),
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                Failure::CallTimeout(call_timeout)
            }
            ureq::Error::Io(e) if in_body => Failure::CutShort(e.to_string()),
            ureq::Error::Io(e) => Failure::NoAnswer(e.to_string()),
            ureq::Error::ConnectionFailed => {
                Failure::NoAnswer("no connection could be made".to_string())
            }
            // A body framing error (a chunk cut off) is a body cut short.
            ureq::Error::Protocol(e) if in_body => Failure::CutShort(e.to_string()),
            ureq::Error::HostNotFound => Failure::NoAnswer("the host name did not resolve".into()),
            other => Failure::Other(other.to_string()),
        }
    }
}

/// Bytes in the largest whole unit (`64 MiB`, `1500 bytes`).
fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const KIB: u64 = 1 << 10;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Provider { error, .. } => f.write_str(error.message()),
            Failure::NoAnswer(why) => write!(f, "the request got no answer: {why}"),
            Failure::ConnectTimeout(limit) => {
                write!(f, "no connection within the connect timeout ({limit:?})")
            }
            Failure::CallTimeout(limit) => {
                write!(f, "no whole answer within the call timeout ({limit:?})")
            }
            Failure::CutShort(why) => write!(f, "the answer was cut short: {why}"),
            Failure::TooLarge(limit) => write!(
                f,
                "the response body is larger than the {} limit (max_response_bytes)",
                size(*limit)
            ),
            Failure::Other(why) => write!(f, "the request failed: {why}"),
        }
    }
}

/// Why a turn's model call failed: the sentence recorded as its `model_error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// The codec would not build the request: nothing was sent.
    NotBuilt(RequestError),
    /// The environment variable named for the API key is not set.
    KeyNotSet(String),
    /// It is set, but not to something a header can carry (the key is not shown).
    KeyUnusable(String, &'static str),
    /// Tries were made and the last one failed.
    Failed {
        /// How many tries were made.
        tries: u32,
        /// Why there was no other.
        give_up: GiveUp,
        /// How the last one failed.
        last: Failure,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::NotBuilt(e) => write!(f, "the model request was not sent: {e}"),
            CallError::KeyNotSet(name) => write!(
                f,
                "the model request was not sent: the API key variable {name} is not set"
            ),
            CallError::KeyUnusable(name, why) => write!(
                f,
                "the model request was not sent: the API key in {name} {why}"
            ),
            CallError::Failed {
                tries,
                give_up,
                last,
            } => {
                let plural = if *tries == 1 { "try" } else { "tries" };
                write!(f, "the model call failed after {tries} {plural} (")?;
                match give_up {
                    GiveUp::Exhausted => f.write_str("the most allowed")?,
                    GiveUp::NotRetryable => match last.status() {
                        Some(status) => write!(f, "HTTP {status} is not retried")?,
                        None => f.write_str("not retried")?,
                    },
                    GiveUp::ProviderSaidNo => {
                        f.write_str("the provider said not to retry: x-should-retry: false")?
                    }
                    GiveUp::WaitTooLong(wait) => write!(
                        f,
                        "the provider asked to wait {wait:?}, more than max_retry_after"
                    )?,
                }
                write!(f, "); the last: {last}")
            }
        }
    }
}

impl CallError {
    /// The error the loop records: the sentence with the key (when given and not
    /// empty) redacted — whole, and any run of 8 of its characters — wherever it
    /// appears, and the provider's status when the last try had one. The codec has
    /// redacted what it quoted of the provider's body before cutting it; this covers
    /// the rest of the sentence (the HTTP client's words), whole.
    pub(crate) fn into_model_error(self, key: Option<&str>) -> ModelError {
        let sentence = redact::bounded(&self.to_string(), key, usize::MAX);
        let error = ModelError::new(sentence);
        match self {
            CallError::Failed { last, .. } => match last.status() {
                Some(status) => error.with_status(status),
                None => error,
            },
            _ => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_name_the_tries_why_they_stopped_and_the_last_failure() {
        // Options that name no model: the codec refuses them before anything is sent.
        let no_model = agentloop_core::provider::Provider::OpenAi
            .request(
                &[agentloop_core::model::Message::User { text: "t".into() }],
                &[],
                &agentloop_core::provider::RequestOptions::new(""),
            )
            .unwrap_err();
        let provider = |status| Failure::Provider {
            error: ModelError::new(format!("the provider answered HTTP {status}"))
                .with_status(status),
            retry_after: None,
            should_retry: None,
        };
        let cases = [
            (
                CallError::Failed { tries: 4, give_up: GiveUp::Exhausted, last: provider(529) },
                "the model call failed after 4 tries (the most allowed); the last: the provider answered HTTP 529",
                Some(529),
            ),
            (
                CallError::Failed { tries: 1, give_up: GiveUp::NotRetryable, last: provider(401) },
                "the model call failed after 1 try (HTTP 401 is not retried); the last: the provider answered HTTP 401",
                Some(401),
            ),
            (
                CallError::Failed { tries: 2, give_up: GiveUp::WaitTooLong(Duration::from_secs(3600)), last: provider(429) },
                "the model call failed after 2 tries (the provider asked to wait 3600s, more than max_retry_after); the last: the provider answered HTTP 429",
                Some(429),
            ),
            (
                CallError::Failed { tries: 1, give_up: GiveUp::ProviderSaidNo, last: provider(500) },
                "the model call failed after 1 try (the provider said not to retry: x-should-retry: false); the last: the provider answered HTTP 500",
                Some(500),
            ),
            (
                CallError::Failed { tries: 1, give_up: GiveUp::NotRetryable, last: Failure::TooLarge(64 << 20) },
                "the model call failed after 1 try (not retried); the last: the response body is larger than the 64 MiB limit (max_response_bytes)",
                None,
            ),
            (
                CallError::Failed { tries: 3, give_up: GiveUp::Exhausted, last: Failure::CallTimeout(Duration::from_millis(200)) },
                "the model call failed after 3 tries (the most allowed); the last: no whole answer within the call timeout (200ms)",
                None,
            ),
            (
                CallError::KeyNotSet("OPENAI_API_KEY".into()),
                "the model request was not sent: the API key variable OPENAI_API_KEY is not set",
                None,
            ),
            (
                CallError::NotBuilt(no_model),
                "the model request was not sent: the request options name no model (\"model\" is missing or empty)",
                None,
            ),
        ];
        for (error, sentence, status) in cases {
            let model_error = error.into_model_error(None);
            assert_eq!(model_error.message(), sentence);
            assert_eq!(model_error.status(), status);
        }
    }

    #[test]
    fn the_key_is_redacted_wherever_it_appears() {
        let error = CallError::Failed {
            tries: 1,
            give_up: GiveUp::NotRetryable,
            last: Failure::Provider {
                error: ModelError::new(
                    "HTTP 401: Invalid key sk-secret-1, try again (sk-secret-1)",
                )
                .with_status(401),
                retry_after: None,
                should_retry: None,
            },
        };
        let message = error.clone().into_model_error(Some("sk-secret-1"));
        assert_eq!(
            message.message(),
            "the model call failed after 1 try (HTTP 401 is not retried); the last: HTTP 401: Invalid key [redacted], try again ([redacted])"
        );
        // An empty key redacts nothing (it would match everywhere).
        assert!(error
            .into_model_error(Some(""))
            .message()
            .contains("sk-secret-1"));
        // Part of a key, 8 characters or more, wherever the sentence holds it.
        let key = "sk-proj-0123456789abcdefghijklmnop";
        let error = CallError::Failed {
            tries: 1,
            give_up: GiveUp::NotRetryable,
            last: Failure::Other(format!("bad header value {}…", &key[..20])),
        };
        assert_eq!(
            error.into_model_error(Some(key)).message(),
            "the model call failed after 1 try (not retried); the last: the request failed: bad header value [redacted]…"
        );
    }

    #[test]
    fn ureq_errors_map_to_failures_by_kind_and_phase() {
        use std::io::{Error, ErrorKind};
        let map = |e, in_body| {
            Failure::from_ureq(
                e,
                in_body,
                Duration::from_secs(5),
                Duration::from_secs(600),
                1 << 20,
            )
        };
        let cases = [
            (
                map(ureq::Error::Timeout(ureq::Timeout::Connect), false),
                Failure::ConnectTimeout(Duration::from_secs(5)),
                "no connection within the connect timeout (5s)",
            ),
            (
                map(ureq::Error::Timeout(ureq::Timeout::Resolve), false),
                Failure::ConnectTimeout(Duration::from_secs(5)),
                "no connection within the connect timeout (5s)",
            ),
            (
                map(ureq::Error::Timeout(ureq::Timeout::Global), true),
                Failure::CallTimeout(Duration::from_secs(600)),
                "no whole answer within the call timeout (600s)",
            ),
            (
                map(
                    ureq::Error::Io(Error::new(ErrorKind::TimedOut, "slow")),
                    false,
                ),
                Failure::CallTimeout(Duration::from_secs(600)),
                "no whole answer within the call timeout (600s)",
            ),
            (
                map(ureq::Error::BodyExceedsLimit(1 << 20), true),
                Failure::TooLarge(1 << 20),
                "the response body is larger than the 1 MiB limit (max_response_bytes)",
            ),
            (
                map(
                    ureq::Error::Io(Error::new(ErrorKind::ConnectionReset, "reset")),
                    false,
                ),
                Failure::NoAnswer("reset".into()),
                "the request got no answer: reset",
            ),
            (
                map(
                    ureq::Error::Io(Error::new(ErrorKind::UnexpectedEof, "eof")),
                    true,
                ),
                Failure::CutShort("eof".into()),
                "the answer was cut short: eof",
            ),
            (
                map(ureq::Error::ConnectionFailed, false),
                Failure::NoAnswer("no connection could be made".into()),
                "the request got no answer: no connection could be made",
            ),
            (
                map(ureq::Error::HostNotFound, false),
                Failure::NoAnswer("the host name did not resolve".into()),
                "the request got no answer: the host name did not resolve",
            ),
            (
                map(ureq::Error::Tls("bad certificate"), false),
                Failure::Other("bad certificate".into()),
                "the request failed: bad certificate",
            ),
        ];
        for (failure, expected, sentence) in cases {
            assert_eq!(failure, expected);
            assert_eq!(failure.to_string(), sentence);
        }
        assert!(Failure::NoAnswer(String::new()).retryable());
        assert!(Failure::ConnectTimeout(Duration::ZERO).retryable());
        assert!(Failure::CallTimeout(Duration::ZERO).retryable());
        assert!(Failure::CutShort(String::new()).retryable());
        assert!(!Failure::TooLarge(0).retryable());
        assert!(!Failure::Other(String::new()).retryable());
    }

    #[test]
    fn sizes_are_written_in_their_largest_whole_unit() {
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(1536), "1536 bytes");
        assert_eq!(size(2048), "2 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
