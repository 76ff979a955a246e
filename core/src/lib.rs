//! # agentloop-core
//!
//! The core of agentloop: the RFC 8785 canonical JSON encoding, an append-only JSONL
//! transcript whose records form a SHA-256 hash chain, and a verifier that names
//! exactly which record was rewritten, reordered or cut.
//!
//! Layers: each is a cargo feature, and each uses only the ones before it; the first is
//! the crate agentloop-transcript, and the values, schemas, and verifier with checkpoints,
//! notes and proofs of the second are the crates agentloop-json, agentloop-schema and
//! agentloop-tlog, re-exported here (docs/architecture.md):
//! - `fixed/`, no features: [`sink`], [`hash`], string and number encoding in [`jcs`], the
//!   record format's constants in [`record`], and the no-allocation layer [`stream`]
//!   (a streaming verifier with fixed state, canonical-form checking of bytes, append
//!   into a caller's buffer) — no allocator needed;
//! - `heap/`, feature `alloc`: the [`json`] value type and strict parser, canonical encoding of any
//!   value, the [`chain`] and the [`verify`] module; the budgeted agent loop — the
//!   sans-I/O state machine [`agent`], [`model`]s, [`tools`] with their [`schema`]s,
//!   the blocking [`driver`] (run, resume, replay) and the `demo` runs (feature `demo`: the
//!   fixtures of `agentloop demo` and the workspace's tests, not covered by the API promise); the
//!   [`provider`] codecs (a conversation as an OpenAI Chat Completions or Anthropic
//!   Messages request body, and the provider's response as a reply — no I/O);
//!   [`export`] of a transcript as an OpenAI or Anthropic message history (through
//!   the same codecs) and of the tools in provider shapes; the
//!   [`audit`] of a transcript as a well-formed run (`verify --loop`);
//! - `host/`, feature `std` (default): verifying readers and files ([`verify::verify_reader`],
//!   [`verify::verify_file`]), a file record sink (`sink::FileSink`), the
//!   `durable` writer (a lock per append, a sync policy, rollback of failed writes,
//!   repair of a torn tail), and tool panics caught by the driver.
//!
//! ```
//! use agentloop_core::{chain::Chain, json, verify};
//!
//! let mut chain = Chain::new();
//! let mut transcript = Vec::new();
//! let payload = json::parse(br#"{"task":"add 2 and 40"}"#).unwrap();
//! transcript.extend_from_slice(chain.append("task", &payload).unwrap());
//! let report = verify::verify_bytes(&transcript, &verify::Options::default());
//! assert!(report.ok());
//! assert_eq!(report.count, 1);
//! assert_eq!(report.head, Some(chain.head()));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(test, feature = "alloc"))]
extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

// The layers. This file composes them into the public modules; the `cfg`s that choose
// what a build has live here (and in `heap/` for its `std` parts). The no-allocator
// layer is its own crate, agentloop-transcript; `fixed` names it here so that the
// allocating layers reach it by the paths they always used.
mod fixed {
    #[cfg(any(test, feature = "std"))]
    pub use agentloop_transcript::__private::finding;
    #[cfg(feature = "alloc")]
    pub use agentloop_transcript::__private::number;
    #[cfg(feature = "std")]
    pub use agentloop_transcript::__private::scan;
    #[cfg(test)]
    pub use agentloop_transcript::__private::{checkpoint, fault_kind};
    pub use agentloop_transcript::{anchor, hash, record, sink, stream};
    #[cfg(not(feature = "alloc"))]
    pub use agentloop_transcript::{jcs, merkle};
}
#[cfg(feature = "alloc")]
mod heap;
#[cfg(feature = "std")]
mod host;
#[cfg(all(test, feature = "serde"))]
mod json_tests;
#[cfg(test)]
mod transcript_tests;
#[cfg(test)]
mod verify_tests;

#[cfg(feature = "alloc")]
use fixed::number;
#[cfg(feature = "std")]
use fixed::scan;
pub use fixed::{anchor, hash, stream};
#[cfg(test)]
use fixed::{checkpoint, fault_kind};

#[cfg(feature = "alloc")]
pub use heap::{
    agent, chain, driver, export, json, note, provider, schema, tlog, tools, vocabulary,
};
// Internals the workspace's crates build on (record text escaped and cut for a sentence,
// a secret kept out of one): hidden from the docs, not API.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub use heap::{quote, redact};

// The demo runs are the fixtures of `agentloop demo` and the workspace's tests, not API.
#[cfg(feature = "demo")]
#[doc(hidden)]
pub use heap::demo;

#[cfg(feature = "std")]
pub use host::durable;

/// The RFC 8785 (JSON Canonicalization Scheme) encoder: agentloop-json's `jcs` with
/// `alloc` (strings and numbers without an allocator, values with one), else
/// agentloop-transcript's (strings and numbers).
#[cfg(feature = "alloc")]
pub use agentloop_json::jcs;
#[cfg(not(feature = "alloc"))]
pub use fixed::jcs;

pub mod record {
    //! The record format (SPEC section 2): five members, hashed without `hash`.
    //!
    //! A valid line is `{"hash":"<64 hex>",` followed by the hashed bytes minus their `{`,
    //! then `\n`, because `hash` sorts first among `hash`, `kind`, `payload`, `prev`, `seq`.
    //!
    //! The member names and the line prefix need no allocator (`fixed/record.rs`);
    //! encoding a record from a `json::Value` payload needs `alloc` (`heap/record_value.rs`;
    //! without it, [`crate::stream::write_record`] writes a record from payload bytes that
    //! are already canonical).

    pub use crate::fixed::record::*;
    #[cfg(feature = "alloc")]
    // A record's body and hash from a `Value`: what the loop writes records with, and
    // what the workspace's tests recompute hashes with; not API (a `Chain` or the
    // durable writer appends records).
    #[doc(hidden)]
    pub use crate::heap::record_value::*;
}

#[cfg(feature = "alloc")]
pub mod model {
    //! Models: anything that maps `(messages, tool manifest)` to a reply (SPEC section 4).
    //!
    //! The loop shows a model the whole conversation so far as [`Message`]s — the task as
    //! the user's message, each assistant turn with its tool calls, each tool result — and
    //! the tool manifest; the model answers with a [`Reply`] (text plus zero or more tool
    //! calls) or a [`ModelError`]. [`Scripted`] is a model that replays a fixed list of
    //! replies: for tests, demos and reproducing a run. With `std`, `ThreadedModel` puts
    //! a model on its own thread, so a turn being awaited can be abandoned when the run is
    //! cancelled.

    pub use crate::heap::model::*;
    #[cfg(feature = "std")]
    pub use crate::host::threaded_model::ThreadedModel;
}

pub mod sink {
    //! Sinks: where canonical bytes and record lines go.
    //!
    //! The canonical encoder writes into a [`ByteSink`] rather than returning a buffer, so
    //! the same code fills a caller's fixed buffer, grows a `Vec`, counts bytes, or feeds a
    //! SHA-256 hasher directly (hashing a record needs no intermediate buffer at all).
    //!
    //! The loop's drivers hand each finished record line to a `RecordSink` (feature
    //! `alloc`): a `Vec<u8>` in memory, or (with `std`) a `FileSink`.

    pub use crate::fixed::sink::*;
    #[cfg(feature = "alloc")]
    pub use crate::heap::record_sink::*;
    #[cfg(feature = "std")]
    pub use crate::host::file_sink::FileSink;
}

/// A Merkle tree over a transcript (RFC 6962, RFC 9162 section 2.1): agentloop-tlog's
/// `merkle` with `alloc` (proof generation too), else agentloop-transcript's (hashes,
/// compact ranges and proof checking, no allocator).
#[cfg(feature = "alloc")]
pub use agentloop_tlog::merkle;
#[cfg(not(feature = "alloc"))]
pub use fixed::merkle;

#[cfg(feature = "alloc")]
pub mod audit {
    //! The loop audit (`agentloop verify --loop`): beyond the chain, is a transcript a
    //! well-formed run of the loop (SPEC section 4)?
    //!
    //! [`LoopAudit`] is a push-style state machine over records, like the verifier: it
    //! keeps only the calls of the current turn still waiting for a `tool` record and a few
    //! counters, so memory is bounded by the largest turn, not the transcript. What it
    //! finds is a [`LoopFinding`] (a record index and a sentence); [`verify_loop_bytes`]
    //! and, with `std`, [`verify_loop_reader`] and [`verify_loop_file`] verify the chain
    //! and audit the run in one pass, adding the findings to the verifier's report as
    //! faults of kind [`FaultKind::LoopMalformed`](crate::verify::FaultKind::LoopMalformed).
    //!
    //! The rules, for records at index 0, 1, …:
    //! - one `task` first; `stop` last, and after a `stop` only a `resume` (which starts a
    //!   continuation: `task … stop (resume … stop)*`);
    //! - payloads have exactly the members the loop writes, of the right types: `task`
    //!   `{task: string, budgets: object}`; `assistant` `{text: string, tool_calls:
    //!   [{id, name, arguments}], tokens: integer ≥ 0}` with ids `call_<seq>_<index>`, and
    //!   optionally `provider`: a non-empty object of `model`, `response_id`,
    //!   `finish_reason` (strings), `input_tokens`, `cached_input_tokens` (integers ≥ 0,
    //!   cached at most input);
    //!   `tool` `{id, name, ok: true, value}` or `{id, name, ok: false, error: string}`;
    //!   `stop` `{reason, steps, tokens, unrun_calls}` plus `error` (a string) exactly when
    //!   the reason is `model_error`; `resume` `{after}` naming the reason of the `stop`
    //!   before it;
    //! - each `tool` record answers, in order, the next unanswered call of the `assistant`
    //!   record before it (same id and name); a new turn does not start while a call is
    //!   unanswered;
    //! - a `stop` record's counts match the records: `steps` = `assistant` records and
    //!   `tokens` = the sum of their `tokens` (both cumulative over a resumed transcript),
    //!   `unrun_calls` = calls of the last turn with no `tool` record, `reason` one of the
    //!   seven.
    //!
    //! A record that cannot be read as a record (the chain verification reports it) is
    //! skipped; the audit goes on with the next one.

    pub use crate::heap::audit::*;
    #[cfg(feature = "std")]
    pub use crate::host::audit_io::{verify_loop_file, verify_loop_reader};
}

#[cfg(feature = "alloc")]
pub mod verify {
    //! Verification (SPEC section 3): reads records and reports every fault, where it is,
    //! and what was expected.
    //!
    //! [`Verifier`] is a push-style state machine over lines, so memory does not grow with
    //! the number of records; [`verify_bytes`], [`verify_records`] and (with `std`)
    //! [`verify_reader`] and [`verify_file`] drive it. It is a thin front end: the record
    //! and chain checks, the checkpoint's verdict and the fault cap are the no-alloc engine
    //! the streaming verifier ([`crate::stream::StreamVerifier`]) runs too
    //! (`fixed/stream/engine.rs`); this module only turns each line into that engine's facts, and
    //! adds what needs the parsed value (`not_canonical` of a line the lexer did not
    //! accept, lenient mode) or the host (`unreadable`, threads).
    //!
    //! # The fast path
    //!
    //! A line is first given to the streaming checker of [`crate::stream`]
    //! ([`LineChecker`](crate::stream::LineChecker)): a line that is the canonical encoding of a record with its five
    //! members well-formed (every line a writer produces) is checked and hashed in that one
    //! pass over its bytes, without a value tree or an encoding. Only a line it does not
    //! accept — not canonical (lenient mode), or with a missing, extra or malformed member,
    //! or past a limit of the streaming checker — is parsed into a value tree and
    //! canonicalised, which gives the detailed faults. The report is the same either way:
    //! [`Verifier::without_fast_path`] parses every line, and the tests hold the two equal.
    //!
    //! # Faults
    //!
    //! A [`Fault`] is the streaming verifier's fault type with a [`Detail`]: for every fault
    //! the record and chain checks find, the fixed-size [`crate::stream::StreamDetail`] the
    //! streaming verifier reports for the same fault ([`Detail::check`]), so the sentence is
    //! the same in both; otherwise the sentence of what is found outside those checks (an
    //! input that could not be read, a checkpoint's signatures and its judging against
    //! others, the loop audit).

    pub use crate::heap::verify::*;
    #[cfg(feature = "std")]
    #[doc(hidden)]
    pub use crate::host::read_lines::for_each_line;
    #[cfg(feature = "std")]
    pub use crate::host::verify_io::{verify_file, verify_reader};
    #[cfg(feature = "std")]
    pub use crate::host::verify_parallel::{verify_reader_parallel, Parallel};
}

pub use anchor::Anchor;
pub use hash::Hash;
