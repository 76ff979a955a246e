//! Where the complete records of a file end, and verifying a byte range of it.

use std::boxed::Box;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::vec::Vec;

use super::WriteError;
use crate::anchor::Anchor;
use crate::fixed::finding::Finding as Check;
use crate::hash::Hash;
use crate::verify::{self, FaultKind, Options, Report};

/// The length of the file's complete lines: the offset just past the last `\n` before
/// `len` (0 when there is none). Reads backwards from `len`, so a torn tail costs a
/// read of itself only.
pub(crate) fn complete_len(file: &File, len: u64) -> io::Result<u64> {
    let mut reader = file;
    let mut end = len;
    let mut block = [0u8; 8192];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        reader.seek(SeekFrom::Start(start))?;
        reader.read_exact(chunk)?;
        if let Some(nl) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + nl as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// What verifying `[from, to)` of a file found: records and head, continuing `anchor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    /// Complete records in the range.
    pub(crate) count: u64,
    /// The hash of the last one (the anchor's `prev0` when there is none).
    pub(crate) head: Hash,
}

/// Verifies the bytes `[from, to)` of `file` as a transcript continuing `anchor`.
///
/// A range whose only fault is an incomplete last line is [`WriteError::TornTail`]
/// (with the torn line's offset in the file, and whether the verifier found it a whole
/// record lacking only its newline); any other fault is [`WriteError::DoesNotVerify`].
pub(crate) fn verify_range(
    file: &File,
    from: u64,
    to: u64,
    anchor: Anchor,
    options: &Options,
) -> Result<Range, WriteError> {
    let options = Options { anchor, ..*options };
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(from))
        .map_err(WriteError::Open)?;
    let report = verify::verify_reader(
        BufReader::with_capacity(1 << 16, reader.take(to - from)),
        &options,
    );
    judge(report, file, from, to, anchor)
}

/// Reads the bytes `[0, len)` of `file` and verifies them as a transcript from
/// `options.anchor`, as [`verify_range`] does: the bytes, with what they hold.
pub(crate) fn read_verified(
    file: &File,
    len: u64,
    options: &Options,
) -> Result<(Range, Vec<u8>), WriteError> {
    let mut reader = file;
    reader.seek(SeekFrom::Start(0)).map_err(WriteError::Open)?;
    let mut bytes = Vec::new();
    reader
        .take(len)
        .read_to_end(&mut bytes)
        .map_err(WriteError::Open)?;
    let report = verify::verify_bytes(&bytes, options);
    let range = judge(report, file, 0, bytes.len() as u64, options.anchor)?;
    Ok((range, bytes))
}

/// What a report on the bytes `[from, to)` of `file` (continuing `anchor`) means for
/// a writer: their records and head, or why they are refused ([`verify_range`]).
fn judge(
    report: Report,
    file: &File,
    from: u64,
    to: u64,
    anchor: Anchor,
) -> Result<Range, WriteError> {
    if report.ok() {
        return Ok(Range {
            count: report.count,
            head: report.head.unwrap_or(anchor.prev0),
        });
    }
    if only_torn_tail(&report) {
        let offset = complete_len(file, to).map_err(WriteError::Open)?.max(from);
        let complete = matches!(
            report.faults[0].detail.check().map(|d| d.finding()),
            Some(Check::UnterminatedRecord { .. })
        );
        return Err(WriteError::TornTail {
            offset,
            len: to - offset,
            complete,
        });
    }
    Err(WriteError::DoesNotVerify(Box::new(report)))
}

/// The hash of `line` when it is exactly one record line (ending in `\n`) with no
/// fault, continuing the chain at `anchor`; else the report that says why not. The
/// judgement of a line built elsewhere ([`super::Writer::append_line`]) and of a last
/// line that lacks only its newline ([`super::repair`]).
pub(crate) fn one_record(
    line: &[u8],
    anchor: Anchor,
    options: &Options,
) -> Result<Hash, Box<Report>> {
    let check = Options {
        anchor,
        checkpoint: None,
        ..*options
    };
    #[cfg(test)]
    LINES_CHECKED.with(|n| n.set(n.get() + 1));
    let report = verify::verify_bytes(line, &check);
    // A report with no fault and one record is exactly one complete line: a last line
    // without its newline is a torn_tail fault, an empty line bad_json.
    if !report.ok() || report.count != 1 {
        return Err(Box::new(report));
    }
    Ok(report.head.unwrap_or(anchor.prev0))
}

/// Whether the report's one fault is a torn tail.
pub(crate) fn only_torn_tail(report: &Report) -> bool {
    report.faults_omitted == 0
        && report.faults.len() == 1
        && report.faults[0].kind == FaultKind::TornTail
}

#[cfg(test)]
std::thread_local! {
    /// How many lines [`one_record`] judged on this thread: a writer that appends
    /// records it builds itself judges none (they are built and hashed once).
    pub(crate) static LINES_CHECKED: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}
