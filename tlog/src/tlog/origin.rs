//! Which origins agentloop writes into a checkpoint.
//!
//! C2SP `tlog-checkpoint` requires the origin (line 1 of the body) to be non-empty
//! well-formed UTF-8, and its current text adds that, like a note key name, it contain
//! neither Unicode spaces nor `+` (older revisions only recommend that). agentloop
//! refuses what it could not read back or what would not be one line: an empty origin,
//! a control character (so no newline), and a first character that is white space or
//! `{` — [`read_checkpoint`](super::read_checkpoint) takes text whose first
//! non-white-space character is `{` for a v1 JSON checkpoint. Spaces and `+` inside an
//! origin are still accepted, as before.

use crate::opaque::opaque_error;
use core::fmt;

opaque_error! {
    /// Why an origin was refused (see [`check_origin`]).
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct OriginError(OriginErrorKind);
}

/// What [`OriginError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginErrorKind {
    /// The origin is empty.
    Empty,
    /// The origin holds a control character (a newline among them) at this byte
    /// offset.
    ControlCharacter {
        /// The character.
        found: char,
        /// Its byte offset in the origin.
        at: usize,
    },
    /// The origin starts with white space.
    LeadingWhiteSpace,
    /// The origin starts with `{`, so the checkpoint would read back as a v1 JSON one.
    LeadingBrace,
}

impl fmt::Display for OriginErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginErrorKind::Empty => f.write_str("the origin is empty"),
            OriginErrorKind::ControlCharacter { found, at } => write!(
                f,
                "the origin holds the control character {:?} at byte {at} (an origin is one line)",
                found
            ),
            OriginErrorKind::LeadingWhiteSpace => f.write_str("the origin starts with white space"),
            OriginErrorKind::LeadingBrace => f.write_str(
                "the origin starts with '{', so the checkpoint would read back as a v1 JSON checkpoint",
            ),
        }
    }
}

/// Checks that `origin` is one agentloop may write as a checkpoint's origin line:
/// non-empty, no control characters, not starting with white space or `{`. A
/// checkpoint with an accepted origin reads back (by
/// [`read_checkpoint`](super::read_checkpoint)) with that origin.
pub fn check_origin(origin: &str) -> Result<(), OriginError> {
    let Some(first) = origin.chars().next() else {
        return Err(OriginErrorKind::Empty.into());
    };
    if let Some((at, found)) = origin.char_indices().find(|(_, c)| c.is_control()) {
        return Err(OriginErrorKind::ControlCharacter { found, at }.into());
    }
    if first.is_whitespace() {
        return Err(OriginErrorKind::LeadingWhiteSpace.into());
    }
    if first == '{' {
        return Err(OriginErrorKind::LeadingBrace.into());
    }
    Ok(())
}
