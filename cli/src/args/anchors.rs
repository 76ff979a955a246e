//! The anchor commands: `checkpoint`, `keygen`, `prove`, `verify-proof`.

use std::path::PathBuf;

use agentloop_core::Anchor;
use clap::{ArgGroup, Args};

use super::values::*;

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
