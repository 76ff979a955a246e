//! The tool manifest in the shapes OpenAI, Anthropic and MCP expect (the codecs send
//! the first two, [`Provider::tools`](super::Provider::tools) gives them; MCP's is
//! [`mcp_tools`]).
//!
//! Each takes the loop's specs as given (a [`crate::tools::Manifest`] keeps them
//! sorted by name, so the output is too) and copies each schema unchanged. Specs from a
//! manifest passed registration ([`crate::tools::ToolSpec::check`]): every name matches
//! `^[a-zA-Z0-9_-]{1,64}$` and every root schema has `"type": "object"`, as the three
//! APIs require. A spec built by hand and never registered is copied as it is.

use alloc::vec::Vec;

use super::common::object;
use crate::json::Value;
use crate::tools::ToolSpec;

/// `name`, `description` and the schema under `schema_key`.
fn described(spec: &ToolSpec, schema_key: &str) -> Value {
    object([
        ("name", Value::from(spec.name.as_str())),
        ("description", Value::from(spec.description.as_str())),
        (schema_key, spec.schema.clone()),
    ])
}

/// OpenAI Chat Completions `tools`:
/// `[{"type":"function","function":{"name","description","parameters":<schema>}}]`.
pub(super) fn openai_tools(specs: &[ToolSpec]) -> Value {
    let tools: Vec<Value> = specs
        .iter()
        .map(|spec| {
            object([
                ("type", Value::from("function")),
                ("function", described(spec, "parameters")),
            ])
        })
        .collect();
    Value::Array(tools)
}

/// Anthropic Messages `tools`: `[{"name","description","input_schema":<schema>}]`.
pub(super) fn anthropic_tools(specs: &[ToolSpec]) -> Value {
    Value::Array(specs.iter().map(|s| described(s, "input_schema")).collect())
}

/// MCP `tools/list` result `tools`: `[{"name","description","inputSchema":<schema>}]`.
pub fn mcp_tools(specs: &[ToolSpec]) -> Value {
    Value::Array(specs.iter().map(|s| described(s, "inputSchema")).collect())
}
