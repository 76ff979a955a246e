//! `agentloop_schema`: a compiled tool-argument schema (JSON Schema draft 2020-12, or
//! 2019-09 / draft-07 by `$schema`; docs/schemas.md) and validation of instances
//! against it.

use agentloop_core::json;
use agentloop_core::schema::Schema;

use crate::boundary::boundary;
use crate::bytes::{give, handle, input, need, put, take, write_out};
use crate::json::parse_error;
use crate::result::{agentloop_result, Outcome};

/// A compiled schema. Create it with `agentloop_schema_new`, free it with
/// `agentloop_schema_free`.
///
/// A schema never changes after it is made: any number of threads may validate with
/// one at the same time, as long as none frees it meanwhile.
pub struct agentloop_schema {
    schema: Schema,
}

/// Parses a JSON document strictly.
fn parse(bytes: &[u8]) -> Outcome<json::Value> {
    json::parse(bytes).map_err(parse_error)
}

/// Compiles the schema document `(ptr, len)` and writes it to `*out`.
///
/// `AGENTLOOP_RESULT_INVALID_JSON` / `NO_CANONICAL_FORM` when the document is not
/// acceptable JSON; `AGENTLOOP_RESULT_SCHEMA_REFUSED` when the validator cannot honour
/// it (a reference to another document, a pattern with look-around, an unknown
/// `$schema`, a keyword of another draft), its draft's meta-schema refuses it, or its
/// compiled form (its subschemas and the automata of its patterns) would take more than
/// its budget of 16 MiB (`agentloop_schema_explain` says why). What a live schema holds
/// is bounded by that budget; validating with it takes at most 2^24 steps of work, past
/// which an instance is not valid (one violation: `validation stopped`). What is read and refused: docs/schemas.md. On success the caller owns `*out` (free it with `agentloop_schema_free`); on
/// failure `*out` is not written. NULL `out`, or NULL `ptr` with `len > 0`, is
/// `NULL_PARAMETER`. Thread-safe.
///
/// # Safety
/// `ptr` must point to `len` readable bytes; `out` must be valid for a write of one
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_schema_new(
    ptr: *const u8,
    len: usize,
    out: *mut *mut agentloop_schema,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller's contract for the input bytes.
        let document = parse(unsafe { input(ptr, len) }?)?;
        let schema = Schema::compile(&document).map_err(|_| agentloop_result::SchemaRefused)?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { give(out, agentloop_schema { schema }) }
    })
}

/// Writes why the schema document `(ptr, len)` is refused — one sentence naming the
/// keyword and the JSON pointer where it is, e.g. `schema refused at /properties/a/type:
/// …`, no NUL — to `(out_buf, out_cap)` and its length to `*out_len`. A schema that
/// compiles gives the empty string (length 0, `OK`).
///
/// Size query as `agentloop_json_canonicalize`: when the sentence does not fit, its length
/// is written to `*out_len` and the result is `INSUFFICIENT_SIZE`. Invalid JSON gives
/// `INVALID_JSON` / `NO_CANONICAL_FORM` as in `agentloop_schema_new`. NULL `out_len`,
/// or NULL `ptr` with `len > 0`, is `NULL_PARAMETER`. Thread-safe.
///
/// Empty output: a schema that compiles gives the empty string, which fits any buffer:
/// `OK` with `*out_len` 0, even with a NULL buffer (so the size query answers `OK`, not
/// `INSUFFICIENT_SIZE`).
///
/// # Safety
/// `ptr` must point to `len` readable bytes; `out_buf`, if not NULL, to `out_cap`
/// writable bytes; `out_len` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_schema_explain(
    ptr: *const u8,
    len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller's contract for the input bytes.
        let document = parse(unsafe { input(ptr, len) }?)?;
        let text = match Schema::compile(&document) {
            Ok(_) => String::new(),
            Err(refusal) => refusal.to_string(),
        };
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(text.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Validates the JSON instance `(ptr, len)` against `schema` and writes the verdict to
/// `*out_valid` (draft 2020-12's verdict; stops at the first violation).
///
/// An instance that is not acceptable JSON is `INVALID_JSON` / `NO_CANONICAL_FORM`,
/// with `*out_valid` not written. NULL `schema` or `out_valid`, or NULL `ptr` with
/// `len > 0`, is `NULL_PARAMETER`. Thread-safe on a live schema.
///
/// # Safety
/// `schema` must be a live schema from this library; `ptr` must point to `len`
/// readable bytes; `out_valid` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_schema_validate(
    schema: *const agentloop_schema,
    ptr: *const u8,
    len: usize,
    out_valid: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out_valid)?;
        // SAFETY: the caller promises a live schema.
        let schema = unsafe { handle(schema) }?;
        // SAFETY: the caller's contract for the input bytes.
        let instance = parse(unsafe { input(ptr, len) }?)?;
        // SAFETY: out_valid was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_valid, schema.schema.is_valid(&instance)) }
    })
}

/// Writes every way the JSON instance `(ptr, len)` breaks `schema`, one violation per
/// line, each ending in `\n` (`$.a: expected type integer, got string`), in the
/// deterministic order the schema module documents; no NUL. A valid instance gives
/// the empty string (length 0). Paths start at `$`.
///
/// Size query as `agentloop_json_canonicalize`: when the text does not fit, its length is
/// written to `*out_len` and the result is `INSUFFICIENT_SIZE`; the same call with a
/// buffer that large gives exactly that text. Errors as `agentloop_schema_validate`:
/// `INVALID_JSON` / `NO_CANONICAL_FORM` for instance text the strict parser refuses;
/// NULL `schema` or `out_len` (or a NULL `ptr` with a length above 0) is
/// `NULL_PARAMETER`. Thread-safe on a live schema.
///
/// Empty output: a valid instance gives the empty string, which fits any buffer: `OK`
/// with `*out_len` 0, even with a NULL buffer (so the size query answers `OK`, not
/// `INSUFFICIENT_SIZE`).
///
/// # Safety
/// `schema` must be a live schema from this library; `ptr` must point to `len`
/// readable bytes; `out_buf`, if not NULL, to `out_cap` writable bytes; `out_len` must
/// be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_schema_violations(
    schema: *const agentloop_schema,
    ptr: *const u8,
    len: usize,
    out_buf: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> agentloop_result {
    boundary(|| {
        need(out_len)?;
        // SAFETY: the caller promises a live schema.
        let schema = unsafe { handle(schema) }?;
        // SAFETY: the caller's contract for the input bytes.
        let instance = parse(unsafe { input(ptr, len) }?)?;
        let mut text = String::new();
        for violation in schema.schema.validate(&instance, "$") {
            text.push_str(&violation.to_string());
            text.push('\n');
        }
        // SAFETY: the caller's contract for the output buffer and out_len.
        unsafe { write_out(text.as_bytes(), out_buf, out_cap, out_len) }
    })
}

/// Frees a schema. NULL does nothing.
///
/// # Safety
/// `schema` must be NULL or a schema from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_schema_free(schema: *mut agentloop_schema) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(schema) })
}
