//! `agentloop_result`: the one result enum every fallible export returns, and
//! `agentloop_result_str`.

use core::ffi::c_char;

use crate::boundary::boundary;

/// The result of a fallible call. `AGENTLOOP_RESULT_OK` is 0; every other value names
/// what went wrong, and `agentloop_result_str` spells it out.
///
/// The numbers are stable and append-only: a value once given keeps its meaning in
/// every later version, and new values are only ever added at the end. A caller should
/// treat an unknown non-zero value as a failure.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_result {
    /// The call succeeded.
    Ok = 0,
    /// A pointer parameter that must not be NULL was NULL (or a byte input was NULL
    /// with a non-zero length).
    NullParameter = 1,
    /// A text input (a record kind, a path) is not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON input is not I-JSON the strict parser accepts: bad syntax, invalid UTF-8,
    /// a byte-order mark, a duplicate key, a lone surrogate, `NaN`, nesting too deep.
    InvalidJson = 3,
    /// A JSON input reads, but a number in it has no canonical encoding (an integer
    /// that a double cannot hold exactly, a number out of range, an underflow).
    NoCanonicalForm = 4,
    /// The output does not fit the buffer (a NULL buffer, or a capacity of 0, fits only
    /// an empty output, which is `OK` with length 0): the needed length was written to
    /// `*out_len`, nothing else changed. Call again with a buffer that large.
    InsufficientSize = 5,
    /// An argument is out of its range: an empty record kind, a `seq0` above 2^53 − 1,
    /// a length above `PTRDIFF_MAX`, a checkpoint count above 2^53.
    InvalidArgument = 6,
    /// The chain has written the record with `seq` 2^53 − 1 and can take no more.
    ChainExhausted = 7,
    /// A schema the validator cannot honour (a remote reference, look-around, an
    /// unknown `$schema`, another draft's keyword) or its meta-schema refuses
    /// (docs/schemas.md).
    SchemaRefused = 8,
    /// An operating-system input/output call failed (open, lock, write, sync).
    Io = 9,
    /// The call is not allowed in the object's current state (a push after finish, an
    /// append to a writer whose earlier write failed).
    InvalidState = 10,
    /// An index is past the end (a fault index not below the fault count).
    IndexOutOfRange = 11,
    /// A transcript does not verify, so nothing was appended to it (or no proof or
    /// checkpoint was made of it).
    DoesNotVerify = 12,
    /// A bug: the library panicked. The panic was caught at the boundary; the object
    /// the call was given may be in an unspecified (but memory-safe) state.
    Panic = 13,
    /// A callback refused: the record sink of `agentloop_driver_run` returned non-zero, so the
    /// run stopped and the transcript ends before that record.
    CallbackRefused = 14,
    /// Another writer holds the transcript's lock and the writer's options said not to
    /// wait (`wait_for_lock` false).
    Locked = 15,
    /// The transcript ends in an incomplete line (`torn_tail`): an earlier append did
    /// not finish. Nothing is appended until `agentloop_transcript_repair` moves it aside.
    TornTail = 16,
    /// `agentloop_transcript_repair`: the side file for the torn bytes already exists; nothing
    /// was changed.
    SideFileExists = 17,
    /// A transcript verifies but is not a run this agent can resume: not a well-formed
    /// run, another task, other budgets or tools (`agentloop_agent_resume_error` says
    /// which record and why).
    ResumeRefused = 18,
    /// A proof does not hold (`agentloop_proof_verify_inclusion`,
    /// `agentloop_proof_verify_consistency`): its path, its record, its checkpoint's
    /// signature or origin, or the older checkpoint does not check.
    ProofInvalid = 19,
    /// A proof, checkpoint or note key text does not parse (or is a v1 checkpoint
    /// where a C2SP one, with a Merkle root, is needed).
    AnchorMalformed = 20,
    /// The record's line would be longer than the line limit (16 MiB without its
    /// newline, or the writer's verify options' `max_line_bytes` if lower), which a
    /// verifier refuses; nothing was appended or written.
    RecordTooLong = 21,
    /// A tool is refused at registration for what model providers require: its name
    /// does not match `^[a-zA-Z0-9_-]{1,64}$`, or its root schema does not have
    /// `"type": "object"` (`agentloop_tool_explain` says which and why).
    NotProviderSafe = 22,
    /// A provider request body cannot be built (`agentloop_agent_request`,
    /// `agentloop_reply_request`): the options are not what the codec takes (no
    /// `model`, a `max_output_tokens` out of range, a member the codec writes itself,
    /// Anthropic without `max_output_tokens`), or the conversation cannot be sent to
    /// that provider. `agentloop_agent_request_error` says which and why.
    RequestRefused = 23,
}

impl agentloop_result {
    /// Every value, in number order.
    pub const ALL: [agentloop_result; 24] = [
        agentloop_result::Ok,
        agentloop_result::NullParameter,
        agentloop_result::InvalidUtf8,
        agentloop_result::InvalidJson,
        agentloop_result::NoCanonicalForm,
        agentloop_result::InsufficientSize,
        agentloop_result::InvalidArgument,
        agentloop_result::ChainExhausted,
        agentloop_result::SchemaRefused,
        agentloop_result::Io,
        agentloop_result::InvalidState,
        agentloop_result::IndexOutOfRange,
        agentloop_result::DoesNotVerify,
        agentloop_result::Panic,
        agentloop_result::CallbackRefused,
        agentloop_result::Locked,
        agentloop_result::TornTail,
        agentloop_result::SideFileExists,
        agentloop_result::ResumeRefused,
        agentloop_result::ProofInvalid,
        agentloop_result::AnchorMalformed,
        agentloop_result::RecordTooLong,
        agentloop_result::NotProviderSafe,
        agentloop_result::RequestRefused,
    ];

    /// The value with this number, if there is one.
    pub fn from_u32(code: u32) -> Option<agentloop_result> {
        usize::try_from(code)
            .ok()
            .and_then(|i| agentloop_result::ALL.get(i))
            .copied()
    }

    /// The message without its NUL, for sentences built around it.
    pub(crate) fn sentence(self) -> &'static str {
        let message = self.message();
        core::str::from_utf8(&message[..message.len() - 1]).unwrap_or("")
    }

    /// The message, NUL-terminated.
    fn message(self) -> &'static [u8] {
        match self {
            agentloop_result::Ok => b"ok\0",
            agentloop_result::NullParameter => b"a required pointer parameter is NULL\0",
            agentloop_result::InvalidUtf8 => b"a text input is not valid UTF-8\0",
            agentloop_result::InvalidJson => {
                b"the input is not JSON the strict I-JSON parser accepts\0"
            }
            agentloop_result::NoCanonicalForm => {
                b"a number in the input has no canonical encoding\0"
            }
            agentloop_result::InsufficientSize => {
                b"the output buffer is too small; the needed length was written to out_len\0"
            }
            agentloop_result::InvalidArgument => b"an argument is out of its range\0",
            agentloop_result::ChainExhausted => b"the chain has reached seq 2^53-1\0",
            agentloop_result::SchemaRefused => {
                b"the schema was refused: the validator cannot honour it, or it is invalid\0"
            }
            agentloop_result::Io => b"an input/output operation failed\0",
            agentloop_result::InvalidState => {
                b"the call is not allowed in the object's current state\0"
            }
            agentloop_result::IndexOutOfRange => b"the index is out of range\0",
            agentloop_result::DoesNotVerify => {
                b"the transcript does not verify, so nothing was appended or proved\0"
            }
            agentloop_result::Panic => b"internal error: the library panicked (a bug)\0",
            agentloop_result::CallbackRefused => {
                b"a callback refused (the record sink returned non-zero); the run stopped\0"
            }
            agentloop_result::Locked => {
                b"another writer holds the transcript's lock (not waiting, as asked)\0"
            }
            agentloop_result::TornTail => {
                b"the transcript ends in an incomplete line (torn_tail); repair it first\0"
            }
            agentloop_result::SideFileExists => {
                b"the repair's side file already exists; nothing was changed\0"
            }
            agentloop_result::ResumeRefused => {
                b"the transcript is not a run this agent can resume\0"
            }
            agentloop_result::ProofInvalid => b"the proof does not hold\0",
            agentloop_result::AnchorMalformed => {
                b"a proof, checkpoint or note key text does not parse\0"
            }
            agentloop_result::RecordTooLong => {
                b"the record's line would be longer than the line limit; nothing was appended\0"
            }
            agentloop_result::NotProviderSafe => {
                b"the tool's name or root schema is not what model providers accept\0"
            }
            agentloop_result::RequestRefused => {
                b"the provider request body cannot be built from these options and this conversation\0"
            }
        }
    }
}

/// Lets `?` turn a core error into a result code.
pub(crate) type Outcome<T = ()> = Result<T, agentloop_result>;

/// A static, NUL-terminated English sentence for `result`, e.g.
/// `"the output buffer is too small; …"`. Any value is accepted: one this version does
/// not know gives `"unknown result code"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn agentloop_result_str(result: u32) -> *const c_char {
    boundary(|| {
        let text: &'static [u8] = match agentloop_result::from_u32(result) {
            Some(known) => known.message(),
            None => b"unknown result code\0",
        };
        text.as_ptr().cast::<c_char>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_positions_and_messages_are_terminated() {
        for (i, code) in agentloop_result::ALL.iter().enumerate() {
            assert_eq!(*code as u32 as usize, i);
            assert_eq!(agentloop_result::from_u32(i as u32), Some(*code));
            let message = code.message();
            assert_eq!(message.last(), Some(&0));
            assert_eq!(message.iter().filter(|&&b| b == 0).count(), 1);
        }
        assert_eq!(
            agentloop_result::from_u32(agentloop_result::ALL.len() as u32),
            None
        );
        assert_eq!(agentloop_result::from_u32(u32::MAX), None);
    }
}
