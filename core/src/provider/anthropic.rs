//! Anthropic Messages: the request body and the response, as Anthropic documents them
//! (<https://docs.anthropic.com/en/api/messages>).

use alloc::vec::Vec;

use super::{RequestError, RequestOptions};
use crate::json::Value;
use crate::model::{Message, ModelError, Reply};
use crate::tools::ToolSpec;

/// The request body for the next turn, as canonical JSON bytes.
pub fn request(
    messages: &[Message],
    manifest: &[ToolSpec],
    options: &RequestOptions,
) -> Result<Vec<u8>, RequestError> {
    let _ = (messages, manifest, options);
    unimplemented!("codec helper")
}

/// The conversation as a `messages` array (alternating roles; the system prompt goes in the body, not here).
pub fn messages(messages: &[Message]) -> Value {
    let _ = messages;
    unimplemented!("codec helper")
}

/// The response (HTTP status and body) as a reply, or the error it reports.
pub fn parse(status: u16, body: &[u8]) -> Result<Reply, ModelError> {
    let _ = (status, body);
    unimplemented!("codec helper")
}
