//! `agentloop_tool_result`: a tool callback of `agentloop_driver_run` writes its result
//! here; and the one reading of a tool's value or failure from C, for it and for the
//! agent's `agentloop_agent_feed_tool_result(_for)` / `_feed_tool_error(_for)`.

use agentloop_core::json::{self, Value};
use agentloop_core::tools::ToolError;

use crate::boundary::boundary;
use crate::bytes::{handle_mut, input, text};
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// The result a tool gave as JSON text: its value, or — for a number with no canonical
/// encoding — the value the Rust loop records as `ok:false` ("returned a value with no
/// canonical encoding"). Text that is not JSON is `INVALID_JSON`.
pub(crate) fn tool_value(bytes: &[u8]) -> Outcome<Value> {
    match json::parse(bytes) {
        Ok(value) => Ok(value),
        // The core turns a value it cannot encode into the SPEC's ok:false record;
        // a NaN stands for "the number the tool gave has no canonical encoding".
        Err(error) if error.is_unserialisable() => Ok(Value::Number(f64::NAN)),
        Err(error) => Err(parse_error(error)),
    }
}

/// Reads a tool's value, the JSON document `(ptr, len)`, as [`tool_value`] does.
///
/// # Safety
/// `ptr` must point to `len` readable bytes.
pub(crate) unsafe fn read_value(ptr: *const u8, len: usize) -> Outcome<Value> {
    // SAFETY: the caller's contract for the byte input.
    unsafe { input(ptr, len) }.and_then(tool_value)
}

/// Reads a tool's failure, the sentence `(ptr, len)` (UTF-8; `INVALID_UTF8`
/// otherwise).
///
/// # Safety
/// `ptr` must point to `len` readable bytes.
pub(crate) unsafe fn read_failure(ptr: *const u8, len: usize) -> Outcome<ToolError> {
    // SAFETY: the caller's contract for the byte input.
    unsafe { text(ptr, len) }.map(ToolError::new)
}

/// The result a tool callback builds: a value or a failure. The library makes it,
/// hands it to the tool callback and reads it when the callback returns: it is valid
/// only during that callback, and the callback must not free or keep it. The last
/// value or error set wins.
///
/// A callback that sets nothing is a failed tool: `tool '<name>' failed: the callback
/// returned no result`. Garbage (a value that is not JSON, an error that is not UTF-8)
/// gets the result code and is recorded as the tool's failure, saying what was
/// refused. Tool failures are data: the run goes on.
pub struct agentloop_tool_result {
    result: Option<Result<Value, ToolError>>,
}

impl agentloop_tool_result {
    pub(crate) fn new() -> agentloop_tool_result {
        agentloop_tool_result { result: None }
    }

    /// What the callback said, as the tool's result.
    pub(crate) fn into_result(self) -> Result<Value, ToolError> {
        self.result
            .unwrap_or_else(|| Err(ToolError::new("the callback returned no result")))
    }

    /// Keeps what a setter read, or its refusal as `what`'s (the tool's failure).
    fn apply<T>(
        &mut self,
        what: &str,
        read: Outcome<T>,
        set: impl FnOnce(T) -> Result<Value, ToolError>,
    ) -> Outcome {
        match read {
            Ok(value) => {
                self.result = Some(set(value));
                Ok(())
            }
            Err(code) => {
                self.result = Some(Err(ToolError::new(format!(
                    "the callback's {what} was refused: {}",
                    code.sentence()
                ))));
                Err(code)
            }
        }
    }
}

/// Sets the tool's value: the JSON document `(ptr, len)`, recorded with `"ok":true`.
/// Text that is not JSON is `INVALID_JSON` and is recorded as the tool's failure. A
/// number with no canonical encoding (`1e400`) is accepted and recorded as `ok:false`
/// `tool '<name>' returned a value with no canonical encoding`, as in the Rust loop.
/// NULL `result` is `NULL_PARAMETER`. Call it only from the tool callback that was
/// given `result`.
///
/// # Safety
/// `result` must be the result handed to the running tool callback; `ptr` must point
/// to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_tool_result_set_value(
    result: *mut agentloop_tool_result,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live result of the running callback.
        let result = unsafe { handle_mut(result) }?;
        // SAFETY: the caller's contract for the byte input.
        let read = unsafe { read_value(ptr, len) };
        result.apply("value", read, Ok)
    })
}

/// Says the tool failed: the sentence `(ptr, len)` (UTF-8) is recorded as `ok:false`
/// with `"error":"tool '<name>' failed: <sentence>"` (empty: "failed without saying
/// why"), and the run goes on. A sentence that is not UTF-8 is `INVALID_UTF8` (the
/// failure is still recorded, saying that). NULL `result` is `NULL_PARAMETER`.
///
/// # Safety
/// As `agentloop_tool_result_set_value`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_tool_result_set_error(
    result: *mut agentloop_tool_result,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises the live result of the running callback.
        let result = unsafe { handle_mut(result) }?;
        // SAFETY: the caller's contract for the byte input.
        let read = unsafe { read_failure(ptr, len) };
        result.apply("error sentence", read, Err)
    })
}
