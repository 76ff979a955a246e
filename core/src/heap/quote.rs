//! Text from a record, quoted in a sentence a terminal will show: control characters
//! are written as JSON escapes, so a record string can neither start a line of its own
//! (a forged `agentloop: …` message) nor send a terminal escape sequence.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt::Write;

/// `text` with every control character (U+0000–U+001F, U+007F, U+0080–U+009F) and the
/// line and paragraph separators (U+2028, U+2029) written as JSON writes them: `\n`,
/// `\r`, `\t`, `\b`, `\f`, else `\u` and four lowercase hex digits (`\u001b`, `\u009b`).
/// Everything else, backslashes included, is unchanged (a sentence may hold canonical
/// JSON, already escaped), so escaping twice changes nothing more. Borrowed when there
/// is nothing to escape.
///
/// ```
/// use agentloop_core::quote::escape_controls;
/// assert_eq!(escape_controls("a\n\u{1b}[31m"), r"a\n\u001b[31m");
/// assert_eq!(escape_controls(r#"{"a":"\n"}"#), r#"{"a":"\n"}"#);
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if needs_escape(c) => {
                // Writing into a String cannot fail.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_separators_are_escaped_and_nothing_else() {
        let forged =
            "\nagentloop: FORGED LINE\n\u{1b}[31m\u{9b}\u{7f}\u{2028}\u{2029}\r\t\u{8}\u{c}\u{0}";
        assert_eq!(
            escape_controls(forged),
            r"\nagentloop: FORGED LINE\n\u001b[31m\u009b\u007f\u2028\u2029\r\t\b\f\u0000"
        );
        let plain = "café ☕ 😀 \\n \"q\" 'k' \u{a0}";
        assert!(matches!(escape_controls(plain), Cow::Borrowed(s) if s == plain));
        let once = escape_controls(forged).into_owned();
        assert_eq!(escape_controls(&once), once);
        for c in (0u32..0x2100).filter_map(char::from_u32) {
            let escaped = escape_controls(c.encode_utf8(&mut [0; 4])).into_owned();
            assert!(!escaped.chars().any(needs_escape), "{c:?}");
        }
    }
}
