//! The checks the loop applies to replies, calls and results, and the sentences it
//! records when one fails (SPEC section 4: tool failures are data).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::budget::estimate_tokens;
use super::records::{recordable, Unrecordable, MAX_ARGUMENTS_DEPTH, MAX_VALUE_DEPTH};
use crate::anchor::MAX_SEQ;
use crate::json::Value;
use crate::model::{Reply, ToolCall};
use crate::tools::{Manifest, ShownName, ToolError};

/// At most this many schema violations are spelled out in one `error` sentence; the
/// rest are counted (`; and 3 more`), so one bad call cannot make a huge record.
pub const MAX_SHOWN_VIOLATIONS: usize = 10;

/// The tokens a reply counts for, or why it cannot be recorded (a `model_error`).
pub(crate) fn reply(reply: &Reply) -> Result<u64, String> {
    for (index, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        if let Err(problem) = recordable(arguments, MAX_ARGUMENTS_DEPTH) {
            return Err(format!(
                "the model's reply cannot be recorded: the arguments of call {index} ('{}') {}",
                ShownName(name),
                unrecordable(problem)
            ));
        }
    }
    let provider = &reply.provider;
    let counts = [
        ("output", reply.output_tokens),
        ("input", provider.input_tokens),
        ("cached input", provider.cached_input_tokens),
    ];
    for (what, tokens) in counts {
        if let Some(tokens) = tokens.filter(|&t| t > MAX_SEQ) {
            return Err(format!(
                "the model reported {tokens} {what} tokens, more than 2^53-1"
            ));
        }
    }
    if let (Some(input), Some(cached)) = (provider.input_tokens, provider.cached_input_tokens) {
        if cached > input {
            return Err(format!(
                "the model reported {cached} cached input tokens, more than its {input} input tokens"
            ));
        }
    }
    Ok(reply
        .output_tokens
        .unwrap_or_else(|| estimate_tokens(&reply.text)))
}

/// Decides whether `call` may run: the index of its tool, or the `ok:false` sentence.
/// In SPEC order: unknown tool → its tool's call limit → schema. `runs` holds how many
/// times each tool (by manifest index) has run.
pub(crate) fn call(manifest: &Manifest, runs: &[u64], call: &ToolCall) -> Result<usize, String> {
    let Some(index) = manifest.index(&call.name) else {
        return Err(unknown_tool(manifest, &call.name));
    };
    let Some((schema, limit)) = manifest.check(index) else {
        return Err(unknown_tool(manifest, &call.name));
    };
    if let Some(limit) = limit {
        if runs.get(index).copied().unwrap_or(0) >= limit {
            let calls = if limit == 1 { "call" } else { "calls" };
            return Err(format!(
                "tool '{}' reached its limit of {limit} {calls}",
                call.name
            ));
        }
    }
    let violations = schema.validate(&call.arguments, &argument_root(&call.name));
    if violations.is_empty() {
        return Ok(index);
    }
    let mut sentence = String::from("invalid arguments: ");
    let shown: Vec<String> = violations
        .iter()
        .take(MAX_SHOWN_VIOLATIONS)
        .map(|v| format!("{v}"))
        .collect();
    sentence.push_str(&shown.join("; "));
    let more = violations.len().saturating_sub(MAX_SHOWN_VIOLATIONS);
    if more > 0 {
        sentence.push_str(&format!("; and {more} more"));
    }
    Err(sentence)
}

/// The result a tool gave, as it will be recorded: its value, or the `ok:false`
/// sentence for a failure or a value no record can hold.
pub(crate) fn result(name: &str, result: Result<Value, ToolError>) -> Result<Value, String> {
    match result {
        Ok(value) => match recordable(&value, MAX_VALUE_DEPTH) {
            Ok(()) => Ok(value),
            Err(problem) => Err(format!(
                "tool '{name}' returned a value {}",
                match problem {
                    Unrecordable::NoCanonicalEncoding => String::from("with no canonical encoding"),
                    Unrecordable::TooDeep(limit) => {
                        format!("nested deeper than {limit} levels, which a record cannot hold")
                    }
                }
            )),
        },
        Err(error) if error.message().is_empty() => {
            Err(format!("tool '{name}' failed without saying why"))
        }
        Err(error) => Err(format!("tool '{name}' failed: {error}")),
    }
}

/// `no tool named 'x' (have: a, b)`, names sorted.
fn unknown_tool(manifest: &Manifest, name: &str) -> String {
    if manifest.is_empty() {
        return format!("no tool named '{name}' (no tools are registered)");
    }
    let names: Vec<&str> = manifest.names().collect();
    format!("no tool named '{name}' (have: {})", names.join(", "))
}

fn unrecordable(problem: Unrecordable) -> String {
    match problem {
        Unrecordable::NoCanonicalEncoding => {
            String::from("have no canonical encoding (a NaN or infinite number)")
        }
        Unrecordable::TooDeep(limit) => format!("are nested deeper than {limit} levels"),
    }
}

/// The JSON path of a call's arguments: `$.<name>` when the name is an identifier
/// (`[A-Za-z_][A-Za-z0-9_]*`), else `$['<name>']` with `'` and `\` escaped by a
/// backslash and control characters written `\n`, `\r`, `\t` or `\u00XX` — the
/// spelling the schema validator uses for member steps, so a path is always one line.
pub fn argument_root(name: &str) -> String {
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

    #[test]
    fn result_sentences() {
        assert_eq!(
            result("fail", Err(ToolError::new("the tool is broken on purpose"))),
            Err(String::from(
                "tool 'fail' failed: the tool is broken on purpose"
            ))
        );
        assert_eq!(
            result("x", Err(ToolError::new(""))),
            Err(String::from("tool 'x' failed without saying why"))
        );
        assert_eq!(
            result("x", Ok(Value::Number(f64::INFINITY))),
            Err(String::from(
                "tool 'x' returned a value with no canonical encoding"
            ))
        );
    }

    #[test]
    fn reply_tokens_and_refusals() {
        assert_eq!(reply(&Reply::new("abcdefgh")), Ok(2));
        assert_eq!(reply(&Reply::new("abcdefgh").with_output_tokens(0)), Ok(0));
        assert_eq!(
            reply(&Reply::new("").with_output_tokens(MAX_SEQ + 1)),
            Err(String::from(
                "the model reported 9007199254740992 output tokens, more than 2^53-1"
            ))
        );
        let nan = Reply::new("").with_call("add", Value::Number(f64::NAN));
        assert_eq!(
            reply(&nan),
            Err(String::from(
                "the model's reply cannot be recorded: the arguments of call 0 ('add') have \
                 no canonical encoding (a NaN or infinite number)"
            ))
        );
    }
}
