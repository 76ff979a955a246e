//! Timeouts, the response bound and the retry policy.

use std::time::Duration;

use crate::failure::Failure;

/// How an [`HttpModel`](crate::HttpModel) calls the provider. The defaults follow the
/// providers' own SDKs (openai-python, anthropic-sdk-python): a 5 s connect timeout, a
/// 600 s call, backoff from 0.5 s doubling to at most 8 s, a `Retry-After` of up to
/// 120 s honoured; one more try than their two retries.
///
/// Set what differs from the defaults:
/// `HttpConfig { max_tries: 2, ..HttpConfig::default() }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// The most time to set up a connection (DNS, TCP, TLS).
    pub connect_timeout: Duration,
    /// The most time one try may take, from connecting to the body's last byte.
    pub call_timeout: Duration,
    /// The most bytes of a response body; a longer one is a failure (not retried)
    /// naming this limit.
    pub max_response_bytes: u64,
    /// How many tries a turn gets, the first included (1 = no retries). At least 1.
    pub max_tries: u32,
    /// The wait before the first retry, when the provider does not say.
    pub initial_backoff: Duration,
    /// The longest wait the backoff grows to.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; a provider asking for more is not retried.
    pub max_retry_after: Duration,
}

impl Default for HttpConfig {
    fn default() -> HttpConfig {
        HttpConfig {
            connect_timeout: Duration::from_secs(5),
            call_timeout: Duration::from_secs(600),
            max_response_bytes: 64 << 20,
            max_tries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// Why a failed try is the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GiveUp {
    /// `max_tries` tries were made.
    Exhausted,
    /// The failure is of a kind that fails the same way again.
    NotRetryable,
    /// The provider said `x-should-retry: false`.
    ProviderSaidNo,
    /// The provider asked to wait longer than `max_retry_after`.
    WaitTooLong(Duration),
}

impl HttpConfig {
    /// The backoff before retry `retry` (1 = the first retry): `initial_backoff`
    /// doubled `retry - 1` times, at most `max_backoff`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let doublings = retry.saturating_sub(1).min(31);
        self.initial_backoff
            .saturating_mul(1u32 << doublings)
            .min(self.max_backoff)
    }

    /// After try number `tries` (1-based) failed with `failure`: how long to wait
    /// before the next try, or why there is none.
    pub(crate) fn next_wait(&self, tries: u32, failure: &Failure) -> Result<Duration, GiveUp> {
        let hinted = match failure {
            Failure::Provider {
                should_retry: Some(false),
                ..
            } => return Err(GiveUp::ProviderSaidNo),
            Failure::Provider { retry_after, .. } => *retry_after,
            _ => None,
        };
        if !failure.retryable() {
            return Err(GiveUp::NotRetryable);
        }
        if let Some(wait) = hinted {
            if wait > self.max_retry_after {
                return Err(GiveUp::WaitTooLong(wait));
            }
        }
        if tries >= self.max_tries {
            return Err(GiveUp::Exhausted);
        }
        Ok(match hinted {
            Some(wait) if !wait.is_zero() => wait,
            _ => self.backoff(tries),
        })
    }
}

/// The wait a provider asks for: `retry-after-ms` (milliseconds, the providers'
/// extension) when it is a number, else `retry-after` as seconds (an integer, or a
/// decimal as some servers send). An HTTP-date or anything else gives `None`, and the
/// default backoff applies: reading a date would need the wall clock, which nothing
/// here reads.
pub(crate) fn retry_after(milliseconds: Option<&str>, seconds: Option<&str>) -> Option<Duration> {
    let number = |text: &str| -> Option<f64> {
        let text = text.trim();
        let ok = !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && text.bytes().filter(|&b| b == b'.').count() <= 1;
        ok.then(|| text.parse::<f64>().ok()).flatten()
    };
    if let Some(ms) = milliseconds.and_then(number) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    seconds
        .and_then(number)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::model::ModelError;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn provider(status: u16, retry_after: Option<Duration>, should_retry: Option<bool>) -> Failure {
        Failure::Provider {
            error: ModelError::new("x").with_status(status),
            retry_after,
            should_retry,
        }
    }

    #[test]
    fn backoff_doubles_from_the_initial_wait_up_to_the_cap() {
        let config = HttpConfig::default();
        let waits: Vec<Duration> = (1..=7).map(|r| config.backoff(r)).collect();
        assert_eq!(waits, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0].map(secs));
        // No overflow however many retries.
        assert_eq!(config.backoff(u32::MAX), secs(8.0));
        let slow = HttpConfig {
            initial_backoff: secs(1.0),
            max_backoff: secs(3.0),
            ..HttpConfig::default()
        };
        assert_eq!(
            (1..=4).map(|r| slow.backoff(r)).collect::<Vec<_>>(),
            [1.0, 2.0, 3.0, 3.0].map(secs)
        );
    }

    #[test]
    fn next_wait_follows_the_policy() {
        let config = HttpConfig::default();
        // Retryable statuses back off; the provider's wait wins when it gives one.
        assert_eq!(
            config.next_wait(1, &provider(500, None, None)),
            Ok(secs(0.5))
        );
        assert_eq!(
            config.next_wait(3, &provider(529, None, None)),
            Ok(secs(2.0))
        );
        assert_eq!(
            config.next_wait(1, &provider(429, Some(secs(3.0)), None)),
            Ok(secs(3.0))
        );
        assert_eq!(
            config.next_wait(2, &provider(429, Some(Duration::ZERO), None)),
            Ok(secs(1.0))
        );
        // The last try is the last.
        assert_eq!(
            config.next_wait(4, &provider(500, None, None)),
            Err(GiveUp::Exhausted)
        );
        // Not retryable, or the provider says not to, or asks for too long a wait.
        assert_eq!(
            config.next_wait(1, &provider(401, None, None)),
            Err(GiveUp::NotRetryable)
        );
        assert_eq!(
            config.next_wait(1, &provider(500, None, Some(false))),
            Err(GiveUp::ProviderSaidNo)
        );
        assert_eq!(
            config.next_wait(1, &provider(400, None, Some(true))),
            Ok(secs(0.5))
        );
        assert_eq!(
            config.next_wait(1, &provider(429, Some(secs(121.0)), None)),
            Err(GiveUp::WaitTooLong(secs(121.0)))
        );
        assert_eq!(
            config.next_wait(1, &provider(429, Some(secs(120.0)), None)),
            Ok(secs(120.0))
        );
        // Transport failures are retried; a body over the limit is not.
        assert_eq!(
            config.next_wait(1, &Failure::CutShort("eof".into())),
            Ok(secs(0.5))
        );
        assert_eq!(
            config.next_wait(1, &Failure::TooLarge(10)),
            Err(GiveUp::NotRetryable)
        );
        let once = HttpConfig {
            max_tries: 1,
            ..HttpConfig::default()
        };
        assert_eq!(
            once.next_wait(1, &provider(500, None, None)),
            Err(GiveUp::Exhausted)
        );
    }

    #[test]
    fn retry_after_reads_milliseconds_then_seconds_and_ignores_dates() {
        assert_eq!(retry_after(None, Some("3")), Some(secs(3.0)));
        assert_eq!(retry_after(None, Some(" 1.5 ")), Some(secs(1.5)));
        assert_eq!(retry_after(Some("250"), Some("3")), Some(secs(0.25)));
        assert_eq!(retry_after(Some("soon"), Some("3")), Some(secs(3.0)));
        assert_eq!(
            retry_after(None, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            None
        );
        for bad in [
            "",
            "-1",
            "1e3",
            "1.2.3",
            "NaN",
            "inf",
            "99999999999999999999999",
        ] {
            let parsed = retry_after(None, Some(bad));
            // A huge number is a huge wait (refused by the policy), never a panic.
            assert!(
                parsed.is_none() || bad.starts_with('9'),
                "{bad}: {parsed:?}"
            );
        }
        assert_eq!(retry_after(None, None), None);
    }
}
