//! Text from a record, quoted in a sentence a terminal will show: control characters
//! are written as JSON escapes, so a record string can neither start a line of its own
//! (a forged `agentloop: …` message) nor send a terminal escape sequence
//! ([`escape_controls`]); and a sentence cut to fit a record ([`cut_to_fit`]).
//!
//! Internal (`#[doc(hidden)]`, outside the API promise): agentloop-core's sentences, the
//! CLI's terminal output and the MCP client's cutting build on it; a library user sees
//! the behaviour (escaped control characters, cut sentences), not these functions.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt::Write;

use agentloop_transcript::jcs::write_str;
use agentloop_transcript::sink::CountingSink;

/// `text` with every control character (U+0000–U+001F, U+007F, U+0080–U+009F) and the
/// line and paragraph separators (U+2028, U+2029) written as JSON writes them: `\n`,
/// `\r`, `\t`, `\b`, `\f`, else `\u` and four lowercase hex digits (`\u001b`, `\u009b`).
/// Everything else, backslashes included, is unchanged (a sentence may hold canonical
/// JSON, already escaped), so escaping twice changes nothing more. Borrowed when there
/// is nothing to escape.
///
/// ```
/// use agentloop_json::quote::escape_controls;
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

/// `text` cut so that its JSON string encoding (RFC 8785 escapes, without the quotes)
/// is at most `max` bytes: the first characters that fit, then
/// `… (cut: N bytes in all)`, N the length of `text` in UTF-8 (the note is not counted
/// in `max`). `text` itself when it fits. For a sentence that goes into a record whose
/// line must stay within a limit.
///
/// ```
/// use agentloop_json::quote::cut_to_fit;
/// assert_eq!(cut_to_fit("abcd", 3), "abc… (cut: 4 bytes in all)");
/// // A newline takes two bytes as JSON, a control character six.
/// assert_eq!(cut_to_fit("a\nb", 3), "a\n… (cut: 3 bytes in all)");
/// assert_eq!(cut_to_fit("\u{1}", 5), "… (cut: 1 bytes in all)");
/// assert_eq!(cut_to_fit("abc", 3), "abc");
/// ```
pub fn cut_to_fit(text: &str, max: usize) -> String {
    let mut size = 0usize;
    let mut utf8 = [0u8; 4];
    for (at, c) in text.char_indices() {
        let mut counter = CountingSink::default();
        // A counter is never full.
        let _ = write_str(c.encode_utf8(&mut utf8), &mut counter);
        // The character's escape, without the two quotes around it.
        size = size.saturating_add(counter.count.saturating_sub(2));
        if size > max {
            let mut cut = String::from(&text[..at]);
            cut.push_str(&cut_note(text.len()));
            return cut;
        }
    }
    String::from(text)
}

/// What [`cut_to_fit`] writes after the characters kept of a text `len` bytes long.
#[doc(hidden)]
pub fn cut_note(len: usize) -> String {
    alloc::format!("… (cut: {len} bytes in all)")
}

fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_counts_each_character_as_json_writes_it() {
        assert_eq!(cut_to_fit("", 0), "");
        assert_eq!(cut_to_fit("é", 1), "… (cut: 2 bytes in all)");
        assert_eq!(cut_to_fit("é", 2), "é");
        assert_eq!(cut_to_fit("a\"b", 3), "a\"… (cut: 3 bytes in all)");
        assert_eq!(cut_to_fit("a\"b", 2), "a… (cut: 3 bytes in all)");
        // DEL is not escaped by JSON, U+001F is.
        assert_eq!(
            cut_to_fit("\u{7f}\u{1f}", 6),
            "\u{7f}… (cut: 2 bytes in all)"
        );
        assert_eq!(cut_to_fit("\u{7f}\u{1f}", 7), "\u{7f}\u{1f}");
    }

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
