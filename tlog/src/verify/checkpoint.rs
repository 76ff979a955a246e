//! The text form of a [`Checkpoint`] (the struct itself needs no allocator).
//!
//! Format version 1: one canonical JSON object and a newline,
//! `{"count":3,"head":"8428b0…"}`. `head` may be omitted to check the count alone.

use core::fmt;

use crate::anchor::MAX_SEQ;
use crate::checkpoint::Checkpoint;
use crate::hash::Hash;
use crate::json::{self, Value};
use crate::opaque::opaque_error;

opaque_error! {
    /// Why a checkpoint text was refused (`checkpoint_malformed`): its `Display` is the
    /// sentence.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct CheckpointError(Problem) debug(tuple);
}

/// What was wrong with a checkpoint text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The text is not a JSON object.
    NotAnObject,
    /// `count` is missing or not an integer from 0 to 2^53.
    BadCount,
    /// `head` is not 64 lowercase hex digits.
    BadHead,
    /// A member other than `count` and `head`.
    UnknownMember,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::NotAnObject => {
                "a checkpoint is a JSON object {\"count\":N,\"head\":\"<64 hex>\"}"
            }
            Problem::BadCount => "the checkpoint's count is not an integer from 0 to 2^53",
            Problem::BadHead => "the checkpoint's head is not 64 lowercase hex digits",
            Problem::UnknownMember => "the checkpoint has a member other than count and head",
        })
    }
}

/// Reading a [`Checkpoint`]'s text form, which needs the JSON parser of this crate (the
/// checkpoint itself is the transcript crate's, with no allocator; its
/// `Checkpoint::to_text` writes the form). `use agentloop_core::verify::ParseCheckpoint`
/// to call `Checkpoint::parse`.
pub trait ParseCheckpoint: Sized {
    /// Reads the text form; surrounding white space is allowed, anything else strict.
    fn parse(text: &[u8]) -> Result<Self, CheckpointError>;
}

impl ParseCheckpoint for Checkpoint {
    fn parse(text: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let value = json::parse(text).map_err(|_| CheckpointError(Problem::NotAnObject))?;
        let object = value
            .as_object()
            .ok_or(CheckpointError(Problem::NotAnObject))?;
        if object.iter().any(|(k, _)| k != "count" && k != "head") {
            return Err(CheckpointError(Problem::UnknownMember));
        }
        let count = match object.get("count") {
            // `as` saturates; the round trip holds only for integers in range.
            Some(Value::Number(n)) if (*n as u64) as f64 == *n && *n <= (MAX_SEQ + 1) as f64 => {
                *n as u64
            }
            _ => return Err(CheckpointError(Problem::BadCount)),
        };
        let head = match object.get("head") {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(|s| Hash::from_hex(s.as_bytes()))
                    .ok_or(CheckpointError(Problem::BadHead))?,
            ),
        };
        Ok(Checkpoint {
            count,
            head,
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let cp = Checkpoint {
            count: 3,
            head: Some(Hash([0x84; 32])),
            ..Default::default()
        };
        let text = cp.to_text();
        assert!(text.starts_with("{\"count\":3,\"head\":\"8484"));
        assert_eq!(Checkpoint::parse(text.as_bytes()), Ok(cp));
        assert_eq!(
            Checkpoint::parse(b" {\"count\":0}\n"),
            Ok(Checkpoint {
                count: 0,
                head: None,
                ..Default::default()
            })
        );
        assert_eq!(
            Checkpoint::parse(b"[]"),
            Err(CheckpointError(Problem::NotAnObject))
        );
        assert_eq!(
            Checkpoint::parse(b"{"),
            Err(CheckpointError(Problem::NotAnObject))
        );
        assert_eq!(
            Checkpoint::parse(b"{\"count\":1.5}"),
            Err(CheckpointError(Problem::BadCount))
        );
        assert_eq!(
            Checkpoint::parse(b"{\"count\":-1}"),
            Err(CheckpointError(Problem::BadCount))
        );
        assert_eq!(
            Checkpoint::parse(b"{}"),
            Err(CheckpointError(Problem::BadCount))
        );
        assert_eq!(
            Checkpoint::parse(b"{\"count\":1,\"head\":\"AB\"}"),
            Err(CheckpointError(Problem::BadHead))
        );
        assert_eq!(
            Checkpoint::parse(b"{\"count\":1,\"x\":1}"),
            Err(CheckpointError(Problem::UnknownMember))
        );
        // Counts go up to 2^53 (a transcript of seqs 0..=2^53-1).
        assert_eq!(
            Checkpoint::parse(b"{\"count\":9007199254740992}"),
            Ok(Checkpoint {
                count: 1 << 53,
                head: None,
                ..Default::default()
            })
        );
        assert_eq!(
            Checkpoint::parse(b"{\"count\":9007199254740994}"),
            Err(CheckpointError(Problem::BadCount))
        );
        assert_eq!(
            alloc::format!("{}", CheckpointError(Problem::BadHead)),
            "the checkpoint's head is not 64 lowercase hex digits"
        );
        assert_eq!(
            alloc::format!("{}", CheckpointError(Problem::UnknownMember)),
            "the checkpoint has a member other than count and head"
        );
    }
}
