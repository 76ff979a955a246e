//! Exports for model providers: a transcript as a provider's message history, and the
//! tool manifest in the shapes providers and MCP servers expect.
//!
//! [`history`] turns a transcript's records into an OpenAI Chat Completions or an
//! Anthropic Messages history, pairing every tool call
//! with exactly one result — a call the loop left unrun (the `stop` record's
//! `unrun_calls`) with a synthetic `not run: the loop stopped (<reason>)` result.
//! [`Provider::tools`](crate::provider::Provider::tools) and [`mcp_tools`] turn the
//! loop's [`ToolSpec`](crate::tools::ToolSpec)s into tool lists. [`rebuild_requests`]
//! rebuilds each turn's request body from the transcript alone, and
//! [`check_requests`] compares them with the digests the records hold.
//!
//! ```
//! use agentloop_core::{demo, export, provider::Provider};
//!
//! let (bytes, _) = demo::answer().run().unwrap();
//! let records = export::parse_records(&bytes).unwrap();
//! let history = export::history(Provider::OpenAi, &records).unwrap();
//! let text = String::from_utf8(agentloop_core::jcs::to_vec(&history).unwrap()).unwrap();
//! assert!(text.starts_with(r#"[{"content":"add 2 and 40","role":"user"},"#));
//! ```
//!
//! Everything here is built as [`Value`]s; encode them with [`crate::jcs`].

mod conversation;
mod history;
mod native;
mod requests;
#[cfg(test)]
mod requests_tests;

pub use crate::provider::mcp_tools;
pub use conversation::HistoryError;
pub use history::history;
// The loop's own JSON shapes of messages, tools and calls: the C ABI's, not API.
#[doc(hidden)]
pub use native::{native_call, native_calls, native_messages, native_tools};
pub use requests::{
    check_requests, rebuild_requests, RebuiltRequest, RequestMismatch, Requester, RequestsError,
};

use alloc::vec::Vec;
use core::fmt;

use crate::json::{parse_record_line, Object, ParseError, Value};

/// An object of these members (a later key replaces an earlier one).
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// A transcript line [`parse_records`] could not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseRecordsError {
    /// The line's 0-based index (the record's position in the transcript).
    pub index: usize,
    /// What was wrong with the line, and at which byte of it.
    pub error: ParseError,
}

impl fmt::Display for ParseRecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "transcript line {}: {}", self.index + 1, self.error)
    }
}

impl core::error::Error for ParseRecordsError {}

/// Parses a transcript's lines (JSONL, each line ending in `\n`; a last line without
/// one is read too) into record values, for [`history`]. Lines are parsed strictly, one level deeper than a payload
/// may be (the record around it); the error names the first line that does not parse
/// (its 0-based index; `Display` says `transcript line <index + 1>`).
///
/// This does not verify the chain: use [`crate::verify`] for that.
pub fn parse_records(transcript: &[u8]) -> Result<Vec<Value>, ParseRecordsError> {
    let body = transcript.strip_suffix(b"\n").unwrap_or(transcript);
    if body.is_empty() {
        return Ok(Vec::new());
    }
    body.split(|&b| b == b'\n')
        .enumerate()
        .map(|(index, line)| {
            parse_record_line(line).map_err(|error| ParseRecordsError { index, error })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
