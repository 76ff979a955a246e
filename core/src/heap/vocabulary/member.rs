//! The payloads' member names (SPEC section 4, docs/format.md): the one place they are
//! spelled. The payload types of this module encode and decode through them; the loop
//! audit checks a payload's members by them, and the CLI's `show` and progress events,
//! which show records that need not decode, read members by them.
//!
//! Hidden from the documentation: the names are the format's, and a program reads a
//! payload through the payload types ([`super::TaskPayload::decode`] and the others).

/// `task`'s task text.
pub const TASK: &str = "task";
/// `task`'s budgets in force (an object).
pub const BUDGETS: &str = "budgets";
/// `budgets.max_steps`.
pub const MAX_STEPS: &str = "max_steps";
/// `budgets.max_tokens`.
pub const MAX_TOKENS: &str = "max_tokens";
/// `budgets.max_tool_calls`.
pub const MAX_TOOL_CALLS: &str = "max_tool_calls";
/// `budgets.max_total_tokens`.
pub const MAX_TOTAL_TOKENS: &str = "max_total_tokens";
/// `budgets.stop_sentinel`.
pub const STOP_SENTINEL: &str = "stop_sentinel";
/// `budgets.tool_limits`: each limited tool's most runs.
pub const TOOL_LIMITS: &str = "tool_limits";

/// `assistant`'s text.
pub const TEXT: &str = "text";
/// `assistant`'s calls.
pub const TOOL_CALLS: &str = "tool_calls";
/// `assistant`'s and `stop`'s tokens.
pub const TOKENS: &str = "tokens";
/// `assistant`'s provider report (an object, when anything was reported), and
/// `setup.model`'s provider (`openai`, `anthropic`).
pub const PROVIDER: &str = "provider";
/// `provider.cached_input_tokens`.
pub const CACHED_INPUT_TOKENS: &str = "cached_input_tokens";
/// `provider.finish_reason`.
pub const FINISH_REASON: &str = "finish_reason";
/// `provider.input_tokens`.
pub const INPUT_TOKENS: &str = "input_tokens";
/// `provider.model`, and `setup.model` (`{provider, name}`).
pub const MODEL: &str = "model";
/// `provider.request_sha256`: the SHA-256 of the request body sent for the turn.
pub const REQUEST_SHA256: &str = "request_sha256";
/// `provider.response_id`.
pub const RESPONSE_ID: &str = "response_id";
/// `provider.response_sha256`: the SHA-256 of the response body received.
pub const RESPONSE_SHA256: &str = "response_sha256";

/// A call's and a `tool` record's call id.
pub const ID: &str = "id";
/// A call's and a `tool` record's tool name.
pub const NAME: &str = "name";
/// A call's arguments.
pub const ARGUMENTS: &str = "arguments";
/// `tool`'s verdict: whether the call gave a value.
pub const OK: &str = "ok";
/// `tool`'s value (`ok:true`).
pub const VALUE: &str = "value";
/// `tool`'s error sentence (`ok:false`), and `stop`'s for `model_error`.
pub const ERROR: &str = "error";

/// `stop`'s reason.
pub const REASON: &str = "reason";
/// `stop`'s steps.
pub const STEPS: &str = "steps";
/// `stop`'s calls of the last turn with no `tool` record.
pub const UNRUN_CALLS: &str = "unrun_calls";

/// `resume`'s reason of the `stop` it follows.
pub const AFTER: &str = "after";

/// `task`'s setup (format 2): what determined the requests (an object).
pub const SETUP: &str = "setup";
/// `setup.endpoint`: the base URL without userinfo.
pub const ENDPOINT: &str = "endpoint";
/// `setup.system`: the system prompt.
pub const SYSTEM: &str = "system";
/// `setup.options`: the other request options sent.
pub const OPTIONS: &str = "options";
/// `setup.tools`: the tools offered.
pub const TOOLS: &str = "tools";
/// `setup.servers`: the MCP servers.
pub const SERVERS: &str = "servers";
/// `setup.tools[].description`.
pub const DESCRIPTION: &str = "description";
/// `setup.tools[].schema`.
pub const SCHEMA: &str = "schema";
/// `setup.tools[].idempotent`.
pub const IDEMPOTENT: &str = "idempotent";
/// `setup.tools[].source`: `host` or `mcp`.
pub const SOURCE: &str = "source";
/// `setup.tools[].server`: an MCP tool's server (an index into `setup.servers`).
pub const SERVER: &str = "server";
/// `setup.tools[].mcp_name`: an MCP tool's name on its server.
pub const MCP_NAME: &str = "mcp_name";
/// `setup.servers[].command_sha256`: the digest of the server's command line.
pub const COMMAND_SHA256: &str = "command_sha256";
/// `setup.servers[].url`: the URL of a server over HTTP, without userinfo.
pub const URL: &str = "url";
/// `setup.servers[].protocol_version`: the MCP revision agreed.
pub const PROTOCOL_VERSION: &str = "protocol_version";
/// `setup.servers[].server_info`: the server's `serverInfo`.
pub const SERVER_INFO: &str = "server_info";
/// `setup.tools[].source` of a host's own tool.
pub const SOURCE_HOST: &str = "host";
/// `setup.tools[].source` of an MCP server's tool.
pub const SOURCE_MCP: &str = "mcp";
