//! Shared helpers for the cross-crate tests of agentloop.
//!
//! - where the public vectors live ([`vectors_dir`]) and how a test that needs an outside
//!   resource is skipped locally, said on the terminal and in the run's summary, but
//!   fails in CI ([`skip_or_fail`]);
//! - scratch directories that clean up after themselves ([`TempDir`]);
//! - the MCP servers `.ci/run` installs ([`mcp_servers_dir`], [`filesystem_server`],
//!   [`typescript_sdk`], [`python_sdk`]);
//! - SHA-256 straight from `sha2` ([`sha256`]), so forged records are hashed without the
//!   core's record encoder;
//! - building, forging and tampering transcripts ([`sample_chain`], [`forge_chain`],
//!   [`seal`], [`transcript`]);
//! - running every verifier entry point on the same bytes and checking they agree
//!   ([`verify_everywhere`]);
//! - the workspace's Rust sources and which are test code ([`rust_files`],
//!   [`is_test_file`]);
//! - a seeded PRNG ([`XorShift`]) and a writer of valid but non-canonical JSON
//!   ([`write_noisy`]);
//! - proptest strategies for JSON values and record kinds ([`json_value`], [`record_kind`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod env;
mod everywhere;
mod mcp_servers;
mod noisy;
mod oracle;
mod records;
mod scratch;
mod skips;
mod sources;
mod strategies;

pub use env::*;
pub use everywhere::*;
pub use mcp_servers::*;
pub use noisy::*;
pub use oracle::*;
pub use records::*;
pub use scratch::*;
pub use skips::*;
pub use sources::*;
pub use strategies::*;

#[cfg(test)]
mod tests {
    use agentloop_core::jcs;

    use super::*;

    #[test]
    fn sha256_of_the_spec_first_record() {
        // SPEC section 5: the bytes hashed for the first record.
        let body = br#"{"kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#;
        assert_eq!(
            hex(&sha256(body)),
            "dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949"
        );
    }

    #[test]
    fn forged_chain_equals_the_core_chain() {
        let (core_lines, chain) = sample_chain(4);
        let (forged, hashes) = forge_chain(4, |_, _| {});
        assert_eq!(core_lines, forged);
        assert_eq!(hashes.last(), Some(&chain.head()));
    }

    #[test]
    fn vectors_dir_is_absolute_and_independent_of_cwd() {
        assert!(vectors_dir().is_absolute() || std::env::var_os("AGENTLOOP_VECTORS").is_some());
    }

    #[test]
    fn noisy_json_reads_back_to_the_same_canonical_bytes() {
        let v = sample_payload(3);
        let mut rng = XorShift::new(7);
        let mut noisy_differs = false;
        for _ in 0..50 {
            let mut s = String::new();
            write_noisy(&v, &mut rng, &mut s);
            assert!(!s.contains('\n'));
            assert_eq!(
                jcs::canonicalize(s.as_bytes()).unwrap(),
                canonical(&v),
                "{s}"
            );
            noisy_differs |= s.as_bytes() != canonical(&v);
        }
        assert!(noisy_differs, "the noisy writer must actually add noise");
    }
}

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExample;

/// The examples of docs/rust.md (serde, typed tools), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;

/// The no-allocation example of docs/embedded.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/embedded.md")]
pub struct EmbeddedExample;

/// The example of docs/resume.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/resume.md")]
pub struct ResumeExample;
