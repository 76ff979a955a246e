//! Where a chain starts: `(seq0, prev0)`, `(0, 64 zeros)` unless it continues another.

use core::fmt;
use core::str::FromStr;

use crate::hash::Hash;

/// The largest `seq` a record may carry: 2^53 − 1, the largest integer a double (and
/// so every JSON reader) holds exactly.
pub const MAX_SEQ: u64 = (1 << 53) - 1;

/// `n` as a `seq` a record may carry: an integer from 0 to [`MAX_SEQ`]; `None` for a
/// fraction, a negative number, or one past [`MAX_SEQ`] (which no chain writes, and
/// which a double cannot count in: 2^53 + 1 rounds back to 2^53). Not an API:
/// agentloop-core's provider and request code read counts with it; hidden, so outside
/// the public surface.
#[doc(hidden)]
pub fn seq_of(n: f64) -> Option<u64> {
    // `n as u64` saturates and maps NaN to 0; the round trip keeps only exact integers.
    (n >= 0.0 && n <= MAX_SEQ as f64 && (n as u64) as f64 == n).then_some(n as u64)
}

/// What a `seq_gap` detail adds after a `seq` past [`MAX_SEQ`]: both verifiers say it
/// in these words.
pub(crate) const PAST_MAX_SEQ: &str = ", past the largest seq 2^53-1 (9007199254740991)";

/// The start of a chain: the first record has `seq = seq0` and `prev = prev0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Anchor {
    /// `seq` of the first record.
    pub seq0: u64,
    /// `prev` of the first record: the head of the transcript this one continues.
    pub prev0: Hash,
}

impl Anchor {
    /// The anchor of a transcript that starts from nothing: `(0, 64 zeros)`.
    pub const GENESIS: Anchor = Anchor {
        seq0: 0,
        prev0: Hash::ZERO,
    };
}

use crate::opaque::opaque_error;
opaque_error! {
    /// Why an anchor string was refused: its `Display` is the sentence.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct AnchorError(Problem) debug(tuple);
}

/// What was wrong with an anchor string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// No `:` between SEQ0 and PREV0.
    MissingColon,
    /// SEQ0 is not a decimal integer from 0 to 2^53 − 1.
    BadSeq,
    /// PREV0 is not 64 lowercase hex digits.
    BadPrev,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::MissingColon => "an anchor is SEQ0:PREV0, and the ':' is missing",
            Problem::BadSeq => "the anchor's SEQ0 is not an integer from 0 to 2^53-1",
            Problem::BadPrev => "the anchor's PREV0 is not 64 lowercase hex digits",
        })
    }
}

impl FromStr for Anchor {
    type Err = AnchorError;

    /// Parses `SEQ0:PREV0`, e.g. `12:9f86d0…` (64 hex digits).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (seq, prev) = s
            .split_once(':')
            .ok_or(AnchorError(Problem::MissingColon))?;
        let digits_only = !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit());
        let seq0: u64 = match seq.parse() {
            Ok(n) if digits_only && n <= MAX_SEQ => n,
            _ => return Err(AnchorError(Problem::BadSeq)),
        };
        let prev0 = Hash::from_hex(prev.as_bytes()).ok_or(AnchorError(Problem::BadPrev))?;
        Ok(Anchor { seq0, prev0 })
    }
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.seq0, self.prev0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        let zeros = "0".repeat(64);
        let a: Anchor = alloc::format!("5:{zeros}").parse().unwrap();
        assert_eq!(
            a,
            Anchor {
                seq0: 5,
                prev0: Hash::ZERO
            }
        );
        assert_eq!(alloc::format!("{a}"), alloc::format!("5:{zeros}"));
        assert_eq!(
            "5".parse::<Anchor>(),
            Err(AnchorError(Problem::MissingColon))
        );
        assert_eq!(
            alloc::format!("+5:{zeros}").parse::<Anchor>(),
            Err(AnchorError(Problem::BadSeq))
        );
        assert_eq!(
            alloc::format!("9007199254740992:{zeros}").parse::<Anchor>(),
            Err(AnchorError(Problem::BadSeq))
        );
        assert_eq!(
            "1:abc".parse::<Anchor>(),
            Err(AnchorError(Problem::BadPrev))
        );
        for (error, text) in [
            (
                AnchorError(Problem::MissingColon),
                "an anchor is SEQ0:PREV0, and the ':' is missing",
            ),
            (
                AnchorError(Problem::BadSeq),
                "the anchor's SEQ0 is not an integer from 0 to 2^53-1",
            ),
            (
                AnchorError(Problem::BadPrev),
                "the anchor's PREV0 is not 64 lowercase hex digits",
            ),
        ] {
            assert_eq!(alloc::format!("{error}"), text);
        }
        // Its debug text is the struct's, as when it derived `Debug`.
        assert_eq!(
            alloc::format!("{:?}", AnchorError(Problem::BadPrev)),
            "AnchorError(BadPrev)"
        );
    }
}
