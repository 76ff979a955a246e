//! `agentloop_provider`: the wire formats a C host picks by number, and the one
//! implementation of the request and response exports of the agent
//! (`agentloop_agent_request`, `agentloop_agent_feed_response`) and of the callback
//! driver's reply (`agentloop_reply_request`, `agentloop_reply_parse`): reading the
//! provider number, the HTTP status and the request options, writing a request body
//! with a sentence for each refusal, and parsing an answer.

use agentloop_core::json;
use agentloop_core::model::{Message, ModelError, Reply};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::tools::ToolSpec;
use agentloop_core::Hash;

use crate::bytes::{input, need, opt_text, write_out};
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// A provider's wire format, as a `uint32_t` parameter of `agentloop_agent_request`,
/// `agentloop_agent_feed_response`, `agentloop_reply_request` and
/// `agentloop_reply_parse`. The numbers are stable and append-only; any other value is
/// refused with `AGENTLOOP_RESULT_INVALID_ARGUMENT` (never undefined behaviour).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_provider {
    /// OpenAI Chat Completions (`POST <base>/chat/completions`), which
    /// OpenAI-compatible servers also speak (vLLM, llama.cpp's server, Ollama,
    /// OpenRouter, Groq, Azure).
    Openai = 1,
    /// Anthropic Messages (`POST <base>/messages`).
    Anthropic = 2,
}

/// A failure with the sentence that says why, for the handle to keep.
pub(crate) type Refusal = (agentloop_result, String);

/// A bare result code as a refusal: its own sentence.
pub(crate) fn bare(code: agentloop_result) -> Refusal {
    (code, String::from(code.sentence()))
}

/// The provider a C number names.
pub(crate) fn provider(code: u32) -> Result<Provider, Refusal> {
    match code {
        1 => Ok(Provider::OpenAi),
        2 => Ok(Provider::Anthropic),
        _ => Err((
            agentloop_result::InvalidArgument,
            format!(
                "provider {code} is not one this library knows \
                 (AGENTLOOP_PROVIDER_OPENAI = 1, AGENTLOOP_PROVIDER_ANTHROPIC = 2)"
            ),
        )),
    }
}

/// An HTTP status as C passes it: three digits, 100 to 999.
pub(crate) fn status(code: u32) -> Result<u16, Refusal> {
    match u16::try_from(code) {
        Ok(status) if (100..=999).contains(&status) => Ok(status),
        _ => Err((
            agentloop_result::InvalidArgument,
            format!("HTTP status {code} is not a status from 100 to 999 (no answer to parse)"),
        )),
    }
}

/// The request options: the JSON object `bytes`, as `RequestOptions::from_json` takes
/// it.
pub(crate) fn options(bytes: &[u8]) -> Result<RequestOptions, Refusal> {
    let value = json::parse(bytes).map_err(|error| {
        (
            parse_error(error),
            format!("the request options are not JSON the strict parser accepts: {error}"),
        )
    })?;
    RequestOptions::from_json(&value)
        .map_err(|error| (agentloop_result::RequestRefused, error.to_string()))
}

/// Writes the request body for the conversation `shown` gives (the messages and the
/// tools on offer) in the wire format `provider`, with the options `(options_ptr,
/// options_len)`, to `(out_buf, out_cap)` and its length to `*out_len`: the one body
/// of `agentloop_agent_request` and `agentloop_reply_request`. The output length is
/// checked first, then the options and the provider; `shown` is asked last, so a bad
/// argument is named before the caller's state.
///
/// # Safety
/// `options_ptr` must point to `options_len` readable bytes; `out_buf`, if not NULL,
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
///
/// `Ok` holds the SHA-256 of the body written (a size query writes none: it is
/// `INSUFFICIENT_SIZE`).
pub(crate) unsafe fn write_request<'a>(
    provider: u32,
    (options_ptr, options_len): (*const u8, usize),
    shown: impl FnOnce() -> Result<(&'a [Message], &'a [ToolSpec]), Refusal>,
    (out_buf, out_cap, out_len): (*mut u8, usize, *mut usize),
) -> Result<Hash, Refusal> {
    need(out_len).map_err(bare)?;
    // SAFETY: the caller's contract for the options bytes.
    let options = unsafe { input(options_ptr, options_len) }.map_err(bare)?;
    let provider = self::provider(provider)?;
    let options = self::options(options)?;
    let (messages, manifest) = shown()?;
    let body = provider
        .request(messages, manifest, &options)
        .map_err(|error| (agentloop_result::RequestRefused, error.to_string()))?;
    // SAFETY: the caller's contract for the output buffer and out_len.
    unsafe { write_out(&body, out_buf, out_cap, out_len) }.map_err(bare)?;
    Ok(Hash::of(&body))
}

/// Reads a provider's answer from C — the provider number, the HTTP status, the body
/// `(body_ptr, body_len)` and the API key `(secret_ptr, secret_len)` it was sent with
/// (length 0: none) — and parses it: the one reading of `agentloop_agent_feed_response`
/// and `agentloop_reply_parse`. `Ok` holds the model's answer, a reply or the
/// provider's error (data, not a refusal); `Err` a refused argument. A reply reports
/// the SHA-256 of the body it was read from and, when `sent` says, of the request
/// body that was sent (`request_sha256`, `response_sha256` in its `provider` member).
///
/// # Safety
/// `body_ptr` must point to `body_len` readable bytes, `secret_ptr` to `secret_len`.
pub(crate) unsafe fn read_response(
    provider: u32,
    status: u32,
    sent: Option<Hash>,
    (body_ptr, body_len): (*const u8, usize),
    (secret_ptr, secret_len): (*const u8, usize),
) -> Result<Result<Reply, ModelError>, Refusal> {
    let provider = self::provider(provider)?;
    let status = self::status(status)?;
    // SAFETY: the caller's contract for the body bytes.
    let body = unsafe { input(body_ptr, body_len) }.map_err(bare)?;
    // SAFETY: the caller's contract for the secret bytes.
    let secret = unsafe { opt_text(secret_ptr, secret_len) }.map_err(bare)?;
    Ok(provider.parse(status, body, secret).map(|reply| {
        let mut report = reply.provider.clone().with_response_body(body);
        report.request_sha256 = sent;
        reply.with_provider(report)
    }))
}

/// Keeps a refusal's sentence in `slot` (the code goes back to C); a size query is not
/// a refusal and clears it.
pub(crate) fn note(slot: &mut Option<String>, outcome: Result<(), Refusal>) -> Outcome {
    match outcome {
        Ok(()) => {
            *slot = None;
            Ok(())
        }
        Err((agentloop_result::InsufficientSize, _)) => {
            *slot = None;
            Err(agentloop_result::InsufficientSize)
        }
        Err((code, sentence)) => {
            *slot = Some(sentence);
            Err(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_numbers_and_statuses_are_checked() {
        assert_eq!(provider(1), Ok(Provider::OpenAi));
        assert_eq!(provider(2), Ok(Provider::Anthropic));
        assert_eq!(agentloop_provider::Openai as u32, 1);
        assert_eq!(agentloop_provider::Anthropic as u32, 2);
        for bad in [0, 3, u32::MAX] {
            let (code, sentence) = provider(bad).unwrap_err();
            assert_eq!(code, agentloop_result::InvalidArgument);
            assert!(sentence.starts_with(&format!("provider {bad} is not")));
        }
        assert_eq!(status(100), Ok(100));
        assert_eq!(status(999), Ok(999));
        for bad in [0, 99, 1000, 65536 + 200] {
            assert_eq!(
                status(bad).unwrap_err().0,
                agentloop_result::InvalidArgument
            );
        }
    }

    #[test]
    fn a_size_query_clears_the_sentence_and_a_refusal_keeps_it() {
        let mut slot = Some(String::from("old"));
        assert_eq!(
            note(&mut slot, Err(bare(agentloop_result::InsufficientSize))),
            Err(agentloop_result::InsufficientSize)
        );
        assert_eq!(slot, None);
        let refusal = (agentloop_result::RequestRefused, String::from("why"));
        assert_eq!(
            note(&mut slot, Err(refusal)),
            Err(agentloop_result::RequestRefused)
        );
        assert_eq!(slot.as_deref(), Some("why"));
        assert_eq!(note(&mut slot, Ok(())), Ok(()));
        assert_eq!(slot, None);
    }
}
