//! Byte sinks that need no allocator: a caller's buffer, a counter, a SHA-256 hasher
//! (and, internal to the workspace, a comparison). Public as part of [`crate::sink`].

use core::fmt;

use sha2::{Digest, Sha256};

/// The sink had no room for the bytes written to it.
///
/// Only a fixed-size sink ([`SliceSink`]) returns it; nothing was written past the end,
/// but the sink may hold a prefix of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferFull;

impl fmt::Display for BufferFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the output buffer is too small")
    }
}

impl core::error::Error for BufferFull {}

/// A destination for bytes (postcard calls these "flavors").
pub trait ByteSink {
    /// Appends `bytes`, or returns [`BufferFull`] if they do not fit.
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull>;
}

impl<S: ByteSink + ?Sized> ByteSink for &mut S {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        (**self).write(bytes)
    }
}

/// A SHA-256 hasher is a sink: encoding into it hashes without a buffer.
impl ByteSink for Sha256 {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        self.update(bytes);
        Ok(())
    }
}

/// Writes into a caller's fixed buffer; [`BufferFull`] once it is full.
#[derive(Debug)]
pub struct SliceSink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> SliceSink<'a> {
    /// A sink that writes from the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }

    /// How many bytes have been written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The bytes written so far, to patch in place.
    pub(crate) fn written_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }

    /// The buffer's size.
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Starts again from the start of the buffer.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

impl ByteSink for SliceSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        let end = self.len.checked_add(bytes.len()).ok_or(BufferFull)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(BufferFull)?;
        dst.copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

/// Counts bytes without storing them: the size query before writing into a buffer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CountingSink {
    /// Bytes written so far.
    pub count: usize,
}

impl ByteSink for CountingSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        self.count = self.count.saturating_add(bytes.len());
        Ok(())
    }
}

/// Compares what is written against expected bytes without storing anything.
///
/// After encoding, [`CompareSink::matches`] tells whether the output was exactly the
/// expected bytes; the verifier uses it to check that a line is canonical. Internal
/// (`#[doc(hidden)]`, not API): agentloop-tlog's verifier is its user.
#[doc(hidden)]
#[derive(Debug)]
pub struct CompareSink<'a> {
    expected: &'a [u8],
    pos: usize,
    equal: bool,
}

impl<'a> CompareSink<'a> {
    /// A sink that compares against `expected`.
    pub fn new(expected: &'a [u8]) -> Self {
        CompareSink {
            expected,
            pos: 0,
            equal: true,
        }
    }

    /// Whether everything written equals `expected`, with nothing missing.
    pub fn matches(&self) -> bool {
        self.equal && self.pos == self.expected.len()
    }
}

impl ByteSink for CompareSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), BufferFull> {
        if self.equal {
            let end = self.pos.saturating_add(bytes.len());
            self.equal = self.expected.get(self.pos..end) == Some(bytes);
            self.pos = end;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_sink_refuses_overflow_and_keeps_prefix() {
        let mut buf = [0u8; 4];
        let mut s = SliceSink::new(&mut buf);
        assert!(s.is_empty());
        s.write(b"ab").unwrap();
        assert_eq!((s.len(), s.is_empty()), (2, false));
        assert_eq!(s.write(b"cde"), Err(BufferFull));
        assert_eq!(s.written(), b"ab");
        s.write(b"cd").unwrap();
        assert_eq!(s.written(), b"abcd");
        assert_eq!(s.write(b"e"), Err(BufferFull));
    }

    #[test]
    fn compare_sink_detects_difference_extra_and_missing_bytes() {
        let mut s = CompareSink::new(b"abc");
        s.write(b"ab").unwrap();
        assert!(!s.matches());
        s.write(b"c").unwrap();
        assert!(s.matches());
        s.write(b"d").unwrap();
        assert!(!s.matches());
        let mut s = CompareSink::new(b"abc");
        s.write(b"abd").unwrap();
        assert!(!s.matches());
    }

    #[test]
    fn a_mutable_reference_is_the_same_sink() {
        let mut buf = [0u8; 2];
        let mut inner = SliceSink::new(&mut buf);
        let mut by_ref = &mut inner;
        assert_eq!(ByteSink::write(&mut by_ref, b"abc"), Err(BufferFull));
        ByteSink::write(&mut by_ref, b"ab").unwrap();
        assert_eq!(inner.written(), b"ab");
        assert_eq!(
            alloc::format!("{BufferFull}"),
            "the output buffer is too small"
        );
    }

    #[test]
    fn counting_sink_counts() {
        let mut c = CountingSink::default();
        c.write(b"abc").unwrap();
        c.write(b"").unwrap();
        assert_eq!(c.count, 3);
    }
}
