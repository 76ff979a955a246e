//! The durable writer (`std`): appends records to a transcript file so that a crash, a
//! kill, a full disk or two writers at once never corrupt it.
//!
//! - **One write per record.** Each record line goes to the end of the file in one
//!   `write` (the file is opened for appending). A process killed mid-append leaves at
//!   worst an incomplete last line — a `torn_tail` — never a damaged earlier record.
//!   A record whose line would be longer than the line limit (16 MiB, or the verify
//!   options' `max_line_bytes` if lower) is refused before anything is written
//!   ([`AppendError::LineTooLong`]): the file never holds a line its verifier refuses.
//! - **Sync policy.** [`SyncPolicy`] says when the data is flushed to the disk: after
//!   every record (the default), every `n` records, or only on [`Writer::sync`] /
//!   [`Writer::close`]. `docs/durability.md` states what survives under each and what
//!   each costs, measured.
//! - **A lock per append.** Every append takes the file's exclusive lock and releases
//!   it before returning ([`LockWait`] says whether to wait for it, and whom to tell
//!   when a wait starts and ends), so two processes —
//!   or two writers in one — never fork the chain, and `agentloop append` can add a
//!   record while a long run holds a writer open.
//! - **Growth.** Under the lock the writer compares the file's length with its length
//!   after its own last append; if another writer appended in between, it verifies
//!   only those new bytes (anchored at its last `(seq, head)`) and continues from their
//!   head. A file that shrank, or new bytes that do not verify, are refused. As a run's
//!   [`Log`] it does not continue after them: the record is refused
//!   ([`WriteError::Interleaved`]), so a run's records are never split.
//! - **Built once.** The writer builds each record's line itself (the one append rule,
//!   `stream::append`) and writes it; its own lines are not verified again.
//! - **Rollback.** A write (or sync) that fails is undone by the writer, under the
//!   lock, by cutting the file back to its length before that append: only its own
//!   bytes go.
//! - **Torn tails.** Opening a file whose last line is incomplete is refused
//!   ([`WriteError::TornTail`]); [`repair()`] — an explicit call, or `agentloop repair`
//!   — moves the torn bytes to a side file and cuts the file back to its last complete
//!   record, or, when the last line is a whole record lacking only its newline, adds
//!   the newline. Nothing else ever truncates or rewrites a transcript.
//!
//! ```
//! use agentloop_core::durable::{Writer, WriterOptions};
//! use agentloop_core::json;
//! # let dir = std::env::temp_dir().join(format!("agentloop-doc-durable-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("t.jsonl");
//! # let _ = std::fs::remove_file(&path);
//! let mut writer = Writer::open(&path, WriterOptions::default()).unwrap();
//! let payload = json::parse(br#"{"task":"add 2 and 40"}"#).unwrap();
//! let appended = writer.append("task", &payload).unwrap();
//! assert_eq!(appended.seq, 0);
//! writer.close().unwrap();
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod error;
mod files;
mod lock;
mod open;
mod options;
mod repair;
mod rollback;
mod tail;
#[cfg(test)]
mod tests;

pub use error::{RepairError, WriteError};
pub use options::{LockWait, LockWatch, SyncPolicy, WriterOptions};
pub use repair::{repair, Removed, Repaired, TailRepair};

use core::cmp::Ordering;
use std::fs::File;

use crate::anchor::Anchor;
use crate::chain::{AppendError, Chain, Log, LogError, Logged};
use crate::hash::Hash;
use crate::json::{self, Value};
use crate::sink::{RecordSink, SinkError};
use crate::verify;
pub(crate) use files::sync_parent;
use lock::LockGuard;
use options::SyncCounter;
use rollback::{write_line, Failed, Io};
use tail::{one_record, verify_range};

/// A record the writer appended: its `seq` and its `hash` (the file's new head).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// The record's `seq`.
    pub seq: u64,
    /// The record's `hash`.
    pub head: Hash,
}

/// Appends records to a transcript file: verified when opened, one write per record,
/// a lock per append, synced by policy, failed writes cut back. See the module docs.
///
/// Also a [`Log`], so the loop's driver appends a run's records through it (each line
/// built and hashed once, here), and a [`RecordSink`] for lines built elsewhere.
pub struct Writer {
    file: File,
    state: State,
}

/// Everything of a [`Writer`] but its file, so the lock guard can borrow the file
/// while the state changes.
struct State {
    options: WriterOptions,
    /// The file's length after this writer's last append (or open).
    len: u64,
    /// Records in the file.
    count: u64,
    /// Builds the next line; its next seq and head are the file's.
    chain: Chain,
    counter: SyncCounter,
    broken: bool,
    /// The last error the [`Log`] or [`RecordSink`] side swallowed into its error.
    last_error: Option<WriteError>,
    io: Io,
}

impl core::fmt::Debug for Writer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = &self.state;
        f.debug_struct("Writer")
            .field("file", &self.file)
            .field("options", &s.options)
            .field("len", &s.len)
            .field("count", &s.count)
            .field("next_seq", &s.chain.next_seq())
            .field("head", &s.chain.head())
            .field("broken", &s.broken)
            .finish()
    }
}

impl Writer {
    /// Appends one record and returns its `seq` and hash.
    ///
    /// Under the lock: takes in what other writers appended since this writer's last
    /// append (verifying only their bytes), builds the line from the file's head,
    /// writes it with one write, syncs if the policy says so. A refused record
    /// ([`WriteError::Record`]: among others a line longer than the line limit,
    /// [`AppendError::LineTooLong`]) writes nothing; a failed write or sync is cut back
    /// ([`WriteError::Write`]).
    pub fn append(&mut self, kind: &str, payload: &Value) -> Result<Appended, WriteError> {
        self.append_at(kind, payload, None)
    }

    /// [`Writer::append`]; with `at`, only there: if other writers' records moved the
    /// file's next record elsewhere, nothing is written ([`WriteError::Interleaved`]).
    fn append_at(
        &mut self,
        kind: &str,
        payload: &Value,
        at: Option<Anchor>,
    ) -> Result<Appended, WriteError> {
        let s = &mut self.state;
        s.usable()?;
        let _guard = LockGuard::take(&self.file, s.options.lock)?;
        s.take_in_growth(&self.file)?;
        let before = next_of(&s.chain);
        if let Some(at) = at.filter(|&at| at != before) {
            return Err(WriteError::Interleaved {
                seq: at.seq0,
                next: before.seq0,
            });
        }
        let max = s.line_limit();
        let logged = s
            .chain
            .append_within(kind, payload, max)
            .map_err(WriteError::Record)?;
        let result = write_line(&self.file, logged.line, s.len, &mut s.counter, s.io);
        s.settle(result, before)
    }

    /// Parses `payload_json` strictly and appends it (see [`Writer::append`]).
    pub fn append_json(&mut self, kind: &str, payload_json: &[u8]) -> Result<Appended, WriteError> {
        let payload = json::parse(payload_json)
            .map_err(|e| WriteError::Record(AppendError::PayloadJson(e)))?;
        self.append(kind, &payload)
    }

    /// Appends a record line built elsewhere (by a [`Chain`] the caller holds, e.g. the
    /// loop's driver): exactly one canonical line ending in `\n`, which must continue
    /// the file's chain — the next `seq`, `prev` = the file's head.
    ///
    /// Unlike [`Writer::append`] it cannot follow another writer's records (the line's
    /// `seq` and `prev` are fixed): if the file grew, the line is refused as
    /// [`WriteError::Diverged`] and nothing is written. A line longer than the line
    /// limit is [`WriteError::Record`] with [`AppendError::LineTooLong`].
    pub fn append_line(&mut self, line: &[u8]) -> Result<Appended, WriteError> {
        let s = &mut self.state;
        s.usable()?;
        let _guard = LockGuard::take(&self.file, s.options.lock)?;
        s.take_in_growth(&self.file)?;
        if let Some(too_long) = too_long(line, s.line_limit()) {
            return Err(too_long);
        }
        let before = next_of(&s.chain);
        let head = one_record(line, before, &s.options.verify).map_err(WriteError::Diverged)?;
        let result = write_line(&self.file, line, s.len, &mut s.counter, s.io);
        if result.is_ok() {
            s.chain = Chain::from_anchor(Anchor {
                seq0: before.seq0 + 1,
                prev0: head,
            });
        }
        s.settle(result, before)
    }

    /// Takes in, under the lock, what other writers appended since this writer's last
    /// append, so [`Writer::count`], [`Writer::head`] and [`Writer::next`] are the
    /// file's. Refused as an append would be (file shrank, new bytes do not verify).
    pub fn refresh(&mut self) -> Result<(), WriteError> {
        let s = &mut self.state;
        s.usable()?;
        let _guard = LockGuard::take(&self.file, s.options.lock)?;
        s.take_in_growth(&self.file)
    }

    /// Flushes every record appended so far to the disk (`fdatasync`). A failure makes
    /// the writer refuse later appends ([`WriteError::Broken`]): after a failed sync
    /// the operating system may have dropped earlier records' data.
    pub fn sync(&mut self) -> Result<(), WriteError> {
        let s = &mut self.state;
        s.usable()?;
        match (s.io.sync)(&self.file) {
            Ok(()) => {
                s.counter.synced();
                Ok(())
            }
            Err(e) => {
                s.broken = true;
                Err(WriteError::Write(e))
            }
        }
    }

    /// Syncs what is not yet on the disk and closes the file. Dropping a writer does
    /// the same but cannot report a failure.
    pub fn close(mut self) -> Result<(), WriteError> {
        if self.state.counter.pending() > 0 && !self.state.broken {
            self.sync()?;
        }
        Ok(())
    }

    /// Records in the file, as of this writer's last append, open or refresh.
    pub fn count(&self) -> u64 {
        self.state.count
    }

    /// The file's head (hash of its last record, or the anchor's `prev0` when empty),
    /// as of this writer's last append, open or refresh.
    pub fn head(&self) -> Hash {
        self.state.chain.head()
    }

    /// Where the next record continues: its `seq` and its `prev` (the head). A chain
    /// built with `Chain::from_anchor(writer.next())` produces lines
    /// [`Writer::append_line`] accepts.
    pub fn next(&self) -> Anchor {
        next_of(&self.state.chain)
    }

    /// The file's length in bytes, as of this writer's last append, open or refresh.
    pub fn len(&self) -> u64 {
        self.state.len
    }

    /// Whether the file holds no bytes (as of the last append, open or refresh).
    pub fn is_empty(&self) -> bool {
        self.state.len == 0
    }

    /// Records appended since the last sync (what a machine crash could still lose).
    pub fn unsynced(&self) -> u32 {
        self.state.counter.pending()
    }

    /// The last error the [`Log`] or [`RecordSink`] implementation turned into its
    /// error, with everything it said.
    pub fn last_error(&self) -> Option<&WriteError> {
        self.state.last_error.as_ref()
    }

    /// Takes [`Writer::last_error`] out of the writer.
    pub fn take_last_error(&mut self) -> Option<WriteError> {
        self.state.last_error.take()
    }

    /// Keeps `error` as [`Writer::last_error`] and says what it was in a
    /// [`SinkError`]: a failed write is [`SinkError::Io`], any other refusal
    /// [`SinkError::Refused`].
    fn swallow(&mut self, error: WriteError) -> SinkError {
        let sink_error = match &error {
            WriteError::Write(e) | WriteError::WriteNotUndone { write: e, .. } => {
                SinkError::Io(e.kind())
            }
            _ => SinkError::Refused,
        };
        self.state.last_error = Some(error);
        sink_error
    }
}

impl State {
    /// The longest line this writer appends, without its newline: the verifier's
    /// default limit, or the options' own if lower (so every line it writes is read
    /// back both by a default verifier and by its own next open).
    fn line_limit(&self) -> usize {
        self.options
            .verify
            .max_line_bytes
            .min(verify::MAX_LINE_BYTES)
    }

    fn usable(&self) -> Result<(), WriteError> {
        if self.broken {
            Err(WriteError::Broken)
        } else {
            Ok(())
        }
    }

    /// Under the lock: if the file changed length since this writer's last append,
    /// verify the new bytes and continue from their head.
    fn take_in_growth(&mut self, file: &File) -> Result<(), WriteError> {
        let now = file.metadata().map_err(WriteError::Open)?.len();
        match now.cmp(&self.len) {
            Ordering::Equal => return Ok(()),
            Ordering::Less => {
                return Err(WriteError::Shrank {
                    expected: self.len,
                    found: now,
                })
            }
            Ordering::Greater => {}
        }
        let anchor = next_of(&self.chain);
        let options = verify::Options {
            checkpoint: None,
            ..self.options.verify
        };
        let range = verify_range(file, self.len, now, anchor, &options)?;
        self.len = now;
        self.count += range.count;
        self.chain = Chain::from_anchor(Anchor {
            seq0: anchor.seq0 + range.count,
            prev0: range.head,
        });
        Ok(())
    }

    /// Settles an append: on success counts the record; on failure restores the chain.
    fn settle(
        &mut self,
        result: Result<u64, Failed>,
        before: Anchor,
    ) -> Result<Appended, WriteError> {
        match result {
            Ok(written) => {
                self.len += written;
                self.count += 1;
                Ok(Appended {
                    seq: before.seq0,
                    head: self.chain.head(),
                })
            }
            Err(failed) => {
                self.chain = Chain::from_anchor(before);
                if failed.breaks {
                    self.broken = true;
                }
                Err(failed.error)
            }
        }
    }
}

/// The refusal of `line` (ending in `\n`) when it is longer than `max` bytes without
/// its newline.
fn too_long(line: &[u8], max: usize) -> Option<WriteError> {
    let len = line.strip_suffix(b"\n").unwrap_or(line).len();
    (len > max).then_some(WriteError::Record(AppendError::LineTooLong { len, max }))
}

/// Where a chain's next record continues: its next `seq` and its head.
fn next_of(chain: &Chain) -> Anchor {
    Anchor {
        seq0: chain.next_seq(),
        prev0: chain.head(),
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let s = &self.state;
        if s.counter.pending() > 0 && !s.broken {
            // Best effort: `close` is the way to learn whether this failed.
            let _ = (s.io.sync)(&self.file);
        }
    }
}

/// The loop's driver writes through the writer: each line must continue the file's
/// chain ([`Writer::append_line`]). A failed write is [`SinkError::Io`]; any other
/// refusal [`SinkError::Refused`]; [`Writer::last_error`] has the full error.
impl RecordSink for Writer {
    fn record(&mut self, line: &[u8]) -> Result<(), SinkError> {
        match self.append_line(line) {
            Ok(_) => {
                self.state.last_error = None;
                Ok(())
            }
            Err(error) => Err(self.swallow(error)),
        }
    }
}

/// The loop's driver appends a run through the writer: each record at the file's next
/// `seq` as this writer last saw it ([`Log::next`]), built and hashed once, under the
/// lock. If another writer appended in between, nothing is written
/// ([`WriteError::Interleaved`]). A record refused as a chain refuses it is
/// [`LogError::Append`]; a failed write [`LogError::Sink`] with [`SinkError::Io`], any
/// other refusal [`SinkError::Refused`]; [`Writer::last_error`] has the full error.
impl Log for Writer {
    fn append(&mut self, kind: &str, payload: &Value) -> Result<Logged<'_>, LogError> {
        let at = self.next();
        match self.append_at(kind, payload, Some(at)) {
            Ok(appended) => {
                self.state.last_error = None;
                Ok(Logged {
                    line: self.state.chain.line(),
                    seq: appended.seq,
                    hash: appended.head,
                })
            }
            Err(WriteError::Record(e)) => {
                self.state.last_error = Some(WriteError::Record(e));
                Err(LogError::Append(e))
            }
            Err(error) => Err(LogError::Sink(self.swallow(error))),
        }
    }

    fn next(&self) -> Anchor {
        Writer::next(self)
    }
}
