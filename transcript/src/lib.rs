//! # agentloop-transcript
//!
//! The transcript of agentloop without an allocator: a JSONL file whose records form a
//! SHA-256 hash chain (SPEC sections 2 and 3), written and checked on the stack and in
//! the caller's buffers. `no_std`, no `alloc`; its dependencies are sha2, heapless and
//! the scanning and number crates of the lexer (memchr, simdutf8, safe_arch, ryu-js,
//! zmij) — no regex, no ed25519, no JSON Schema engine.
//!
//! - [`sink`]: where bytes go ([`sink::ByteSink`]: a caller's slice, a counter, a hasher);
//! - [`hash`], [`anchor`]: a record's SHA-256 and where a chain starts;
//! - [`jcs`]: RFC 8785 canonical encoding of strings and numbers;
//! - [`record`]: the record format's constants;
//! - [`stream`]: the streaming verifier ([`stream::StreamVerifier`], any chunking, fixed
//!   state), the canonical-form checker, and appending a record into a caller's buffer
//!   ([`stream::ChainState`]);
//! - [`merkle`]: RFC 6962 trees over a transcript, compact ranges and proof checking.
//!
//! `agentloop-core` re-exports every module under the same name (`agentloop_core::stream`
//! is this crate's [`stream`]) and adds the allocating layer: the JSON value type, the
//! chain, the allocating verifier, the agent loop.
//!
//! ```
//! use agentloop_transcript::stream::{ChainState, StreamOptions, StreamVerifier};
//!
//! let mut chain = ChainState::new();
//! let mut buf = [0u8; 256];
//! let len = chain.append(&mut buf, "task", br#"{"task":"add 2 and 40"}"#).unwrap();
//! let mut verifier = StreamVerifier::new(StreamOptions::default());
//! verifier.push(&buf[..len]);
//! let report = verifier.finish();
//! assert!(report.ok());
//! assert_eq!(report.count, 1);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(test, feature = "alloc"))]
extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod anchor;
pub mod hash;
pub mod jcs;
pub mod merkle;
pub mod record;
pub mod sink;
pub mod stream;
// The one `cfg` of the crate besides tests: what its types do with an allocator.
#[cfg(feature = "alloc")]
mod with_alloc;

/// Size over speed (the feature `small`, for microcontrollers; docs/embedded.md): the
/// lexer sends every byte to its byte-at-a-time checker, through one copy of it for all
/// observers, and checks numbers without `f64::from_str` (`stream::lexer::numeric_small`).
/// The only place the crate's code names the feature: a constant, so both paths are
/// compiled (and tested) on every build and the unused one is left out of the binary.
const SMALL: bool = cfg!(feature = "small");

mod checkpoint;
mod fault_kind;
mod opaque;
mod parse_error;

#[doc(hidden)]
pub mod __private;
use __private::{number, scan};

pub use anchor::Anchor;
pub use hash::Hash;
