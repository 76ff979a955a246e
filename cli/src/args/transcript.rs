//! The transcript commands: `verify`, `canon`, `append`, `repair`, `show`, `validate`.

use std::ffi::OsString;
use std::path::PathBuf;

use agentloop_core::{Anchor, Hash};
use clap::builder::NonEmptyStringValueParser;
use clap::{ArgGroup, Args};

use super::values::*;

/// `agentloop verify`.
#[derive(Debug, Args)]
#[command(after_help = "\
With --loop, each file is also audited as a run of the loop in the same streaming pass.
With --requests, each file's chain is verified, then each turn's request is rebuilt and
its SHA-256 compared with the recorded one: one line a file, 'ok, N requests …' or the
first turn that does not match or is not provable (exit 1).
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
    /// Instead, check that each turn's request is proven: rebuild every request body
    /// from the transcript alone (its setup, the conversation before the turn) and
    /// compare its SHA-256 with the assistant record's request_sha256. The first turn
    /// that differs, or records no digest, is named (exit 1).
    #[arg(long, conflicts_with_all = ["json", "lenient", "check_loop", "anchor",
        "expect_count", "checkpoint", "keys", "key_files", "origin"])]
    pub requests: bool,
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

/// `agentloop view`.
#[derive(Debug, Args)]
#[command(after_help = "\
Writes one self-contained HTML page (style and script inline; it fetches nothing):
the records as a timeline, one row per line, each call with its arguments and result,
long values cut with 'show all'; a plot of tokens and tool calls per turn against the
budgets; the stop reason; and the verdict of verifying the file, made when the page
is made. A file that does not verify still gets its page: a banner with verify's
sentence, the faulty record highlighted, the records after it marked unverified.
Exit status: 0 the page was written and the file verifies; 1 the page was written
and the file does not verify; 2 no page: the file could not be read, no line of it
is a record, or the page could not be written.")]
pub struct ViewArgs {
    /// Where the chain starts, for a transcript that continues another (SEQ0:PREV0).
    #[arg(long, value_name = "SEQ0:PREV0", value_parser = parse_anchor)]
    pub anchor: Option<Anchor>,
    /// The page to write (replaced atomically), or '-' for standard output.
    #[arg(short = 'o', long = "out", value_name = "OUT.html")]
    pub out: PathBuf,
    /// The transcript ('-' reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `agentloop validate`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints 'INSTANCE_FILE: valid', or one violation per line ('$.a: expected type integer,
got string'; paths start at '$') and a one-sentence summary on stderr.

The schema is JSON Schema draft 2020-12, or 2019-09 or draft-07 when its $schema names
them, each with its own meaning: the whole validation language — every assertion
(type, enum, const, multipleOf, the bounds, pattern, uniqueItems, required,
dependentRequired, ...) and applicator (allOf, anyOf, oneOf, not, if/then/else,
prefixItems, items, contains, properties, patternProperties, additionalProperties,
propertyNames, dependentSchemas, unevaluatedItems, unevaluatedProperties), true and
false schemas, and $ref, $anchor and $dynamicRef within the document. format and the
other annotations are not asserted; a member no draft knows is an annotation too, and
a note on stderr names it. Refused, naming the pointer and the keyword: another
$schema, a keyword of another draft, a schema its draft's meta-schema refuses, a
reference out of the document, a pattern with no linear-time meaning (look-around,
back-references). docs/schemas.md has it all. Each file is read up to 16 MiB.

Exit status: 0 valid; 1 invalid; 2 the schema was refused, a file could not be read,
is longer than 16 MiB or is not I-JSON, or bad usage (both files '-').")]
pub struct ValidateArgs {
    /// The schema, a JSON document ('-' reads standard input).
    #[arg(value_name = "SCHEMA_FILE")]
    pub schema: PathBuf,
    /// The instance to validate, a JSON document ('-' reads standard input).
    #[arg(value_name = "INSTANCE_FILE")]
    pub instance: PathBuf,
}
