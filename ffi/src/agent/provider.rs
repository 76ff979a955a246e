//! A real model for `agentloop_agent`: the provider's request body for the reply the
//! agent waits for, and the provider's answer fed back as that reply — so a C host does
//! only the HTTP.

use crate::agent::agentloop_agent;
use crate::boundary::boundary;
use crate::bytes::{handle, handle_mut, input, need, write_out};
use crate::provider::{self, note};
use crate::result::agentloop_result;
use agentloop_core::Hash;

/// Writes the request body for the model reply the agent waits for — the conversation
/// so far and the tools on offer in the wire format `provider` (an
/// `agentloop_provider` value) — to `(out_buf, out_cap)` and its length to `*out_len`
/// (canonical JSON, UTF-8, no NUL). POST it to `<base>/chat/completions`
/// (`AGENTLOOP_PROVIDER_OPENAI`) or `<base>/messages` (`AGENTLOOP_PROVIDER_ANTHROPIC`)
/// and hand the answer to `agentloop_agent_feed_response`. The same conversation and
/// options always give the same bytes.
///
/// The options `(options_ptr, options_len)` are a JSON object: `"model"` (a string,
/// required), `"max_output_tokens"` (an integer from 1 to 2^53 − 1; Anthropic requires
/// it), `"system"` (a string: the system prompt), and any other member copied into the
/// body as given (`"temperature"`, `"tool_choice"`, `"parallel_tool_calls"`, …) —
/// except the members the codec writes itself (`"messages"`, `"tools"`, …). No API key
/// goes here: keys belong in the HTTP headers, which the host writes.
///
/// Size query as `agentloop_json_canonicalize`: call with NULL to learn the length (the body
/// is built each time). Refusals, each leaving the agent unchanged:
/// `INVALID_ARGUMENT` for a provider number this library does not know;
/// `INVALID_STATE` when the last poll did not ask for a model reply (or one was fed
/// since); `INVALID_JSON` / `NO_CANONICAL_FORM` for options text the strict parser
/// refuses (invalid UTF-8 included); `REQUEST_REFUSED` for options the codec refuses
/// (no model, a bad `max_output_tokens`, a reserved member, Anthropic without
/// `max_output_tokens`) or a conversation that cannot be sent to that provider (an
/// Anthropic request may not end on an assistant message, as after resuming a run that
/// ended with `no_tool_calls`). After any of these, and after `NULL_PARAMETER` for a
/// NULL `out_len`, `agentloop_agent_request_error` gives the sentence. NULL `agent` is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `options_ptr` must point to
/// `options_len` readable bytes; `out_buf`, if not NULL, must point to `out_cap`
/// writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_request(
    agent: *mut agentloop_agent,
    provider: u32,
    options_ptr: *const u8,
    options_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let shown = || {
            agent.conversation().map_err(|code| {
                (
                    code,
                    String::from(
                        "the agent is not waiting for a model reply: poll until it asks for one",
                    ),
                )
            })
        };
        let out = (out_buf, out_cap, out_len);
        // SAFETY: this function's contract for the options bytes and the output.
        let outcome =
            unsafe { provider::write_request(provider, (options_ptr, options_len), shown, out) };
        note(&mut agent.request_refusal, outcome.map(|_| ()))
    })
}

/// Writes why the last `agentloop_agent_request` on this agent was refused — one
/// sentence naming the option or the message at fault, e.g. `the request options name
/// no model ("model" is missing or empty)` or `Anthropic requires max_tokens: set
/// max_output_tokens in the request options` — to `(out_buf, out_cap)` and its length
/// to `*out_len` (UTF-8, no NUL); the empty string (length 0, `OK`) when the last
/// request was not refused (or there was none, or it was a size query). Size query as
/// `agentloop_json_canonicalize`. NULL `agent` or `out_len` is `NULL_PARAMETER`. Not
/// thread-safe for one agent.
///
/// Empty output: no refused request gives the empty string, which fits any buffer: `OK`
/// with `*out_len` 0, even with a NULL buffer (so the size query answers `OK`, not
/// `INSUFFICIENT_SIZE`).
///
/// # Safety
/// `agent` must be a live agent from this library; `out_buf`, if not NULL, must point
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_request_error(
    agent: *const agentloop_agent,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live agent.
        let agent = unsafe { handle(agent) }?;
        let sentence = agent.request_refusal.as_deref().unwrap_or("");
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(sentence.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Feeds the provider's answer — its HTTP status (100 to 999) and body `(body_ptr,
/// body_len)`, any bytes — to the model reply the agent waits for, parsed in the wire
/// format `provider` (an `agentloop_provider` value):
///
/// - a reply (2xx with a message): its text, every tool call with its arguments (an
///   argument string that is not JSON becomes a call whose arguments fail the tool's
///   schema, as data), the output tokens the provider reported (they replace the
///   estimate) and what else it reported (model, response id, finish reason, input and
///   cached tokens) are fed as `agentloop_agent_feed_reply` feeds a reply;
/// - an error (a non-2xx status, an error body, a body that is not the provider's
///   shape): the run stops with `model_error`, the codec's sentence naming the status
///   and the provider's message (e.g. `the provider answered HTTP 401
///   (invalid_request_error, invalid_api_key): Incorrect API key provided`) in the
///   `stop` record, as `agentloop_agent_feed_model_error` does.
///
/// `(secret_ptr, secret_len)` is the API key the request was sent with (UTF-8; length
/// 0: none, for a server that takes no key). A provider may echo the key in an error
/// body: the sentence has it redacted before the provider's text is cut to its bound —
/// the whole key, and any run of 8 of its characters left by a cut (the key is not
/// kept). Without it, an echoed key reaches the transcript.
///
/// A reply records the SHA-256 of the body (`response_sha256` in the `assistant`
/// record's `provider` member), not of the request: a host that says what it sent
/// feeds the answer with `agentloop_agent_feed_exchange` instead.
///
/// Either way the answer was taken: `OK`; poll again (and take the records). To retry
/// an answer worth retrying (408, 409, 429, 5xx, Anthropic's 529 overloaded), post the
/// request again instead of feeding it.
///
/// Refusals, each leaving the agent unchanged and still waiting: `INVALID_ARGUMENT`
/// for a provider number this library does not know or a status outside 100..999 (0:
/// no answer was received); `INVALID_UTF8` for a secret that is not UTF-8;
/// `INVALID_STATE` when the last poll did not ask for a model reply. NULL `agent` (or
/// a NULL body or secret with a non-zero length) is `NULL_PARAMETER`. The body is not
/// kept. Not thread-safe for one agent.
///
/// # Safety
/// `agent` must be a live agent from this library; `body_ptr` must point to `body_len`
/// readable bytes, `secret_ptr` to `secret_len`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_response(
    agent: *mut agentloop_agent,
    provider: u32,
    status: u32,
    body_ptr: *const u8,
    body_len: usize,
    secret_ptr: *const u8,
    secret_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        let body = (body_ptr, body_len);
        let secret = (secret_ptr, secret_len);
        // SAFETY: this function's contract for the body and secret bytes.
        let answer = unsafe { provider::read_response(provider, status, None, body, secret) }
            .map_err(|(code, _)| code)?;
        agent.conversation()?;
        agent.feed_reply(answer)
    })
}

/// As `agentloop_agent_feed_response`, and says what was sent: `(sent_ptr, sent_len)`
/// is the exact request body the host posted for this answer (the bytes
/// `agentloop_agent_request` wrote, unless the host sent something else). A reply then
/// records the SHA-256 of both bodies (`request_sha256`, `response_sha256` in the
/// `assistant` record's `provider` member), so `agentloop verify --requests` can
/// rebuild the request from the transcript and prove it — and catches a host that sent
/// other bytes than the conversation the transcript holds. The sent bytes are hashed,
/// not kept or checked here.
///
/// Refusals, each leaving the agent unchanged and still waiting, as for
/// `agentloop_agent_feed_response`: `INVALID_ARGUMENT` for a provider number this
/// library does not know or a status outside 100..999; `INVALID_UTF8` for a secret
/// that is not UTF-8; `INVALID_STATE` when the last poll did not ask for a model reply.
/// NULL `agent` (or a NULL sent bytes, body or secret with a non-zero length) is
/// `NULL_PARAMETER`. Not thread-safe for one agent.
///
/// # Safety
/// As `agentloop_agent_feed_response`; `sent_ptr` must point to `sent_len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_agent_feed_exchange(
    agent: *mut agentloop_agent,
    provider: u32,
    sent_ptr: *const u8,
    sent_len: usize,
    status: u32,
    body_ptr: *const u8,
    body_len: usize,
    secret_ptr: *const u8,
    secret_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live agent used by no other thread.
        let agent = unsafe { handle_mut(agent) }?;
        // SAFETY: this function's contract for the sent bytes.
        let sent = Hash::of(unsafe { input(sent_ptr, sent_len) }?);
        let body = (body_ptr, body_len);
        let secret = (secret_ptr, secret_len);
        // SAFETY: this function's contract for the body and secret bytes.
        let answer = unsafe { provider::read_response(provider, status, Some(sent), body, secret) }
            .map_err(|(code, _)| code)?;
        agent.conversation()?;
        agent.feed_reply(answer)
    })
}
