//! Opening a transcript file: for appending ([`Writer::open`]), and to continue its run
//! with the records it holds, read and verified once ([`Writer::open_resumable`]).

use std::fs::File;
use std::path::Path;

use super::files::{open_or_create, sync_parent};
use super::lock::LockGuard;
use super::options::SyncCounter;
use super::tail::{read_verified, verify_range, Range};
use super::{Io, State, WriteError, Writer, WriterOptions};
use crate::anchor::Anchor;
use crate::chain::Chain;
use crate::driver::Resumable;

impl Writer {
    /// Opens the transcript at `path` for appending, creating it empty if absent.
    ///
    /// Under the lock it verifies the whole file with `options.verify` (its anchor says
    /// where the chain starts): a file whose only fault is an incomplete last line is
    /// [`WriteError::TornTail`], any other fault [`WriteError::DoesNotVerify`]; either
    /// way the file is left untouched. The lock is released before this returns.
    pub fn open(path: &Path, options: WriterOptions) -> Result<Writer, WriteError> {
        Writer::open_with(path, options, Io::REAL)
    }

    pub(crate) fn open_with(
        path: &Path,
        options: WriterOptions,
        io: Io,
    ) -> Result<Writer, WriteError> {
        let anchor = options.verify.anchor;
        let read = |file: &File, len| {
            verify_range(file, 0, len, anchor, &options.verify).map(|range| (range, ()))
        };
        Writer::open_reading(path, options, io, read).map(|(writer, ())| writer)
    }

    /// Opens as [`Writer::open`] does, with `read` verifying the file's `len` bytes
    /// under the lock (and handing back what else it read).
    fn open_reading<T>(
        path: &Path,
        options: WriterOptions,
        io: Io,
        read: impl FnOnce(&File, u64) -> Result<(Range, T), WriteError>,
    ) -> Result<(Writer, T), WriteError> {
        let (file, created) = open_or_create(path).map_err(WriteError::Open)?;
        if created {
            // The new file's name must survive a crash as well as its records.
            sync_parent(path).map_err(WriteError::Open)?;
        }
        let guard = LockGuard::take(&file, options.lock)?;
        let len = file.metadata().map_err(WriteError::Open)?.len();
        let anchor = options.verify.anchor;
        let (range, read) = read(&file, len)?;
        drop(guard);
        let state = State {
            options,
            len,
            count: range.count,
            chain: Chain::from_anchor(Anchor {
                seq0: anchor.seq0.saturating_add(range.count),
                prev0: range.head,
            }),
            counter: SyncCounter::new(options.sync),
            broken: false,
            last_error: None,
            io,
        };
        Ok((Writer { file, state }, read))
    }

    /// Opens the transcript at `path` as [`Writer::open`] does, reading it once: the
    /// bytes the writer verifies under the lock are the records handed back, to
    /// continue the run they hold ([`Resumable::stated`], [`Resumable::resume`]); an
    /// empty (or new) file gives no records. The [`Resumable`]'s chain goes on where
    /// the writer appends next.
    ///
    /// The errors are [`Writer::open`]'s, and [`WriteError::Unreadable`] for a line
    /// that verified but could not be read as a record.
    pub fn open_resumable(
        path: &Path,
        options: WriterOptions,
    ) -> Result<(Writer, Resumable), WriteError> {
        let verify = options.verify;
        let read = |file: &_, len| read_verified(file, len, &verify);
        let (writer, bytes) = Writer::open_reading(path, options, Io::REAL, read)?;
        let resumable =
            Resumable::verified(writer.next(), &bytes).map_err(WriteError::Unreadable)?;
        Ok((writer, resumable))
    }
}
