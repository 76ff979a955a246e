//! The loop's commands: `run`, `tools`, `export`, `replay`, `demo`.

use std::path::PathBuf;

use agentloop_core::durable::SyncPolicy;
use agentloop_core::provider::Provider;
use clap::{ArgGroup, Args};

use super::values::*;

/// `agentloop run`.
#[derive(Debug, Args)]
#[command(after_help = "\
The model is asked over HTTP at --base-url (by default the provider's own API), with
the key from --api-key-env (by default OPENAI_API_KEY or ANTHROPIC_API_KEY; '' sends no
key; a loopback base URL with the default variable unset sends none either). Each
record is written durably to --out before the loop goes on; one progress line per
record goes to stderr (--json: one JSON event per record on stdout instead). At the
end the file is verified from disk (chain and loop audit) and the stop reason and head
are printed. The calls of a turn run up to --parallel at once (MCP and demo tools),
recorded in call order. Ctrl-C stops the run with reason cancelled (a model answer
being awaited is abandoned; the tools running are let finish, no other call starts),
writes the stop record and exits 130; a second Ctrl-C ends at once (exit 130), leaving
a transcript --resume continues.
Exit status: 0 the run stopped as the model chose (no_tool_calls, sentinel); 3 a budget
stopped it (step_budget, token_budget, tool_budget); 4 the model failed (model_error);
130 cancelled; 1 the transcript written does not verify or is not a well-formed run;
2 the run could not be made (bad usage, an unreadable task file, no API key, --out not
empty without --resume, a transcript that cannot be resumed, a record that could not
be written). docs/cli.md has the progress and event shapes.")]
pub struct RunArgs {
    /// The task, as the first user message (recorded in the task record).
    #[arg(
        long,
        value_name = "TEXT",
        allow_hyphen_values = true,
        conflicts_with = "task_file",
        required_unless_present_any = ["task_file", "resume"]
    )]
    pub task: Option<String>,
    /// Read the task from this file (UTF-8; '-' reads standard input).
    #[arg(long, value_name = "F")]
    pub task_file: Option<PathBuf>,
    /// The provider and the model: openai:NAME (Chat Completions, and servers that speak
    /// it) or anthropic:NAME (Messages). A new run needs it; --resume reads it from the
    /// transcript's setup (format 2).
    #[arg(long, value_name = "PROVIDER:NAME", value_parser = parse_model)]
    pub model: Option<ModelSpec>,
    /// The API's base URL, the endpoint's path added to it (default
    /// https://api.openai.com/v1 or https://api.anthropic.com/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key ('' sends no key).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Most output tokens per turn (OpenAI max_completion_tokens, Anthropic max_tokens;
    /// Anthropic requires one: 4096 when not given).
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub max_output_tokens: Option<u64>,
    /// A system prompt (sent with each request, and recorded in the task record's setup:
    /// --resume reads it from there).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub system: Option<String>,
    /// Most assistant turns.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Most output tokens over the run (the provider's counts, or the loop's estimate).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Most tokens in and out over the run (output tokens plus the input tokens the
    /// provider reports).
    #[arg(long, value_name = "N")]
    pub max_total_tokens: Option<u64>,
    /// Most tool records (calls run or refused).
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<u64>,
    /// Stop when an assistant's text contains this text (reason sentinel).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub stop_sentinel: Option<String>,
    /// Run the tool NAME (its name as offered) at most N times. Repeatable.
    #[arg(long = "tool-limit", value_name = "NAME=N", value_parser = parse_tool_limit)]
    pub tool_limits: Vec<ToolLimit>,
    /// The tools offered: the demo tools, MCP servers'.
    #[command(flatten)]
    pub tools: ToolsArgs,
    /// The transcript to write (refused if it holds anything, unless --resume).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// When records reach the disk: always (each record, the default), every:N, or
    /// on-close (docs/durability.md).
    #[arg(long, value_name = "POLICY", value_parser = parse_sync, default_value = "always")]
    pub sync: SyncPolicy,
    /// Continue the transcript in --out (verified first) instead of refusing it; an
    /// absent or empty --out starts a new run. The task and budgets are the task
    /// record's (flags given must match them).
    #[arg(long)]
    pub resume: bool,
    /// With --resume, after the transcript's stop: go on with the setup these flags and
    /// servers make (model, system prompt, options, tools) instead of the recorded one,
    /// stated in the resume record. Refused for a transcript that ends inside a run.
    #[arg(long, requires = "resume")]
    pub new_setup: bool,
    /// At the end, write the transcript's checkpoint (C2SP) to CP, atomically.
    #[arg(long, value_name = "CP")]
    pub checkpoint: Option<PathBuf>,
    /// Sign the checkpoint with the signer key in this file (as `agentloop keygen`
    /// prints it).
    #[arg(long, value_name = "K", requires = "checkpoint")]
    pub sign_key: Option<PathBuf>,
    /// Print one JSON event per record on stdout, and an end event, instead of the
    /// progress lines and the summary.
    #[arg(long)]
    pub json: bool,
    /// Most calls of a turn run at once (1 = one at a time). The transcript is the
    /// same bytes whatever N is: records are written in call order.
    #[arg(long, value_name = "N", default_value = "4", value_parser = parse_parallel)]
    pub parallel: usize,
    /// Tries per model turn, the first included (1 = no retries).
    #[arg(long, value_name = "N", default_value = "4", value_parser = parse_tries)]
    pub http_tries: u32,
    /// The wait before the first retry when the provider names none, in milliseconds
    /// (doubled at each retry, at most 8 s).
    #[arg(long, value_name = "MS", default_value = "500")]
    pub http_backoff_ms: u64,
    /// The most seconds one try may take (connect to the last byte).
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = parse_positive)]
    pub http_timeout: u64,
    /// Send the run as OpenTelemetry GenAI spans to this OTLP/HTTP collector as it goes
    /// (OTLP/JSON to URL/v1/traces; a URL ending in /v1/traces is taken as it is). A
    /// collector down or slow never holds the run up: docs/otel.md.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// A header for the collector, its value read from the environment variable VAR
    /// (never shown). Repeatable.
    #[arg(
        long = "otlp-header",
        value_name = "NAME=VAR",
        requires = "otlp_endpoint"
    )]
    pub otlp_headers: Vec<String>,
    /// Put the conversation's content on the spans sent (messages, system prompt, tool
    /// arguments and results, error sentences).
    #[arg(long, requires = "otlp_endpoint")]
    pub otlp_content: bool,
    /// The most seconds one request to the collector may take, and the most the end of
    /// the run waits for the spans still queued.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_positive,
          requires = "otlp_endpoint")]
    pub otlp_timeout: u64,
}

/// The tools a run offers, for `run` and `tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Offer the demo tools (add, echo, fail, greet), first, under their own names.
    #[arg(long)]
    pub demo_tools: bool,
    /// Offer the tools of an MCP server run with this command line over stdio: words as
    /// a shell splits them ('…' and "…" quote, \ escapes; nothing is expanded, no
    /// shell runs). Repeatable: servers are numbered 0, 1, … in this order.
    #[arg(long = "mcp", value_name = "'CMD ARGS'", value_parser = parse_command)]
    pub mcp: Vec<McpCommand>,
    /// Most seconds an MCP tool call (and each tools/list page) may take.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_positive)]
    pub mcp_timeout: u64,
    /// Most seconds an MCP server may take to open: the server/discover probe and, for a
    /// handshake server, initialize (npx may download it).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_positive)]
    pub mcp_init_timeout: u64,
    /// Append the MCP servers' stderr to this file (run: default FILE.mcp.log next to
    /// --out; tools: default discarded). Never recorded.
    #[arg(long, value_name = "LOG")]
    pub mcp_log: Option<PathBuf>,
    /// Pass this environment variable to the MCP servers (they get only HOME, LOGNAME,
    /// PATH, SHELL, TERM and USER otherwise). Repeatable.
    #[arg(long = "mcp-env", value_name = "NAME")]
    pub mcp_env: Vec<String>,
    /// Trust the servers' annotations: a tool marked readOnlyHint or idempotentHint is
    /// run again by --resume instead of being recorded as result lost.
    #[arg(long)]
    pub mcp_trust_hints: bool,
    /// Record images, audio and blobs inline (base64) besides their size and SHA-256.
    #[arg(long)]
    pub mcp_inline_media: bool,
}

/// An `--mcp` command line, split into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCommand {
    /// As given.
    pub text: String,
    /// The program, then its arguments.
    pub words: Vec<String>,
}

/// `agentloop tools`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints one line: the tools as canonical JSON in the shape the format names (openai:
Chat Completions tools; anthropic: Messages tools; mcp: a tools/list result's tools),
named as a run with the same flags offers them (an MCP tool whose name a provider
would refuse, or that another tool already has, is renamed: docs/mcp.md). A tool that
cannot be offered is skipped with a warning on stderr.
Exit status: 0 printed; 2 an MCP server could not be started or listed, or bad usage.")]
pub struct ToolsListArgs {
    /// The shape: openai, anthropic or mcp.
    #[arg(long, value_name = "FORMAT", value_parser = parse_manifest_format)]
    pub format: ManifestFormat,
    /// The tools.
    #[command(flatten)]
    pub tools: ToolsArgs,
}

/// `tools --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestFormat {
    /// OpenAI Chat Completions `tools`.
    OpenAi,
    /// Anthropic Messages `tools`.
    Anthropic,
    /// MCP `tools/list` `tools`.
    Mcp,
}

/// `agentloop export`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints one line: the history as canonical JSON (RFC 8785), the same encoding the live
loop sends (agentloop_core::export). A call the loop left unrun is answered with
'not run: the loop stopped (<reason>)'. The file must verify and be a run of the loop.
With --requests, prints instead each turn's request body rebuilt from the transcript
(its setup and the conversation before the turn), one line each, in turn order: the
bytes `verify --requests` hashes.
Exit status: 0 printed; 1 the file does not verify, or (--requests) its requests cannot
be rebuilt (no setup, say); 2 the file could not be read, or a record is not what the
loop writes (the record is named).")]
#[command(group(ArgGroup::new("what").required(true).args(["format", "requests"])))]
pub struct ExportArgs {
    /// What to print: the history as openai (Chat Completions messages) or anthropic
    /// (Messages) has it, or otlp (the run as OpenTelemetry GenAI spans, OTLP/JSON).
    #[arg(long, value_name = "FORMAT", value_parser = parse_export_format)]
    pub format: Option<ExportFormat>,
    /// With --format otlp: put the conversation's content on the spans (messages,
    /// system prompt, tool arguments and results, error sentences), the conventions'
    /// opt-in attributes.
    #[arg(long, conflicts_with = "requests")]
    pub otlp_content: bool,
    /// Print each turn's request body, rebuilt from the transcript, one a line.
    #[arg(long)]
    pub requests: bool,
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A provider's message history.
    History(Provider),
    /// OpenTelemetry GenAI spans, OTLP/JSON.
    Otlp,
}

/// `--model PROVIDER:NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    /// The wire format.
    pub provider: Provider,
    /// The model's name, as the provider spells it.
    pub name: String,
}

/// `--tool-limit NAME=N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolLimit {
    /// The tool.
    pub name: String,
    /// How many runs it gets.
    pub limit: u64,
}

/// `agentloop replay`.
#[derive(Debug, Args)]
#[command(after_help = "\
The transcript must verify and be a run of the loop (as `verify --loop` checks; it may
end without a stop record). The tools are the demo tools (add, echo, fail, greet), so
this replays `agentloop demo` transcripts; the budgets are the task record's. A library
host replays with its own tools (agentloop_core::driver::replay, docs/resume.md).
Exit status: 0 every record came out as recorded; 1 a record differs (it is named), or
the file does not verify; 2 the file could not be read or is not a run of the loop.")]
pub struct ReplayArgs {
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `agentloop demo`.
#[derive(Debug, Args)]
#[command(after_help = "\
Writes demo-answer.jsonl (5 records), demo-recover.jsonl (11) and demo-budget.jsonl (9),
each atomically (a temporary file in DIR, synced, renamed over the target), so a rerun
replaces them with the same bytes. Prints one line per claim checked, ok or FAILED.
Exit status: 0 every claim held; 1 a claim did not hold; 2 DIR or a file in it could
not be created, written or read.")]
pub struct DemoArgs {
    /// Where to write the three transcripts (created if absent; default: the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}
