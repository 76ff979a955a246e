//! The command line, as clap derive types: what each command accepts. Each group of
//! commands has its arguments in a file of its own; `values` reads their values.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod anchors;
mod run;
mod transcript;
mod values;

pub use anchors::*;
pub use run::*;
pub use transcript::*;

/// Exit codes, shown at the end of `--help`.
const EXIT_CODES: &str = "\
Exit status: 0 the claim held (verified, canonical, valid, appended, printed);
1 a graded fault (a fault found, an instance invalid, input with no canonical form);
2 could not grade (unreadable input, malformed checkpoint, refused schema, bad usage).
Over several inputs, the worst (2 > 1 > 0). A FILE of '-' reads standard input, which
can be read once: '-' given for two inputs is bad usage. When the reader of standard
output goes away (| head), the command ends quietly by SIGPIPE, as cat does.";

/// agentloop: run a budgeted agent tool loop against a model, writing a hash-chained
/// JSONL transcript; verify, canonicalise, append to and inspect such transcripts.
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
    /// Write one self-contained HTML page showing a transcript: its turns, calls and
    /// results, where the budget went, and whether it verifies.
    View(ViewArgs),
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
            Command::View(a) => note("FILE", Some(&a.file)),
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

#[cfg(test)]
mod tests;
