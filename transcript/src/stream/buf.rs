//! A byte buffer of fixed capacity whose appends copy a slice whole. (`heapless::Vec`
//! appends byte by byte; with keys, staged hash input and number literals of every
//! length, its copy loop was among the verifier's most mispredicted branches.)

use core::fmt;

/// Up to `N` bytes (`N` at most `u16::MAX`).
#[derive(Clone)]
pub(crate) struct ByteBuf<const N: usize> {
    bytes: [u8; N],
    len: u16,
}

/// The buffer is full: nothing was appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full;

impl<const N: usize> ByteBuf<N> {
    const FITS: () = assert!(N <= u16::MAX as usize);

    /// An empty buffer.
    pub(crate) const fn new() -> Self {
        let () = Self::FITS;
        ByteBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        self.bytes.get(..self.len()).unwrap_or_default()
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` bytes (all of them if there are fewer).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.len = len as u16;
        }
    }

    pub(crate) fn push(&mut self, b: u8) -> Result<(), Full> {
        let len = self.len();
        let slot = self.bytes.get_mut(len).ok_or(Full)?;
        *slot = b;
        self.len += 1;
        Ok(())
    }

    /// Appends all of `more`, or nothing if it does not fit.
    pub(crate) fn extend_from_slice(&mut self, more: &[u8]) -> Result<(), Full> {
        let len = self.len();
        let end = len + more.len();
        let room = self.bytes.get_mut(len..end).ok_or(Full)?;
        room.copy_from_slice(more);
        self.len = end as u16;
        Ok(())
    }

    /// Appends `from[..n]` (`n` at most `from.len()`), or nothing if it does not fit. When
    /// `n` is short and both `from` and the buffer have room for a block beyond it, the
    /// block is copied whole (no loop, no branch on the length) and only `n` bytes of it
    /// kept: most keys and record pieces are a few bytes long.
    pub(crate) fn extend_from_prefix(&mut self, from: &[u8], n: usize) -> Result<(), Full> {
        const BLOCK: usize = 16;
        let len = self.len();
        if n <= BLOCK {
            if let (Some(src), Some(dst)) =
                (from.get(..BLOCK), self.bytes.get_mut(len..len + BLOCK))
            {
                dst.copy_from_slice(src);
                self.len = (len + n) as u16;
                return Ok(());
            }
        }
        self.extend_from_slice(from.get(..n).ok_or(Full)?)
    }

    /// Moves the bytes from `from` on to `to` (before it), dropping what was between:
    /// the buffer then ends where they end.
    pub(crate) fn remove_range(&mut self, to: usize, from: usize) {
        let len = self.len();
        if to <= from && from <= len {
            self.bytes.copy_within(from..len, to);
            self.len = (to + len - from) as u16;
        }
    }
}

impl<const N: usize> fmt::Debug for ByteBuf<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_whole_slices_or_nothing_and_moves_a_tail_down() {
        let mut buf = ByteBuf::<8>::new();
        assert_eq!(buf.extend_from_slice(b"abc"), Ok(()));
        assert_eq!(buf.push(b'd'), Ok(()));
        assert_eq!(buf.extend_from_slice(b"efghi"), Err(Full));
        assert_eq!(buf.as_slice(), b"abcd");
        assert_eq!(buf.extend_from_slice(b"efgh"), Ok(()));
        assert_eq!(buf.push(b'i'), Err(Full));
        assert_eq!(buf.as_slice(), b"abcdefgh");
        buf.remove_range(1, 5);
        assert_eq!(buf.as_slice(), b"afgh");
        // A range out of order or past the end changes nothing.
        buf.remove_range(3, 2);
        buf.remove_range(1, 9);
        assert_eq!(buf.as_slice(), b"afgh");
        buf.truncate(9);
        assert_eq!(buf.len(), 4);
        buf.truncate(2);
        assert_eq!(buf.as_slice(), b"af");
        assert_eq!(alloc::format!("{buf:?}"), "[97, 102]");
        buf.clear();
        assert_eq!(buf.as_slice(), b"");
    }

    #[test]
    fn a_prefix_is_appended_the_same_by_block_or_by_slice() {
        let from = b"0123456789abcdefghijklmnopqrstuvwxyz";
        // Each length, from each place of the buffer: room for the block, room only for
        // the bytes, no room; and a source shorter than a block.
        for start in [0usize, 10, 20, 30, 40] {
            for n in 0..=20 {
                for source in [&from[..], &from[..n]] {
                    let mut block = ByteBuf::<48>::new();
                    let mut plain = ByteBuf::<48>::new();
                    for _ in 0..start {
                        block.push(b'.').unwrap();
                        plain.push(b'.').unwrap();
                    }
                    let got = block.extend_from_prefix(source, n);
                    let want = plain.extend_from_slice(&from[..n]);
                    assert_eq!(got, want, "{start} {n}");
                    assert_eq!(block.as_slice(), plain.as_slice(), "{start} {n}");
                }
            }
        }
        let mut buf = ByteBuf::<4>::new();
        assert_eq!(buf.extend_from_prefix(b"ab", 3), Err(Full));
        assert_eq!(buf.as_slice(), b"");
    }
}
