//! OpenAI Chat Completions: the request body and the response, as OpenAI documents them
//! (<https://platform.openai.com/docs/api-reference/chat>) and as OpenAI-compatible
//! servers (vLLM, llama.cpp's server, Ollama, OpenRouter, Groq, Azure) speak them.

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

/// The conversation as a `messages` array, with `system` first when given.
pub fn messages(messages: &[Message], system: Option<&str>) -> Value {
    let _ = (messages, system);
    unimplemented!("codec helper")
}

/// The response (HTTP status and body) as a reply, or the error it reports.
pub fn parse(status: u16, body: &[u8]) -> Result<Reply, ModelError> {
    let _ = (status, body);
    unimplemented!("codec helper")
}
