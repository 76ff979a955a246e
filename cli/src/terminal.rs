//! The one rule for text that came from outside — file names, record content, model
//! text, tool names, servers' sentences — and is shown on a terminal: every character
//! that could act on the terminal or reorder what it shows is written as a visible
//! escape, so such text can neither send an escape sequence, nor start a line of its own
//! (a forged `agentloop: …` sentence), nor make a line read in another order than its
//! bytes (a right-to-left override hiding part of a name).
//!
//! Escaped: the C0 controls (U+0000–U+001F), DEL (U+007F), the C1 controls
//! (U+0080–U+009F) and the line and paragraph separators (U+2028, U+2029), as
//! `agentloop_core::quote::escape_controls` writes them (`\n`, `\t`, `\u001b`, …);
//! and the bidirectional controls — the embeddings and overrides U+202A–U+202E, the
//! isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C — as `\u202e` and so on.
//! Everything else is shown as it is. JSON output needs none of this: JSON escapes what
//! it must, and a program reads it.

use std::borrow::Cow;
use std::fmt::Write;

use agentloop_core::quote::escape_controls;

/// `text` with the characters of the module's rule written as visible escapes;
/// borrowed when there is nothing to escape. Escaping twice changes nothing more.
pub fn escape(text: &str) -> Cow<'_, str> {
    let controls = escape_controls(text);
    if !controls.chars().any(is_bidi_control) {
        return controls;
    }
    let mut out = String::with_capacity(controls.len() + 16);
    for c in controls.chars() {
        if is_bidi_control(c) {
            // Writing into a String cannot fail.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` escaped line by line, its newlines kept (text of several lines, each of
/// which is shown as a line).
pub fn escape_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.strip_suffix('\n') {
            Some(line) => format!("{}\n", escape(line)),
            None => escape(line).into_owned(),
        })
        .collect()
}

/// The Unicode bidirectional formatting characters: they change the order in which a
/// terminal shows the characters around them (Unicode Standard Annex #9).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_controls_are_escaped_and_nothing_else() {
        let name = "x\u{1b}[2J\u{7f}\u{9b}\u{202e}gpj.exe\u{202c}\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}\n";
        assert_eq!(
            escape(name),
            r"x\u001b[2J\u007f\u009b\u202egpj.exe\u202c\u2066\u2069\u200e\u200f\u061c\n"
        );
        let once = escape(name).into_owned();
        assert_eq!(escape(&once), once);
        let plain = "café ☕ 😀 \\n \"q\" 'k' \u{a0} \u{200d} עברית";
        assert!(matches!(escape(plain), Cow::Borrowed(s) if s == plain));
        let kept: Vec<u32> = (0u32..0x3000)
            .filter_map(char::from_u32)
            .filter(|c| escape(c.encode_utf8(&mut [0; 4])).chars().count() == 1)
            .map(u32::from)
            .filter(|&c| c < 0xa0 || (0x2000..0x2070).contains(&c) || c == 0x61c)
            .collect();
        // Of the controls and the format characters near the bidi ones, only these
        // are shown as they are: the printable ASCII, and U+2000–U+200D, U+2010–U+2027,
        // U+202F–U+2065 and U+206A–U+206F (spaces, joiners, punctuation, invisible
        // operators, the deprecated shaping controls).
        let expected: Vec<u32> = (0x20..0x7f)
            .chain(0x2000..0x200e)
            .chain(0x2010..0x2028)
            .chain(0x202f..0x2066)
            .chain(0x206a..0x2070)
            .collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn lines_keep_their_newlines() {
        assert_eq!(escape_lines("a\u{202e}\nb\u{1b}\n"), "a\\u202e\nb\\u001b\n");
        assert_eq!(escape_lines("no newline"), "no newline");
    }
}
