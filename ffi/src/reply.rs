//! `agentloop_reply`: the model callback of `agentloop_run` writes its reply here.

use agentloop_core::json::Value;
use agentloop_core::model::{ModelError, Reply};

use crate::agent::tool_value;
use crate::boundary::boundary;
use crate::bytes::{handle_mut, input, text};
use crate::result::{agentloop_result, Outcome};

/// The reply a model callback builds: text, tool calls, reported tokens, or a failure.
/// The library makes it, hands it to the model callback of `agentloop_run` and reads
/// it when the callback returns: it is valid only during that callback, and the
/// callback must not free or keep it.
///
/// A callback that sets nothing ends the run with `model_error` ("the model callback
/// set no reply"); one that passes garbage (text that is not UTF-8, arguments that are
/// not JSON) gets the result code and the run ends with `model_error` and a sentence
/// saying what was refused — never a crash. An empty reply is `agentloop_reply_set_text`
/// with length 0.
pub struct agentloop_reply {
    text: String,
    calls: Vec<(String, Value)>,
    output_tokens: Option<u64>,
    error: Option<String>,
    /// The first input refused: the run stops with this as its model_error.
    refused: Option<String>,
    set: bool,
}

impl agentloop_reply {
    pub(crate) fn new() -> agentloop_reply {
        agentloop_reply {
            text: String::new(),
            calls: Vec::new(),
            output_tokens: None,
            error: None,
            refused: None,
            set: false,
        }
    }

    /// What the callback said, as the model's answer.
    pub(crate) fn into_result(self) -> Result<Reply, ModelError> {
        if let Some(sentence) = self.refused.or(self.error) {
            return Err(ModelError::new(sentence));
        }
        if !self.set {
            return Err(ModelError::new("the model callback set no reply"));
        }
        let mut reply = Reply::new(self.text);
        reply.tool_calls = self.calls;
        reply.output_tokens = self.output_tokens;
        Ok(reply)
    }

    /// Notes a refused input (the first one is kept) and passes the code on.
    fn refuse(&mut self, what: &str, code: agentloop_result) -> agentloop_result {
        if self.refused.is_none() {
            self.refused = Some(format!(
                "the model callback's {what} was refused: {}",
                code.sentence()
            ));
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
        reply.set = true;
        // SAFETY: the caller's contract for the byte input.
        match unsafe { text(ptr, len) } {
            Ok(text) => {
                reply.text = String::from(text);
                Ok(())
            }
            Err(code) => Err(reply.refuse("text", code)),
        }
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
        reply.set = true;
        let index = reply.calls.len();
        // SAFETY: the caller's contract for the byte input.
        let name = match unsafe { text(name_ptr, name_len) } {
            Ok(name) => String::from(name),
            Err(code) => return Err(reply.refuse(&format!("call {index} name"), code)),
        };
        // SAFETY: as above.
        let parsed: Outcome<Value> =
            unsafe { input(arguments_ptr, arguments_len) }.and_then(tool_value);
        match parsed {
            // tool_value stands for a number with no canonical encoding by a NaN, which
            // the loop's reply check refuses with its own sentence.
            Ok(Value::Number(n)) if n.is_nan() => {
                reply.calls.push((name, Value::Number(n)));
                Err(agentloop_result::NoCanonicalForm)
            }
            Ok(arguments) => {
                reply.calls.push((name, arguments));
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
        reply.set = true;
        reply.output_tokens = Some(tokens);
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
        reply.set = true;
        // SAFETY: the caller's contract for the byte input.
        match unsafe { text(ptr, len) } {
            Ok(sentence) => {
                reply.error = Some(String::from(sentence));
                Ok(())
            }
            Err(code) => Err(reply.refuse("error sentence", code)),
        }
    })
}
