//! Why a payload does not decode: [`PayloadError`], the one error of every payload
//! type's `decode`.

use core::fmt;

use super::RecordKind;
use crate::heap::opaque::opaque_error;

opaque_error! {
    /// Why a payload is not the one the loop writes for its kind. Members the loop does
    /// not write are not errors (the loop audit, [`crate::audit`], reports them).
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct PayloadError(PayloadErrorKind);
}

/// What [`PayloadError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PayloadErrorKind {
    /// A member the loop writes is absent.
    Missing {
        /// The record's kind.
        kind: RecordKind,
        /// The member, e.g. `budgets` or `tool_calls[].id`.
        member: &'static str,
    },
    /// A member (or, when `member` is empty, the payload) is not what the loop writes.
    Malformed {
        /// The record's kind.
        kind: RecordKind,
        /// The member, e.g. `budgets.max_steps`; empty for the payload itself.
        member: &'static str,
        /// What it must be, e.g. `a string`.
        expected: &'static str,
    },
}

impl fmt::Display for PayloadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PayloadErrorKind::Missing { kind, member } => {
                write!(f, "the {kind} payload has no {member}")
            }
            PayloadErrorKind::Malformed {
                kind,
                member: "",
                expected,
            } => write!(f, "the {kind} payload must be {expected}"),
            PayloadErrorKind::Malformed {
                kind,
                member,
                expected,
            } => write!(f, "the {kind} payload's {member} must be {expected}"),
        }
    }
}

impl PayloadError {
    /// The same error, said of a payload of `kind` (a member read by a decode that
    /// serves two kinds: a `setup` in a `task` or a `resume` record).
    pub(crate) fn of_kind(self, kind: RecordKind) -> PayloadError {
        match self.0 {
            PayloadErrorKind::Missing { member, .. } => PayloadErrorKind::Missing { kind, member },
            PayloadErrorKind::Malformed {
                member, expected, ..
            } => PayloadErrorKind::Malformed {
                kind,
                member,
                expected,
            },
        }
        .into()
    }
}
