//! `agentloop_verifier`: streaming verification of bytes pushed in any chunking.

use agentloop_core::verify::{Options, Report, Verifier};

use crate::boundary::boundary;
use crate::bytes::{give, handle_mut, input, need, take};
use crate::report::agentloop_report;
use crate::result::{agentloop_result, Outcome};
use crate::verify::{agentloop_verify_options, read_options};

/// A streaming verifier: push the transcript's bytes in chunks of any size (a line may
/// span chunks), then finish to get the report. Memory stays bounded by the longest
/// line (at most the options' `max_line_bytes`) plus the faults kept.
///
/// Create it with `agentloop_verifier_new`, free it with `agentloop_verifier_free`
/// (also after `agentloop_verifier_finish`, which does not free it).
///
/// Not thread-safe: one thread at a time may call functions on a verifier (it may move
/// between threads).
pub struct agentloop_verifier {
    verifier: Verifier,
    options: Options,
    /// The current line's bytes so far.
    line: Vec<u8>,
    /// The current line's length once it outgrew the limit and stopped being buffered.
    overflow: Option<usize>,
    /// The report, once finished.
    finished: Option<Report>,
}

impl agentloop_verifier {
    fn new(options: Options) -> agentloop_verifier {
        agentloop_verifier {
            verifier: Verifier::new(options),
            options,
            line: Vec::new(),
            overflow: None,
            finished: None,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) -> Outcome {
        if self.finished.is_some() {
            return Err(agentloop_result::InvalidState);
        }
        while !bytes.is_empty() {
            let (taken, complete) = match bytes.iter().position(|&b| b == b'\n') {
                Some(nl) => (&bytes[..nl], true),
                None => (bytes, false),
            };
            match self.overflow.as_mut() {
                Some(len) => *len += taken.len(),
                None if self.line.len() + taken.len() > self.options.max_line_bytes => {
                    self.overflow = Some(self.line.len() + taken.len());
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(taken),
            }
            bytes = &bytes[taken.len() + usize::from(complete)..];
            if complete {
                match self.overflow.take() {
                    Some(len) => self.verifier.push_long_line(len),
                    None => self.verifier.push_line(&self.line),
                }
                self.line.clear();
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Report {
        if let Some(report) = &self.finished {
            return report.clone();
        }
        let mut verifier = core::mem::replace(&mut self.verifier, Verifier::new(self.options));
        match self.overflow.take() {
            Some(len) => verifier.push_long_torn_tail(len),
            None if !self.line.is_empty() => verifier.push_torn_tail(&self.line),
            None => {}
        }
        self.line = Vec::new();
        let report = verifier.finish();
        self.finished = Some(report.clone());
        report
    }
}

/// Creates a streaming verifier with `options` (NULL means the defaults) and writes
/// it to `*out`.
///
/// Options out of range are `AGENTLOOP_RESULT_INVALID_ARGUMENT`; NULL `out` is
/// `NULL_PARAMETER`. On success the caller owns `*out` (free it with
/// `agentloop_verifier_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `options` must be NULL or point to an initialised struct; `out` must be valid for a
/// write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_verifier_new(
    options: *const agentloop_verify_options,
    out: *mut *mut agentloop_verifier,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        // SAFETY: the caller promises NULL or an initialised struct.
        let options = unsafe { read_options(options) }?;
        // SAFETY: out was checked non-NULL; the caller promises it is writable.
        unsafe { give(out, agentloop_verifier::new(options)) }
    })
}

/// Pushes the next `(ptr, len)` bytes of the transcript. Chunks may end anywhere, also
/// inside a line or a UTF-8 sequence; complete lines are checked as they arrive, a
/// partial line is kept until its `\n` (or, past `max_line_bytes`, only counted).
/// The bytes are copied where needed; the caller may reuse its buffer after the call.
///
/// After `agentloop_verifier_finish` every push is `AGENTLOOP_RESULT_INVALID_STATE`.
/// NULL `verifier`, or NULL `ptr` with `len > 0`, is `NULL_PARAMETER`; `len == 0` does
/// nothing. Not thread-safe for one verifier.
///
/// # Safety
/// `verifier` must be a live verifier from this library; `ptr` must point to `len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn agentloop_verifier_push(
    verifier: *mut agentloop_verifier,
    ptr: *const u8,
    len: usize,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live verifier used by no other thread.
        let verifier = unsafe { handle_mut(verifier) }?;
        // SAFETY: the caller's contract for the input bytes.
        let bytes = unsafe { input(ptr, len) }?;
        verifier.push(bytes)
    })
}

/// Ends the input and writes a new report to `*out_report`: bytes after the last `\n`
/// are a `torn_tail` fault, then the checkpoint, if any, is applied.
///
/// This does not free the verifier: it stays valid (free it with
/// `agentloop_verifier_free`), refuses further pushes, and finishing it again gives
/// another, identical report. On success the caller owns `*out_report` (free it with
/// `agentloop_report_free`); on failure (NULL `verifier` or `out_report`) it is not
/// written. Not thread-safe for one verifier.
///
/// # Safety
/// `verifier` must be a live verifier from this library; `out_report` must be valid for
/// a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn agentloop_verifier_finish(
    verifier: *mut agentloop_verifier,
    out_report: *mut *mut agentloop_report,
) -> agentloop_result {
    boundary(|| {
        need(out_report)?;
        // SAFETY: the caller promises a live verifier used by no other thread.
        let verifier = unsafe { handle_mut(verifier) }?;
        let report = verifier.finish();
        // SAFETY: out_report was checked non-NULL; the caller promises it is writable.
        unsafe { give(out_report, agentloop_report::new(report)) }
    })
}

/// Frees a verifier (finished or not). NULL does nothing. Reports it made stay valid.
///
/// # Safety
/// `verifier` must be NULL or a verifier from this library not freed before, and no
/// other thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_verifier_free(verifier: *mut agentloop_verifier) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(verifier) })
}
