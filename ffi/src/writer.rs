//! `agentloop_writer`: appends records to a transcript file through the durable writer
//! of the core (verified on open, a lock per append, synced by policy, failed writes
//! cut back), and `agentloop_transcript_repair`.

use std::num::NonZeroU32;

use agentloop_core::durable::{
    self, LockWait, RepairError, SyncPolicy, TailRepair, WriteError, Writer, WriterOptions,
};

use crate::boundary::boundary;
use crate::bytes::{give, handle, handle_mut, hash_out, input, need, path, put, take, text};
use crate::chain::append_error;
use crate::hash::agentloop_hash;
use crate::result::{agentloop_result, Outcome};
use crate::verify::{agentloop_verify_options, read_options};

/// When a writer flushes appended records to the disk (`fdatasync`): the
/// `sync` member of `agentloop_writer_options`. See `docs/durability.md` for what
/// survives a crash under each and what each costs.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_sync {
    /// After every record, before `agentloop_writer_append` returns (the default): a
    /// record whose append returned is on the disk.
    Always = 0,
    /// After every `sync_every`-th record: a machine crash loses at most the last
    /// `sync_every − 1` records whose append returned.
    EveryN = 1,
    /// Only on `agentloop_writer_sync` (and, best effort, `agentloop_writer_free`).
    OnClose = 2,
}

/// How a writer syncs and locks. Fill it with `agentloop_writer_options_init`, then
/// change what you need; a NULL pointer means the defaults.
///
/// The layout may change before 1.0 (with a new SONAME); always start from
/// `agentloop_writer_options_init` so new members get their defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct agentloop_writer_options {
    /// An `agentloop_sync` value. Default `AGENTLOOP_SYNC_ALWAYS`; another number is
    /// `INVALID_ARGUMENT`.
    pub sync: u32,
    /// With `AGENTLOOP_SYNC_EVERY_N`: sync every this many records (at least 1;
    /// 0 is `INVALID_ARGUMENT`). Default 1. Read only with `AGENTLOOP_SYNC_EVERY_N`.
    pub sync_every: u32,
    /// Wait while another writer holds the file's lock (default `true`); `false`
    /// makes a call that finds it held return `AGENTLOOP_RESULT_LOCKED` at once.
    pub wait_for_lock: bool,
}

impl Default for agentloop_writer_options {
    fn default() -> Self {
        agentloop_writer_options {
            sync: agentloop_sync::Always as u32,
            sync_every: 1,
            wait_for_lock: true,
        }
    }
}

impl agentloop_writer_options {
    /// The core options these stand for, with `verify`; `INVALID_ARGUMENT` for a value
    /// out of range.
    fn to_core(self, verify: agentloop_core::verify::Options) -> Outcome<WriterOptions> {
        let sync = match self.sync {
            0 => SyncPolicy::Always,
            1 => SyncPolicy::EveryN(
                NonZeroU32::new(self.sync_every).ok_or(agentloop_result::InvalidArgument)?,
            ),
            2 => SyncPolicy::OnClose,
            _ => return Err(agentloop_result::InvalidArgument),
        };
        Ok(WriterOptions {
            sync,
            lock: if self.wait_for_lock {
                LockWait::Block
            } else {
                LockWait::Fail
            },
            verify,
        })
    }
}

/// A transcript file open for appending. It holds no lock while idle: each append
/// takes the file's exclusive advisory lock (`flock`-style on Unix) and releases it
/// before returning, so other writers — processes, handles in this process,
/// `agentloop append` — take turns with it and never fork the chain. What they
/// appended in between is verified and followed. Open it with `agentloop_writer_open`,
/// free it with `agentloop_writer_free`.
///
/// Not thread-safe: one thread at a time may call functions on a writer (it may move
/// between threads).
pub struct agentloop_writer {
    pub(crate) writer: Writer,
}

/// The result code for an error of the durable writer.
pub(crate) fn write_error(error: &WriteError) -> agentloop_result {
    match error {
        WriteError::Locked => agentloop_result::Locked,
        WriteError::TornTail { .. } => agentloop_result::TornTail,
        WriteError::DoesNotVerify(_)
        | WriteError::Shrank { .. }
        | WriteError::Diverged(_)
        | WriteError::Interleaved { .. } => agentloop_result::DoesNotVerify,
        WriteError::Record(e) => append_error(*e),
        WriteError::Broken => agentloop_result::InvalidState,
        _ => agentloop_result::Io,
    }
}

/// Opens the transcript file at the path `(path_ptr, path_len)` for appending, creating
/// it empty if absent, with the default writer options (sync every record, wait for
/// the lock); see `agentloop_writer_open_with`. Its results are that function's:
/// `TORN_TAIL` or `DOES_NOT_VERIFY` for a file that does not verify, `IO` when it
/// cannot be opened or read, `INVALID_ARGUMENT` for options out of range or an empty
/// path or one holding a NUL byte, `INVALID_UTF8` for a path that is not UTF-8 where
/// paths must be; NULL `out` (or a NULL `path_ptr` with a length above 0) is
/// `NULL_PARAMETER`.
///
/// # Safety
/// `path_ptr` must point to `path_len` readable bytes; `options` NULL or an initialised
/// struct; `out` valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_open(
    path_ptr: *const u8,
    path_len: usize,
    options: *const agentloop_verify_options,
    out: *mut *mut agentloop_writer,
) -> agentloop_result {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { open(path_ptr, path_len, options, core::ptr::null(), out) })
}

/// Opens the transcript file at the path `(path_ptr, path_len)` (on Unix any bytes but
/// NUL, elsewhere UTF-8; not NUL-terminated) for appending, creating it empty if
/// absent, and writes the writer to `*out`.
///
/// Under the file's lock (waiting for it, or `LOCKED`, as `writer_options` says) it
/// verifies the whole file with `verify_options` (NULL means the defaults; the anchor
/// says where the chain starts), then releases the lock. A file whose last line is
/// incomplete is `AGENTLOOP_RESULT_TORN_TAIL` (`agentloop_transcript_repair` moves that line
/// aside); any other fault is `AGENTLOOP_RESULT_DOES_NOT_VERIFY`
/// (`agentloop_transcript_verify_file` says why); either way the file is left untouched. Open or
/// read failures are `AGENTLOOP_RESULT_IO`; options out of range, an empty path or one
/// holding a NUL byte `INVALID_ARGUMENT`; a path that is not UTF-8 where paths must be
/// `INVALID_UTF8`. `writer_options` NULL means the defaults.
///
/// On success the caller owns `*out` (free it with `agentloop_writer_free`); on
/// failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `path_ptr` must point to `path_len` readable bytes; each options pointer NULL or an
/// initialised struct; `out` valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_open_with(
    path_ptr: *const u8,
    path_len: usize,
    verify_options: *const agentloop_verify_options,
    writer_options: *const agentloop_writer_options,
    out: *mut *mut agentloop_writer,
) -> agentloop_result {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { open(path_ptr, path_len, verify_options, writer_options, out) })
}

/// The body of both open functions.
///
/// # Safety
/// As `agentloop_writer_open_with`.
unsafe fn open(
    path_ptr: *const u8,
    path_len: usize,
    verify_options: *const agentloop_verify_options,
    writer_options: *const agentloop_writer_options,
    out: *mut *mut agentloop_writer,
) -> Outcome {
    need(out)?;
    // SAFETY: the caller's contract for the path bytes.
    let path = unsafe { path(path_ptr, path_len) }?;
    // SAFETY: the caller promises NULL or an initialised struct.
    let verify = unsafe { read_options(verify_options) }?;
    // SAFETY: the caller promises NULL or an initialised struct (its bool 0 or 1).
    let options = unsafe { writer_options.as_ref() }
        .copied()
        .unwrap_or_default()
        .to_core(verify)?;
    let writer = Writer::open(path, options).map_err(|e| write_error(&e))?;
    // SAFETY: out was checked non-NULL; the caller promises it is writable.
    unsafe { give(out, agentloop_writer { writer }) }
}

/// Fills `*options` with the defaults: sync every record, `sync_every` 1, wait for
/// the lock. NULL `options` is `AGENTLOOP_RESULT_NULL_PARAMETER`. Thread-safe.
///
/// # Safety
/// `options` must be valid for a write of one `agentloop_writer_options`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_options_init(
    options: *mut agentloop_writer_options,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: put checks NULL; the caller promises the struct is writable.
        unsafe { put(options, agentloop_writer_options::default()) }
    })
}

/// Appends one record — `kind` `(kind_ptr, kind_len)`, UTF-8 and not empty, and the
/// JSON `payload` `(payload_ptr, payload_len)` — to the file with a single write.
///
/// Under the file's lock: if other writers appended since this writer's last call,
/// their records are verified and the new record continues from their head
/// (`DOES_NOT_VERIFY` if they do not verify or the file shrank; `TORN_TAIL` if one of
/// them left an incomplete line); then the line is written and synced as the
/// writer's sync policy says. Refusals as `agentloop_chain_append` (`INVALID_UTF8`,
/// `INVALID_ARGUMENT`, `INVALID_JSON`, `NO_CANONICAL_FORM`, `CHAIN_EXHAUSTED`), with the
/// file untouched; a record whose line would be longer than the line limit (16 MiB
/// without its `\n`, or the open's `max_line_bytes` if lower) is
/// `AGENTLOOP_RESULT_RECORD_TOO_LONG`, file untouched (no verifier would read it back). A lock held elsewhere with `wait_for_lock` false is `LOCKED`. A
/// failed write or sync is `AGENTLOOP_RESULT_IO` and the file is cut back to its
/// length before the call; if even that fails, or a sync failed, the writer refuses
/// every later append with `INVALID_STATE` (open the file again). NULL `writer` is
/// `NULL_PARAMETER`. Not thread-safe for one writer.
///
/// On Unix a write past the process's file-size limit (`ulimit -f`, `RLIMIT_FSIZE`)
/// raises `SIGXFSZ`, whose default action kills the process in the middle of the write
/// (a torn tail, no cut-back). The library never changes signal dispositions: a host
/// that may run under such a limit must ignore the signal itself, at startup
/// (`signal(SIGXFSZ, SIG_IGN)`); the write then fails with `EFBIG`, is cut back, and
/// this returns `AGENTLOOP_RESULT_IO`. The same holds for `agentloop_transcript_repair`'s side
/// file and `agentloop_driver_run_to_writer`.
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
        writer
            .writer
            .append_json(kind, payload)
            .map(|_| ())
            .map_err(|e| write_error(&e))
    })
}

/// Takes in, under the lock, what other writers appended since this writer's last
/// call, so `agentloop_writer_count` and `agentloop_writer_head` are the file's.
/// Errors as for the growth check of `agentloop_writer_append`: `DOES_NOT_VERIFY` when
/// what was appended does not verify or the file shrank, `TORN_TAIL` when it ends in
/// an incomplete line, `LOCKED` when the lock is held elsewhere and `wait_for_lock` is
/// false, `IO` when reading fails. NULL `writer` is `NULL_PARAMETER`. Not thread-safe
/// for one writer.
///
/// # Safety
/// `writer` must be a live writer from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_refresh(
    writer: *mut agentloop_writer,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live writer used by no other thread.
        let writer = unsafe { handle_mut(writer) }?;
        writer.writer.refresh().map_err(|e| write_error(&e))
    })
}

/// Flushes every record appended so far to the disk (`fdatasync`), returning
/// `AGENTLOOP_RESULT_IO` when the operating system reports an error; the writer then
/// refuses later appends with `INVALID_STATE` (after a failed sync the system may have
/// dropped earlier records' data). NULL `writer` is `NULL_PARAMETER`. Not thread-safe
/// for one writer.
///
/// # Safety
/// `writer` must be a live writer from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_sync(writer: *mut agentloop_writer) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live writer used by no other thread.
        let writer = unsafe { handle_mut(writer) }?;
        writer.writer.sync().map_err(|e| write_error(&e))
    })
}

/// Writes the file's head — the `hash` of its last record, or the anchor's `prev0`
/// for an empty file — to `*out`, as of this writer's last open, append or
/// refresh. NULL `writer` or `out` is `NULL_PARAMETER`. Not thread-safe against a
/// concurrent call on the same writer.
///
/// # Safety
/// `writer` must be a live writer from this library; `out` must be valid for a write
/// of one `agentloop_hash`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_head(
    writer: *const agentloop_writer,
    out: *mut agentloop_hash,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises a live writer.
        let writer = unsafe { handle(writer) }?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { hash_out(out, &writer.writer.head().0) }
    })
}

/// Writes to `*out` how many records the file holds, as of this writer's last open,
/// append or refresh (records other writers appended are counted once this writer
/// has seen them). NULL `writer` or `out` is `NULL_PARAMETER`. Not thread-safe against
/// a concurrent call on the same writer.
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
        unsafe { put(out, writer.writer.count()) }
    })
}

/// Closes the file and frees the writer. Records not yet synced (policies other than
/// `AGENTLOOP_SYNC_ALWAYS`) are synced first, best effort: call
/// `agentloop_writer_sync` before, to learn whether that worked. NULL does nothing.
///
/// # Safety
/// `writer` must be NULL or a writer from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_writer_free(writer: *mut agentloop_writer) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(writer) })
}

/// Repairs a torn tail of the transcript at the path `(path_ptr, path_len)` (as
/// `agentloop_writer_open_with` reads it): if its last line
/// is incomplete and every complete record before it verifies with `options` (NULL
/// means the defaults), the incomplete bytes are copied to the new side file
/// `<path>.torn-<offset>` and synced, then the file is cut to `offset` (its last
/// complete record) and synced — all under the file's lock (waiting for it). A last
/// line that is a whole record with no fault, continuing the chain, and lacks only its
/// newline is kept instead: the newline is appended and synced.
///
/// On `AGENTLOOP_RESULT_OK`, `*out_offset` is where the torn line started and
/// `*out_removed` how many bytes were moved aside. `*out_removed` 0 means nothing was
/// removed: either there was no torn tail and nothing changed (`*out_offset` is then
/// the file's length), or the last line was kept and its newline added (`*out_offset`
/// is then where that line starts, less than the file's length).
/// Refusals change nothing: complete records with faults are `DOES_NOT_VERIFY`; an
/// existing side file is `SIDE_FILE_EXISTS` (evidence is never overwritten); a file
/// that cannot be opened, read or written is `IO` — a repair that fails while writing
/// the side file or cutting the file (a full disk) removes the side file it created,
/// so the file is as it was and the next repair can run. NULL `out_offset` or
/// `out_removed`, or NULL `path_ptr` with a length above 0, is `NULL_PARAMETER`; an
/// empty path or one holding a NUL byte is `INVALID_ARGUMENT`; a path that is not
/// UTF-8 where paths must be (not on Unix) is `INVALID_UTF8`. Thread-safe.
///
/// # Safety
/// `path_ptr` must point to `path_len` readable bytes; `options` NULL or an initialised
/// struct; `out_offset` and `out_removed` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_repair(
    path_ptr: *const u8,
    path_len: usize,
    options: *const agentloop_verify_options,
    out_offset: *mut u64,
    out_removed: *mut u64,
) -> agentloop_result {
    boundary(|| {
        need(out_offset)?;
        need(out_removed)?;
        // SAFETY: the caller's contract for the path bytes.
        let path = unsafe { path(path_ptr, path_len) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let verify = unsafe { read_options(options) }?;
        let options = WriterOptions {
            verify,
            ..WriterOptions::default()
        };
        let repaired = durable::repair(path, &options).map_err(|e| match e {
            RepairError::DoesNotVerify(_) => agentloop_result::DoesNotVerify,
            RepairError::SideFileExists(_) => agentloop_result::SideFileExists,
            RepairError::Locked => agentloop_result::Locked,
            _ => agentloop_result::Io,
        })?;
        let (offset, removed) = match repaired.tail {
            TailRepair::Removed(removed) => (removed.offset, removed.len),
            TailRepair::Completed { offset, .. } => (offset, 0),
            TailRepair::Untouched => (
                std::fs::metadata(path)
                    .map_err(|_| agentloop_result::Io)?
                    .len(),
                0,
            ),
        };
        // SAFETY: both were checked non-NULL; the caller promises they are writable.
        unsafe {
            put(out_offset, offset)?;
            put(out_removed, removed)
        }
    })
}
