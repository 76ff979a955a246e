//! Where the loop's record lines go ([`RecordSink`]). Public as part of [`crate::sink`]
//! (a growing `Vec` as a byte sink is the transcript crate's, feature `alloc`).

use alloc::vec::Vec;
use core::fmt;

/// Why a [`RecordSink`] did not take a record line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SinkError {
    /// The sink has no room for the line.
    Full,
    /// The host's sink refused the line (e.g. a C callback returned an error).
    Refused,
    /// Writing failed (with `std`: the I/O error's kind).
    #[cfg(feature = "std")]
    Io(std::io::ErrorKind),
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkError::Full => f.write_str("the record sink is full"),
            SinkError::Refused => f.write_str("the record sink refused the record"),
            #[cfg(feature = "std")]
            SinkError::Io(kind) => write!(f, "writing the record failed: {kind}"),
        }
    }
}

impl core::error::Error for SinkError {}

/// Where a driver puts each record line: the canonical line, `\n` included, in
/// transcript order. A sink that fails stops the run (the transcript then ends early).
pub trait RecordSink {
    /// Takes one complete line.
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError>;
}

impl<S: RecordSink + ?Sized> RecordSink for &mut S {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        (**self).record(line)
    }
}

/// In memory: the transcript's bytes.
impl RecordSink for Vec<u8> {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(line);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// Records through a generic sink, as the driver does with `&mut dyn RecordSink`.
    fn record_twice<S: RecordSink>(mut sink: S) -> Result<(), SinkError> {
        sink.record(b"a\n")?;
        sink.record(b"b\n")
    }

    #[test]
    fn a_borrowed_sink_forwards_to_the_sink_it_borrows() {
        let mut lines = alloc::vec::Vec::new();
        record_twice(&mut lines).unwrap();
        assert_eq!(lines, b"a\nb\n");
    }

    #[test]
    fn sink_errors_read_as_sentences() {
        assert_eq!(SinkError::Full.to_string(), "the record sink is full");
        assert_eq!(
            SinkError::Refused.to_string(),
            "the record sink refused the record"
        );
    }
}
