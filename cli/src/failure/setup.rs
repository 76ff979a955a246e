//! Failures setting up `agentloop run` and `agentloop tools`: the task, budgets, keys,
//! MCP servers, the output file.

use std::fmt;

use agentloop_core::agent::{BudgetError, SetupError, TaskError};
use agentloop_http::BuildError;
use agentloop_otel::SenderError;

use crate::diag::plural;
use crate::tools_map::MapDifference;

/// Failures setting up `agentloop run` and `agentloop tools`: the task, budgets, keys,
/// MCP servers, the output file.
#[derive(Debug)]
pub enum SetupFailure {
    /// `run --out -`: standard output is not a transcript file.
    RunToStdin,
    /// `run`: the task file is not UTF-8.
    TaskNotUtf8 {
        /// The task file, as named on the command line.
        name: String,
        /// Where its first byte that is not UTF-8 is.
        offset: usize,
    },
    /// `run`: the task is refused (empty or only white space).
    BadTask {
        /// Where it came from: `--task`, or the task file as named on the command line.
        name: String,
        /// Why it was refused.
        error: TaskError,
    },
    /// `run`: `--tool-limit` names one tool twice.
    ToolLimitTwice(String),
    /// `run`: a `--tool-limit` for a tool that is not offered.
    UnknownToolLimit {
        /// The tool named.
        name: String,
        /// The tools offered.
        tools: Vec<String>,
    },
    /// `run`: the budgets cannot be applied (an empty sentinel, a limit over 2^53 − 1).
    Budgets(BudgetError),
    /// `run`: the run's setup cannot be recorded (a task record too long with it).
    Setup(SetupError),
    /// `run`: the API key's variable is not set.
    KeyNotSet {
        /// The variable.
        variable: String,
        /// Whether it was named by `--api-key-env` (else it is the provider's default).
        named: bool,
    },
    /// `run`: the HTTP model could not be made (a bad base URL).
    Model(BuildError),
    /// `run` without `--resume`: `--out` already holds bytes.
    OutNotEmpty {
        /// `--out`, as named on the command line.
        name: String,
        /// Its length in bytes.
        len: u64,
    },
    /// `run`, `tools`: an `--mcp-env` variable is not set.
    McpEnvNotSet(String),
    /// `run`, `tools`: an MCP server could not be started, or its tools listed.
    Mcp {
        /// The server's index (0 for the first `--mcp`).
        index: usize,
        /// Its command line, as given.
        command: String,
        /// What went wrong.
        error: String,
    },
    /// `run`: two files the run names are one file, and the run writes one of them.
    OneFileTwice {
        /// The first, as the sentence names it (`--out t.jsonl`).
        first: String,
        /// The second, likewise.
        second: String,
        /// Whether the run reads the second (it writes the first).
        read: bool,
    },
    /// `run`: the tool map (`FILE.tools.json`) could not be read or written.
    ToolsMap {
        /// The map's file.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// `export --otlp-content` with a format other than otlp.
    OtlpContentWithoutOtlp,
    /// `run --otlp-endpoint`: the live export cannot start (a bad URL).
    Otlp(SenderError),
    /// `run --otlp-header NAME=VAR`: not of that form, or VAR is not set.
    OtlpHeader {
        /// The argument, as given.
        given: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// `run --resume`: the tools differ from those the run recorded.
    ToolsMapDiffers {
        /// The map's file.
        name: String,
        /// The first difference.
        difference: MapDifference,
    },
}

impl fmt::Display for SetupFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupFailure::RunToStdin => f.write_str(
                "run writes its transcript to a file, and '-' (standard output) is not one",
            ),
            SetupFailure::TaskNotUtf8 { name, offset } => write!(
                f,
                "{name}: the task is not UTF-8 text (byte {offset} starts no character); \
                 nothing was run"
            ),
            SetupFailure::BadTask { name, error } => {
                write!(f, "{name}: {error}; nothing was run")
            }
            SetupFailure::ToolLimitTwice(tool) => write!(
                f,
                "--tool-limit names the tool {} twice: give each tool one limit",
                crate::record_line::quoted(tool)
            ),
            SetupFailure::UnknownToolLimit { name, tools } => {
                let offered = if tools.is_empty() {
                    String::from(
                        "no tools are offered (--demo-tools offers add, echo, fail, greet)",
                    )
                } else {
                    format!("the tools are {}", tools.join(", "))
                };
                write!(
                    f,
                    "a limit is set for the tool {} (by --tool-limit, or a resumed run's task \
                     record), but no tool of that name is offered; {offered}",
                    crate::record_line::quoted(name)
                )
            }
            SetupFailure::Budgets(error) => write!(f, "the budgets cannot be applied: {error}"),
            SetupFailure::Setup(error) => {
                write!(
                    f,
                    "the run's setup cannot be recorded: {error}; nothing was run"
                )
            }
            SetupFailure::KeyNotSet {
                variable,
                named: true,
            } => write!(
                f,
                "the API key variable {variable} (--api-key-env) is not set, or is empty; \
                 nothing was run"
            ),
            SetupFailure::KeyNotSet {
                variable,
                named: false,
            } => write!(
                f,
                "the API key variable {variable} is not set, or is empty: set it, name another \
                 with --api-key-env VAR, or send no key with --api-key-env ''; nothing was run"
            ),
            SetupFailure::Model(error @ BuildError::UserinfoAndKey(_)) => write!(
                f,
                "--base-url: {error}; --api-key-env '' sends no key; nothing was run"
            ),
            SetupFailure::Model(error) => write!(f, "--base-url: {error}"),
            SetupFailure::OutNotEmpty { name, len } => write!(
                f,
                "{name} already holds {}: --resume continues the transcript in it, or give \
                 another --out; nothing was run",
                plural(*len, "byte")
            ),
            SetupFailure::McpEnvNotSet(name) => write!(
                f,
                "--mcp-env {name}: the variable is not set, so it cannot be passed to the MCP \
                 servers"
            ),
            SetupFailure::Mcp {
                index,
                command,
                error,
            } => write!(
                f,
                "MCP server {index} (--mcp {}): {error}",
                crate::record_line::quoted(command)
            ),
            SetupFailure::OneFileTwice {
                first,
                second,
                read: false,
            } => write!(
                f,
                "{first} and {second} are one file: the run writes each for its own purpose, \
                 and one would spoil the other; give each its own path; nothing was run"
            ),
            SetupFailure::OneFileTwice {
                first,
                second,
                read: true,
            } => write!(
                f,
                "{first} is {second}, which the run reads: writing it would destroy it; give \
                 another path; nothing was run"
            ),
            SetupFailure::ToolsMap { name, reason } => {
                write!(f, "{name}: {reason}; nothing was run")
            }
            SetupFailure::OtlpContentWithoutOtlp => f.write_str(
                "--otlp-content puts content on OTLP spans: it goes with --format otlp; nothing \
                 was exported",
            ),
            SetupFailure::Otlp(error) => write!(f, "--otlp-endpoint: {error}; nothing was run"),
            SetupFailure::OtlpHeader { given, why } => write!(
                f,
                "--otlp-header {}: {why}; nothing was run",
                crate::record_line::quoted(given)
            ),
            SetupFailure::ToolsMapDiffers { name, difference } => write!(
                f,
                "{name}: the tools differ from those the run began with (the file records \
                 them): {difference}; give the same --demo-tools and --mcp servers, in the \
                 same order; nothing was run"
            ),
        }
    }
}
