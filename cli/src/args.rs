//! The command line, as clap derive types: what each command accepts.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use std::num::NonZeroU32;

use agentloop_core::durable::SyncPolicy;
use agentloop_core::provider::Provider;
use agentloop_core::tlog::{check_origin, OriginError};
use agentloop_core::{Anchor, Hash};
use clap::builder::NonEmptyStringValueParser;
use clap::{ArgGroup, Args, Parser, Subcommand};

/// Exit codes, shown at the end of `--help`.
const EXIT_CODES: &str = "\
Exit status: 0 the claim held (verified, canonical, valid, appended, printed);
1 a graded fault (a fault found, an instance invalid, input with no canonical form);
2 could not grade (unreadable input, malformed checkpoint, refused schema, bad usage).
Over several inputs, the worst (2 > 1 > 0). A FILE of '-' reads standard input, which
can be read once: '-' given for two inputs is bad usage. When the reader of standard
output goes away (| head), the command ends quietly by SIGPIPE, as cat does.";

/// agentloop: verify, canonicalise, append to and inspect hash-chained JSONL transcripts.
#[derive(Debug, Parser)]
#[command(name = "agentloop", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run three scripted agent loops, write their transcripts, verify them from disk
    /// and check what each must show.
    Demo(DemoArgs),
    /// Verify transcripts: report every fault, where it is and what was expected.
    Verify(VerifyArgs),
    /// Print the RFC 8785 canonical encoding of a JSON document (or of each JSONL line).
    Canon(CanonArgs),
    /// Append one record to a transcript, under an exclusive lock, and print the new head.
    Append(AppendArgs),
    /// Print (or atomically write) a transcript's checkpoint: a C2SP tlog-checkpoint
    /// (origin, count, Merkle root, head), optionally signed, for `verify --checkpoint`.
    Checkpoint(CheckpointArgs),
    /// Make an Ed25519 note key pair: prints the signer key, then the verifier key.
    Keygen(KeygenArgs),
    /// Make an inclusion proof of one record, or a consistency proof between two sizes.
    Prove(ProveArgs),
    /// Check an inclusion or consistency proof made by `agentloop prove`.
    VerifyProof(VerifyProofArgs),
    /// Print one human-readable line per record, then verify the transcript.
    Show(ShowArgs),
    /// Validate a JSON instance against a tool-argument schema (JSON Schema draft
    /// 2020-12, or 2019-09 / draft-07 by $schema; docs/schemas.md): one violation a
    /// line, with its JSON path.
    Validate(ValidateArgs),
    /// Move a torn tail (an incomplete last line) to a side file and cut the
    /// transcript back to its last complete record; say exactly what was removed.
    Repair(RepairArgs),
    /// Run a transcript's tool calls again with the demo tools and the recorded model
    /// replies, and name the first record that comes out differently.
    Replay(ReplayArgs),
    /// Run the agent loop against a model over HTTP (OpenAI Chat Completions or
    /// Anthropic Messages), writing a durable transcript; show its progress; verify it.
    Run(Box<RunArgs>),
    /// Print a transcript's conversation as a provider's message history (the
    /// `messages` the live loop sends), as canonical JSON.
    Export(ExportArgs),
    /// Print the tools a run would offer (the demo tools, MCP servers'), as the
    /// OpenAI, Anthropic or MCP manifest.
    Tools(ToolsListArgs),
}

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
    /// it) or anthropic:NAME (Messages).
    #[arg(long, value_name = "PROVIDER:NAME", value_parser = parse_model)]
    pub model: ModelSpec,
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
    /// A system prompt (sent with each request; not recorded: give it again with
    /// --resume).
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
    /// Most seconds an MCP server may take to answer initialize (npx may download it).
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
Exit status: 0 printed; 1 the file does not verify; 2 the file could not be read, or a
record is not what the loop writes (the record is named).")]
pub struct ExportArgs {
    /// The history's shape: openai (Chat Completions messages) or anthropic (Messages).
    #[arg(long, value_name = "FORMAT", value_parser = parse_provider)]
    pub format: Provider,
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
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

/// `agentloop verify`.
#[derive(Debug, Args)]
#[command(after_help = "\
With --loop, each file is also audited as a run of the loop in the same streaming pass.
Every core is used: one large file is checked in chunks on worker threads, several
files are verified at once; the output is always in argument order.
Exit status: 0 every file verified; 1 a fault was found; 2 a file could not be read,
or the checkpoint could not be read or is malformed, or bad usage. With several
files, the worst of theirs.")]
pub struct VerifyArgs {
    /// Print one JSON object per file on stdout:
    /// {"file","ok","count","head","faults":[{"index","line","kind","detail"}]},
    /// plus "faults_omitted" when faults were left out and "beyond_checkpoint" with a checkpoint.
    #[arg(long)]
    pub json: bool,
    /// Accept lines that are not in canonical form (no not_canonical faults).
    #[arg(long)]
    pub lenient: bool,
    /// Also check that each file is a well-formed run of the loop (task first, stop
    /// last, each tool record answering a call, stop's counts matching the records);
    /// what is wrong is reported as loop_malformed faults.
    #[arg(long = "loop")]
    pub check_loop: bool,
    /// Where the chain starts, for a transcript that continues another:
    /// SEQ0 (the first record's seq) and PREV0 (its prev, 64 lowercase hex).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// A checkpoint given inline: the file has at least N records.
    #[arg(long, value_name = "N")]
    pub expect_count: Option<u64>,
    /// With --expect-count N: record N-1 carries this hash (64 lowercase hex).
    #[arg(long, value_name = "HEX", requires = "expect_count", value_parser = parse_hash)]
    pub expect_head: Option<Hash>,
    /// A checkpoint file as printed by `agentloop checkpoint`: C2SP (signed or not) or
    /// v1 ({"count":N,"head":"<hex>"}). Repeatable: the largest is judged against the
    /// file, each older one must be a prefix of it (checkpoint_inconsistent).
    #[arg(long, value_name = "FILE", conflicts_with = "expect_count")]
    pub checkpoint: Vec<PathBuf>,
    /// Trust this verifier key (NAME+KEYID+BASE64): a checkpoint must be signed by one
    /// trusted key (checkpoint_untrusted, checkpoint_bad_signature). Repeatable.
    #[arg(long = "key", value_name = "VERIFIER_KEY")]
    pub keys: Vec<String>,
    /// Trust the verifier keys in this file (one a line; '#' comments). Repeatable.
    #[arg(long = "key-file", value_name = "FILE")]
    pub key_files: Vec<PathBuf>,
    /// The origin the checkpoint must name (checkpoint_origin_mismatch). Without it, a
    /// default origin (agentloop/transcript/<hex>) must name this file's record 0.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    pub origin: Option<String>,
    /// Transcripts to verify ('-' reads standard input).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// `agentloop canon`.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 printed; 1 the input is not I-JSON or has no canonical encoding
(the error names the line and column; with --jsonl nothing past the bad line is
printed); 2 the input could not be read.")]
pub struct CanonArgs {
    /// Canonicalise each line of JSONL input, printing each followed by a newline.
    #[arg(long)]
    pub jsonl: bool,
    /// The input; standard input when absent or '-'.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// `agentloop append`.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("payload_source")
        .required(true)
        .args(["payload", "payload_file"]),
))]
#[command(after_help = "\
FILE is created when absent. Under the file's exclusive lock (held for this append
only) FILE is verified, the record is written with one write at the end and synced;
on failure the file is cut back to its previous length. A FILE ending in an incomplete
line (torn_tail) is refused: `agentloop repair FILE` moves that line aside.
Exit status: 0 appended (the new head is printed); 1 the payload is not I-JSON or has
no canonical encoding, the record's line would pass the 16 MiB line limit, or FILE does
not verify (the file is left untouched);
2 FILE or the payload file cannot be read or written, the lock is held and --no-wait
was given, or bad usage (an empty --kind is bad usage).")]
pub struct AppendArgs {
    /// The transcript to append to (created if absent).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The record's kind: a non-empty string (e.g. task, assistant, tool, stop).
    #[arg(long, value_name = "KIND", value_parser = NonEmptyStringValueParser::new())]
    pub kind: String,
    /// The payload as JSON text.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub payload: Option<OsString>,
    /// A file holding the payload as JSON ('-' reads standard input).
    #[arg(long, value_name = "F")]
    pub payload_file: Option<PathBuf>,
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// Fail at once (exit 2) instead of waiting when another writer holds the lock
    /// (a wait longer than a second is said on stderr, with the holder if known).
    #[arg(long)]
    pub no_wait: bool,
}

/// `agentloop repair`.
#[derive(Debug, Args)]
#[command(after_help = "\
Only a torn tail is ever removed: the bytes after the last newline are copied to the
new side file FILE.torn-OFFSET (never overwritten), synced, and FILE is cut to OFFSET
and synced, all under the file's exclusive lock. Prints what was removed, or that there
was nothing to repair.
Exit status: 0 repaired, or nothing to repair (the output says which); 1 the complete
records have faults of their own (repair fixes only a torn tail; nothing is changed);
2 FILE could not be read or written, the side file already exists, the lock is held
and --no-wait was given, or bad usage.")]
pub struct RepairArgs {
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// Fail at once (exit 2) instead of waiting when another writer holds the lock
    /// (a wait longer than a second is said on stderr, with the holder if known).
    #[arg(long)]
    pub no_wait: bool,
    /// The transcript to repair.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `agentloop checkpoint`.
#[derive(Debug, Args)]
#[command(after_help = "\
The C2SP form is: origin line, record count, base64 Merkle root, 'head <hex>'; signed,
a blank line and a signature line follow. Keep checkpoints where the transcript's
writer cannot change them (docs/anchors.md).
Exit status: 0 the file verified and its checkpoint was printed or written; 1 the file
has a fault (nothing is printed or written); 2 the file or key could not be read, the
checkpoint could not be written, or --out is the transcript itself (the same file).")]
pub struct CheckpointArgs {
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// The origin line (default: agentloop/transcript/<hex of record 0's hash>).
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    pub origin: Option<String>,
    /// Sign the checkpoint with the signer key in this file (PRIVATE+KEY+..., as
    /// printed by `agentloop keygen`).
    #[arg(long, value_name = "KEYFILE")]
    pub sign_key: Option<PathBuf>,
    /// Print the old v1 form {"count":N,"head":"<hex>"} instead (no root, no origin).
    #[arg(long, conflicts_with_all = ["origin", "sign_key"])]
    pub v1: bool,
    /// Write the checkpoint to this file atomically (temporary file, fsync, rename,
    /// fsync of the folder) instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `agentloop keygen`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints two lines: the signer key (PRIVATE+KEY+NAME+KEYID+BASE64; keep it secret, give
it to `checkpoint --sign-key`) and the verifier key (NAME+KEYID+BASE64; give it to
`verify --key`). The formats are Go's golang.org/x/mod/sumdb/note. The seed comes from
the operating system: the one place agentloop uses randomness; it never reaches a
transcript.
Exit status: 0 printed; 2 bad usage or no randomness.")]
pub struct KeygenArgs {
    /// The key name (no spaces, no '+'); by convention the checkpoint's origin or the
    /// signer's host name.
    #[arg(value_name = "NAME", value_parser = parse_key_name)]
    pub name: String,
}

/// `agentloop prove`.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("what")
        .required(true)
        .args(["index", "from"]),
))]
#[command(after_help = "\
--index I prints a C2SP tlog-proof@v1: the record's own line (base64, 'extra'), its
index, the RFC 6962 audit path and the checkpoint. --from M prints a consistency proof
(agentloop/tlog-consistency@v1) from the first M records to the checkpoint. The
checkpoint is --checkpoint FILE (which the transcript must match) or a fresh one of
the whole file (signed with --sign-key, origin --origin).
Exit status: 0 printed; 1 the file has a fault; 2 a file could not be read, the
checkpoint is malformed or not of this file, or the index or size is out of range.")]
pub struct ProveArgs {
    /// The transcript.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Prove that record I (0-based position) is in the checkpoint.
    #[arg(long, value_name = "I")]
    pub index: Option<u64>,
    /// Prove that the first M records are a prefix of the checkpoint's.
    #[arg(long, value_name = "M")]
    pub from: Option<u64>,
    /// The checkpoint to prove against (C2SP, signed or not).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["origin", "sign_key"])]
    pub checkpoint: Option<PathBuf>,
    /// Without --checkpoint: the fresh checkpoint's origin.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    pub origin: Option<String>,
    /// Without --checkpoint: sign the fresh checkpoint with this signer key file.
    #[arg(long, value_name = "KEYFILE")]
    pub sign_key: Option<PathBuf>,
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
}

/// `agentloop verify-proof`.
#[derive(Debug, Args)]
#[command(after_help = "\
An inclusion proof holds when the record in it is well-formed and hashes to its own
hash, sits at its index (seq = index, or SEQ0 + index with --anchor, which a proof of
a transcript continuing another needs), and the audit path leads to the checkpoint's
root. A
consistency proof holds when --old (the checkpoint you kept) is a prefix of the
proof's checkpoint; when it is not, that is checkpoint_inconsistent.
With --key/--key-file the proof's checkpoint must be signed by a trusted key.
Exit status: 0 the proof holds; 1 it does not (the reason is printed); 2 a file could
not be read or is malformed, or bad usage.")]
pub struct VerifyProofArgs {
    /// The proof file, as printed by `agentloop prove`.
    #[arg(value_name = "PROOF")]
    pub proof: PathBuf,
    /// For a consistency proof: the older checkpoint it must extend.
    #[arg(long, value_name = "FILE")]
    pub old: Option<PathBuf>,
    /// Trust this verifier key (NAME+KEYID+BASE64). Repeatable.
    #[arg(long = "key", value_name = "VERIFIER_KEY")]
    pub keys: Vec<String>,
    /// Trust the verifier keys in this file (one a line). Repeatable.
    #[arg(long = "key-file", value_name = "FILE")]
    pub key_files: Vec<PathBuf>,
    /// The origin the proof's checkpoint must name.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    pub origin: Option<String>,
    /// For an inclusion proof made with `prove --anchor`: where the transcript starts
    /// (SEQ0:PREV0); the record must carry seq SEQ0 + its index.
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
}

/// `agentloop show`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints `seq=<seq> <kind> <summary>` for each record, and `line N: <problem>` for a
line that is not a record. Shown strings and JSON are cut at 120 characters ('...').
Verification faults go to stderr.
Exit status: 0 every line is a record and the file verifies; 1 otherwise;
2 the file could not be read.")]
pub struct ShowArgs {
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `agentloop validate`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints 'INSTANCE_FILE: valid', or one violation per line ('$.a: expected type integer,
got string'; paths start at '$') and a one-sentence summary on stderr. Schemas may use
type, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
maxLength, minItems, maxItems, required, properties, additionalProperties, items, anyOf,
$ref (within the document) and $defs, plus annotations; any other keyword is refused.
Exit status: 0 valid; 1 invalid; 2 the schema was refused (the sentence names the
pointer and the keyword), a file could not be read or is not I-JSON, or bad usage
(both files '-').")]
pub struct ValidateArgs {
    /// The schema, a JSON document ('-' reads standard input).
    #[arg(value_name = "SCHEMA_FILE")]
    pub schema: PathBuf,
    /// The instance to validate, a JSON document ('-' reads standard input).
    #[arg(value_name = "INSTANCE_FILE")]
    pub instance: PathBuf,
}

impl Command {
    /// The arguments that name standard input (`-`), as the usage names them, in a
    /// fixed order. Standard input can be read once: more than one is refused before
    /// the command runs (`verify - -` would otherwise grade an empty second input).
    /// `append` and `repair` refuse a FILE of `-` by themselves; `--out` is written,
    /// not read.
    pub fn stdin_arguments(&self) -> Vec<&'static str> {
        let mut named = Vec::new();
        let mut note = |name: &'static str, path: Option<&PathBuf>| {
            if path.is_some_and(|p| p.as_os_str() == "-") {
                named.push(name);
            }
        };
        match self {
            Command::Verify(a) => {
                a.files.iter().for_each(|f| note("FILE", Some(f)));
                a.checkpoint
                    .iter()
                    .for_each(|f| note("--checkpoint", Some(f)));
                a.key_files.iter().for_each(|f| note("--key-file", Some(f)));
            }
            Command::Append(a) => note("--payload-file", a.payload_file.as_ref()),
            Command::Checkpoint(a) => {
                note("--sign-key", a.sign_key.as_ref());
                note("FILE", Some(&a.file));
            }
            Command::Prove(a) => {
                note("FILE", Some(&a.file));
                note("--checkpoint", a.checkpoint.as_ref());
                note("--sign-key", a.sign_key.as_ref());
            }
            Command::VerifyProof(a) => {
                note("PROOF", Some(&a.proof));
                note("--old", a.old.as_ref());
                a.key_files.iter().for_each(|f| note("--key-file", Some(f)));
            }
            Command::Validate(a) => {
                note("SCHEMA_FILE", Some(&a.schema));
                note("INSTANCE_FILE", Some(&a.instance));
            }
            Command::Run(a) => {
                note("--task-file", a.task_file.as_ref());
                note("--sign-key", a.sign_key.as_ref());
            }
            // One input at most.
            Command::Demo(_)
            | Command::Canon(_)
            | Command::Keygen(_)
            | Command::Show(_)
            | Command::Repair(_)
            | Command::Replay(_)
            | Command::Export(_)
            | Command::Tools(_) => {}
        }
        named
    }
}

/// Why a command-line value was refused (clap turns it into a usage error, exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    /// A hash that is not 64 lowercase hex digits.
    NotAHash,
    /// An origin a checkpoint cannot carry (`agentloop_core::tlog::check_origin`).
    BadOrigin(OriginError),
    /// A key name that is empty or holds a space or '+'.
    BadKeyName,
    /// A `--model` without a provider: the text before the first ':', if any.
    BadModel(Option<String>),
    /// A `--model` with a provider and no name.
    NoModelName,
    /// A provider name other than openai or anthropic.
    BadProvider,
    /// A `--tool-limit` not of the form NAME=N.
    BadToolLimit,
    /// A `--sync` policy that is not always, every:N or on-close.
    BadSync,
    /// A number that must be at least 1 (and fit).
    NotPositive,
    /// A manifest format other than openai, anthropic or mcp.
    BadManifestFormat,
    /// An `--mcp` command line that cannot be split into words: why.
    BadCommand(&'static str),
    /// A `--parallel` that is not a whole number of at least 1.
    BadParallel,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::NotAHash => f.write_str("a hash is 64 lowercase hex digits"),
            ValueError::BadOrigin(e) => write!(
                f,
                "{e}; an origin is one non-empty line without control characters, \
                 not starting with white space or '{{'"
            ),
            ValueError::BadKeyName => {
                f.write_str("a key name is non-empty, without spaces and without '+'")
            }
            ValueError::BadModel(None) => f.write_str(
                "give the provider and the model as openai:NAME or anthropic:NAME \
                 (e.g. openai:gpt-4.1-mini)",
            ),
            ValueError::BadModel(Some(provider)) => write!(
                f,
                "'{provider}' is not a provider: give openai:NAME or anthropic:NAME"
            ),
            ValueError::NoModelName => f.write_str(
                "the model's name is missing after the provider: openai:NAME or anthropic:NAME",
            ),
            ValueError::BadProvider => f.write_str("the formats are openai and anthropic"),
            ValueError::BadToolLimit => {
                f.write_str("give a tool's name and its most runs as NAME=N (N from 0 to 2^53-1)")
            }
            ValueError::BadSync => f.write_str(
                "the policies are always, every:N (N from 1 to 4294967295) and on-close",
            ),
            ValueError::NotPositive => f.write_str("give a whole number of at least 1"),
            ValueError::BadManifestFormat => {
                f.write_str("the formats are openai, anthropic and mcp")
            }
            ValueError::BadParallel => f.write_str(
                "give how many calls of a turn may run at once: a whole number of at least 1 \
                 (1 runs them one at a time)",
            ),
            ValueError::BadCommand(why) => write!(
                f,
                "{why}; give the server's command line as one argument, e.g. \
                 --mcp 'npx -y @modelcontextprotocol/server-filesystem /tmp/work'"
            ),
        }
    }
}

impl std::error::Error for ValueError {}

/// Parses `--anchor SEQ0:PREV0`.
fn parse_anchor(text: &str) -> Result<Anchor, agentloop_core::anchor::AnchorError> {
    text.parse()
}

/// Parses a 64-lowercase-hex hash.
fn parse_hash(text: &str) -> Result<Hash, ValueError> {
    Hash::from_hex(text.as_bytes()).ok_or(ValueError::NotAHash)
}

/// Parses an origin line: one a checkpoint can carry and read back
/// (`agentloop_core::tlog::check_origin`).
fn parse_origin(text: &str) -> Result<String, ValueError> {
    check_origin(text).map_err(ValueError::BadOrigin)?;
    Ok(text.to_owned())
}

/// Parses a note key name: non-empty, no white space, no '+'.
fn parse_key_name(text: &str) -> Result<String, ValueError> {
    if text.is_empty()
        || text
            .chars()
            .any(|c| c.is_whitespace() || c == '+' || c.is_control())
    {
        return Err(ValueError::BadKeyName);
    }
    Ok(text.to_owned())
}

/// Parses `--model PROVIDER:NAME`.
fn parse_model(text: &str) -> Result<ModelSpec, ValueError> {
    let Some((provider, name)) = text.split_once(':') else {
        return Err(ValueError::BadModel(None));
    };
    let provider = Provider::from_name(provider)
        .ok_or_else(|| ValueError::BadModel(Some(provider.to_owned())))?;
    if name.is_empty() {
        return Err(ValueError::NoModelName);
    }
    Ok(ModelSpec {
        provider,
        name: name.to_owned(),
    })
}

/// Parses `--format openai|anthropic`.
fn parse_provider(text: &str) -> Result<Provider, ValueError> {
    Provider::from_name(text).ok_or(ValueError::BadProvider)
}

/// Parses `--format openai|anthropic|mcp` of `tools`.
fn parse_manifest_format(text: &str) -> Result<ManifestFormat, ValueError> {
    match text {
        "openai" => Ok(ManifestFormat::OpenAi),
        "anthropic" => Ok(ManifestFormat::Anthropic),
        "mcp" => Ok(ManifestFormat::Mcp),
        _ => Err(ValueError::BadManifestFormat),
    }
}

/// Parses `--mcp 'CMD ARGS'`: see [`split_words`].
fn parse_command(text: &str) -> Result<McpCommand, ValueError> {
    Ok(McpCommand {
        text: text.to_owned(),
        words: split_words(text)?,
    })
}

/// Splits a command line into words as a POSIX shell does, without expanding anything:
/// blanks separate words; `'…'` keeps everything inside; `"…"` keeps everything but
/// `\"` and `\\`, which stand for `"` and `\`; outside quotes `\` keeps the next
/// character. Quoted and unquoted pieces next to each other make one word (`'a'b` is
/// `ab`; `''` is an empty word).
pub fn split_words(text: &str) -> Result<Vec<String>, ValueError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let piece = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => piece.push(c),
                        None => return Err(ValueError::BadCommand("a ' is not closed")),
                    }
                }
            }
            '"' => {
                let piece = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => piece.push(c),
                            Some(c) => {
                                piece.push('\\');
                                piece.push(c);
                            }
                            None => return Err(ValueError::BadCommand("a \" is not closed")),
                        },
                        Some(c) => piece.push(c),
                        None => return Err(ValueError::BadCommand("a \" is not closed")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(ValueError::BadCommand("the command ends in a lone \\")),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(done) = word {
        words.push(done);
    }
    if words.is_empty() {
        return Err(ValueError::BadCommand("the command is empty"));
    }
    Ok(words)
}

/// Parses `--tool-limit NAME=N` (the last '=' splits, so a name may hold one).
fn parse_tool_limit(text: &str) -> Result<ToolLimit, ValueError> {
    let (name, limit) = text.rsplit_once('=').ok_or(ValueError::BadToolLimit)?;
    let limit: u64 = limit.parse().map_err(|_| ValueError::BadToolLimit)?;
    if name.is_empty() || limit > agentloop_core::anchor::MAX_SEQ {
        return Err(ValueError::BadToolLimit);
    }
    Ok(ToolLimit {
        name: name.to_owned(),
        limit,
    })
}

/// Parses `--sync always|every:N|on-close`.
fn parse_sync(text: &str) -> Result<SyncPolicy, ValueError> {
    match text {
        "always" => Ok(SyncPolicy::Always),
        "on-close" => Ok(SyncPolicy::OnClose),
        _ => {
            let n = text.strip_prefix("every:").ok_or(ValueError::BadSync)?;
            let n: NonZeroU32 = n.parse().map_err(|_| ValueError::BadSync)?;
            Ok(SyncPolicy::EveryN(n))
        }
    }
}

/// Parses a whole number of at least 1.
fn parse_positive(text: &str) -> Result<u64, ValueError> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::NotPositive),
    }
}

/// Parses `--parallel N`: at least 1.
fn parse_parallel(text: &str) -> Result<usize, ValueError> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::BadParallel),
    }
}

/// Parses `--http-tries N`: at least 1.
fn parse_tries(text: &str) -> Result<u32, ValueError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::NotPositive),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn run_values_are_read_or_refused_with_the_form_expected() {
        assert_eq!(
            parse_model("openai:gpt-4.1-mini"),
            Ok(ModelSpec {
                provider: Provider::OpenAi,
                name: String::from("gpt-4.1-mini")
            })
        );
        // Only the first ':' splits: a model name may hold one (Ollama's `llama3:8b`).
        assert_eq!(
            parse_model("openai:llama3:8b").map(|m| m.name),
            Ok(String::from("llama3:8b"))
        );
        assert_eq!(
            parse_model("anthropic:claude-sonnet-4-5").map(|m| m.provider),
            Ok(Provider::Anthropic)
        );
        assert_eq!(parse_model("gpt-4o"), Err(ValueError::BadModel(None)));
        assert_eq!(
            parse_model("gemini:pro"),
            Err(ValueError::BadModel(Some(String::from("gemini"))))
        );
        assert_eq!(parse_model("openai:"), Err(ValueError::NoModelName));

        assert_eq!(
            parse_tool_limit("add=3"),
            Ok(ToolLimit {
                name: String::from("add"),
                limit: 3
            })
        );
        assert_eq!(
            parse_tool_limit("a=b=0").map(|t| t.name),
            Ok(String::from("a=b"))
        );
        for bad in [
            "add",
            "=3",
            "add=",
            "add=-1",
            "add=x",
            "add=9007199254740992",
        ] {
            assert_eq!(
                parse_tool_limit(bad),
                Err(ValueError::BadToolLimit),
                "{bad}"
            );
        }

        assert_eq!(parse_sync("always"), Ok(SyncPolicy::Always));
        assert_eq!(parse_sync("on-close"), Ok(SyncPolicy::OnClose));
        assert_eq!(
            parse_sync("every:8"),
            Ok(SyncPolicy::EveryN(NonZeroU32::new(8).unwrap()))
        );
        for bad in [
            "every:0",
            "every:",
            "every",
            "never",
            "every:-1",
            "every:4294967296",
        ] {
            assert_eq!(parse_sync(bad), Err(ValueError::BadSync), "{bad}");
        }
        assert_eq!(parse_positive("1"), Ok(1));
        assert_eq!(parse_positive("0"), Err(ValueError::NotPositive));
        assert_eq!(parse_tries("0"), Err(ValueError::NotPositive));
        assert_eq!(parse_parallel("0"), Err(ValueError::BadParallel));
        assert_eq!(parse_parallel("-1"), Err(ValueError::BadParallel));
        assert_eq!(parse_parallel("1"), Ok(1));
        assert_eq!(parse_parallel("64"), Ok(64));
        assert_eq!(parse_provider("anthropic"), Ok(Provider::Anthropic));
        assert_eq!(parse_manifest_format("mcp"), Ok(ManifestFormat::Mcp));
        assert_eq!(
            parse_manifest_format("json"),
            Err(ValueError::BadManifestFormat)
        );
    }

    #[test]
    fn command_lines_split_into_words_as_a_shell_would_without_expanding() {
        let words = |text: &str| split_words(text).unwrap();
        assert_eq!(
            words("npx -y  server /tmp/w"),
            ["npx", "-y", "server", "/tmp/w"]
        );
        assert_eq!(words("  a\tb\n"), ["a", "b"]);
        assert_eq!(
            words("node 'my dir/x.js' \"a \\\"b\\\" \\\\ \\n\""),
            ["node", "my dir/x.js", "a \"b\" \\ \\n"]
        );
        assert_eq!(words("a\\ b c"), ["a b", "c"]);
        assert_eq!(words("x'y'\"z\" '' \"\""), ["xyz", "", ""]);
        assert_eq!(words("$HOME *.txt ~"), ["$HOME", "*.txt", "~"]);
        for (bad, why) in [
            ("", "the command is empty"),
            ("   ", "the command is empty"),
            ("a 'b", "a ' is not closed"),
            ("a \"b", "a \" is not closed"),
            ("a \"b\\", "a \" is not closed"),
            ("a \\", "the command ends in a lone \\"),
        ] {
            assert_eq!(split_words(bad), Err(ValueError::BadCommand(why)), "{bad}");
        }
        assert_eq!(parse_provider("mcp"), Err(ValueError::BadProvider));
    }

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
