//! The `assistant` payload: `{"text", "tool_calls": [{"id", "name", "arguments"}],
//! "tokens"}`, plus `provider` with the members reported when the provider reported
//! anything (the request and response digests among them, when the host knew them).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::member::{
    ARGUMENTS, CACHED_INPUT_TOKENS, FINISH_REASON, ID, INPUT_TOKENS, MODEL, NAME, PROVIDER,
    REQUEST_SHA256, RESPONSE_ID, RESPONSE_SHA256, TEXT, TOKENS, TOOL_CALLS,
};
use super::read::{number, object, Members};
use super::{PayloadError, RecordKind};
use crate::json::Value;
use crate::model::{ProviderReport, ToolCall};

/// One model turn as its `assistant` record states it.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantPayload {
    /// The turn's text.
    pub text: String,
    /// Its calls, in order, with their ids (`call_<seq>_<index>`).
    pub tool_calls: Vec<ToolCall>,
    /// The tokens the turn counted (the model's count, or the estimate).
    pub tokens: u64,
    /// What the provider reported (`provider`; empty when it reported nothing).
    pub provider: ProviderReport,
}

const KIND: RecordKind = RecordKind::Assistant;

/// The members of `provider`, as (name, what a decode error calls it).
const PROVIDER_STRINGS: [(&str, &str); 3] = [
    (FINISH_REASON, "provider.finish_reason"),
    (MODEL, "provider.model"),
    (RESPONSE_ID, "provider.response_id"),
];
const PROVIDER_COUNTS: [(&str, &str); 2] = [
    (CACHED_INPUT_TOKENS, "provider.cached_input_tokens"),
    (INPUT_TOKENS, "provider.input_tokens"),
];
const PROVIDER_DIGESTS: [(&str, &str); 2] = [
    (REQUEST_SHA256, "provider.request_sha256"),
    (RESPONSE_SHA256, "provider.response_sha256"),
];

impl AssistantPayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        let calls = self.tool_calls.iter().map(encode_call).collect();
        let mut members = alloc::vec![
            (TEXT, Value::from(self.text.as_str())),
            (TOOL_CALLS, Value::Array(calls)),
            (TOKENS, number(self.tokens)),
        ];
        if !self.provider.is_empty() {
            members.push((PROVIDER, report(&self.provider)));
        }
        object(members)
    }

    /// Reads an `assistant` payload.
    pub fn decode(payload: &Value) -> Result<AssistantPayload, PayloadError> {
        let members = Members::of(KIND, payload)?;
        let text = members.string(TEXT, TEXT)?;
        let tool_calls = members
            .array(TOOL_CALLS, TOOL_CALLS)?
            .iter()
            .map(|call| decode_call(members, call))
            .collect::<Result<Vec<_>, _>>()?;
        let provider = match members.optional(PROVIDER) {
            None => ProviderReport::default(),
            Some(provider) => decode_report(members.inner(provider, PROVIDER)?)?,
        };
        Ok(AssistantPayload {
            text: String::from(text),
            tool_calls,
            tokens: members.count(TOKENS, TOKENS)?,
            provider,
        })
    }
}

/// One call: `{"arguments", "id", "name"}` (also the loop's own JSON shape of a call,
/// `export::native_call`).
pub(crate) fn encode_call(call: &ToolCall) -> Value {
    object([
        (ID, Value::from(call.id.as_str())),
        (NAME, Value::from(call.name.as_str())),
        (ARGUMENTS, call.arguments.clone()),
    ])
}

fn decode_call(payload: Members<'_>, call: &Value) -> Result<ToolCall, PayloadError> {
    let call = payload.inner(call, "tool_calls[]")?;
    Ok(ToolCall {
        id: String::from(call.string(ID, "tool_calls[].id")?),
        name: String::from(call.string(NAME, "tool_calls[].name")?),
        arguments: call.value(ARGUMENTS, "tool_calls[].arguments")?.clone(),
    })
}

/// The `provider` member: only what was reported.
fn report(provider: &ProviderReport) -> Value {
    let strings = [
        &provider.finish_reason,
        &provider.model,
        &provider.response_id,
    ];
    let counts = [provider.cached_input_tokens, provider.input_tokens];
    let digests = [provider.request_sha256, provider.response_sha256];
    let strings = PROVIDER_STRINGS
        .iter()
        .zip(strings)
        .filter_map(|((key, _), value)| Some((*key, Value::from(value.as_deref()?))));
    let counts = PROVIDER_COUNTS
        .iter()
        .zip(counts)
        .filter_map(|((key, _), value)| Some((*key, number(value?))));
    let digests = PROVIDER_DIGESTS
        .iter()
        .zip(digests)
        .filter_map(|((key, _), value)| Some((*key, Value::from(value?.to_string()))));
    object(strings.chain(counts).chain(digests))
}

fn decode_report(provider: Members<'_>) -> Result<ProviderReport, PayloadError> {
    let [finish_reason, model, response_id] = PROVIDER_STRINGS;
    let [cached_input_tokens, input_tokens] = PROVIDER_COUNTS;
    let [request, response] = PROVIDER_DIGESTS;
    Ok(ProviderReport {
        model: provider.opt_string(model.0, model.1)?,
        response_id: provider.opt_string(response_id.0, response_id.1)?,
        finish_reason: provider.opt_string(finish_reason.0, finish_reason.1)?,
        input_tokens: provider.opt_count(input_tokens.0, input_tokens.1)?,
        cached_input_tokens: provider.opt_count(cached_input_tokens.0, cached_input_tokens.1)?,
        request_sha256: provider.opt_hash(request.0, request.1)?,
        response_sha256: provider.opt_hash(response.0, response.1)?,
    })
}
