//! # agentloop-core
//!
//! The core of agentloop: the RFC 8785 canonical JSON encoding, an append-only JSONL
//! transcript whose records form a SHA-256 hash chain, and a verifier that names
//! exactly which record was rewritten, reordered or cut.
//!
//! Layers (cargo features):
//! - no features: [`sink`], [`hash`], string and number encoding in [`jcs`], the
//!   record format's constants in [`record`], and the no-allocation layer [`stream`]
//!   (a streaming verifier with fixed state, canonical-form checking of bytes, append
//!   into a caller's buffer) — no allocator needed;
//! - `alloc`: the [`json`] value type and strict parser, canonical encoding of any
//!   value, the [`chain`] and the [`verify`] module; the budgeted agent loop — the
//!   sans-I/O state machine [`agent`], [`model`]s, [`tools`] with their [`schema`]s,
//!   the blocking [`driver`] (run, resume, replay) and the [`demo`] runs; the
//!   [`provider`] codecs (a conversation as an OpenAI Chat Completions or Anthropic
//!   Messages request body, and the provider's response as a reply — no I/O);
//!   [`export`] of a transcript as an OpenAI or Anthropic message history (through
//!   the same codecs) and of the tools in provider shapes; the
//!   [`audit`] of a transcript as a well-formed run (`verify --loop`);
//! - `std` (default): verifying readers and files ([`verify::verify_reader`],
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

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod anchor;
mod checkpoint;
mod fault_kind;
pub mod hash;
pub mod jcs;
pub mod merkle;
#[cfg(feature = "alloc")]
pub mod note;
pub mod number;
pub mod record;
mod scan;
pub mod sink;
pub mod stream;
#[cfg(feature = "alloc")]
pub mod tlog;

#[cfg(feature = "alloc")]
pub mod agent;
#[cfg(feature = "alloc")]
pub mod audit;
#[cfg(feature = "alloc")]
pub mod chain;
#[cfg(feature = "demo")]
pub mod demo;
#[cfg(feature = "alloc")]
pub mod driver;
#[cfg(feature = "std")]
pub mod durable;
#[cfg(feature = "alloc")]
pub mod export;
#[cfg(feature = "alloc")]
pub mod json;
#[cfg(feature = "alloc")]
pub mod model;
#[cfg(feature = "alloc")]
pub mod provider;
#[cfg(feature = "alloc")]
pub mod quote;
#[cfg(feature = "alloc")]
pub mod schema;
#[cfg(feature = "alloc")]
pub mod tools;
#[cfg(feature = "alloc")]
pub mod verify;
#[cfg(feature = "alloc")]
pub mod vocabulary;

pub use anchor::Anchor;
pub use hash::Hash;
