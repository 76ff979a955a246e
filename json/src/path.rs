//! JSON paths of instance values, as violations spell them: `$.a.b[0]`, `$['a b']`.
//!
//! A member whose key is an identifier (`[A-Za-z_][A-Za-z0-9_]*`) is `.key`; any other
//! key is `['key']`, with `'` and `\` escaped by a backslash and control characters
//! written `\n`, `\r`, `\t` or `\u00XX`, so a path is always one line. An array item is
//! `[index]`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// Where a value sits in the instance: a chain of steps up to the root, kept on the
/// stack while validating, and spelled out only when a violation needs it.
#[derive(Debug, Clone, Copy)]
pub enum Location<'a> {
    /// The instance itself.
    Root,
    /// A member of an object.
    Member {
        /// Where the object is.
        parent: &'a Location<'a>,
        /// The member's position in the object's canonical order.
        index: usize,
        /// The member's key.
        key: &'a str,
    },
    /// An item of an array.
    Item {
        /// Where the array is.
        parent: &'a Location<'a>,
        /// The item's index.
        index: usize,
    },
}

impl Location<'_> {
    /// The path from `root` (e.g. `$` or `$.add`) to this value.
    pub fn spell(&self, root: &str) -> String {
        let mut out = String::with_capacity(root.len() + 24);
        out.push_str(root);
        self.push_steps(&mut out);
        out
    }

    /// Appends the steps from the root down to this value (recursion as deep as the
    /// value, which the validator's nesting limit bounds).
    fn push_steps(&self, out: &mut String) {
        match self {
            Location::Root => {}
            Location::Member { parent, key, .. } => {
                parent.push_steps(out);
                push_member(out, key);
            }
            Location::Item { parent, index } => {
                parent.push_steps(out);
                push_index(out, *index);
            }
        }
    }

    /// Appends the positions (member or item index) from the root down to this value.
    /// Sorting by them puts values in document order, a value before its members.
    pub fn push_order(&self, out: &mut Vec<usize>) {
        if let Location::Member { parent, index, .. } | Location::Item { parent, index } = self {
            parent.push_order(out);
            out.push(*index);
        }
    }
}

/// Whether `key` can be written `.key`: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Appends the step to member `key`: `.key` or `['key']`.
pub fn push_member(out: &mut String, key: &str) {
    if is_identifier(key) {
        out.push('.');
        out.push_str(key);
    } else {
        out.push('[');
        push_quoted(out, key);
        out.push(']');
    }
}

/// Appends the step to item `index`: `[index]`.
pub fn push_index(out: &mut String, index: usize) {
    out.push('[');
    push_decimal(out, index as u64);
    out.push(']');
}

/// Appends `n` in decimal (what `write!(out, "{n}")` writes, without the formatting
/// machinery).
pub fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Appends `text` in single quotes, escaping `'`, `\` and control characters.
pub fn push_quoted(out: &mut String, text: &str) {
    out.push('\'');
    if is_plain_key(text) {
        out.push_str(text);
        out.push('\'');
        return;
    }
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// Whether `text` has nothing [`push_quoted`] escapes (the usual key), so it can be
/// copied whole. Only a shortcut: the escaping loop copies such a text unchanged too.
fn is_plain_key(text: &str) -> bool {
    !text.bytes().any(|b| b < 0x20 || b == b'\'' || b == b'\\')
}

/// `text` in single quotes, escaped as [`push_quoted`] does.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_quoted(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    #[test]
    fn identifiers() {
        for key in ["a", "_", "A_1", "add", "_x9"] {
            assert!(is_identifier(key), "{key}");
        }
        for key in ["", "1a", "a b", "a-b", "é", "a.b", "$", "a'"] {
            assert!(!is_identifier(key), "{key}");
        }
    }

    #[test]
    fn spelling() {
        let root = Location::Root;
        assert_eq!(root.spell("$"), "$");
        assert_eq!(root.spell("$.add"), "$.add");
        let a = Location::Member {
            parent: &root,
            index: 0,
            key: "a",
        };
        let a0 = Location::Item {
            parent: &a,
            index: 0,
        };
        assert_eq!(a0.spell("$"), "$.a[0]");
        let spaced = Location::Member {
            parent: &a0,
            index: 3,
            key: "a b",
        };
        assert_eq!(spaced.spell("$"), "$.a[0]['a b']");
        let mut order = vec![9];
        spaced.push_order(&mut order);
        assert_eq!(order, [9, 0, 0, 3]);
        let mut decimal = String::new();
        for n in [0, 7, 10, 99, 12345, u64::MAX] {
            decimal.clear();
            push_decimal(&mut decimal, n);
            assert_eq!(decimal, format!("{n}"));
        }
        let nasty = Location::Member {
            parent: &root,
            index: 1,
            key: "it's \\ a\nb\u{1}",
        };
        assert_eq!(nasty.spell("$"), "$['it\\'s \\\\ a\\nb\\u0001']");
        let empty = Location::Member {
            parent: &root,
            index: 0,
            key: "",
        };
        assert_eq!(empty.spell("$.t"), "$.t['']");
        assert_eq!(quoted("😀"), "'😀'");
        // A key of nothing but one character to escape takes no shortcut.
        assert_eq!(quoted("'"), "'\\''");
        assert_eq!(quoted("\\"), "'\\\\'");
        assert_eq!(quoted("\n"), "'\\n'");
        assert_eq!(quoted("\u{1f}"), "'\\u001f'");
        assert_eq!(quoted(" "), "' '");
    }
}
