//! The retry policy against the stand-in: which answers are tried again, the waits
//! (recorded, never slept), and the sentence after the last try.

use crate::common;

use agentloop_core::model::Model;
use agentloop_core::provider::Provider;
use agentloop_http::HttpConfig;
use agentloop_standin::{canned, Exchange, Server};
use common::{config, conversation, manifest, model, secs};

/// The codec's sentence for an answer: what the HTTP model reports as "the last".
fn codec_sentence(provider: Provider, exchange: &Exchange) -> String {
    provider
        .parse(exchange.status, &exchange.body, None)
        .unwrap_err()
        .message()
        .to_string()
}

#[test]
fn a_429_with_retry_after_3_then_200_waits_3_seconds() {
    let server = Server::start([
        canned::openai::rate_limited(3),
        canned::openai::text("2 + 40 = 42."),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    let reply = model.reply(&conversation(), &manifest()).unwrap();
    assert_eq!(reply.text, "2 + 40 = 42.");
    assert_eq!(sleep.waits(), [secs(3.0)]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "a retry sends the same body"
    );
}

#[test]
fn server_errors_back_off_half_a_second_doubling() {
    let server = Server::start([
        canned::anthropic::api_error(),
        canned::anthropic::api_error(),
        canned::anthropic::overloaded(),
        canned::anthropic::text("fine now"),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::Anthropic, &server, config());
    let reply = model.reply(&conversation(), &manifest()).unwrap();
    assert_eq!(reply.text, "fine now");
    assert_eq!(sleep.waits(), [secs(0.5), secs(1.0), secs(2.0)]);
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn the_backoff_stops_growing_at_its_cap() {
    let mut script = vec![canned::openai::server_error(); 5];
    script.push(canned::openai::text("done"));
    let server = Server::start(script).unwrap();
    let config = HttpConfig {
        max_tries: 6,
        initial_backoff: secs(1.0),
        max_backoff: secs(3.0),
        ..config()
    };
    let (mut model, sleep) = model(Provider::OpenAi, &server, config);
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "done"
    );
    assert_eq!(sleep.waits(), [1.0, 2.0, 3.0, 3.0, 3.0].map(secs));
}

#[test]
fn when_every_try_fails_the_error_names_the_tries_and_the_last_failure() {
    let overloaded = canned::anthropic::overloaded();
    let server = Server::start([
        canned::anthropic::api_error(),
        canned::anthropic::api_error(),
        overloaded.clone(),
        overloaded.clone(),
        canned::anthropic::text("never asked for"),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::Anthropic, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the model call failed after 4 tries (the most allowed); the last: {}",
            codec_sentence(Provider::Anthropic, &overloaded)
        )
    );
    assert_eq!(error.status(), Some(529));
    assert_eq!(sleep.waits(), [secs(0.5), secs(1.0), secs(2.0)]);
    assert_eq!((server.requests().len(), server.remaining()), (4, 1));
}

#[test]
fn a_401_is_not_retried() {
    let unauthorized = canned::openai::invalid_api_key();
    let server = Server::start([unauthorized.clone(), canned::openai::text("never")]).unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the model call failed after 1 try (HTTP 401 is not retried); the last: {}",
            codec_sentence(Provider::OpenAi, &unauthorized)
        )
    );
    assert_eq!(error.status(), Some(401));
    assert!(sleep.waits().is_empty());
    assert_eq!((server.requests().len(), server.remaining()), (1, 1));
}

#[test]
fn a_retry_after_longer_than_allowed_is_not_waited() {
    let limited = canned::anthropic::rate_limited(3600);
    let server = Server::start([limited.clone(), canned::anthropic::text("never")]).unwrap();
    let (mut model, sleep) = model(Provider::Anthropic, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the model call failed after 1 try (the provider asked to wait 3600s, more than max_retry_after); the last: {}",
            codec_sentence(Provider::Anthropic, &limited)
        )
    );
    assert!(sleep.waits().is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn retry_after_ms_comes_first_and_an_http_date_means_the_backoff() {
    let server = Server::start([
        canned::openai::rate_limited(3).with_header("retry-after-ms", "250"),
        canned::openai::server_error().with_header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"),
        canned::openai::server_error().with_header("Retry-After", "0"),
        canned::openai::text("ok"),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "ok"
    );
    // 250 ms as asked; then the backoff of the second and third retries.
    assert_eq!(sleep.waits(), [secs(0.25), secs(1.0), secs(2.0)]);
}

#[test]
fn x_should_retry_overrides_the_status() {
    let refused = canned::openai::server_error().with_header("x-should-retry", "false");
    let server = Server::start([refused.clone(), canned::openai::text("never")]).unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the model call failed after 1 try (the provider said not to retry: x-should-retry: false); the last: {}",
            codec_sentence(Provider::OpenAi, &refused)
        )
    );
    assert!(sleep.waits().is_empty());

    let conflict = Exchange::new(
        400,
        canned::openai::error_body("try again", "invalid_request_error", None),
    )
    .with_header("x-should-retry", "true");
    let server = Server::start([conflict, canned::openai::text("second time")]).unwrap();
    let (mut model, sleep) = common::model(Provider::OpenAi, &server, config());
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "second time"
    );
    assert_eq!(sleep.waits(), [secs(0.5)]);
}

#[test]
fn one_try_allowed_means_no_retry() {
    let server = Server::start([
        canned::openai::server_error(),
        canned::openai::text("never"),
    ])
    .unwrap();
    let config = HttpConfig {
        max_tries: 1,
        ..config()
    };
    let (mut model, sleep) = model(Provider::OpenAi, &server, config);
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert!(
        error
            .message()
            .starts_with("the model call failed after 1 try (the most allowed); the last: the provider answered HTTP 500"),
        "{}",
        error.message()
    );
    assert!(sleep.waits().is_empty());
    assert_eq!(server.requests().len(), 1);
}
