//! What model providers require of a tool, checked once at registration so that every
//! manifest the loop exports (OpenAI, Anthropic, MCP) is one their APIs accept:
//!
//! - **the name** matches `^[a-zA-Z0-9_-]{1,64}$` — ASCII letters, digits, `_` and `-`,
//!   1 to 64 of them. OpenAI documents exactly this for a function's `name`, Anthropic
//!   for a tool's `name`; it is also a safe MCP tool name.
//! - **the root schema describes an object**: it is a JSON object whose `type` member is
//!   the string `"object"`. OpenAI reads `parameters` as a JSON Schema object describing
//!   the arguments object; Anthropic's `input_schema` and MCP's `inputSchema` declare
//!   `"type": "object"` as a required literal, so a `type` list (even `["object"]`), a
//!   root without `type` (`{}`, a bare `anyOf`, `oneOf`, `allOf` or `$ref`) and a
//!   boolean schema (`true`, `false`) are refused. Any other keyword may sit next to
//!   `"type": "object"` (`properties`, `anyOf`, `$ref`, `$defs`, …).
//!
//! [`check_name`] and [`check_root`] are the rules; [`super::ToolSpec::check`] applies
//! both (and compiles the schema), and every registration path goes through it.
//! [`provider_safe_name`] is what a history export does with a call name a model made up
//! that breaks the rule.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt;

use sha2::{Digest, Sha256};

use crate::hash::Hash;
use crate::json::Value;
use crate::quote::escape_controls;

/// The longest tool name providers accept, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// The rule a tool name must follow, as providers write it.
pub(crate) const NAME_PATTERN: &str = "^[a-zA-Z0-9_-]{1,64}$";

/// How a tool name breaks [`NAME_PATTERN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameError {
    /// The name is empty.
    Empty,
    /// The first character that is not an ASCII letter, digit, `_` or `-`.
    Character {
        /// The character.
        character: char,
        /// Its 0-based position, counted in characters (Unicode scalar values).
        position: usize,
    },
    /// The name is made of allowed characters but has more than [`MAX_NAME_CHARS`].
    TooLong {
        /// Its length in characters.
        length: usize,
    },
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NameError::Empty => f.write_str("it is empty"),
            NameError::Character {
                character,
                position,
            } => {
                let mut buffer = [0u8; 4];
                let shown = escape_controls(character.encode_utf8(&mut buffer));
                write!(
                    f,
                    "'{shown}' at position {position} is not an ASCII letter, digit, '_' or '-'"
                )
            }
            NameError::TooLong { length } => write!(
                f,
                "it is {length} characters long, more than {MAX_NAME_CHARS}"
            ),
        }
    }
}

impl core::error::Error for NameError {}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Checks `name` against [`NAME_PATTERN`]: empty first, then the first character outside
/// the set, then the length (`tests_provider.rs` holds the examples).
pub(crate) fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if let Some((position, character)) = name.chars().enumerate().find(|&(_, c)| !allowed(c)) {
        return Err(NameError::Character {
            character,
            position,
        });
    }
    // Only ASCII is left: bytes are characters.
    if name.len() > MAX_NAME_CHARS {
        return Err(NameError::TooLong { length: name.len() });
    }
    Ok(())
}

/// A name as a sentence shows it: control characters escaped, and cut after
/// [`MAX_NAME_CHARS`] characters (with `…`) so a huge name cannot flood a message.
pub(crate) struct ShownName<'a>(pub &'a str);

impl fmt::Display for ShownName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = self
            .0
            .char_indices()
            .nth(MAX_NAME_CHARS)
            .map_or(self.0.len(), |(at, _)| at);
        f.write_str(&escape_controls(&self.0[..cut]))?;
        if cut < self.0.len() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

/// What a root schema's `type` is when it is not the string `"object"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RootType {
    /// `"array"`
    Array,
    /// `"boolean"`
    Boolean,
    /// `"integer"`
    Integer,
    /// `"null"`
    Null,
    /// `"number"`
    Number,
    /// `"string"`
    String,
    /// A list of type names (even `["object"]`): providers want the string.
    List,
    /// Anything else (not a JSON Schema type name).
    Other,
}

/// How a root schema fails to describe an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RootError {
    /// The boolean schema `true` or `false`.
    Boolean(bool),
    /// A JSON value that is neither an object nor a boolean.
    NotAnObject,
    /// An object with no `type` member (`{}`, a bare `anyOf`, `oneOf` or `$ref`).
    NoType,
    /// A `type` member other than the string `"object"`.
    Type(RootType),
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            RootError::Boolean(value) => {
                return write!(
                    f,
                    "the root schema is {value}, which does not describe an object"
                )
            }
            RootError::NotAnObject => return f.write_str("the root schema is not a JSON object"),
            RootError::NoType => return f.write_str("the root schema has no \"type\""),
            RootError::Type(RootType::List) => {
                return f
                    .write_str("the root schema's \"type\" is a list, not the string \"object\"")
            }
            RootError::Type(RootType::Other) => {
                return f.write_str("the root schema's \"type\" is not \"object\"")
            }
            RootError::Type(RootType::Array) => "array",
            RootError::Type(RootType::Boolean) => "boolean",
            RootError::Type(RootType::Integer) => "integer",
            RootError::Type(RootType::Null) => "null",
            RootError::Type(RootType::Number) => "number",
            RootError::Type(RootType::String) => "string",
        };
        write!(f, "the root schema's \"type\" is \"{name}\"")
    }
}

impl core::error::Error for RootError {}

/// Checks that `schema` describes an object: a JSON object whose `type` is the string
/// `"object"` (see the module documentation for why exactly that).
pub(crate) fn check_root(schema: &Value) -> Result<(), RootError> {
    let object = match schema {
        Value::Object(object) => object,
        Value::Bool(value) => return Err(RootError::Boolean(*value)),
        _ => return Err(RootError::NotAnObject),
    };
    let found = match object.get("type") {
        None => return Err(RootError::NoType),
        Some(Value::String(name)) => match name.as_str() {
            "object" => return Ok(()),
            "array" => RootType::Array,
            "boolean" => RootType::Boolean,
            "integer" => RootType::Integer,
            "null" => RootType::Null,
            "number" => RootType::Number,
            "string" => RootType::String,
            _ => RootType::Other,
        },
        Some(Value::Array(_)) => RootType::List,
        Some(_) => RootType::Other,
    };
    Err(RootError::Type(found))
}

/// How many characters of a made-up name [`provider_safe_name`] keeps.
const KEPT_CHARS: usize = 40;

/// `name` as a provider accepts it in a history: unchanged when it matches
/// `^[a-zA-Z0-9_-]{1,64}$` (every registered tool's name does); otherwise — a name a model made
/// up, answered `ok:false` — its first 40 characters with each one outside
/// `[A-Za-z0-9_-]` replaced by `_`, then `-` and the first 16 hex digits of the SHA-256
/// of the whole name's UTF-8. The result always matches the pattern (at most 57
/// characters), the same name always maps to the same result, and two different
/// made-up names map to different results unless their hashes collide in 64 bits.
///
/// ```
/// use agentloop_core::tools::provider_safe_name;
/// assert_eq!(provider_safe_name("get_weather"), "get_weather");
/// assert_eq!(provider_safe_name("my tool"), "my_tool-ba077b4202dcd661");
/// ```
pub fn provider_safe_name(name: &str) -> Cow<'_, str> {
    if check_name(name).is_ok() {
        return Cow::Borrowed(name);
    }
    let mut safe: String = name
        .chars()
        .take(KEPT_CHARS)
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    safe.push('-');
    let hex = Hash(Sha256::digest(name.as_bytes()).into()).to_hex();
    safe.extend(hex[..16].iter().map(|&digit| char::from(digit)));
    Cow::Owned(safe)
}
