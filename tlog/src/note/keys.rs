//! Ed25519 note keys: their id, their text forms, signing and checking.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::opaque::opaque_error;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

/// The algorithm byte of an Ed25519 key in a note key.
const ALG_ED25519: u8 = 0x01;

/// What a signer key's text form starts with (a verifier key cannot: `KEY` is no key id).
const SIGNER_PREFIX: &str = "PRIVATE+KEY+";

opaque_error! {
    /// Why a key string was refused.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct KeyError(KeyErrorKind);
}

impl KeyError {
    /// Whether a key of the other kind was given: a signer key (secret) where a
    /// verifier key is wanted, or a verifier key where a signer key is wanted; otherwise
    /// the text is not a note key.
    pub fn other_kind(&self) -> bool {
        matches!(
            self.0,
            KeyErrorKind::SignerKeyGiven | KeyErrorKind::VerifierKeyGiven
        )
    }
}

/// What [`KeyError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyErrorKind {
    /// Not `NAME+HEX8+BASE64` (with `PRIVATE+KEY+` in front for a signer key).
    Shape,
    /// The name is empty or holds a space or `+`.
    BadName,
    /// The key id is not 8 hex digits.
    BadKeyId,
    /// The key is not base64, or not 33 bytes.
    BadKey,
    /// The key is not an Ed25519 key (its first byte is not 0x01).
    UnknownAlgorithm,
    /// The key id is not the one the name and key give.
    KeyIdMismatch,
    /// A signer key (`PRIVATE+KEY+...`, secret) was given where a verifier key is
    /// wanted.
    SignerKeyGiven,
    /// A verifier key was given where a signer key is wanted.
    VerifierKeyGiven,
}

impl fmt::Display for KeyErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyErrorKind::Shape => {
                "a key is NAME+KEYID+BASE64 (PRIVATE+KEY+NAME+KEYID+BASE64 for a signer key)"
            }
            KeyErrorKind::BadName => "the key name is empty or holds a space or '+'",
            KeyErrorKind::BadKeyId => "the key id is not 8 hex digits",
            KeyErrorKind::BadKey => "the key is not base64 of 33 bytes",
            KeyErrorKind::UnknownAlgorithm => "the key is not an Ed25519 key (algorithm byte 0x01)",
            KeyErrorKind::KeyIdMismatch => "the key id does not match the name and key",
            KeyErrorKind::SignerKeyGiven => {
                "this is a signer key (PRIVATE+KEY+..., secret), but a verifier key is wanted \
                 here: NAME+KEYID+BASE64, without the PRIVATE+KEY+ prefix (`agentloop keygen` \
                 prints it second)"
            }
            KeyErrorKind::VerifierKeyGiven => {
                "this is a verifier key (NAME+KEYID+BASE64), but a signer key is wanted here: \
                 PRIVATE+KEY+NAME+KEYID+BASE64 (`agentloop keygen` prints it first)"
            }
        })
    }
}

/// Whether `name` may name a key: non-empty, no Unicode white space, no `+`.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == '+')
}

/// The key id: the first four bytes, big-endian, of
/// `SHA-256(name || 0x0A || 0x01 || public_key)`.
pub fn key_id(name: &str, public_key: &[u8; 32]) -> u32 {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update([b'\n', ALG_ED25519]);
    h.update(public_key);
    let d = h.finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// Splits `NAME+HEX8+BASE64` and decodes the 32 key bytes after the algorithm byte.
fn split_key(text: &str) -> Result<(&str, u32, [u8; 32]), KeyError> {
    let (name, rest) = text.split_once('+').ok_or(KeyErrorKind::Shape)?;
    let (id, key) = rest.split_once('+').ok_or(KeyErrorKind::Shape)?;
    if !valid_name(name) {
        return Err(KeyErrorKind::BadName.into());
    }
    if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(KeyErrorKind::BadKeyId.into());
    }
    let id = u32::from_str_radix(id, 16).map_err(|_| KeyErrorKind::BadKeyId)?;
    let key = STANDARD.decode(key).map_err(|_| KeyErrorKind::BadKey)?;
    let (&alg, bytes) = key.split_first().ok_or(KeyErrorKind::BadKey)?;
    if alg != ALG_ED25519 {
        return Err(KeyErrorKind::UnknownAlgorithm.into());
    }
    let bytes = <[u8; 32]>::try_from(bytes).map_err(|_| KeyErrorKind::BadKey)?;
    Ok((name, id, bytes))
}

fn key_text(name: &str, id: u32, key: &[u8; 32]) -> String {
    let mut raw = Vec::with_capacity(33);
    raw.push(ALG_ED25519);
    raw.extend_from_slice(key);
    format!("{name}+{id:08x}+{}", STANDARD.encode(raw))
}

/// A key that checks signatures: a name, its id and an Ed25519 public key.
#[derive(Clone, PartialEq, Eq)]
pub struct VerifierKey {
    name: String,
    id: u32,
    key: VerifyingKey,
}

impl fmt::Debug for VerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VerifierKey({self})")
    }
}

impl VerifierKey {
    /// The key's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The 32 bytes of the Ed25519 public key.
    pub fn public_key(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// Whether `signature` (64 bytes) is this key's signature of `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(sig) = ed25519_dalek::Signature::from_slice(signature) else {
            return false;
        };
        self.key.verify(message, &sig).is_ok()
    }
}

impl FromStr for VerifierKey {
    type Err = KeyError;

    /// Parses `NAME+KEYID+BASE64`. A signer key (`PRIVATE+KEY+...`) is refused as
    /// a key of the other kind ([`KeyError::other_kind`]) by its prefix alone: nothing of the secret is read.
    fn from_str(text: &str) -> Result<Self, KeyError> {
        if text.starts_with(SIGNER_PREFIX) {
            return Err(KeyErrorKind::SignerKeyGiven.into());
        }
        let (name, id, bytes) = split_key(text)?;
        let key = VerifyingKey::from_bytes(&bytes).map_err(|_| KeyErrorKind::BadKey)?;
        if key_id(name, &bytes) != id {
            return Err(KeyErrorKind::KeyIdMismatch.into());
        }
        Ok(VerifierKey {
            name: String::from(name),
            id,
            key,
        })
    }
}

impl fmt::Display for VerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&key_text(&self.name, self.id, self.key.as_bytes()))
    }
}

/// A key that signs: a name, its id and an Ed25519 secret seed.
#[derive(Clone)]
pub struct SignerKey {
    name: String,
    id: u32,
    key: SigningKey,
}

impl fmt::Debug for SignerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret.
        write!(f, "SignerKey({}+{:08x})", self.name, self.id)
    }
}

impl SignerKey {
    /// The key for `name` from a 32-byte Ed25519 seed (`agentloop keygen` draws it from
    /// the operating system; nothing else in agentloop uses randomness).
    pub fn from_seed(name: &str, seed: &[u8; 32]) -> Result<Self, KeyError> {
        if !valid_name(name) {
            return Err(KeyErrorKind::BadName.into());
        }
        let key = SigningKey::from_bytes(seed);
        Ok(SignerKey {
            name: String::from(name),
            id: key_id(name, key.verifying_key().as_bytes()),
            key,
        })
    }

    /// The key's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The matching verifier key.
    pub fn verifier(&self) -> VerifierKey {
        VerifierKey {
            name: self.name.clone(),
            id: self.id,
            key: self.key.verifying_key(),
        }
    }

    /// The Ed25519 signature of `message` (deterministic, RFC 8032).
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }

    /// The secret text form, `PRIVATE+KEY+NAME+HEX8+BASE64(0x01 || SEED)`.
    pub fn to_secret_string(&self) -> String {
        format!(
            "{SIGNER_PREFIX}{}",
            key_text(&self.name, self.id, self.key.as_bytes())
        )
    }
}

impl FromStr for SignerKey {
    type Err = KeyError;

    /// Parses `PRIVATE+KEY+NAME+KEYID+BASE64`. A verifier key is refused as
    /// a key of the other kind ([`KeyError::other_kind`]).
    fn from_str(text: &str) -> Result<Self, KeyError> {
        let Some(rest) = text.strip_prefix(SIGNER_PREFIX) else {
            return Err(if text.parse::<VerifierKey>().is_ok() {
                KeyErrorKind::VerifierKeyGiven
            } else {
                KeyErrorKind::Shape
            }
            .into());
        };
        let (name, id, seed) = split_key(rest)?;
        let key = SignerKey::from_seed(name, &seed)?;
        if key.id != id {
            return Err(KeyErrorKind::KeyIdMismatch.into());
        }
        Ok(key)
    }
}

/// The lines of a key file that hold keys, with their 1-based line numbers: blank lines
/// and lines starting with `#` are skipped, the rest trimmed.
pub fn key_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

/// Why [`signer_key_text`] found no signer key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerTextError {
    /// Every line is blank or a `#` comment.
    NoKey,
    /// The first key line is not a signer key.
    Line {
        /// Its 1-based line number.
        line: usize,
        /// What is wrong with it.
        error: KeyError,
    },
}

impl fmt::Display for SignerTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignerTextError::NoKey => f.write_str("the key text holds no key"),
            SignerTextError::Line { line, error } => write!(f, "line {line}: {error}"),
        }
    }
}

impl core::error::Error for SignerTextError {}

/// The signer key in a key file's text: its first key line ([`key_lines`]) — so the
/// text `agentloop keygen` prints (the signer key, then its verifier key) is one. The
/// rule for `--sign-key FILE` and the C ABI's `signer_key`.
pub fn signer_key_text(text: &str) -> Result<SignerKey, SignerTextError> {
    let (line, key) = key_lines(text).next().ok_or(SignerTextError::NoKey)?;
    key.parse()
        .map_err(|error| SignerTextError::Line { line, error })
}
