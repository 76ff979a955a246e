//! Failures about the JSON a command was given to append: not JSON, too long, not a
//! payload.

use std::fmt;

use agentloop_core::json::ParseErrorKind;

use super::parse_verdict;
use crate::exit::Exit;
use crate::input::ReadError;

/// Failures about the JSON a command was given to append: not JSON, too long, not a
/// payload.
#[derive(Debug)]
pub enum InputFailure {
    /// A JSON input is not I-JSON or has no canonical encoding.
    Json {
        /// The input, as named on the command line.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// What was wrong.
        kind: ParseErrorKind,
    },
    /// `canon --jsonl`, or a transcript `prove`, `export` or `replay` reads whole: a
    /// line is longer than the line limit (it is not read further).
    LineTooLong {
        /// The input, as named on the command line.
        name: String,
        /// 1-based line.
        line: usize,
        /// The limit in bytes (`verify::MAX_LINE_BYTES`).
        limit: usize,
    },
    /// `append`: the payload is not I-JSON or has no canonical encoding.
    Payload {
        /// The transcript, as named on the command line.
        file: String,
        /// Where the payload came from: `--payload` or the payload file's name.
        origin: String,
        /// 1-based line in the payload.
        line: usize,
        /// 1-based column in the payload, in bytes.
        column: usize,
        /// What was wrong.
        kind: ParseErrorKind,
    },
    /// `append`: the payload file could not be read, or is longer than a whole
    /// document may be (no record could hold it).
    PayloadUnreadable {
        /// The payload file, as named on the command line.
        name: String,
        /// Why.
        reason: ReadError,
    },
}

impl InputFailure {
    /// The exit status: a fault in the input (a payload too long for a record
    /// included, as `append` refuses any record too long), except an input that cannot
    /// be read.
    pub fn exit(&self) -> Exit {
        match self {
            InputFailure::Json { .. }
            | InputFailure::LineTooLong { .. }
            | InputFailure::Payload { .. }
            | InputFailure::PayloadUnreadable {
                reason: ReadError::TooLarge { .. },
                ..
            } => Exit::Fault,
            InputFailure::PayloadUnreadable {
                reason: ReadError::Io(_),
                ..
            } => Exit::CannotGrade,
        }
    }
}

impl fmt::Display for InputFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputFailure::Json {
                name,
                line,
                column,
                kind,
            } => write!(
                f,
                "{name} line {line} column {column}: the input {}: {kind}",
                parse_verdict(*kind)
            ),
            InputFailure::LineTooLong { name, line, limit } => write!(
                f,
                "{name} line {line}: the line is longer than the limit of {limit} bytes"
            ),
            InputFailure::Payload {
                file,
                origin,
                line,
                column,
                kind,
            } => write!(
                f,
                "{file}: the payload ({origin} line {line} column {column}) {}: {kind}; \
                 nothing was appended",
                parse_verdict(*kind)
            ),
            InputFailure::PayloadUnreadable { name, reason } => {
                write!(
                    f,
                    "{name}: cannot read the payload: {reason}; nothing was appended"
                )
            }
        }
    }
}
