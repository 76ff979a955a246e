//! Verifying a buffer or a file in one call, and `agentloop_verify_options`.

use agentloop_core::anchor::{Anchor, MAX_SEQ};
use agentloop_core::verify::{self, Checkpoint, Options};
use agentloop_core::Hash;

use crate::boundary::boundary;
use crate::bytes::{give, input, need, path, put};
use crate::hash::agentloop_hash;
use crate::report::agentloop_report;
use crate::result::{agentloop_result, Outcome};

/// How to verify. Fill it with `agentloop_verify_options_init`, then change what you
/// need; a NULL options pointer means the defaults.
///
/// The layout may change before 1.0 (with a new SONAME, see `docs/c-api.md`); always
/// start from `agentloop_verify_options_init` so new members get their defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct agentloop_verify_options {
    /// Accept lines that are not in canonical form (no `not_canonical` faults).
    /// Default `false`: strict.
    pub lenient: bool,
    /// The `seq` of the first record. Default 0; at most 2^53 − 1.
    pub seq0: u64,
    /// The `prev` of the first record (the head of the transcript this one continues).
    /// Default 32 zero bytes.
    pub prev0: agentloop_hash,
    /// Check against a checkpoint `(checkpoint_count, checkpoint_head)`: fewer records
    /// is a `truncated` fault. Default `false`.
    pub has_checkpoint: bool,
    /// The checkpoint's record count (at most 2^53). Read only with `has_checkpoint`.
    pub checkpoint_count: u64,
    /// Also check that record `checkpoint_count − 1` carries `checkpoint_head`
    /// (`head_mismatch` otherwise). Read only with `has_checkpoint`. Default `false`.
    pub has_checkpoint_head: bool,
    /// The checkpoint's head. Read only with `has_checkpoint_head`.
    pub checkpoint_head: agentloop_hash,
    /// How many faults a report keeps; the rest are only counted
    /// (`agentloop_report_faults_omitted`). 0 means the default, 10000.
    pub max_faults: u64,
    /// The longest line accepted, in bytes without its newline; a longer one is a
    /// `bad_json` fault and is never buffered whole. 0 means the default, 16 MiB.
    pub max_line_bytes: u64,
}

impl agentloop_verify_options {
    /// The core options these stand for, or `INVALID_ARGUMENT` for a value out of range.
    pub fn to_core(&self) -> Outcome<Options> {
        if self.seq0 > MAX_SEQ {
            return Err(agentloop_result::InvalidArgument);
        }
        let checkpoint = if self.has_checkpoint {
            if self.checkpoint_count > MAX_SEQ + 1 {
                return Err(agentloop_result::InvalidArgument);
            }
            Some(Checkpoint {
                count: self.checkpoint_count,
                head: self
                    .has_checkpoint_head
                    .then_some(Hash(self.checkpoint_head.bytes)),
                ..Default::default()
            })
        } else {
            None
        };
        let size = |n: u64, default: usize| match n {
            0 => default,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        Ok(Options {
            anchor: Anchor {
                seq0: self.seq0,
                prev0: Hash(self.prev0.bytes),
            },
            lenient: self.lenient,
            checkpoint,
            max_faults: size(self.max_faults, verify::MAX_FAULTS),
            max_line_bytes: size(self.max_line_bytes, verify::MAX_LINE_BYTES),
        })
    }
}

/// Reads the caller's options; NULL means the defaults.
///
/// # Safety
/// `options` must be NULL or point to an initialised `agentloop_verify_options`.
pub(crate) unsafe fn read_options(options: *const agentloop_verify_options) -> Outcome<Options> {
    // SAFETY: the caller promises NULL or a valid, initialised struct (its bools 0 or
    // 1, as C's `bool` guarantees).
    match unsafe { options.as_ref() } {
        None => Ok(Options::default()),
        Some(options) => options.to_core(),
    }
}

/// Fills `*options` with the defaults: strict, anchor `(0, zeros)`, no checkpoint,
/// 10000 faults kept, lines up to 16 MiB.
///
/// NULL `options` is `AGENTLOOP_RESULT_NULL_PARAMETER`. Thread-safe.
///
/// # Safety
/// `options` must be valid for a write of one `agentloop_verify_options`.
#[no_mangle]
pub unsafe extern "C" fn agentloop_verify_options_init(
    options: *mut agentloop_verify_options,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: put checks NULL; the caller promises the struct is writable.
        unsafe { put(options, agentloop_verify_options::default()) }
    })
}

/// Verifies the transcript held in `(ptr, len)` (SPEC section 3) and writes a new
/// report to `*out_report`: every fault, the record count and the head.
///
/// A transcript with faults is still `AGENTLOOP_RESULT_OK`: the faults are in the
/// report (`agentloop_report_ok`). Failures are only about the call: NULL `out_report`
/// or NULL `ptr` with `len > 0` (`NULL_PARAMETER`), options out of range
/// (`INVALID_ARGUMENT`). `options` NULL means the defaults.
///
/// On success the caller owns `*out_report` (free it with `agentloop_report_free`); on
/// failure `*out_report` is not written. The bytes are not kept after the call.
/// Thread-safe: it touches no shared state.
///
/// # Safety
/// `ptr` must point to `len` readable bytes; `options` must be NULL or point to an
/// initialised struct; `out_report` must be valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_verify_buffer(
    ptr: *const u8,
    len: usize,
    options: *const agentloop_verify_options,
    out_report: *mut *mut agentloop_report,
) -> agentloop_result {
    boundary(|| {
        need(out_report)?;
        // SAFETY: the caller's contract for the input bytes.
        let bytes = unsafe { input(ptr, len) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let options = unsafe { read_options(options) }?;
        let report = verify::verify_bytes(bytes, &options);
        // SAFETY: out_report was checked non-NULL; the caller promises it is writable.
        unsafe { give(out_report, agentloop_report::new(report)) }
    })
}

/// Verifies the transcript file at the path `(path_ptr, path_len)` (on Unix any bytes
/// but NUL, elsewhere UTF-8; not NUL-terminated), reading it line by line in bounded
/// memory, and writes a new report to `*out_report`.
///
/// A file that cannot be opened or read is not a call failure: the report holds an
/// `unreadable` fault naming the path and the reason (index and line -1), with the
/// records read before a read error. Call failures: NULL `out_report`, or NULL
/// `path_ptr` with a length above 0 (`NULL_PARAMETER`); an empty path or one holding a
/// NUL byte, options out of range (`INVALID_ARGUMENT`); a non-UTF-8 path where paths
/// must be UTF-8 (`INVALID_UTF8`).
///
/// On success the caller owns `*out_report` (free it with `agentloop_report_free`); on
/// failure `*out_report` is not written. Thread-safe; it only reads the file.
///
/// # Safety
/// `path_ptr` must point to `path_len` readable bytes; `options` NULL or an initialised
/// struct; `out_report` valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_transcript_verify_file(
    path_ptr: *const u8,
    path_len: usize,
    options: *const agentloop_verify_options,
    out_report: *mut *mut agentloop_report,
) -> agentloop_result {
    boundary(|| {
        need(out_report)?;
        // SAFETY: the caller's contract for the path bytes.
        let path = unsafe { path(path_ptr, path_len) }?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let options = unsafe { read_options(options) }?;
        let report = verify::verify_file(path, &options, &verify::Parallel::default());
        // SAFETY: out_report was checked non-NULL; the caller promises it is writable.
        unsafe { give(out_report, agentloop_report::new(report)) }
    })
}
