//! The kinds of fault a verifier reports (SPEC section 3), shared by the allocating
//! verifier (`verify`) and the streaming one ([`crate::stream`]); needs no allocator.

use core::fmt;

/// The kinds of fault a verifier reports, with the names SPEC section 3 gives them.
///
/// The streaming verifier ([`crate::stream`]) reports all of them but `unreadable`
/// (reading is the caller's job) and `loop_malformed` (it does not audit the loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FaultKind {
    /// The line is JSON but not an object.
    NotAnObject,
    /// A required member is absent, or `kind` is not a non-empty string.
    MissingFields,
    /// A member other than the five of a record.
    UnexpectedFields,
    /// A number in the record has no canonical encoding, so no hash can be computed.
    UnserialisablePayload,
    /// The stored `hash` is malformed or not the SHA-256 of the record.
    HashMismatch,
    /// `seq` is not the previous record's `seq` + 1 (or is not a number).
    SeqGap,
    /// `prev` is malformed or not the stored `hash` of the record before.
    PrevMismatch,
    /// The line's bytes are not the canonical encoding of its content.
    NotCanonical,
    /// The line is not I-JSON the parser accepts (or is empty, or too long).
    BadJson,
    /// The last line has no terminating newline.
    TornTail,
    /// The file cannot be opened or read.
    Unreadable,
    /// The transcript has fewer records than the checkpoint.
    Truncated,
    /// Record `count − 1` does not carry the checkpoint's head.
    HeadMismatch,
    /// The transcript is not a well-formed run of the loop (`verify --loop`; see the
    /// `audit` module). Not a chain fault: the SPEC allows new kinds.
    LoopMalformed,
    /// The checkpoint text is not a checkpoint: which part is wrong is in the detail.
    CheckpointMalformed,
    /// The checkpoint's origin names another transcript than the one verified.
    CheckpointOriginMismatch,
    /// A trusted key's signature line on the checkpoint does not verify.
    CheckpointBadSignature,
    /// Keys are trusted, but none of them signed the checkpoint.
    CheckpointUntrusted,
    /// Two checkpoints of one transcript where the older is not a prefix of the newer.
    CheckpointInconsistent,
}

impl FaultKind {
    /// Every kind, in the order the SPEC lists them (then the loop audit's).
    pub const ALL: [FaultKind; 19] = [
        FaultKind::NotAnObject,
        FaultKind::MissingFields,
        FaultKind::UnexpectedFields,
        FaultKind::UnserialisablePayload,
        FaultKind::HashMismatch,
        FaultKind::SeqGap,
        FaultKind::PrevMismatch,
        FaultKind::NotCanonical,
        FaultKind::BadJson,
        FaultKind::TornTail,
        FaultKind::Unreadable,
        FaultKind::Truncated,
        FaultKind::HeadMismatch,
        FaultKind::LoopMalformed,
        FaultKind::CheckpointMalformed,
        FaultKind::CheckpointOriginMismatch,
        FaultKind::CheckpointBadSignature,
        FaultKind::CheckpointUntrusted,
        FaultKind::CheckpointInconsistent,
    ];

    /// The SPEC's name for the kind, e.g. `"hash_mismatch"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::NotAnObject => "not_an_object",
            FaultKind::MissingFields => "missing_fields",
            FaultKind::UnexpectedFields => "unexpected_fields",
            FaultKind::UnserialisablePayload => "unserialisable_payload",
            FaultKind::HashMismatch => "hash_mismatch",
            FaultKind::SeqGap => "seq_gap",
            FaultKind::PrevMismatch => "prev_mismatch",
            FaultKind::NotCanonical => "not_canonical",
            FaultKind::BadJson => "bad_json",
            FaultKind::TornTail => "torn_tail",
            FaultKind::Unreadable => "unreadable",
            FaultKind::Truncated => "truncated",
            FaultKind::HeadMismatch => "head_mismatch",
            FaultKind::LoopMalformed => "loop_malformed",
            FaultKind::CheckpointMalformed => "checkpoint_malformed",
            FaultKind::CheckpointOriginMismatch => "checkpoint_origin_mismatch",
            FaultKind::CheckpointBadSignature => "checkpoint_bad_signature",
            FaultKind::CheckpointUntrusted => "checkpoint_untrusted",
            FaultKind::CheckpointInconsistent => "checkpoint_inconsistent",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
