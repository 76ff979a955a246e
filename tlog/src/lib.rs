//! # agentloop-tlog
//!
//! agentloop's transcripts against anchors, with an allocator: the verifier with reports
//! ([`verify`]), external anchors in the transparency-log formats (C2SP) — checkpoints
//! (`tlog-checkpoint`), inclusion proofs (`tlog-proof@v1`) and consistency proofs (this
//! project's analogue of it), made and checked, and the rules a verifier applies to them
//! (this crate's root; see `docs/anchors.md`) — signed notes with Ed25519 keys
//! ([`note`]), and Merkle proofs made from the leaf hashes ([`merkle`]). `no_std` +
//! `alloc`; its dependencies are agentloop-transcript, agentloop-json, sha2, base64 and
//! ed25519-dalek — no regex, no JSON Schema engine, no agent loop.
//!
//! `agentloop-core` re-exports [`verify`] and [`note`] under the same names, this root's
//! items as `agentloop_core::tlog`, and the proof generation of [`merkle`] as part of
//! `agentloop_core::merkle`, adding the readers and files of its `std` layer.
//!
//! A checkpoint body is
//!
//! ```text
//! agentloop/transcript/<64 hex: hash of record 0>   (origin)
//! 5                                                  (record count)
//! <base64 of the RFC 6962 Merkle root of records 0..count>
//! head <64 hex: hash of record count-1>              (extension line)
//! ```
//!
//! ```
//! use agentloop_tlog::verify::{verify_bytes, Options};
//! use agentloop_tlog::{make_checkpoint, read_checkpoint};
//! use agentloop_transcript::stream::ChainState;
//!
//! let mut chain = ChainState::new();
//! let mut line = [0u8; 256];
//! let len = chain.append(&mut line, "task", br#"{"task":"add 2 and 40"}"#).unwrap();
//! let report = verify_bytes(&line[..len], &Options::default());
//! assert!(report.ok());
//! let text = make_checkpoint(&report, None, None).unwrap();
//! assert_eq!(read_checkpoint(text.as_bytes()).unwrap().checkpoint().count, 1);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod note;
pub mod verify;

pub mod merkle {
    //! A Merkle tree over a transcript (RFC 6962, RFC 9162 section 2.1): agentloop-transcript's
    //! `merkle` (leaf and node hashes, compact ranges, proof checking, no allocator) and
    //! the making of inclusion and consistency proofs from the leaf hashes (RFC 9162
    //! sections 2.1.3.1 and 2.1.4.1), [`inclusion_proof`], [`consistency_proof`] and
    //! [`root_of`].

    pub use crate::merkle_prove::{consistency_proof, inclusion_proof, root_of};
    pub use agentloop_transcript::merkle::*;
}
mod merkle_prove;
mod opaque;
mod tlog;

pub use tlog::*;

// The no-allocator layer's modules by the paths these modules always used (in core,
// where they were written, they were core's own modules).
use agentloop_json as json;
use agentloop_transcript::__private::{checkpoint, fault_kind, finding, parse_detail, scan};
use agentloop_transcript::{anchor, hash, record, sink, stream};
