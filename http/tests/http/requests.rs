//! What reaches the provider: the method, path, headers and the codec's exact body;
//! the key in its header and nowhere else; nothing sent when there is nothing to send.

use crate::common;

use agentloop_core::model::Model;
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::Hash;
use agentloop_http::{HttpModel, RecordedSleep};
use agentloop_standin::{canned, Exchange, Request, Server};
use common::{
    config, conversation, leaks, manifest, model, options, set_key, KEY, KEY_VARIABLE, LONG_KEY,
    LONG_KEY_VARIABLE, UNSET_VARIABLE,
};

fn only_request(server: &Server) -> Request {
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    requests.into_iter().next().unwrap()
}

#[test]
fn openai_requests_carry_the_codec_body_and_a_bearer_key() {
    let server = Server::start([canned::openai::text("hi")]).unwrap();
    let (mut model, _) = model(Provider::OpenAi, &server, config());
    model.reply(&conversation(), &manifest()).unwrap();
    let request = only_request(&server);
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_eq!(request.header("user-agent"), Some("agentloop/0.1.0"));
    assert_eq!(request.header("x-api-key"), None);
    assert_eq!(request.header("anthropic-version"), None);
    let expected = Provider::OpenAi
        .request(&conversation(), &manifest(), &options(Provider::OpenAi))
        .unwrap();
    assert_eq!(request.body, expected);
    assert_eq!(
        request.header("content-length"),
        Some(expected.len().to_string().as_str())
    );
}

/// The reply reports the SHA-256 of the body the provider received and of the body it
/// answered with, for both providers; after a retry, the answer is the successful
/// try's.
#[test]
fn the_reply_reports_the_digests_of_the_bodies_sent_and_received() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let (busy, answer) = match provider {
            Provider::OpenAi => (canned::openai::rate_limited(0), canned::openai::text("hi")),
            Provider::Anthropic => (
                canned::anthropic::overloaded(),
                canned::anthropic::text("hi"),
            ),
        };
        let server = Server::start([busy, answer.clone()]).unwrap();
        let (mut model, _) = model(provider, &server, config());
        let reply = model.reply(&conversation(), &manifest()).unwrap();
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let report = &reply.provider;
        assert_eq!(
            report.request_sha256,
            Some(Hash::of(&requests[1].body)),
            "{provider}"
        );
        assert_eq!(
            report.response_sha256,
            Some(Hash::of(&answer.body)),
            "{provider}"
        );
    }
}

#[test]
fn anthropic_requests_carry_x_api_key_and_the_version() {
    let server = Server::start([canned::anthropic::text("hi")]).unwrap();
    let (mut model, _) = model(Provider::Anthropic, &server, config());
    model.reply(&conversation(), &manifest()).unwrap();
    let request = only_request(&server);
    assert_eq!(request.target, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    let expected = Provider::Anthropic
        .request(&conversation(), &manifest(), &options(Provider::Anthropic))
        .unwrap();
    assert_eq!(request.body, expected);
}

#[test]
fn no_key_variable_sends_no_key_header() {
    for (provider, answer) in [
        (Provider::OpenAi, canned::openai::text("hi")),
        (Provider::Anthropic, canned::anthropic::text("hi")),
    ] {
        let server = Server::start([answer]).unwrap();
        let mut model = HttpModel::with_config(
            provider,
            &format!("{}/v1", server.url()),
            options(provider),
            None,
            config(),
        )
        .unwrap();
        model.reply(&conversation(), &manifest()).unwrap();
        let request = only_request(&server);
        assert_eq!(request.header("authorization"), None, "{provider}");
        assert_eq!(request.header("x-api-key"), None, "{provider}");
        let version = request.header("anthropic-version");
        assert_eq!(version.is_some(), provider == Provider::Anthropic);
    }
}

#[test]
fn an_unset_key_variable_fails_the_turn_without_a_request() {
    let server = Server::start([canned::openai::text("never")]).unwrap();
    let mut model = HttpModel::with_config(
        Provider::OpenAi,
        &server.url(),
        options(Provider::OpenAi),
        Some(UNSET_VARIABLE),
        config(),
    )
    .unwrap();
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!("the model request was not sent: the API key variable {UNSET_VARIABLE} is not set")
    );
    assert_eq!(error.status(), None);
    assert!(server.requests().is_empty());
}

#[test]
fn the_key_is_read_when_a_call_is_made() {
    const LATE: &str = "AGENTLOOP_HTTP_TEST_KEY_SET_LATE";
    let server = Server::start([canned::openai::text("hi")]).unwrap();
    let mut model = HttpModel::with_config(
        Provider::OpenAi,
        &server.url(),
        options(Provider::OpenAi),
        Some(LATE),
        config(),
    )
    .unwrap();
    assert!(model.reply(&conversation(), &manifest()).is_err());
    std::env::set_var(LATE, "sk-late");
    model.reply(&conversation(), &manifest()).unwrap();
    assert_eq!(
        only_request(&server).header("authorization"),
        Some("Bearer sk-late")
    );
}

#[test]
fn a_request_the_codec_refuses_is_not_sent() {
    let server = Server::start([canned::anthropic::text("never")]).unwrap();
    // Anthropic requires max_tokens.
    let mut model = HttpModel::with_config(
        Provider::Anthropic,
        &server.url(),
        RequestOptions::new("claude-sonnet-4-20250514"),
        Some(KEY_VARIABLE),
        config(),
    )
    .unwrap();
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        "the model request was not sent: Anthropic requires max_tokens: set max_output_tokens in the request options"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn the_key_is_in_no_error_and_no_debug_print() {
    // A server that echoes the key it got, as some OpenAI-compatible servers do.
    let echo = Exchange::new(
        401,
        canned::openai::error_body(
            &format!("Incorrect API key provided: {KEY}."),
            "invalid_request_error",
            Some("invalid_api_key"),
        ),
    );
    let server = Server::start([echo]).unwrap();
    let (mut model, _) = model(Provider::OpenAi, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert!(!error.message().contains(KEY), "{}", error.message());
    assert!(
        error
            .message()
            .ends_with("Incorrect API key provided: [redacted]."),
        "{}",
        error.message()
    );
    assert!(!format!("{error:?}").contains(KEY));
    let debug = format!("{model:?}");
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains(KEY_VARIABLE), "{debug}");
    // The key did reach the server, in its header.
    assert_eq!(
        only_request(&server).header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

/// The red team's case, through the HTTP path: a 164-character key echoed where the
/// codec cuts the provider's text — the 1000-character cut of a message fell 127
/// characters into it, the 200-character cut of a body that is not JSON 95 — left
/// that much of the key in the error. It is redacted before the cut: no run of 8 of
/// its characters is left, for either provider and every shape of error.
#[test]
fn a_long_key_echoed_where_the_text_is_cut_leaves_no_part_of_it() {
    set_key();
    assert_eq!(LONG_KEY.len(), 164);
    let message = format!("{}{LONG_KEY}", "x".repeat(1000 - 127));
    let page = format!("Unauthorized: {}{LONG_KEY} end", "y".repeat(105 - 14));
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let bodies = [
            canned::openai::error_body(&message, "invalid_request_error", Some("invalid_api_key")),
            canned::anthropic::error_body("authentication_error", &message),
            page.clone(),
        ];
        for body in bodies {
            let server = Server::start([Exchange::new(401, body.clone())]).unwrap();
            let mut model = HttpModel::with_config(
                provider,
                &format!("{}/v1", server.url()),
                options(provider),
                Some(LONG_KEY_VARIABLE),
                config(),
            )
            .unwrap();
            let error = model.reply(&conversation(), &manifest()).unwrap_err();
            let sentence = error.message();
            assert!(!leaks(sentence, LONG_KEY), "{provider}: {sentence}");
            assert!(sentence.contains("[redacted]"), "{provider}: {sentence}");
            assert!(!format!("{error:?}").contains(&LONG_KEY[..8]));
            assert_eq!(error.status(), Some(401));
            // The key did go out, in its header.
            let (header, value) = match provider {
                Provider::OpenAi => ("authorization", format!("Bearer {LONG_KEY}")),
                Provider::Anthropic => ("x-api-key", LONG_KEY.to_string()),
            };
            assert_eq!(only_request(&server).header(header), Some(value.as_str()));
        }
    }
}

#[test]
fn a_recorded_sleep_is_shared_by_its_clones() {
    let sleep = RecordedSleep::new();
    let mut clone = sleep.clone();
    agentloop_http::Sleep::sleep(&mut clone, common::secs(1.5));
    assert_eq!(sleep.waits(), [common::secs(1.5)]);
}

#[test]
fn a_key_a_header_cannot_carry_is_refused_without_showing_it() {
    const BAD: &str = "AGENTLOOP_HTTP_TEST_KEY_WITH_NEWLINE";
    std::env::set_var(BAD, "sk-line\nbreak");
    let server = Server::start([canned::openai::text("never")]).unwrap();
    let mut model = HttpModel::with_config(
        Provider::OpenAi,
        &server.url(),
        options(Provider::OpenAi),
        Some(BAD),
        config(),
    )
    .unwrap();
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        format!("the model request was not sent: the API key in {BAD} has a character a header cannot carry (only printable ASCII can be sent)")
    );
    assert!(!error.message().contains("sk-line"));
    assert!(server.requests().is_empty());
}

#[test]
fn a_redirect_is_not_followed_so_the_key_goes_nowhere_else() {
    let elsewhere = Server::start([canned::openai::text("never")]).unwrap();
    let redirect = Exchange::new(307, "").with_header(
        "Location",
        &format!("{}/v1/chat/completions", elsewhere.url()),
    );
    let server = Server::start([redirect]).unwrap();
    let (mut model, sleep) = model(Provider::OpenAi, &server, config());
    let error = model.reply(&conversation(), &manifest()).unwrap_err();
    assert_eq!(
        error.message(),
        "the model call failed after 1 try (HTTP 307 is not retried); the last: the provider answered HTTP 307 with an empty body"
    );
    assert!(elsewhere.requests().is_empty());
    assert!(sleep.waits().is_empty());
}
