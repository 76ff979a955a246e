//! `agentloop_report`: what a verification found, and `agentloop_fault_kind`.

use core::ffi::c_char;
use std::ffi::CString;

use agentloop_core::verify::{FaultKind, Report};

use crate::boundary::boundary;
use crate::bytes::{handle, hash_out, need, put, put_opt, take};
use crate::hash::agentloop_hash;
use crate::result::agentloop_result;

/// The kind of a fault, with the names SPEC section 3 gives them
/// (`agentloop_fault_kind_str`). Faults come out of a report as `uint32_t`.
///
/// The numbers are stable and append-only: new kinds (e.g. for signed checkpoints) get
/// new numbers at the end. A caller should treat an unknown value as a fault of a kind
/// it does not know, not ignore it.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum agentloop_fault_kind {
    /// Never returned for a known fault: a kind this library version cannot name
    /// (only possible if the library was built inconsistently).
    Unknown = 0,
    /// `not_an_object`: the line is JSON but not an object.
    NotAnObject = 1,
    /// `missing_fields`: a required member is absent, or `kind` is not a non-empty
    /// string.
    MissingFields = 2,
    /// `unexpected_fields`: a member other than `hash`, `kind`, `payload`, `prev`,
    /// `seq`.
    UnexpectedFields = 3,
    /// `unserialisable_payload`: a number in the record has no canonical encoding.
    UnserialisablePayload = 4,
    /// `hash_mismatch`: the stored `hash` is malformed or not the record's SHA-256.
    HashMismatch = 5,
    /// `seq_gap`: `seq` is not the previous record's `seq` + 1 (or not a number).
    SeqGap = 6,
    /// `prev_mismatch`: `prev` is malformed or not the previous record's `hash`.
    PrevMismatch = 7,
    /// `not_canonical`: the line's bytes are not the canonical encoding of its content.
    NotCanonical = 8,
    /// `bad_json`: the line is not I-JSON (or is empty, or longer than the limit).
    BadJson = 9,
    /// `torn_tail`: the last line has no terminating newline.
    TornTail = 10,
    /// `unreadable`: the file cannot be opened or read (no index, no line).
    Unreadable = 11,
    /// `truncated`: fewer records than the checkpoint.
    Truncated = 12,
    /// `head_mismatch`: record `count − 1` does not carry the checkpoint's head.
    HeadMismatch = 13,
    /// `loop_malformed`: the transcript is not a well-formed run of the loop (the
    /// loop audit, `agentloop verify --loop`).
    LoopMalformed = 14,
    /// `checkpoint_malformed`: the checkpoint text is not a checkpoint (the detail says
    /// which part).
    CheckpointMalformed = 15,
    /// `checkpoint_origin_mismatch`: the checkpoint's origin names another transcript.
    CheckpointOriginMismatch = 16,
    /// `checkpoint_bad_signature`: a trusted key's signature on the checkpoint does not
    /// verify.
    CheckpointBadSignature = 17,
    /// `checkpoint_untrusted`: keys are trusted, but none of them signed the checkpoint.
    CheckpointUntrusted = 18,
    /// `checkpoint_inconsistent`: two checkpoints of one transcript where the older is
    /// not a prefix of the newer.
    CheckpointInconsistent = 19,
}

impl agentloop_fault_kind {
    /// Every value, in number order.
    pub const ALL: [agentloop_fault_kind; 20] = [
        agentloop_fault_kind::Unknown,
        agentloop_fault_kind::NotAnObject,
        agentloop_fault_kind::MissingFields,
        agentloop_fault_kind::UnexpectedFields,
        agentloop_fault_kind::UnserialisablePayload,
        agentloop_fault_kind::HashMismatch,
        agentloop_fault_kind::SeqGap,
        agentloop_fault_kind::PrevMismatch,
        agentloop_fault_kind::NotCanonical,
        agentloop_fault_kind::BadJson,
        agentloop_fault_kind::TornTail,
        agentloop_fault_kind::Unreadable,
        agentloop_fault_kind::Truncated,
        agentloop_fault_kind::HeadMismatch,
        agentloop_fault_kind::LoopMalformed,
        agentloop_fault_kind::CheckpointMalformed,
        agentloop_fault_kind::CheckpointOriginMismatch,
        agentloop_fault_kind::CheckpointBadSignature,
        agentloop_fault_kind::CheckpointUntrusted,
        agentloop_fault_kind::CheckpointInconsistent,
    ];

    /// The C value of a core fault kind, matched by its SPEC name (so a kind core
    /// adds before this table learns it is `Unknown`, and a test fails).
    pub fn from_core(kind: FaultKind) -> agentloop_fault_kind {
        let name = kind.as_str().as_bytes();
        agentloop_fault_kind::ALL
            .iter()
            .copied()
            .find(|c| c.name().strip_suffix(b"\0") == Some(name))
            .unwrap_or(agentloop_fault_kind::Unknown)
    }

    /// The SPEC name, NUL-terminated.
    fn name(self) -> &'static [u8] {
        match self {
            agentloop_fault_kind::Unknown => b"unknown\0",
            agentloop_fault_kind::NotAnObject => b"not_an_object\0",
            agentloop_fault_kind::MissingFields => b"missing_fields\0",
            agentloop_fault_kind::UnexpectedFields => b"unexpected_fields\0",
            agentloop_fault_kind::UnserialisablePayload => b"unserialisable_payload\0",
            agentloop_fault_kind::HashMismatch => b"hash_mismatch\0",
            agentloop_fault_kind::SeqGap => b"seq_gap\0",
            agentloop_fault_kind::PrevMismatch => b"prev_mismatch\0",
            agentloop_fault_kind::NotCanonical => b"not_canonical\0",
            agentloop_fault_kind::BadJson => b"bad_json\0",
            agentloop_fault_kind::TornTail => b"torn_tail\0",
            agentloop_fault_kind::Unreadable => b"unreadable\0",
            agentloop_fault_kind::Truncated => b"truncated\0",
            agentloop_fault_kind::HeadMismatch => b"head_mismatch\0",
            agentloop_fault_kind::LoopMalformed => b"loop_malformed\0",
            agentloop_fault_kind::CheckpointMalformed => b"checkpoint_malformed\0",
            agentloop_fault_kind::CheckpointOriginMismatch => b"checkpoint_origin_mismatch\0",
            agentloop_fault_kind::CheckpointBadSignature => b"checkpoint_bad_signature\0",
            agentloop_fault_kind::CheckpointUntrusted => b"checkpoint_untrusted\0",
            agentloop_fault_kind::CheckpointInconsistent => b"checkpoint_inconsistent\0",
        }
    }
}

/// The SPEC name of a fault kind as a static NUL-terminated string, e.g.
/// `"hash_mismatch"`. Any value is accepted: one this version does not know gives
/// `"unknown"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn agentloop_fault_kind_str(kind: u32) -> *const c_char {
    boundary(|| {
        let known = usize::try_from(kind)
            .ok()
            .and_then(|i| agentloop_fault_kind::ALL.get(i))
            .copied()
            .unwrap_or(agentloop_fault_kind::Unknown);
        known.name().as_ptr().cast::<c_char>()
    })
}

/// The result of a verification: whether it held, the record count, the head and
/// every fault. Made by `agentloop_transcript_verify_buffer`, `agentloop_transcript_verify_file` and
/// `agentloop_verifier_finish`; freed with `agentloop_report_free`.
///
/// A report never changes after it is made: any number of threads may read one at the
/// same time, as long as none frees it meanwhile.
pub struct agentloop_report {
    report: Report,
    /// Each fault's detail as a C string, in fault order.
    details: Vec<CString>,
}

impl agentloop_report {
    pub(crate) fn new(report: Report) -> agentloop_report {
        let details = report
            .faults
            .iter()
            .map(|f| {
                // Details never hold a NUL (values are shown escaped); should one
                // slip in, it is shown as U+FFFD rather than cutting the sentence.
                let text = f.detail.to_string().replace('\0', "\u{fffd}");
                CString::new(text).unwrap_or_default()
            })
            .collect();
        agentloop_report { report, details }
    }

    /// The report, for Rust callers of the rlib.
    pub fn report(&self) -> &Report {
        &self.report
    }
}

/// Whether the transcript verified: no fault at all. NULL gives `false` (so does a
/// caught panic). Thread-safe on a live report.
///
/// # Safety
/// `report` must be NULL or a live report from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_ok(report: *const agentloop_report) -> bool {
    boundary(|| {
        // SAFETY: the caller promises NULL or a live report.
        unsafe { handle(report) }.is_ok_and(|r| r.report.ok())
    })
}

/// The number of records read: complete lines (a torn last line is not counted). NULL
/// gives 0 (so does a caught panic). Thread-safe on a live report.
///
/// # Safety
/// `report` must be NULL or a live report from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_count(report: *const agentloop_report) -> u64 {
    boundary(|| {
        // SAFETY: the caller promises NULL or a live report.
        unsafe { handle(report) }.map_or(0, |r| r.report.count)
    })
}

/// Writes the head — the stored `hash` of the last record, or `prev0` for an empty
/// transcript — to `*out`, and `true` to `*out_has_head`. When there is no head
/// (the last record has no well-formed hash, or the file could not be read) `out` is
/// left alone and `*out_has_head` is `false`. The head of a report with faults is not
/// meaningful.
///
/// NULL: `report`, `out` and `out_has_head` must not be NULL. Thread-safe on a live report.
///
/// # Safety
/// `report` must be a live report from this library; `out` must be valid for a write
/// of one `agentloop_hash`; `out_has_head` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_head(
    report: *const agentloop_report,
    out: *mut agentloop_hash,
    out_has_head: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        need(out_has_head)?;
        // SAFETY: the caller promises a live report.
        let report = unsafe { handle(report) }?;
        if let Some(head) = report.report.head {
            // SAFETY: out was checked non-NULL; the caller promises it is writable.
            unsafe { hash_out(out, &head.0) }?;
        }
        // SAFETY: out_has_head was checked non-NULL; the caller promises it is writable.
        unsafe { put(out_has_head, report.report.head.is_some()) }
    })
}

/// The number of faults held in the report (`agentloop_report_fault` reads them by
/// index 0 to this − 1). At most the options' `max_faults`; the rest are counted by
/// `agentloop_report_faults_omitted`. NULL gives 0. Thread-safe on a live report.
///
/// # Safety
/// `report` must be NULL or a live report from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_fault_count(report: *const agentloop_report) -> u64 {
    boundary(|| {
        // SAFETY: the caller promises NULL or a live report.
        unsafe { handle(report) }.map_or(0, |r| r.report.faults.len() as u64)
    })
}

/// How many faults were found beyond the `max_faults` kept in the report (0 when none
/// were left out). NULL gives 0. Thread-safe on a live report.
///
/// # Safety
/// `report` must be NULL or a live report from this library.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_faults_omitted(report: *const agentloop_report) -> u64 {
    boundary(|| {
        // SAFETY: the caller promises NULL or a live report.
        unsafe { handle(report) }.map_or(0, |r| r.report.faults_omitted)
    })
}

/// With a checkpoint that held or was passed: writes how many records lie beyond it
/// to `*out` and `true` to `*out_has_value`. Without a checkpoint, or when the transcript
/// is shorter than it, `*out_has_value` is `false` and `*out` is left alone.
///
/// NULL: all three pointers must not be NULL. Thread-safe on a live report.
///
/// # Safety
/// `report` must be a live report from this library; `out` and `out_has_value` valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_beyond_checkpoint(
    report: *const agentloop_report,
    out: *mut u64,
    out_has_value: *mut bool,
) -> agentloop_result {
    boundary(|| {
        need(out)?;
        need(out_has_value)?;
        // SAFETY: the caller promises a live report.
        let report = unsafe { handle(report) }?;
        if let Some(beyond) = report.report.beyond_checkpoint {
            // SAFETY: checked non-NULL; the caller promises it is writable.
            unsafe { put(out, beyond) }?;
        }
        // SAFETY: checked non-NULL; the caller promises it is writable.
        unsafe { put(out_has_value, report.report.beyond_checkpoint.is_some()) }
    })
}

/// Reads fault number `i` (0-based, in record order): to `*out_index` the record's
/// index (0-based position; -1 where none applies, e.g. `unreadable`), to `*out_line`
/// its 1-based line number (-1 where none applies), to `*out_kind` its kind (an
/// `agentloop_fault_kind` value) and to `*out_detail` a detail sentence naming what was
/// expected and what was found.
///
/// Each output pointer may be NULL when that field is not wanted. `*out_detail` receives
/// a NUL-terminated UTF-8 string **borrowed from the report**: valid until
/// `agentloop_report_free`, do not free it.
///
/// `i` not below `agentloop_report_fault_count` is
/// `AGENTLOOP_RESULT_INDEX_OUT_OF_RANGE`; NULL `report` is `NULL_PARAMETER`. Nothing
/// is written on failure. Thread-safe on a live report.
///
/// # Safety
/// `report` must be a live report from this library; each non-NULL output pointer must
/// be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_fault(
    report: *const agentloop_report,
    i: u64,
    out_index: *mut i64,
    out_line: *mut i64,
    out_kind: *mut u32,
    out_detail: *mut *const c_char,
) -> agentloop_result {
    boundary(|| {
        // SAFETY: the caller promises a live report.
        let report = unsafe { handle(report) }?;
        let i = usize::try_from(i).map_err(|_| agentloop_result::IndexOutOfRange)?;
        let fault = report
            .report
            .faults
            .get(i)
            .ok_or(agentloop_result::IndexOutOfRange)?;
        let text = report
            .details
            .get(i)
            .ok_or(agentloop_result::IndexOutOfRange)?;
        let signed = |n: Option<u64>| n.and_then(|n| i64::try_from(n).ok()).unwrap_or(-1);
        // SAFETY: each of the four pointers is either NULL (skipped) or promised
        // writable by the caller.
        unsafe {
            put_opt(out_index, signed(fault.index));
            put_opt(out_line, signed(fault.line));
            put_opt(out_kind, agentloop_fault_kind::from_core(fault.kind) as u32);
            put_opt(out_detail, text.as_ptr());
        }
        Ok(())
    })
}

/// Frees a report, and with it every detail string it lent. NULL does nothing.
///
/// # Safety
/// `report` must be NULL or a report from this library not freed before, and no other
/// thread may be using it.
#[no_mangle]
pub unsafe extern "C" fn agentloop_report_free(report: *mut agentloop_report) {
    // SAFETY: forwarded from this function's contract.
    boundary(|| unsafe { take(report) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_kind_has_its_own_number_and_name() {
        for (i, kind) in agentloop_fault_kind::ALL.iter().enumerate() {
            assert_eq!(*kind as u32 as usize, i);
        }
        let mut seen = Vec::new();
        for kind in FaultKind::ALL {
            let c = agentloop_fault_kind::from_core(kind);
            assert_ne!(c, agentloop_fault_kind::Unknown, "{kind} has no C value");
            assert!(!seen.contains(&c));
            seen.push(c);
            let name = c.name();
            assert_eq!(&name[..name.len() - 1], kind.as_str().as_bytes());
        }
    }
}
