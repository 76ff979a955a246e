//! The checks before a call runs, in SPEC order — unknown tool, the tool's call limit,
//! its schema — and the `ok:false` sentence of the first that fails: the loop's
//! (`agent`), and the loop audit's reading of a recorded setup (`audit`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::Manifest;
use crate::json::Value;
use crate::schema::Violation;
use crate::vocabulary::{tool_limit_sentence, INVALID_ARGUMENTS, UNKNOWN_TOOL};

/// Decides whether `call` may run: the index of its tool, or the `ok:false` sentence.
/// In SPEC order: unknown tool → its tool's call limit → schema. `runs` holds how many
/// times each tool (by manifest index) has run.
pub(crate) fn check_call(
    manifest: &Manifest,
    runs: &[u64],
    name: &str,
    arguments: &Value,
) -> Result<usize, String> {
    let Some(index) = manifest.index(name) else {
        return Err(unknown_tool(manifest, name));
    };
    let Some((schema, limit)) = manifest.check(index) else {
        return Err(unknown_tool(manifest, name));
    };
    if let Some(limit) = limit {
        if runs.get(index).copied().unwrap_or(0) >= limit {
            return Err(tool_limit_sentence(name, limit));
        }
    }
    let violations = schema.validate(arguments, &argument_root(name));
    if violations.is_empty() {
        return Ok(index);
    }
    Err(format!(
        "{INVALID_ARGUMENTS}{}",
        Violation::list(&violations)
    ))
}

/// `no tool named 'x' (have: a, b)`, names sorted.
fn unknown_tool(manifest: &Manifest, name: &str) -> String {
    if manifest.is_empty() {
        return format!("{UNKNOWN_TOOL}'{name}' (no tools are registered)");
    }
    let names: Vec<&str> = manifest.names().collect();
    format!("{UNKNOWN_TOOL}'{name}' (have: {})", names.join(", "))
}

/// The JSON path of a call's arguments: `$.<name>` when the name is an identifier
/// (`[A-Za-z_][A-Za-z0-9_]*`), else `$['<name>']` with `'` and `\` escaped by a
/// backslash and control characters written `\n`, `\r`, `\t` or `\u00XX` — the
/// spelling the schema validator uses for member steps, so a path is always one line.
pub(crate) fn argument_root(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        return format!("$.{name}");
    }
    let mut root = String::from("$['");
    for c in name.chars() {
        match c {
            '\'' => root.push_str("\\'"),
            '\\' => root.push_str("\\\\"),
            '\n' => root.push_str("\\n"),
            '\r' => root.push_str("\\r"),
            '\t' => root.push_str("\\t"),
            c if u32::from(c) < 0x20 => root.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => root.push(c),
        }
    }
    root.push_str("']");
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_quote_names_that_are_not_identifiers() {
        assert_eq!(argument_root("add"), "$.add");
        assert_eq!(argument_root("_x9"), "$._x9");
        assert_eq!(argument_root("get-weather"), "$['get-weather']");
        assert_eq!(argument_root("9lives"), "$['9lives']");
        assert_eq!(argument_root("it's"), "$['it\\'s']");
        assert_eq!(argument_root(""), "$['']");
        assert_eq!(argument_root("a\\b\nc\u{1}"), "$['a\\\\b\\nc\\u0001']");
        // The last control character is escaped; a space (0x20) is not.
        assert_eq!(argument_root("a b\u{1f}"), "$['a b\\u001f']");
    }
}
