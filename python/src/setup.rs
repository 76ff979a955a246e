//! The setup a run from Python states in its `task` record (format 2, docs/format.md;
//! SPEC section 4, "What a run records"), as `agentloop run` does: the built-in HTTP
//! model's provider, name, endpoint (no credential), system prompt and options; the
//! tools, each with its source (the host, or an MCP server under its name there); and
//! each MCP server's identity. A Python callable model states no model: only the host
//! knows what it asks.

use agentloop_core::json::{Object, Value};
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::redact;
use agentloop_core::tools::Manifest;
use agentloop_core::vocabulary::{ModelName, Setup};
use agentloop_mcp::{McpServer, Registration};

/// `setup.options`' member for [`RequestOptions::max_output_tokens`].
const MAX_OUTPUT_TOKENS: &str = "max_output_tokens";

/// The setup of an HTTP model asking `options` of `provider` at `base_url`, with no
/// tools yet.
pub fn of_http_model(provider: Provider, base_url: &str, options: &RequestOptions) -> Setup {
    let mut stated = Object::new();
    if let Some(n) = options.max_output_tokens {
        stated.insert(MAX_OUTPUT_TOKENS, Value::Number(n as f64));
    }
    for (key, value) in options.extra.iter() {
        stated.insert(key, value.clone());
    }
    Setup {
        model: Some(ModelName {
            provider: String::from(provider.name()),
            name: options.model.clone(),
        }),
        endpoint: Some(redact::endpoint(base_url)),
        system: options.system.clone(),
        options: stated,
        ..Setup::default()
    }
}

/// `model`'s setup with the tools of `manifest` (those `registration` registered
/// marked with their MCP source, the others the host's) and the identities of
/// `servers`, in the order their tools were registered.
pub fn with_tools(
    model: Setup,
    manifest: &Manifest,
    registration: &Registration,
    servers: &[McpServer],
) -> Setup {
    Setup {
        tools: registration.offered_tools(manifest),
        servers: servers.iter().map(McpServer::identity).collect(),
        ..model
    }
}
