//! # libagentloop: the C ABI of agentloop
//!
//! Thin `extern "C"` wrappers over `agentloop-core`, in modules by C type and topic,
//! following the rustls-ffi conventions:
//!
//! - every symbol is `agentloop_<home>_<verb>` (docs/c-api.md, "Names";
//!   `tests/header.rs` fails on one that is not); types are opaque (`agentloop_chain`,
//!   `agentloop_report`, `agentloop_agent`, …) except the plain structs (verify options,
//!   budgets, tools and outcomes of the driver);
//! - every fallible function returns [`agentloop_result`] (`AGENTLOOP_RESULT_OK` = 0,
//!   numbers stable and append-only), and [`agentloop_result_str`] spells it out;
//! - objects come back through `T **out`, written only on success, and every `_new` /
//!   `_open` has a `_free` that accepts NULL; no call consumes its argument;
//! - byte inputs are `(const uint8_t *ptr, size_t len)`, NULL only with `len == 0`;
//!   byte outputs go to a caller buffer with the size-query protocol
//!   (`AGENTLOOP_RESULT_INSUFFICIENT_SIZE` and the needed length in `*out_len`);
//! - every export runs inside one panic boundary (`boundary`), and `tests/boundary.rs`
//!   fails if one does not; there is no global state;
//! - callbacks (the driver [`agentloop_driver_run`]) are `Option<unsafe extern "C" fn(void
//!   *userdata, …)>`, userdata first; a NULL one is a result code.
//!
//! The header `include/agentloop.h` is generated from these sources by cbindgen
//! (`tests/header.rs` fails on drift); `docs/c-api.md` is the guide, with the link
//! lines and the ABI policy. Rust code (tests, fuzz targets) can call the exports
//! through the rlib.
//!
//! All `unsafe` code of agentloop lives in this crate; each block says why it is sound
//! in a `// SAFETY:` comment.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// The C names are the API.
#![allow(non_camel_case_types)]

pub mod agent;
mod answer;
mod boundary;
mod bytes;
pub mod chain;
pub mod driver;
pub mod hash;
pub mod json;
pub mod library;
pub mod proof;
pub mod proof_check;
pub mod provider;
pub mod reply;
pub mod report;
pub mod result;
pub mod schema;
pub mod tool;
pub mod tool_result;
pub mod verifier;
pub mod verify;
pub mod verify_checkpoints;
pub mod writer;

pub use agent::{
    agentloop_agent, agentloop_agent_add_tool, agentloop_agent_call_arguments,
    agentloop_agent_call_id, agentloop_agent_call_json, agentloop_agent_call_name,
    agentloop_agent_cancel, agentloop_agent_feed_exchange, agentloop_agent_feed_model_error,
    agentloop_agent_feed_reply, agentloop_agent_feed_response, agentloop_agent_feed_tool_error,
    agentloop_agent_feed_tool_error_for, agentloop_agent_feed_tool_result,
    agentloop_agent_feed_tool_result_for, agentloop_agent_free, agentloop_agent_manifest_json,
    agentloop_agent_messages_json, agentloop_agent_new, agentloop_agent_outcome,
    agentloop_agent_poll, agentloop_agent_request, agentloop_agent_request_error,
    agentloop_agent_resume, agentloop_agent_resume_error, agentloop_agent_set_idempotent,
    agentloop_agent_set_parallel, agentloop_agent_set_setup, agentloop_agent_stop_error,
    agentloop_agent_take_calls, agentloop_agent_take_record, agentloop_agent_take_record_borrowed,
    agentloop_budgets, agentloop_budgets_init, agentloop_need, agentloop_stop, agentloop_stop_str,
};
pub use chain::{
    agentloop_chain, agentloop_chain_append, agentloop_chain_append_borrowed,
    agentloop_chain_count, agentloop_chain_free, agentloop_chain_head, agentloop_chain_new,
    agentloop_chain_resume,
};
pub use driver::{
    agentloop_cancel_callback, agentloop_driver_run, agentloop_driver_run_to_writer,
    agentloop_model_callback, agentloop_outcome, agentloop_record_callback, agentloop_tool,
    agentloop_tool_callback,
};
pub use hash::{
    agentloop_hash, agentloop_hash_from_hex, agentloop_hash_to_hex, AGENTLOOP_HASH_HEX_LEN,
};
pub use json::agentloop_json_canonicalize;
pub use library::agentloop_library_version;
pub use proof::{
    agentloop_report_root, agentloop_transcript_checkpoint, agentloop_transcript_prove_consistency,
    agentloop_transcript_prove_inclusion,
};
pub use proof_check::{
    agentloop_proof_explain, agentloop_proof_verify_consistency, agentloop_proof_verify_inclusion,
};
pub use provider::agentloop_provider;
pub use reply::{
    agentloop_reply, agentloop_reply_add_call, agentloop_reply_parse, agentloop_reply_request,
    agentloop_reply_set_error, agentloop_reply_set_output_tokens,
    agentloop_reply_set_provider_json, agentloop_reply_set_text,
};
pub use report::{
    agentloop_fault_kind, agentloop_fault_kind_str, agentloop_report,
    agentloop_report_beyond_checkpoint, agentloop_report_count, agentloop_report_fault,
    agentloop_report_fault_count, agentloop_report_faults_omitted, agentloop_report_free,
    agentloop_report_head, agentloop_report_ok,
};
pub use result::{agentloop_result, agentloop_result_str};
pub use schema::{
    agentloop_schema, agentloop_schema_explain, agentloop_schema_free, agentloop_schema_new,
    agentloop_schema_validate, agentloop_schema_violations,
};
pub use tool::agentloop_tool_explain;
pub use tool_result::{
    agentloop_tool_result, agentloop_tool_result_set_error, agentloop_tool_result_set_value,
};
pub use verifier::{
    agentloop_verifier, agentloop_verifier_finish, agentloop_verifier_free, agentloop_verifier_new,
    agentloop_verifier_push,
};
pub use verify::{
    agentloop_transcript_verify_buffer, agentloop_transcript_verify_file, agentloop_verify_options,
    agentloop_verify_options_init,
};
pub use verify_checkpoints::agentloop_transcript_verify_checkpoints;
pub use writer::{
    agentloop_sync, agentloop_transcript_repair, agentloop_writer, agentloop_writer_append,
    agentloop_writer_count, agentloop_writer_free, agentloop_writer_head, agentloop_writer_open,
    agentloop_writer_open_with, agentloop_writer_options, agentloop_writer_options_init,
    agentloop_writer_refresh, agentloop_writer_sync,
};
