//! The common case at once: a whole record line, contiguous in memory, checked in one
//! pass by straight recursive descent and hashed in one call.
//!
//! A writer's line is `{"hash":"<64 hex>","kind":"…","payload":…,"prev":"<64 hex>","seq":…}`
//! with no byte out of place: canonical form leaves no other order or spelling. So the
//! record's frame is compared as fixed text, only the payload is walked, and the hashed
//! bytes (the record without `hash`) are `{` followed by the line from `"kind"` on: one
//! contiguous run for SHA-256, with no staging and no per-token callback.
//!
//! This path only ever says yes. Whatever it does not take at a glance — an escape in a
//! key, a number it cannot judge, nesting deeper than [`QUICK_DEPTH`], keys near the
//! streaming checker's limits, any departure or error — it hands back (`None`), and the
//! streaming [`Lexer`](super::Lexer) reads the line from its start and says precisely
//! what is wrong. Where it says yes, the streaming checker says the same yes with the
//! same [`Sealed`] facts: `whole_line_tests.rs` holds the two together on generated,
//! edited and arbitrary lines.

use sha2::{Digest, Sha256};

use super::numeric::{judge_exact, judge_text, Judged, Shape};
use super::scan::{first_control, string_body};
use super::string::cmp_utf16;
use super::{KEY_PATH_BYTES, MAX_KEY_BYTES, MAX_NUMBER_BYTES};
use crate::hash::Hash;
use crate::stream::Sealed;

/// The deepest nesting (the record object is depth 1) this path follows; a deeper line
/// is left to the streaming checker, whose own limit is [`super::RECORD_MAX_DEPTH`].
pub(crate) const QUICK_DEPTH: usize = 64;

/// The record's frame before the stored hash's digits.
const HASH_OPEN: &[u8] = b"{\"hash\":\"";
/// Bytes before `"kind"`: `{"hash":"`, 64 digits, `",`.
const HASH_MEMBER: usize = HASH_OPEN.len() + 64 + 2;

/// The first line of `text`, which must hold a `\n`: its length (without the `\n`) and
/// its facts, when it is a canonical record line this path takes; `None` otherwise
/// (including when `text` has no `\n`).
pub(crate) fn first_line(text: &[u8]) -> Option<(usize, Sealed)> {
    let end = first_control(text)?;
    if text.get(end) != Some(&b'\n') {
        return None;
    }
    let line = text.get(..end)?;
    Some((end, clean_line(line)?))
}

/// `line` (without its `\n`) when it is a canonical record line this path takes.
pub(crate) fn line(line: &[u8]) -> Option<Sealed> {
    if first_control(line).is_some() {
        return None;
    }
    clean_line(line)
}

/// A line with no control byte.
fn clean_line(line: &[u8]) -> Option<Sealed> {
    if !line.starts_with(HASH_OPEN) {
        return None;
    }
    let text = simdutf8::basic::from_utf8(line).ok()?;
    let mut r = Reader {
        text,
        b: line,
        i: HASH_OPEN.len(),
        depth: 1,
        key_path: 0,
    };
    let stored = r.hash()?;
    r.expect(b"\",\"kind\":\"")?;
    let kind = r.i;
    r.string()?;
    if r.i == kind + 1 {
        return None; // `kind` is the empty string
    }
    r.expect(b",\"payload\":")?;
    // While the payload is read, the record's last key is "payload".
    r.key_path = "payload".len();
    r.value()?;
    r.expect(b",\"prev\":\"")?;
    let prev = r.hash()?;
    r.expect(b"\",\"seq\":")?;
    let seq = r.number(true)?;
    r.expect(b"}")?;
    if r.i != line.len() {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    hasher.update(line.get(HASH_MEMBER..)?);
    Some(Sealed {
        stored,
        computed: Hash(hasher.finalize().into()),
        prev,
        seq,
    })
}

/// A position in a line with no control byte and well-formed UTF-8.
struct Reader<'a> {
    text: &'a str,
    /// `text`'s bytes.
    b: &'a [u8],
    i: usize,
    /// Open containers, the record object included.
    depth: usize,
    /// Bytes of the last key of every open object (the streaming checker's key path).
    key_path: usize,
}

impl<'a> Reader<'a> {
    fn expect(&mut self, text: &[u8]) -> Option<()> {
        let rest = self.b.get(self.i..)?;
        if !rest.starts_with(text) {
            return None;
        }
        self.i += text.len();
        Some(())
    }

    fn next(&mut self) -> Option<u8> {
        let b = *self.b.get(self.i)?;
        self.i += 1;
        Some(b)
    }

    /// 64 lowercase hex digits.
    fn hash(&mut self) -> Option<Hash> {
        let hash = Hash::from_hex(self.b.get(self.i..self.i + 64)?)?;
        self.i += 64;
        Some(hash)
    }

    fn value(&mut self) -> Option<()> {
        match *self.b.get(self.i)? {
            b'"' => {
                self.i += 1;
                self.string()
            }
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.expect(b"true"),
            b'f' => self.expect(b"false"),
            b'n' => self.expect(b"null"),
            _ => self.number(false).map(|_| ()),
        }
    }

    /// A string's body and closing quote (the opening quote read): any bytes but `"`
    /// and `\`, and the escapes canonical form writes.
    fn string(&mut self) -> Option<()> {
        let rest = self.b.get(self.i..)?;
        let n = string_body(rest, true);
        if rest.get(n) != Some(&b'"') {
            return None;
        }
        self.i += n + 1;
        Some(())
    }

    /// A key without escapes, within the streaming checker's key limit, and its `:`.
    fn key(&mut self) -> Option<&'a [u8]> {
        let rest = self.b.get(self.i..)?.strip_prefix(b"\"")?;
        let n = string_body(rest, false);
        if n > MAX_KEY_BYTES || rest.get(n..n + 2) != Some(b"\":") {
            return None;
        }
        self.i += n + 3;
        rest.get(..n)
    }

    /// Opens the container at the `{` or `[` here: `Some(true)` when `close` follows at
    /// once (it is then read and the container closed), `None` past [`QUICK_DEPTH`].
    fn open(&mut self, close: u8) -> Option<bool> {
        self.depth += 1;
        if self.depth > QUICK_DEPTH {
            return None;
        }
        self.i += 1;
        if self.b.get(self.i) != Some(&close) {
            return Some(false);
        }
        self.i += 1;
        self.depth -= 1;
        Some(true)
    }

    fn object(&mut self) -> Option<()> {
        if self.open(b'}')? {
            return Some(());
        }
        let outer = self.key_path;
        let mut last: Option<&[u8]> = None;
        loop {
            let key = self.key()?;
            // Strictly after the previous key in UTF-16 order (no duplicate either).
            if last.is_some_and(|last| cmp_utf16(last, key).is_ge()) {
                return None;
            }
            // The streaming checker holds the last key of each open object and the one
            // being read: stay a little below its limit rather than match it exactly.
            if outer + last.map_or(0, <[u8]>::len) + key.len() + 2 > KEY_PATH_BYTES {
                return None;
            }
            self.key_path = outer + key.len();
            self.value()?;
            last = Some(key);
            match self.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        self.key_path = outer;
        self.depth -= 1;
        Some(())
    }

    fn array(&mut self) -> Option<()> {
        if self.open(b']')? {
            return Some(());
        }
        loop {
            self.value()?;
            match self.next()? {
                b',' => {}
                b']' => break,
                _ => return None,
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// A number literal of JSON's grammar with a canonical encoding, and its value
    /// (computed only when `need_value`, else possibly 0).
    fn number(&mut self, need_value: bool) -> Option<f64> {
        let shape = Shape::of(self.b.get(self.i..)?)?;
        if shape.len > MAX_NUMBER_BYTES {
            return None;
        }
        // ASCII, so on character boundaries.
        let literal = self.text.get(self.i..self.i + shape.len)?;
        if !need_value && shape.canonical_at_a_glance(literal) {
            self.i += shape.len;
            return Some(0.0);
        }
        // What the shape did not take: an integer may still take the small-integer
        // shortcut (up to 2^53, its value); any other literal goes straight to the exact
        // check, which gives every literal the same verdict.
        let judged = if !shape.fraction && !shape.exponent {
            judge_text(literal, need_value)
        } else {
            judge_exact(literal)
        };
        match judged {
            Judged::Canonical(value) => {
                self.i += shape.len;
                Some(value)
            }
            _ => None,
        }
    }
}
