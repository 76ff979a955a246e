//! `agentloop_reply`: the model callback of `agentloop_driver_run` writes its reply here.

use agentloop_core::json::Value;
use agentloop_core::model::{Message, ModelError, Reply};
use agentloop_core::tools::ToolSpec;
use agentloop_core::Hash;

use crate::answer::{provider_report, read_model_error, Answer};
use crate::boundary::boundary;
use crate::bytes::{handle_mut, input, text};
use crate::provider::{self, note, Refusal};
use crate::result::{agentloop_result, Outcome};
use crate::tool_result::read_value;

/// The reply a model callback builds: text, tool calls, reported tokens, or a failure.
/// The library makes it, hands it to the model callback of `agentloop_driver_run` and reads
/// it when the callback returns: it is valid only during that callback, and the
/// callback must not free or keep it.
///
/// A callback that sets nothing ends the run with `model_error` ("the model callback
/// set no reply"); one that passes garbage (text that is not UTF-8, arguments that are
/// not JSON) gets the result code and the run ends with `model_error` and a sentence
/// saying what was refused — never a crash. An empty reply is `agentloop_reply_set_text`
/// with length 0.
///
/// For a real model the reply also holds the turn's conversation and tools:
/// `agentloop_reply_request` builds a provider's request body from them and
/// `agentloop_reply_parse` fills the reply from the provider's answer.
pub struct agentloop_reply {
    /// What the callback said so far.
    answer: Answer,
    /// The first input refused: the run stops with this as its model_error.
    refused: Option<String>,
    /// The conversation and the tools on offer the callback was given.
    messages: Vec<Message>,
    manifest: Vec<ToolSpec>,
    /// Why the last `agentloop_reply_request` was refused: the run's model_error when
    /// the callback sets nothing else.
    request_refusal: Option<String>,
    /// The SHA-256 of the last body `agentloop_reply_request` wrote: the request a
    /// parsed answer (`agentloop_reply_parse`) reports having been sent.
    sent: Option<Hash>,
}

impl agentloop_reply {
    /// An empty reply for a turn shown `messages` and `manifest`.
    pub(crate) fn new(messages: &[Message], manifest: &[ToolSpec]) -> agentloop_reply {
        agentloop_reply {
            answer: Answer::default(),
            refused: None,
            messages: messages.to_vec(),
            manifest: manifest.to_vec(),
            request_refusal: None,
            sent: None,
        }
    }

    /// What the callback said, as the model's answer.
    pub(crate) fn into_result(self) -> Result<Reply, ModelError> {
        if let Some(sentence) = self.refused {
            return Err(ModelError::new(sentence));
        }
        if let (false, Some(sentence)) = (self.answer.is_set(), self.request_refusal) {
            return Err(ModelError::new(format!(
                "the request body could not be built: {sentence}"
            )));
        }
        self.answer.finish()
    }

    /// Gives what a setter read to the answer, or notes its refusal as `what`'s.
    fn apply<T>(
        &mut self,
        what: &str,
        read: Outcome<T>,
        set: impl FnOnce(&mut Answer, T),
    ) -> Outcome {
        match read {
            Ok(value) => {
                set(&mut self.answer, value);
                Ok(())
            }
            Err(code) => Err(self.refuse(what, code)),
        }
    }

    /// Notes a refused input (the first one is kept) and passes the code on.
    fn refuse(&mut self, what: &str, code: agentloop_result) -> agentloop_result {
        self.refuse_saying(what, (code, String::from(code.sentence())))
    }

    /// As [`Self::refuse`], with the sentence that says why.
    fn refuse_saying(&mut self, what: &str, (code, why): Refusal) -> agentloop_result {
        if self.refused.is_none() {
            self.refused = Some(format!("the model callback's {what} was refused: {why}"));
        }
        code
    }
}

/// Sets the reply's text `(ptr, len)` (UTF-8; length 0 is the empty text), replacing
/// any text set before. Text that is not UTF-8 is `INVALID_UTF8` and ends the run with
/// `model_error`. NULL `reply` is `NULL_PARAMETER`. Call it only from the model
/// callback that was given `reply`.
///
/// # Safety
/// `reply` must be the reply handed to the running model callback; `ptr` must point to
/// `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_set_text(
    reply: *mut agentloop_reply,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        // SAFETY: the caller's contract for the byte input.
        let read = unsafe { text(ptr, len) };
        reply.apply("text", read, Answer::set_text)
    })
}

/// Adds a tool call: the tool's name `(name_ptr, name_len)` (UTF-8) and its arguments
/// `(arguments_ptr, arguments_len)` (a JSON document), after the calls added before.
/// Refused input — `INVALID_UTF8`, `INVALID_JSON` — ends the run with `model_error`.
/// Arguments with a number that has no canonical encoding (`1e400`) give
/// `NO_CANONICAL_FORM` and, as in the Rust loop, a `model_error` stop: "the model's
/// reply cannot be recorded: …". NULL `reply` is `NULL_PARAMETER`. Call it only from
/// the model callback that was given `reply`.
///
/// # Safety
/// As `agentloop_reply_set_text`, for both byte inputs.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_add_call(
    reply: *mut agentloop_reply,
    name_ptr: *const u8,
    name_len: usize,
    arguments_ptr: *const u8,
    arguments_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        let index = reply.answer.call_count();
        // SAFETY: the caller's contract for the byte input.
        let name = match unsafe { text(name_ptr, name_len) } {
            Ok(name) => String::from(name),
            Err(code) => return Err(reply.refuse(&format!("call {index} name"), code)),
        };
        // SAFETY: as above.
        let parsed: Outcome<Value> = unsafe { read_value(arguments_ptr, arguments_len) };
        match parsed {
            // read_value stands for a number with no canonical encoding by a NaN, which
            // the loop's reply check refuses with its own sentence.
            Ok(Value::Number(n)) if n.is_nan() => {
                reply.answer.add_call(name, Value::Number(n));
                Err(agentloop_result::NoCanonicalForm)
            }
            Ok(arguments) => {
                reply.answer.add_call(name, arguments);
                Ok(())
            }
            Err(code) => Err(reply.refuse(&format!("call {index} ('{name}') arguments"), code)),
        }
    })
}

/// Sets the turn's real output tokens, which replace the loop's estimate
/// (`max(1, chars / 4)`). Above 2^53 − 1 the run stops with `model_error`, as in the
/// Rust loop. NULL `reply` is `NULL_PARAMETER`.
///
/// # Safety
/// `reply` must be the reply handed to the running model callback.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_set_output_tokens(
    reply: *mut agentloop_reply,
    tokens: u64,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        reply.answer.set_output_tokens(tokens);
        Ok(())
    })
}

/// Says the model failed: the sentence `(ptr, len)` (UTF-8; empty becomes "the model
/// failed without saying why") goes into the `stop` record's `error` and the run stops
/// with `model_error`, whatever else was set. A sentence that is not UTF-8 is
/// `INVALID_UTF8` (the run still stops, saying that). NULL `reply` is `NULL_PARAMETER`.
///
/// # Safety
/// As `agentloop_reply_set_text`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_set_error(
    reply: *mut agentloop_reply,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        // SAFETY: the caller's contract for the byte input.
        let read = unsafe { read_model_error(ptr, len) };
        reply.apply("error sentence", read, Answer::set_error)
    })
}

/// Writes the request body for this turn — the conversation and the tools the model
/// callback was given, in the wire format `provider` (an `agentloop_provider` value) —
/// to `(out_buf, out_cap)` and its length to `*out_len` (canonical JSON, no NUL), as
/// `agentloop_agent_request` does for an agent: the same options `(options_ptr,
/// options_len)` (a JSON object with `"model"`, `"max_output_tokens"`, `"system"` and
/// members copied as given), the same bytes for the same conversation, the same size
/// query and refusals (`INVALID_ARGUMENT` for an unknown provider, `INVALID_JSON` /
/// `NO_CANONICAL_FORM` for options text the strict parser refuses, `REQUEST_REFUSED`
/// for options the codec refuses). POST it to `<base>/chat/completions` or
/// `<base>/messages`, then fill the reply with `agentloop_reply_parse`.
///
/// It sets nothing in the reply. But when it is refused and the callback then returns
/// without setting anything, the run stops with `model_error` and the refusal's
/// sentence: "the request body could not be built: the request options name no model
/// (…)". NULL `reply` or `out_len` is `NULL_PARAMETER`. Call it only from the model
/// callback that was given `reply`.
///
/// # Safety
/// `reply` must be the reply handed to the running model callback; `options_ptr` must
/// point to `options_len` readable bytes; `out_buf`, if not NULL, must point to
/// `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_request(
    reply: *mut agentloop_reply,
    provider: u32,
    options_ptr: *const u8,
    options_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        let shown = || Ok((&reply.messages[..], &reply.manifest[..]));
        let out = (out_buf, out_cap, out_len);
        // SAFETY: this function's contract for the options bytes and the output.
        let outcome =
            unsafe { provider::write_request(provider, (options_ptr, options_len), shown, out) };
        let outcome = outcome.map(|digest| reply.sent = Some(digest));
        note(&mut reply.request_refusal, outcome)
    })
}

/// Fills the reply from the provider's answer — its HTTP status (100 to 999) and body
/// `(body_ptr, body_len)`, any bytes — parsed in the wire format `provider` (an
/// `agentloop_provider` value), replacing whatever was set before:
///
/// - a reply (2xx with a message): its text, every tool call with its arguments (an
///   argument string that is not JSON becomes a call whose arguments fail the tool's
///   schema, as data), the output tokens the provider reported (they replace the
///   estimate) and what else it reported (model, response id, finish reason, input and
///   cached tokens);
/// - an error (a non-2xx status, an error body, a body that is not the provider's
///   shape): the reply's model error, with the codec's sentence naming the status and
///   the provider's message, e.g. `the provider answered HTTP 429 (rate_limit_error):
///   …`; when the callback returns, the run stops with `model_error` and that sentence.
///
/// A reply records the SHA-256 of the answer's body (`response_sha256`) and of the
/// last body `agentloop_reply_request` wrote for this turn (`request_sha256`; none when
/// it wrote none), so `agentloop verify --requests` can prove what was sent.
///
/// `(secret_ptr, secret_len)` is the API key the request was sent with (UTF-8; length
/// 0: none, for a server that takes no key). A provider may echo the key in an error
/// body: the sentence has it redacted before the provider's text is cut to its bound —
/// the whole key, and any run of 8 of its characters left by a cut (the key is not
/// kept). Without it, an echoed key reaches the transcript.
///
/// Either way the answer was taken: `OK`. To retry an answer worth retrying (408, 409,
/// 429, 5xx, Anthropic's 529 overloaded), post again and parse the new answer: it
/// replaces the old one.
///
/// Refused, ending the run with `model_error` as the other `agentloop_reply_*` inputs
/// do: `INVALID_ARGUMENT` for a provider number this library does not know or a status
/// outside 100..999 (0: no answer was received); `INVALID_UTF8` for a secret that is
/// not UTF-8; `NULL_PARAMETER` for a NULL body or secret with a non-zero length. NULL
/// `reply` is `NULL_PARAMETER`. The body is not kept. Call it only from the model
/// callback that was given `reply`.
///
/// # Safety
/// `reply` must be the reply handed to the running model callback; `body_ptr` must
/// point to `body_len` readable bytes, `secret_ptr` to `secret_len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_parse(
    reply: *mut agentloop_reply,
    provider: u32,
    status: u32,
    body_ptr: *const u8,
    body_len: usize,
    secret_ptr: *const u8,
    secret_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        let body = (body_ptr, body_len);
        let secret = (secret_ptr, secret_len);
        // SAFETY: this function's contract for the body and secret bytes.
        let read = unsafe { provider::read_response(provider, status, reply.sent, body, secret) };
        let answer = match read {
            Ok(answer) => answer,
            Err(refusal) => return Err(reply.refuse_saying("provider response", refusal)),
        };
        reply.answer.set_parsed(answer);
        Ok(())
    })
}

/// Sets what the provider reported besides text, calls and output tokens, for a host
/// that parses its provider's answers itself: a JSON object `(ptr, len)` with any of
/// `"model"`, `"response_id"`, `"finish_reason"` (strings, as the provider spelled
/// them) and `"input_tokens"`, `"cached_input_tokens"` (integers from 0 to
/// 2^53 − 1), replacing the report set before (`{}` clears it). It does not count as a
/// reply by itself: set the text or calls too.
///
/// Refused, ending the run with `model_error` as the other `agentloop_reply_*` inputs
/// do: `INVALID_JSON` / `NO_CANONICAL_FORM` for text the strict parser refuses;
/// `INVALID_ARGUMENT` for anything but an object of those members with those types.
/// NULL `reply` is `NULL_PARAMETER`. Call it only from the model callback that was
/// given `reply`.
///
/// # Safety
/// As `agentloop_reply_set_text`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_reply_set_provider_json(
    reply: *mut agentloop_reply,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live reply of the running callback.
        let reply = unsafe { handle_mut(reply) }?;
        // SAFETY: the caller's contract for the byte input.
        let read = unsafe { input(ptr, len) }.and_then(provider_report);
        reply.apply("provider report", read, Answer::set_provider)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::provider::Provider;
    use agentloop_standin::canned;

    fn parse(reply: &mut agentloop_reply, provider: u32, status: u16, body: &[u8]) {
        // SAFETY: a live reply and a valid body.
        let code = unsafe {
            agentloop_reply_parse(
                reply,
                provider,
                status.into(),
                body.as_ptr(),
                body.len(),
                core::ptr::null(),
                0,
            )
        };
        assert_eq!(code, agentloop_result::Ok);
    }

    /// The reply the callback builds is exactly the codec's: text, calls, output
    /// tokens and the provider's report (model, id, finish reason, input and cached
    /// tokens); an error keeps its status.
    #[test]
    fn a_parsed_answer_is_the_codecs_reply_with_its_report() {
        let calls = [("add", r#"{"a":2,"b":40}"#), ("add", "not json")];
        for (number, provider, exchange) in [
            (1, Provider::OpenAi, canned::openai::tool_calls(&calls)),
            (1, Provider::OpenAi, canned::openai::rate_limited(3)),
            (
                2,
                Provider::Anthropic,
                canned::anthropic::tool_use(Some("x"), &calls[..1]),
            ),
            (2, Provider::Anthropic, canned::anthropic::overloaded()),
        ] {
            let mut reply = agentloop_reply::new(&[], &[]);
            parse(&mut reply, number, exchange.status, &exchange.body);
            // A parsed reply records the SHA-256 of the body it was read from (no
            // request body was written for this turn, so no request digest).
            let expected = provider
                .parse(exchange.status, &exchange.body, None)
                .map(|reply| {
                    let report = reply.provider.clone().with_response_body(&exchange.body);
                    reply.with_provider(report)
                });
            if let Ok(reply) = &expected {
                assert!(reply.provider.model.is_some() && reply.provider.input_tokens.is_some());
                assert!(reply.output_tokens.is_some());
            } else {
                assert_eq!(
                    expected.as_ref().unwrap_err().status(),
                    Some(exchange.status)
                );
            }
            assert_eq!(reply.into_result(), expected);
        }
    }

    fn set_report(reply: &mut agentloop_reply, json: &[u8]) -> agentloop_result {
        // SAFETY: a live reply and a valid input.
        unsafe { agentloop_reply_set_provider_json(reply, json.as_ptr(), json.len()) }
    }

    #[test]
    fn a_report_set_by_hand_is_kept_and_a_bad_one_ends_the_run() {
        let mut reply = agentloop_reply::new(&[], &[]);
        let json = br#"{"cached_input_tokens":0,"finish_reason":"STOP","input_tokens":9007199254740991,"model":"gemini-2.5","response_id":"r-1"}"#;
        assert_eq!(set_report(&mut reply, json), agentloop_result::Ok);
        // SAFETY: a live reply and valid text.
        unsafe { agentloop_reply_set_text(&mut reply, b"hi".as_ptr(), 2) };
        let kept = reply.into_result().unwrap().provider;
        assert_eq!(kept.model.as_deref(), Some("gemini-2.5"));
        assert_eq!(kept.response_id.as_deref(), Some("r-1"));
        assert_eq!(kept.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(kept.input_tokens, Some((1 << 53) - 1));
        assert_eq!(kept.cached_input_tokens, Some(0));

        let mut reply = agentloop_reply::new(&[], &[]);
        assert_eq!(set_report(&mut reply, json), agentloop_result::Ok);
        assert_eq!(set_report(&mut reply, b"{}"), agentloop_result::Ok);
        // SAFETY: a live reply and valid text.
        unsafe { agentloop_reply_set_text(&mut reply, b"hi".as_ptr(), 2) };
        assert!(reply.into_result().unwrap().provider.is_empty());

        for (json, code) in [
            (&b""[..], agentloop_result::InvalidJson),
            (b"{\"model\":\"\xff\"}", agentloop_result::InvalidJson),
            (
                br#"{"input_tokens":1e400}"#,
                agentloop_result::NoCanonicalForm,
            ),
            (b"[]", agentloop_result::InvalidArgument),
            (br#"{"model":7}"#, agentloop_result::InvalidArgument),
            (
                br#"{"input_tokens":"7"}"#,
                agentloop_result::InvalidArgument,
            ),
            (br#"{"input_tokens":-1}"#, agentloop_result::InvalidArgument),
            (
                br#"{"input_tokens":1.5}"#,
                agentloop_result::InvalidArgument,
            ),
            (
                br#"{"cached_input_tokens":9007199254740992}"#,
                agentloop_result::InvalidArgument,
            ),
            (br#"{"output_tokens":1}"#, agentloop_result::InvalidArgument),
        ] {
            let mut reply = agentloop_reply::new(&[], &[]);
            // SAFETY: a live reply and valid text.
            unsafe { agentloop_reply_set_text(&mut reply, b"hi".as_ptr(), 2) };
            assert_eq!(
                set_report(&mut reply, json),
                code,
                "{}",
                String::from_utf8_lossy(json)
            );
            let error = reply.into_result().unwrap_err();
            assert_eq!(
                error.message(),
                format!(
                    "the model callback's provider report was refused: {}",
                    code.sentence()
                )
            );
        }
        // SAFETY: NULL reply.
        let r =
            unsafe { agentloop_reply_set_provider_json(core::ptr::null_mut(), b"{}".as_ptr(), 2) };
        assert_eq!(r, agentloop_result::NullParameter);
    }
}
