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

use super::numeric::{judge_exact, judge_text, Judged};
use super::scan::{digits, first_control, string_body};
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
        // Only an integer can take the small-integer shortcut and only a decimal of at
        // most 15 significant digits the short-decimal one: others go straight to the
        // exact check, which gives every literal the same verdict.
        let judged = if shape.exponent || (shape.fraction && shape.digits - shape.zeros > 15) {
            judge_exact(literal)
        } else {
            judge_text(literal, need_value)
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

/// The number literal of JSON's grammar at the start of some bytes
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), read in one pass.
pub(super) struct Shape {
    len: usize,
    /// Digits before the exponent, of the integer part and the fraction.
    digits: usize,
    /// Leading zeros among them (`0.00` has 3).
    zeros: usize,
    fraction: bool,
    exponent: bool,
}

impl Shape {
    /// Whether `literal` (of this shape) is canonical by its spelling alone, as
    /// `judge_text`'s shortcuts find it: an integer of at most 15 digits but `-0` (the
    /// grammar leaves no leading zero, and below 10^15 every integer is exact and
    /// printed as it is), or a decimal without exponent of at most 15 significant
    /// digits, no trailing zero and at most five zeros after `0.` (`short_decimal`
    /// says why, from the literal's bytes; here the same facts come from the shape).
    pub(super) fn canonical_at_a_glance(&self, literal: &str) -> bool {
        if self.exponent {
            return false;
        }
        if !self.fraction {
            return self.digits <= 15 && literal != "-0";
        }
        // `zeros` counts the integer part's `0` and the fraction's leading zeros.
        self.digits - self.zeros <= 15 && self.zeros <= 6 && !literal.ends_with('0')
    }

    pub(super) fn of(b: &[u8]) -> Option<Shape> {
        let digits_from = |from: usize| from + digits(b.get(from..).unwrap_or_default());
        let mut i = usize::from(b.first() == Some(&b'-'));
        let start = i;
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits_from(i + 1),
            _ => return None,
        }
        let int_digits = i - start;
        let mut shape = Shape {
            len: 0,
            digits: int_digits,
            zeros: usize::from(b.get(start) == Some(&b'0')),
            fraction: false,
            exponent: false,
        };
        if b.get(i) == Some(&b'.') {
            let end = digits_from(i + 1);
            if end == i + 1 {
                return None;
            }
            let fraction = b.get(i + 1..end).unwrap_or_default();
            if shape.zeros == 1 {
                shape.zeros += fraction.iter().take_while(|&&d| d == b'0').count();
            }
            shape.digits += fraction.len();
            shape.fraction = true;
            i = end;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits_from(i);
            if end == i {
                return None;
            }
            shape.exponent = true;
            i = end;
        }
        shape.len = i;
        Some(shape)
    }
}
