//! The attribute names, operation names and values this crate writes, spelled once.
//! The `gen_ai.*`, `error.type`, `server.*` and `service.name` names are the
//! OpenTelemetry semantic conventions' ([`crate::SEMCONV`]); the test of the CLI checks
//! every `gen_ai.*` name written against the pinned Python package's list. The
//! `agentloop.*` names are this crate's own.

/// `gen_ai.operation.name`.
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`.
pub const PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.agent.name`.
pub const AGENT_NAME: &str = "gen_ai.agent.name";
/// `gen_ai.request.model`.
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`.
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.response.id`.
pub const RESPONSE_ID: &str = "gen_ai.response.id";
/// `gen_ai.response.finish_reasons`.
pub const FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `gen_ai.usage.input_tokens`.
pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`.
pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`.
pub const CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.tool.name`.
pub const TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`.
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.description`.
pub const TOOL_DESCRIPTION: &str = "gen_ai.tool.description";
/// `gen_ai.tool.type`.
pub const TOOL_TYPE: &str = "gen_ai.tool.type";
/// `gen_ai.tool.call.arguments` (content: opt-in).
pub const TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result` (content: opt-in).
pub const TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `gen_ai.input.messages` (content: opt-in).
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
/// `gen_ai.output.messages` (content: opt-in).
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// `gen_ai.system_instructions` (content: opt-in).
pub const SYSTEM_INSTRUCTIONS: &str = "gen_ai.system_instructions";
/// `error.type`.
pub const ERROR_TYPE: &str = "error.type";
/// `server.address`.
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port`.
pub const SERVER_PORT: &str = "server.port";
/// `service.name` (a resource attribute).
pub const SERVICE_NAME: &str = "service.name";

/// `agentloop.record.seq`: the `seq` of the record a span comes from.
pub const RECORD_SEQ: &str = "agentloop.record.seq";
/// `agentloop.record.hash`: the `hash` of the record a span comes from.
pub const RECORD_HASH: &str = "agentloop.record.hash";
/// `agentloop.stop.reason`: why the run stopped (its `stop` record).
pub const STOP_REASON: &str = "agentloop.stop.reason";
/// `agentloop.stop.steps`: the turns taken.
pub const STOP_STEPS: &str = "agentloop.stop.steps";
/// `agentloop.stop.tokens`: the output tokens over the run.
pub const STOP_TOKENS: &str = "agentloop.stop.tokens";
/// `agentloop.stop.unrun_calls`: the calls of the last turn left unrun (no span).
pub const STOP_UNRUN_CALLS: &str = "agentloop.stop.unrun_calls";
/// `agentloop.transcript.first`: the `hash` of the transcript's first record (a
/// resource attribute; the trace id is its first 16 bytes).
pub const TRANSCRIPT_FIRST: &str = "agentloop.transcript.first";
/// `agentloop.transcript.head`: the transcript's head (file export, resource).
pub const TRANSCRIPT_HEAD: &str = "agentloop.transcript.head";
/// `agentloop.transcript.records`: how many records it has (file export, resource).
pub const TRANSCRIPT_RECORDS: &str = "agentloop.transcript.records";

/// The operation of a run's span.
pub const INVOKE_AGENT: &str = "invoke_agent";
/// The operation of a turn's span.
pub const CHAT: &str = "chat";
/// The operation of a call's span.
pub const EXECUTE_TOOL: &str = "execute_tool";
/// The agent's name (`gen_ai.agent.name`), and the service's.
pub const AGENTLOOP: &str = "agentloop";
/// `gen_ai.provider.name` when the transcript does not say (format 1: no setup).
pub const UNKNOWN_PROVIDER: &str = "_OTHER";
