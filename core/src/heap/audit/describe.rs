//! The audit's sentence helpers: how a finding names a kind, a member or a found value
//! (articles, short descriptions, truncated and quoted names).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::json::{Object, Value};
use crate::vocabulary::{as_count, RecordKind};

/// The indefinite article for a word.
pub(super) fn a(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

pub(super) fn is_loop_kind(kind: &str) -> bool {
    RecordKind::from_name(kind).is_some()
}

/// A member that must be a count (an integer from 0 to 2^53 − 1): the count, or a
/// description of what was found.
pub(super) fn count_member(payload: &Object, key: &str) -> Result<u64, String> {
    match payload.get(key) {
        Some(value) => value
            .as_f64()
            .and_then(as_count)
            .ok_or_else(|| describe(value)),
        None => Err(String::from("none")),
    }
}

pub(super) fn describe_member(payload: &Object, key: &str) -> String {
    payload.get(key).map_or(String::from("none"), describe)
}

/// A short description of a found value.
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{}\"", truncate(s).escape_debug()),
        Value::Number(n) => {
            let mut buf = [0u8; 32];
            match crate::number::format_f64(*n, &mut buf) {
                Some(len) => format!("the number {}", String::from_utf8_lossy(&buf[..len])),
                None => String::from("a non-finite number"),
            }
        }
        Value::Bool(b) => format!("{b}"),
        Value::Null => String::from("null"),
        Value::Array(_) => String::from("an array"),
        Value::Object(_) => String::from("an object"),
    }
}

/// At most 70 characters of `s`, with `…` when cut.
pub(super) fn truncate(s: &str) -> String {
    let mut shown: String = s.chars().take(70).collect();
    if shown.len() < s.len() {
        shown.push('…');
    }
    shown
}

pub(super) fn quoted(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .map(|n| format!("'{}'", truncate(n).escape_debug()))
        .collect();
    shown.join(", ")
}
