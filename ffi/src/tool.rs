//! What registering a tool reads and checks, shared by `agentloop_agent_add_tool` and
//! `agentloop_driver_run`: the tool's spec and limit read from C, the result code for
//! each refusal, and `agentloop_tool_explain`, which gives the sentence.

use agentloop_core::json;
use agentloop_core::tools::{RegisterError, ToolSpec};

use crate::boundary::boundary;
use crate::bytes::{input, need, text, write_out};
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// Reads a tool from C: its name `(ptr, len)` and description (UTF-8), its argument
/// schema (a JSON document) and its call limit (0: none) — the one reading of
/// `agentloop_agent_add_tool` and of each `agentloop_tool` of `agentloop_driver_run`.
/// `INVALID_UTF8` for a name or description that is not UTF-8; `INVALID_JSON` /
/// `NO_CANONICAL_FORM` for the schema text. Registering checks the rest.
///
/// # Safety
/// Each `(ptr, len)` must point to `len` readable bytes.
pub(crate) unsafe fn read_spec(
    (name_ptr, name_len): (*const u8, usize),
    (description_ptr, description_len): (*const u8, usize),
    (schema_ptr, schema_len): (*const u8, usize),
    limit: u64,
) -> Outcome<(ToolSpec, Option<u64>)> {
    // SAFETY: the caller's contract for the name bytes.
    let name = unsafe { text(name_ptr, name_len) }?;
    // SAFETY: the caller's contract for the description bytes.
    let description = unsafe { text(description_ptr, description_len) }?;
    // SAFETY: the caller's contract for the schema bytes.
    let schema = json::parse(unsafe { input(schema_ptr, schema_len) }?).map_err(parse_error)?;
    let limit = (limit != 0).then_some(limit);
    Ok((ToolSpec::new(name, description, schema), limit))
}

/// The result code for a tool refused at registration: `NOT_PROVIDER_SAFE` for a name
/// or root schema providers refuse, `SCHEMA_REFUSED` for a schema the validator
/// refuses (its own patterns past their budget, or past what the agent's tools have
/// left of theirs, too), `INVALID_ARGUMENT` for a duplicate name or a limit too large.
pub(crate) fn register_error(error: RegisterError) -> agentloop_result {
    if error.not_provider_safe() {
        agentloop_result::NotProviderSafe
    } else if error.schema_refused() {
        agentloop_result::SchemaRefused
    } else {
        agentloop_result::InvalidArgument
    }
}

/// Writes why a tool named `(name_ptr, name_len)` (UTF-8) with the argument schema
/// `(schema_ptr, schema_len)` (a JSON document) is refused when registered — one
/// sentence naming the rule it breaks, no NUL — to `(out_buf, out_cap)` and its length
/// to `*out_len`; the empty string (length 0, `OK`) when the name and schema pass.
/// The rules, in order: the name matches `^[a-zA-Z0-9_-]{1,64}$` (e.g. `tool name 'my
/// tool' is not provider-safe: ' ' at position 2 is not an ASCII letter, digit, '_' or
/// '-' (providers accept ^[a-zA-Z0-9_-]{1,64}$)`); the root schema has `"type":
/// "object"` (e.g. `tool 't': the root schema has no "type"; providers require a root
/// schema with "type": "object"`) — both refused at registration as not
/// provider-safe; the schema compiles (`tool 't': schema refused at …`, refused at
/// registration as a schema the validator cannot honour). A refusal is this
/// function's `OK` with the sentence, not a result code. A duplicate name or a limit
/// too large depends on the agent and is not checked here.
///
/// Size query as `agentloop_json_canonicalize`. `INVALID_UTF8` for a name that is not UTF-8;
/// `INVALID_JSON` / `NO_CANONICAL_FORM` for the schema text. NULL `out_len`, or a NULL
/// input with a non-zero length, is `NULL_PARAMETER`. Thread-safe.
///
/// Empty output: a name and schema that pass gives the empty string, which fits any
/// buffer: `OK` with `*out_len` 0, even with a NULL buffer (so the size query answers
/// `OK`, not `INSUFFICIENT_SIZE`).
///
/// # Safety
/// The inputs must point to their lengths in readable bytes; `out_buf`, if not NULL,
/// to `out_cap` writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_tool_explain(
    name_ptr: *const u8,
    name_len: usize,
    schema_ptr: *const u8,
    schema_len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller's contract for the name bytes.
        let name = unsafe { text(name_ptr, name_len) }?;
        // SAFETY: the caller's contract for the schema bytes.
        let schema = json::parse(unsafe { input(schema_ptr, schema_len) }?).map_err(parse_error)?;
        let sentence = match ToolSpec::new(name, "", schema).check() {
            Ok(_) => String::new(),
            Err(refusal) => refusal.to_string(),
        };
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(sentence.as_bytes(), out_buf, out_cap, out_len) }
    })
}
