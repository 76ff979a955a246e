//! `agentloop_writer`: appends records to a transcript file, verifying it first and
//! holding an exclusive lock on it while open.

use core::ffi::c_char;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};

use agentloop_core::anchor::Anchor;
use agentloop_core::chain::Chain;
use agentloop_core::verify;

use crate::boundary::boundary;
use crate::bytes::{c_str, give, handle, handle_mut, hash_out, input, need, put, take, text};
use crate::chain::append_error;
use crate::result::{agentloop_result, Outcome};
use crate::verify::{agentloop_verify_options, path_of, read_options};

/// A transcript file open for appending. While it is open the file carries an
/// exclusive advisory lock (`flock`-style on Unix), so two writers — processes or
/// handles, including `agentloop append` — never interleave. Open it with
/// `agentloop_writer_open`, free it with `agentloop_writer_free`.
///
/// Not thread-safe: one thread at a time may call functions on a writer (it may move
/// between threads).
pub struct agentloop_writer {
    pub(crate) file: File,
    pub(crate) chain: Chain,
    /// Records in the file.
    pub(crate) count: u64,
    /// A write failed and the file could not be cut back: nothing more is appended.
    pub(crate) broken: bool,
}

impl agentloop_writer {
    fn open(path: &std::path::Path, options: &verify::Options) -> Outcome<agentloop_writer> {
        let io = |_| agentloop_result::Io;
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        // Blocks while another writer holds the lock; released when `file` closes.
        file.lock().map_err(io)?;
        let report = verify::verify_reader(BufReader::with_capacity(1 << 16, &file), options);
        if !report.ok() {
            return Err(agentloop_result::DoesNotVerify);
        }
        let anchor = options.anchor;
        let chain = Chain::from_anchor(Anchor {
            seq0: anchor.seq0.saturating_add(report.count),
            prev0: report.head.unwrap_or(anchor.prev0),
        });
        Ok(agentloop_writer {
            file,
            chain,
            count: report.count,
            broken: false,
        })
    }

    fn append(&mut self, kind: &str, payload: &[u8]) -> Outcome {
        if self.broken {
            return Err(agentloop_result::InvalidState);
        }
        let before_chain = (self.chain.next_seq(), self.chain.head());
        let before_len = self
            .file
            .metadata()
            .map_err(|_| agentloop_result::Io)?
            .len();
        let line = self
            .chain
            .append_json(kind, payload)
            .map_err(append_error)?;
        if (&self.file).write_all(line).is_err() {
            self.chain = Chain::from_anchor(Anchor {
                seq0: before_chain.0,
                prev0: before_chain.1,
            });
            if self.file.set_len(before_len).is_err() {
                self.broken = true;
            }
            return Err(agentloop_result::Io);
        }
        self.count += 1;
        Ok(())
    }
}

/// Opens the transcript file at `path` (NUL-terminated; on Unix any bytes, elsewhere
/// UTF-8) for appending, creating it empty if absent, and writes the writer to `*out`.
///
/// It first takes an exclusive lock on the file — **blocking** while another writer
/// holds it — then verifies the whole file with `options` (NULL means the defaults;
/// the anchor says where the chain starts): a file that does not verify is
/// `AGENTLOOP_RESULT_DOES_NOT_VERIFY` and is left untouched (`agentloop_verify_file`
/// says why). Open, lock or read failures are `AGENTLOOP_RESULT_IO`.
///
/// On success the caller owns `*out` (free it with `agentloop_writer_free`, which
/// releases the lock); on failure `*out` is not written and no lock is held.
/// Thread-safe.
///
/// # Safety
/// `path` must be a NUL-terminated string; `options` NULL or an initialised struct;
/// `out` valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_open(
    path: *const c_char,
    options: *const agentloop_verify_options,
    out: *mut *mut agentloop_writer,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a NUL-terminated string.
        let path = unsafe { c_str(path) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let options = unsafe { read_options(options) }?;
        let writer = agentloop_writer::open(path_of(path.to_bytes())?, &options)?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { give(out, writer) }
    })
}

/// Appends one record — `kind` `(kind_ptr, kind_len)`, UTF-8 and not empty, and the
/// JSON `payload` `(payload_ptr, payload_len)` — to the file with a single write.
///
/// Refusals as `agentloop_chain_append` (`INVALID_UTF8`, `INVALID_ARGUMENT`,
/// `INVALID_JSON`, `NO_CANONICAL_FORM`, `CHAIN_EXHAUSTED`), with the file untouched. A
/// failed write is `AGENTLOOP_RESULT_IO`: the file is cut back to its length before the
/// call; if even that fails, the writer refuses every later append with
/// `INVALID_STATE`. The record reaches the operating system, not necessarily the disk:
/// call `agentloop_writer_sync` for durability. NULL `writer` is `NULL_PARAMETER`. Not
/// thread-safe for one writer.
///
/// # Safety
/// `writer` must be a live writer from this library; the byte inputs must point to
/// their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_append(
    writer: *mut agentloop_writer,
    kind_ptr: *const u8,
    kind_len: usize,
    payload_ptr: *const u8,
    payload_len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live writer used by no other thread.
        let writer = unsafe { handle_mut(writer) }?;
        // SAFETY: the caller's contract for the byte inputs.
        let kind = unsafe { text(kind_ptr, kind_len) }?;
        // SAFETY: as above.
        let payload = unsafe { input(payload_ptr, payload_len) }?;
        writer.append(kind, payload)
    })
}

/// Flushes the file's data to the disk (`fdatasync`), returning
/// `AGENTLOOP_RESULT_IO` when the operating system reports a write error. NULL
/// `writer` is `NULL_PARAMETER`. Not thread-safe for one writer.
///
/// # Safety
/// `writer` must be a live writer from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_sync(writer: *mut agentloop_writer) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live writer used by no other thread.
        let writer = unsafe { handle_mut(writer) }?;
        writer.file.sync_data().map_err(|_| agentloop_result::Io)
    })
}

/// Writes the file's head — the `hash` of its last record, or the anchor's `prev0`
/// for an empty file — as 32 bytes to `out`. NULL `writer` or `out` is
/// `NULL_PARAMETER`. Not thread-safe against a concurrent append.
///
/// # Safety
/// `writer` must be a live writer from this library; `out` must point to 32 writable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_head(
    writer: *const agentloop_writer,
    out: *mut u8,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a live writer.
        let writer = unsafe { handle(writer) }?;
        // SAFETY: out was checked non-NULL; the caller promises 32 writable bytes.
        unsafe { hash_out(out, &writer.chain.head().0) }
    })
}

/// Writes to `*out` how many records the file holds: those it had when opened plus
/// those appended since. NULL `writer` or `out` is `NULL_PARAMETER`. Not thread-safe
/// against a concurrent append.
///
/// # Safety
/// `writer` must be a live writer from this library; `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_count(
    writer: *const agentloop_writer,
    out: *mut u64,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a live writer.
        let writer = unsafe { handle(writer) }?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { put(out, writer.count) }
    })
}

/// Closes the file, releasing its lock, and frees the writer. It does not sync: call
/// `agentloop_writer_sync` first when the records must be on disk. NULL does nothing.
///
/// # Safety
/// `writer` must be NULL or a writer from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_free(writer: *mut agentloop_writer) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(writer) })
}
