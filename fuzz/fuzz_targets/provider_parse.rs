//! The provider codecs' response parsers (`Provider::parse` for each wire format) on
//! arbitrary bytes.
//!
//! Input: one byte choosing the HTTP status — below 0x80, one of the statuses providers
//! answer with (200, 201, 400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504,
//! 529); from 0x80, the next two bytes as any `u16` — then the body.
//!
//! Asserts, for both parsers: never a panic; the same answer twice; a non-2xx status
//! is always an error; every error carries the status and a non-empty sentence with no
//! control character in it (provider text is escaped) and of bounded length, and
//! parsed with a secret, no run of 8 of the secret's characters; a reply's
//! counts are at most 2^53 − 1 and its arguments have a canonical encoding; and what a
//! parser accepts, its codec can send back: the reply as the next assistant turn (its
//! calls answered) builds a request (for Anthropic, whenever that turn is not the last
//! message).
#![no_main]

use agentloop_core::anchor::MAX_SEQ;
use agentloop_core::jcs;
use agentloop_core::model::{Message, Reply, ToolCall};
use agentloop_core::provider::{Provider, RequestOptions};
use libfuzzer_sys::fuzz_target;

const STATUSES: [u16; 15] = [
    200, 201, 400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529,
];

/// Longest sentence: three quoted texts (message, type, code) of 1000 characters, each
/// character escaped to at most 6, plus the fixed words.
const MAX_SENTENCE_CHARS: usize = 3 * 1000 * 6 + 500;

fn split(data: &[u8]) -> (u16, &[u8]) {
    match data {
        [b, rest @ ..] if *b < 0x80 => (STATUSES[usize::from(*b) % STATUSES.len()], rest),
        [_, hi, lo, rest @ ..] => (u16::from_be_bytes([*hi, *lo]), rest),
        _ => (200, &[]),
    }
}

/// A key the body may echo (the fuzzer finds it in the dictionary or by chance).
const SECRET: &str = "sk-fuzz-0123456789abcdefghij";

/// Whether `sentence` holds 8 consecutive characters of [`SECRET`].
fn leaks(sentence: &str) -> bool {
    SECRET
        .as_bytes()
        .windows(agentloop_core::redact::MIN_RUN)
        .any(|run| sentence.contains(std::str::from_utf8(run).unwrap_or("")))
}

fn check(provider: Provider, status: u16, body: &[u8]) {
    let result = provider.parse(status, body, None);
    assert_eq!(result, provider.parse(status, body, None), "not deterministic");
    if let Err(error) = provider.parse(status, body, Some(SECRET)) {
        assert!(!leaks(error.message()), "{:?}", error.message());
    }
    match result {
        Err(error) => {
            assert_eq!(error.status(), Some(status));
            let sentence = error.message();
            assert!(!sentence.is_empty());
            assert!(
                !sentence
                    .chars()
                    .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'),
                "{sentence:?}"
            );
            assert!(sentence.chars().count() <= MAX_SENTENCE_CHARS);
        }
        Ok(reply) => {
            assert!((200..300).contains(&status), "a reply for HTTP {status}");
            for count in [
                reply.output_tokens,
                reply.provider.input_tokens,
                reply.provider.cached_input_tokens,
            ]
            .into_iter()
            .flatten()
            {
                assert!(count <= MAX_SEQ);
            }
            for (_, arguments) in &reply.tool_calls {
                assert!(jcs::to_vec(arguments).is_ok());
            }
            send_back(provider, &reply);
        }
    }
}

/// The reply as the next turn of a conversation, every call answered, sent again.
fn send_back(provider: Provider, reply: &Reply) {
    let calls: Vec<ToolCall> = reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, (name, arguments))| ToolCall {
            id: format!("call_1_{i}"),
            name: name.clone(),
            arguments: arguments.clone(),
        })
        .collect();
    let mut conversation = vec![Message::User { text: "t".into() }];
    conversation.push(Message::Assistant {
        text: reply.text.clone(),
        tool_calls: calls.clone(),
    });
    for call in &calls {
        conversation.push(Message::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            result: Err("no".into()),
        });
    }
    let mut options = RequestOptions::new("m");
    options.max_output_tokens = Some(1);
    let sent = provider.request(&conversation, &[], &options);
    // Text that is only white space is left out of an Anthropic request, as empty text is.
    let blank = reply.text.chars().all(char::is_whitespace);
    let ends_on_the_assistant = calls.is_empty() && !blank;
    if provider == Provider::OpenAi || !ends_on_the_assistant {
        assert!(sent.is_ok(), "{sent:?}");
    } else {
        assert!(sent.is_err());
    }
}

fuzz_target!(|data: &[u8]| {
    let (status, body) = split(data);
    check(Provider::OpenAi, status, body);
    check(Provider::Anthropic, status, body);
});
