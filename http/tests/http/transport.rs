//! Failures below the provider's answer: a slow answer past the call timeout, a body
//! cut short, a refused connection, a body over the size limit, a body that is not
//! JSON. Real time passes in the timeout tests (a few hundred milliseconds); nothing
//! asserts on durations.

use crate::common;

use std::time::Duration;

use agentloop_core::model::Model;
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_http::{HttpConfig, HttpModel, RecordedSleep};
use agentloop_standin::{canned, Server};
use common::{config, conversation, manifest, model, secs};

fn short_timeout() -> HttpConfig {
    HttpConfig {
        call_timeout: Duration::from_millis(300),
        ..config()
    }
}

#[test]
fn a_slow_answer_past_the_call_timeout_is_tried_again() {
    let server = Server::start([
        canned::openai::text("too late").with_delay(Duration::from_secs(30)),
        canned::openai::text("on time"),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, short_timeout());
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "on time"
    );
    assert_eq!(sleep.waits(), [secs(0.5)]);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn answers_that_all_come_too_late_fail_naming_the_timeout() {
    let slow = canned::anthropic::text("late").with_delay(Duration::from_secs(30));
    let server = Server::start([slow.clone(), slow]).unwrap();
    let config = HttpConfig {
        max_tries: 2,
        ..short_timeout()
    };
    let (mut model, sleep) = model(Provider::Anthropic, &server, config);
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        "the model call failed after 2 tries (the most allowed); the last: no whole answer within the call timeout (300ms)"
    );
    assert_eq!(error.status(), None);
    assert_eq!(sleep.waits(), [secs(0.5)]);
}

#[test]
fn a_body_cut_short_is_tried_again() {
    let server = Server::start([
        canned::openai::text("cut").cut_after(40),
        canned::openai::text("whole"),
    ])
    .unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "whole"
    );
    assert_eq!(sleep.waits(), [secs(0.5)]);
}

#[test]
fn bodies_that_are_all_cut_short_fail_saying_so() {
    let cut = canned::anthropic::text("cut").cut_after(10);
    let server = Server::start([cut.clone(), cut.clone(), cut]).unwrap();
    let config = HttpConfig {
        max_tries: 3,
        ..config()
    };
    let (mut model, sleep) = model(Provider::Anthropic, &server, config);
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert!(
        error.message().starts_with(
            "the model call failed after 3 tries (the most allowed); the last: the answer was cut short: "
        ),
        "{}",
        error.message()
    );
    assert_eq!(sleep.waits(), [secs(0.5), secs(1.0)]);
}

#[test]
fn a_refused_connection_is_tried_again_then_reported() {
    // A port that was just free: nothing listens on it.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let sleep = RecordedSleep::new();
    let mut model = HttpModel::with_config(
        Provider::OpenAi,
        &format!("http://127.0.0.1:{port}/v1"),
        RequestOptions::new("gpt-4.1"),
        None,
        HttpConfig {
            max_tries: 3,
            ..config()
        },
    )
    .unwrap()
    .with_sleep(sleep.clone());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert!(
        error.message().starts_with(
            "the model call failed after 3 tries (the most allowed); the last: the request got no answer: "
        ),
        "{}",
        error.message()
    );
    assert!(
        !error.message().contains(&port.to_string()),
        "no address in the sentence: {}",
        error.message()
    );
    assert_eq!(sleep.waits(), [secs(0.5), secs(1.0)]);
}

#[test]
fn a_body_over_the_limit_fails_naming_the_limit_and_is_not_retried() {
    let big = "x".repeat(2000);
    let server =
        Server::start([canned::openai::text(&big), canned::openai::text("small")]).unwrap();
    let config = HttpConfig {
        max_response_bytes: 1024,
        ..config()
    };
    let (mut model, sleep) = model(Provider::OpenAi, &server, config);
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        "the model call failed after 1 try (not retried); the last: the response body is larger than the 1 KiB limit (max_response_bytes)"
    );
    assert!(sleep.waits().is_empty());
    assert_eq!(server.remaining(), 1);

    // A body of exactly the limit is read.
    let exact = canned::openai::text("fits");
    let limit = exact.body.len() as u64;
    let server = Server::start([exact]).unwrap();
    let config = HttpConfig {
        max_response_bytes: limit,
        ..common::config()
    };
    let (mut model, _) = common::model(Provider::OpenAi, &server, config);
    assert_eq!(
        model.reply(&conversation(), &manifest()).unwrap().text,
        "fits"
    );
}

#[test]
fn a_body_that_is_not_json_is_not_retried() {
    let malformed = canned::malformed();
    let server = Server::start([malformed.clone(), canned::openai::text("never")]).unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    let codec = Provider::OpenAi
        .parse(200, &malformed.body, None)
        .unwrap_err()
        .message()
        .to_string();
    assert!(codec.starts_with("the provider answered HTTP 200 with a body that is not JSON"));
    assert_eq!(
        error.message(),
        format!("the model call failed after 1 try (HTTP 200 is not retried); the last: {codec}")
    );
    assert!(sleep.waits().is_empty());
    assert_eq!(server.remaining(), 1);
}

#[test]
fn a_gateway_page_is_tried_again_and_reported_as_the_codec_reads_it() {
    let page = canned::bad_gateway_html();
    let server = Server::start([page.clone(), page.clone()]).unwrap();
    let config = HttpConfig {
        max_tries: 2,
        ..config()
    };
    let (mut model, sleep) = model(Provider::Anthropic, &server, config);
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    let codec = Provider::Anthropic
        .parse(502, &page.body, None)
        .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the model call failed after 2 tries (the most allowed); the last: {}",
            codec.message()
        )
    );
    assert_eq!(error.status(), Some(502));
    assert_eq!(sleep.waits(), [secs(0.5)]);
}
