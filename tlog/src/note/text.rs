//! The note envelope: text, blank line, signature lines.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::keys::{valid_name, SignerKey, VerifierKey};
use crate::opaque::opaque_error;

/// Go's limit on signature lines in one note.
const MAX_SIGNATURES: usize = 100;

opaque_error! {
    /// Why a note was refused as malformed.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct NoteError(NoteErrorKind);
}

/// What [`NoteError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoteErrorKind {
    /// The text is empty or does not end in a newline.
    TextNotTerminated,
    /// A control character other than newline.
    ControlCharacter,
    /// No blank line separates the text from signatures, or no signature follows it.
    NoSignatures,
    /// Signature line `n` (1-based) is not `— NAME BASE64` with a valid name and at
    /// least a key id and one signature byte, ending in a newline.
    BadSignatureLine(usize),
    /// More than 100 signature lines.
    TooManySignatures,
}

impl fmt::Display for NoteErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoteErrorKind::TextNotTerminated => {
                f.write_str("the note text is empty or does not end in a newline")
            }
            NoteErrorKind::ControlCharacter => {
                f.write_str("the note holds a control character other than newline")
            }
            NoteErrorKind::NoSignatures => {
                f.write_str("no blank line and signature lines follow the note text")
            }
            NoteErrorKind::BadSignatureLine(n) => write!(
                f,
                "signature line {n} is not \"\u{2014} NAME BASE64\" ending in a newline"
            ),
            NoteErrorKind::TooManySignatures => {
                f.write_str("the note has more than 100 signatures")
            }
        }
    }
}

/// One signature line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    /// The signer's key name.
    pub name: String,
    /// The signer's key id.
    pub id: u32,
    /// The signature bytes after the key id.
    pub signature: Vec<u8>,
}

impl NoteSignature {
    /// The line, `— NAME BASE64(KEY_ID || SIGNATURE)` and a newline.
    pub fn to_line(&self) -> String {
        let mut raw = Vec::with_capacity(4 + self.signature.len());
        raw.extend_from_slice(&self.id.to_be_bytes());
        raw.extend_from_slice(&self.signature);
        alloc::format!("\u{2014} {} {}\n", self.name, STANDARD.encode(raw))
    }
}

/// A note: its signed text and its signature lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The signed text, ending in a newline.
    pub text: String,
    /// The signature lines, in order.
    pub signatures: Vec<NoteSignature>,
}

/// What the trusted keys say of a note's signatures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureCheck {
    /// At least one trusted key signed the text, and no trusted key's line is bad.
    Trusted(Vec<String>),
    /// A line names a trusted key (name and id) but is not its signature of the text.
    BadSignature(String),
    /// No line is by a trusted key.
    Untrusted,
}

fn check_text(text: &str) -> Result<(), NoteError> {
    if text.chars().any(|c| c < ' ' && c != '\n') {
        return Err(NoteErrorKind::ControlCharacter.into());
    }
    Ok(())
}

fn parse_line(line: &str, n: usize) -> Result<NoteSignature, NoteError> {
    let bad = NoteErrorKind::BadSignatureLine(n);
    let rest = line.strip_prefix("\u{2014} ").ok_or(bad)?;
    let (name, b64) = rest.split_once(' ').ok_or(bad)?;
    if !valid_name(name) {
        return Err(bad.into());
    }
    let raw = STANDARD.decode(b64).map_err(|_| bad)?;
    if raw.len() < 5 {
        return Err(bad.into());
    }
    Ok(NoteSignature {
        name: String::from(name),
        id: u32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]),
        signature: raw[4..].to_vec(),
    })
}

impl Note {
    /// Reads a signed note as Go's `note.Open` does (without checking signatures):
    /// the text is everything up to the last blank line.
    pub fn parse(message: &str) -> Result<Note, NoteError> {
        check_text(message)?;
        let split = message.rfind("\n\n").ok_or(NoteErrorKind::NoSignatures)?;
        let (text, sigs) = (&message[..=split], &message[split + 2..]);
        if sigs.is_empty() {
            return Err(NoteErrorKind::NoSignatures.into());
        }
        let mut signatures = Vec::new();
        let mut lines = sigs.split_inclusive('\n');
        for (i, line) in lines.by_ref().enumerate() {
            let line = line
                .strip_suffix('\n')
                .ok_or(NoteErrorKind::BadSignatureLine(i + 1))?;
            if signatures.len() == MAX_SIGNATURES {
                return Err(NoteErrorKind::TooManySignatures.into());
            }
            signatures.push(parse_line(line, i + 1)?);
        }
        Ok(Note {
            text: String::from(text),
            signatures,
        })
    }

    /// A note of `text` (which must end in a newline) signed by `signer`.
    pub fn sign(text: &str, signer: &SignerKey) -> Result<Note, NoteError> {
        if text.is_empty() || !text.ends_with('\n') {
            return Err(NoteErrorKind::TextNotTerminated.into());
        }
        check_text(text)?;
        Ok(Note {
            text: String::from(text),
            signatures: alloc::vec![NoteSignature {
                name: String::from(signer.name()),
                id: signer.id(),
                signature: signer.sign(text.as_bytes()).to_vec(),
            }],
        })
    }

    /// The message: text, blank line, signature lines.
    pub fn to_message(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for s in &self.signatures {
            out.push_str(&s.to_line());
        }
        out
    }

    /// Judges the signatures against `trusted` keys. Lines by other keys are ignored,
    /// as the spec requires (they may be witnesses' or a rotated key's).
    pub fn check(&self, trusted: &[VerifierKey]) -> SignatureCheck {
        let mut good = Vec::new();
        for sig in &self.signatures {
            for key in trusted {
                if key.name() != sig.name || key.id() != sig.id {
                    continue;
                }
                if !key.verifies(self.text.as_bytes(), &sig.signature) {
                    return SignatureCheck::BadSignature(alloc::format!(
                        "{}+{:08x}",
                        sig.name,
                        sig.id
                    ));
                }
                good.push(alloc::format!("{}+{:08x}", sig.name, sig.id));
            }
        }
        if good.is_empty() {
            SignatureCheck::Untrusted
        } else {
            SignatureCheck::Trusted(good)
        }
    }
}
