//! The command line's values: how each is read, and why one is refused.

use std::fmt;

use std::num::NonZeroU32;

use agentloop_core::durable::SyncPolicy;
use agentloop_core::provider::Provider;
use agentloop_core::tlog::{check_origin, OriginError};
use agentloop_core::{Anchor, Hash};

use super::run::{ExportFormat, ManifestFormat, McpCommand, ModelSpec, ToolLimit};

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
    /// A `--tool-limit` not of the form NAME=N.
    BadToolLimit,
    /// A `--sync` policy that is not always, every:N or on-close.
    BadSync,
    /// A number that must be at least 1 (and fit).
    NotPositive,
    /// A manifest format other than openai, anthropic or mcp.
    BadManifestFormat,
    /// An `export --format` that is not openai, anthropic or otlp.
    BadExportFormat,
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
            ValueError::BadExportFormat => {
                f.write_str("the formats are openai, anthropic and otlp")
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
pub(super) fn parse_anchor(text: &str) -> Result<Anchor, agentloop_core::anchor::AnchorError> {
    text.parse()
}

/// Parses a 64-lowercase-hex hash.
pub(super) fn parse_hash(text: &str) -> Result<Hash, ValueError> {
    Hash::from_hex(text.as_bytes()).ok_or(ValueError::NotAHash)
}

/// Parses an origin line: one a checkpoint can carry and read back
/// (`agentloop_core::tlog::check_origin`).
pub(super) fn parse_origin(text: &str) -> Result<String, ValueError> {
    check_origin(text).map_err(ValueError::BadOrigin)?;
    Ok(text.to_owned())
}

/// Parses a note key name: non-empty, no white space, no '+'.
pub(super) fn parse_key_name(text: &str) -> Result<String, ValueError> {
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
pub(super) fn parse_model(text: &str) -> Result<ModelSpec, ValueError> {
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

/// Parses `--format openai|anthropic|otlp` of `export`.
pub(super) fn parse_export_format(text: &str) -> Result<ExportFormat, ValueError> {
    match (text, Provider::from_name(text)) {
        ("otlp", _) => Ok(ExportFormat::Otlp),
        (_, Some(provider)) => Ok(ExportFormat::History(provider)),
        _ => Err(ValueError::BadExportFormat),
    }
}

/// Parses `--format openai|anthropic|mcp` of `tools`.
pub(super) fn parse_manifest_format(text: &str) -> Result<ManifestFormat, ValueError> {
    match text {
        "openai" => Ok(ManifestFormat::OpenAi),
        "anthropic" => Ok(ManifestFormat::Anthropic),
        "mcp" => Ok(ManifestFormat::Mcp),
        _ => Err(ValueError::BadManifestFormat),
    }
}

/// Parses `--mcp 'CMD ARGS'`: see [`split_words`].
pub(super) fn parse_command(text: &str) -> Result<McpCommand, ValueError> {
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
pub(super) fn parse_tool_limit(text: &str) -> Result<ToolLimit, ValueError> {
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
pub(super) fn parse_sync(text: &str) -> Result<SyncPolicy, ValueError> {
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
pub(super) fn parse_positive(text: &str) -> Result<u64, ValueError> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::NotPositive),
    }
}

/// Parses `--parallel N`: at least 1.
pub(super) fn parse_parallel(text: &str) -> Result<usize, ValueError> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::BadParallel),
    }
}

/// Parses `--http-tries N`: at least 1.
pub(super) fn parse_tries(text: &str) -> Result<u32, ValueError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ValueError::NotPositive),
    }
}
