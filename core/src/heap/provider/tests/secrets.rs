//! An API key a provider echoes in an error body never reaches the sentence: not
//! whole, and not the part before a cut (issue 28, item 1: a 164-character key echoed
//! where the 1000-character cut of a message, or the 200-character cut of a body that
//! is not JSON, fell inside it left 127 or 95 of its characters).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::provider::Provider;
use crate::redact::{MIN_RUN, REDACTED};

/// A key of 164 characters, as Anthropic's are.
const KEY: &str = concat!(
    "sk-ant-api03-",
    "HvIimtLOIodwaNNJZK19ImMMBaPEGa5Us0IL57ghsuqzRnO6rcIMA7xSorQFhi",
    "66RuHka4KMXECbw1zfXKYzQ19Y4gqqLOLTxlMvsia8BOMD69UWrsw5ZGf03Juf",
    "hNiyckbKqaPd36SdOP9CAbarjQc",
);

/// Whether `sentence` holds [`MIN_RUN`] consecutive characters of [`KEY`] (by std's
/// search, not the module's).
fn leaks(sentence: &str) -> bool {
    KEY.as_bytes()
        .windows(MIN_RUN)
        .any(|run| sentence.contains(core::str::from_utf8(run).unwrap()))
}

/// The error sentence for `body`, parsed with the key as the secret.
fn sentence(provider: Provider, status: u16, body: &str) -> String {
    let error = provider
        .parse(status, body.as_bytes(), Some(KEY))
        .unwrap_err();
    assert_eq!(error.status(), Some(status));
    String::from(error.message())
}

/// Error bodies echoing `echo` in every place a sentence quotes: the message, the
/// type, the code, the Ollama and vLLM shapes, and JSON that names no error.
fn bodies(echo: &str) -> Vec<String> {
    let echo = String::from(echo);
    Vec::from([
        format!(
            r#"{{"type":"error","error":{{"type":"authentication_error","message":"{echo}"}}}}"#
        ),
        format!(
            r#"{{"error":{{"message":"{echo}","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
        ),
        format!(r#"{{"error":{{"message":"m","type":"{echo}","code":"{echo}"}}}}"#),
        format!(r#"{{"error":"{echo}"}}"#),
        format!(r#"{{"object":"error","message":"{echo}","type":"BadRequestError"}}"#),
        format!(r#"{{"detail":"{echo}"}}"#),
        format!("Unauthorized: {echo}"),
    ])
}

#[test]
fn the_red_teams_echoes_leave_no_part_of_the_key() {
    assert_eq!(KEY.len(), 164);
    // The 1000-character cut 127 characters into the key, then 95 into it for a body
    // that is not JSON.
    let message = format!("{}{KEY}", "x".repeat(1000 - 127));
    let page = format!("Unauthorized: {}{KEY} end", "y".repeat(105 - 14));
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let body = format!(
            r#"{{"type":"error","error":{{"type":"authentication_error","message":"{message}"}}}}"#
        );
        let said = sentence(provider, 401, &body);
        assert_eq!(
            said,
            format!(
                "the provider answered HTTP 401 (authentication_error): {}[redacted]",
                "x".repeat(873)
            )
        );
        let said = sentence(provider, 401, &page);
        assert!(!leaks(&said), "{said}");
        assert!(
            said.ends_with(&format!(
                r#": "Unauthorized: {}[redacted] end""#,
                "y".repeat(91)
            )),
            "{said}"
        );
        // Parsed without the key (a caller that gives none), the codec cannot know it.
        let unredacted = provider.parse(401, page.as_bytes(), None).unwrap_err();
        assert!(leaks(unredacted.message()));
    }
}

#[test]
fn no_run_of_the_key_survives_wherever_it_is_echoed_and_cut() {
    let mut checked = 0;
    for at in (0..1010).filter(|at| *at < 220 || *at > 820) {
        let echo = format!("{}{KEY} — check your key", "z".repeat(at));
        for body in bodies(&echo) {
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                let said = sentence(provider, 401, &body);
                assert!(!leaks(&said), "{provider} {at}: {said}");
                checked += 1;
            }
        }
    }
    assert!(checked > 5000);
    // What the provider cut itself: the start of the key at the end of its message.
    for n in [MIN_RUN, 40, 163] {
        for body in bodies(&format!("bad key: {}", &KEY[..n])) {
            let said = sentence(Provider::Anthropic, 401, &body);
            assert!(!leaks(&said), "{n}: {said}");
            assert!(said.contains(REDACTED), "{n}: {said}");
        }
    }
}

#[test]
fn a_body_of_nothing_but_keys_is_cut_and_marked() {
    // Every character shown is a redaction; far more of the body is not read.
    let body = KEY.repeat(300);
    let said = sentence(Provider::OpenAi, 500, &body);
    assert!(!leaks(&said), "{said}");
    assert_eq!(
        said,
        format!(
            r#"the provider answered HTTP 500 with a body that is not JSON (49200 bytes; unexpected character 's' at byte 0): "{}…""#,
            REDACTED.repeat(20)
        )
    );
    // The start of a key a body ends with, cut after 10 of its characters: a run.
    let body = format!("{}{}", "q".repeat(190), &KEY[..100]);
    let said = sentence(Provider::Anthropic, 502, &body);
    assert!(
        said.ends_with(&format!(r#"{}[redacted]…""#, "q".repeat(190))),
        "{said}"
    );
}

/// The fuzzer's find: a control character before part of the key. Escaped as
/// `\u0010`, its last `0` and the 7 characters after it made 8 of the key's — a run
/// no step before the escaping could see.
#[test]
fn an_escape_does_not_complete_a_run_of_the_key() {
    let secret = "sk-fuzz-0123456789abcdefghij";
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        for body in [
            String::from("Unauthorized: \u{10}1234567 end"),
            String::from(r#"{"error":{"message":"bad \u00101234567 key"}}"#),
        ] {
            let error = provider
                .parse(401, body.as_bytes(), Some(secret))
                .unwrap_err();
            let sentence = error.message();
            assert!(sentence.contains(REDACTED), "{sentence}");
            assert!(
                !secret
                    .as_bytes()
                    .windows(MIN_RUN)
                    .any(|run| sentence.contains(core::str::from_utf8(run).unwrap())),
                "{sentence}"
            );
        }
    }
}
