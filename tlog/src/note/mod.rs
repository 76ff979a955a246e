//! Signed notes (C2SP `signed-note`, as Go's `golang.org/x/mod/sumdb/note` implements
//! them) with Ed25519 keys: the envelope of a [checkpoint](crate::TlogCheckpoint).
//!
//! A note is UTF-8 text ending in a newline, a blank line, then one signature line per
//! signer: `— NAME BASE64(KEY_ID || SIGNATURE)` (U+2014, a space). The key id is the
//! first four bytes of `SHA-256(NAME || 0x0A || 0x01 || PUBLIC_KEY)`. Keys are written
//! `NAME+HEX8(KEY_ID)+BASE64(0x01 || PUBLIC_KEY)` (verifier) and
//! `PRIVATE+KEY+NAME+HEX8(KEY_ID)+BASE64(0x01 || SEED)` (signer).

mod keys;
mod text;

#[cfg(test)]
pub(crate) use keys::KeyErrorKind;
pub use keys::{signer_key_text, KeyError, SignerKey, SignerTextError, VerifierKey};
// The lines of a key file that hold keys: how the CLI and the C ABI read one, not API.
#[doc(hidden)]
pub use keys::key_lines;
#[cfg(test)]
pub(crate) use text::NoteErrorKind;
pub use text::{Note, NoteError, NoteSignature, SignatureCheck};

#[cfg(test)]
mod tests;
