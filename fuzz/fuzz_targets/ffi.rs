//! The C entry points, called through the Rust signatures of the `agentloop` rlib with
//! fuzzed bytes, lengths, buffer sizes and NULLs.
//!
//! Input: an operation byte, a buffer-size byte, then the operation's bytes.
//! Asserts, for every call: never a panic (`boundary` would turn one into
//! `AGENTLOOP_RESULT_PANIC`, which fails here); every result is a documented code for
//! that call; the size-query protocol (a short or NULL buffer gives
//! `INSUFFICIENT_SIZE`, the exact length in `*out_len`, and the buffer untouched; a
//! buffer that large then gives exactly those bytes); the answers equal the core's
//! (canonical bytes, hex, reports of both verifier entry points, schema verdicts,
//! appended lines); failures leave outputs and the chain unchanged; a proof's
//! explanation is empty exactly when its check says `OK`.
#![no_main]

use std::ffi::CStr;
use std::ptr;

use agentloop::*;
use agentloop_core::chain::AppendError;
use agentloop_core::hash::Hash;
use agentloop_core::jcs;
use agentloop_core::json;
use agentloop_core::schema::Schema;
use agentloop_core::verify::{self, Options, Report};
use libfuzzer_sys::fuzz_target;

use agentloop_result as R;

/// A byte that marks buffer space the library must not have written.
const UNTOUCHED: u8 = 0xA5;

/// Calls a size-query function: first with a NULL buffer, then with `small` bytes,
/// then with exactly the length it asked for; checks the protocol on the way and
/// returns (result, bytes).
fn size_query(small: usize, mut call: impl FnMut(*mut u8, usize, *mut usize) -> R) -> (R, Vec<u8>) {
    let mut need = usize::MAX;
    let first = call(ptr::null_mut(), 0, &mut need);
    assert_ne!(first, R::Panic);
    assert_eq!(
        call(ptr::null_mut(), 0, ptr::null_mut()),
        R::NullParameter,
        "NULL out_len"
    );
    match first {
        R::InsufficientSize => {}
        // An empty answer fits in no buffer at all.
        R::Ok => {
            assert_eq!(need, 0, "OK with a NULL buffer but a length");
            return (R::Ok, Vec::new());
        }
        other => {
            assert_eq!(need, usize::MAX, "*out_len written on failure {other:?}");
            return (other, Vec::new());
        }
    }
    assert!(need > 0 && need < 1 << 30, "needed length {need}");
    // A short buffer: refused, the same length reported, nothing written.
    if small < need {
        let mut buf = vec![UNTOUCHED; small + 1];
        let mut len = 0usize;
        let r = call(buf.as_mut_ptr(), small, &mut len);
        assert_eq!(r, R::InsufficientSize, "cap {small} < {need}");
        assert_eq!(len, need, "the size query is stable");
        assert!(buf.iter().all(|&b| b == UNTOUCHED), "short buffer written");
    }
    let mut buf = vec![UNTOUCHED; need + 1];
    let mut len = 0usize;
    let r = call(buf.as_mut_ptr(), need, &mut len);
    assert_eq!(r, R::Ok, "a buffer of the asked size");
    assert_eq!(len, need);
    assert_eq!(buf[need], UNTOUCHED, "written past out_len");
    buf.truncate(need);
    (R::Ok, buf)
}

fn parse_result(e: json::ParseError) -> R {
    if e.is_unserialisable() {
        R::NoCanonicalForm
    } else {
        R::InvalidJson
    }
}

fn canonicalize(small: usize, bytes: &[u8]) {
    let (r, out) = size_query(small, |buf, cap, len| unsafe {
        // SAFETY: `bytes` is a live slice; `buf` is NULL or `cap` writable bytes; `len`
        // is NULL or a live usize.
        agentloop_json_canonicalize(bytes.as_ptr(), bytes.len(), buf, cap, len)
    });
    match jcs::canonicalize(bytes) {
        Ok(expected) => {
            assert_eq!(r, R::Ok);
            assert_eq!(out, expected);
        }
        Err(e) => assert_eq!(r, parse_result(e)),
    }
    let mut len = 0usize;
    // SAFETY: a NULL input with a length is refused before it is read.
    let r = unsafe { agentloop_json_canonicalize(ptr::null(), 1, ptr::null_mut(), 0, &mut len) };
    assert_eq!(r, R::NullParameter);
}

fn hex(small: usize, bytes: &[u8]) {
    let mut out = agentloop_hash {
        bytes: [UNTOUCHED; 32],
    };
    // SAFETY: `bytes` is a live slice, `out` a writable hash.
    let r = unsafe { agentloop_hash_from_hex(bytes.as_ptr(), bytes.len(), &mut out) };
    match Hash::from_hex(bytes) {
        Some(hash) => {
            assert_eq!(r, R::Ok);
            assert_eq!(out.bytes, hash.0);
            // SAFETY: a readable hash; `buf` NULL or `cap` writable bytes; `len` live.
            let (r, text) = size_query(small, |buf, cap, len| unsafe {
                agentloop_hash_to_hex(&out, buf, cap, len)
            });
            assert_eq!(r, R::Ok);
            assert_eq!(text, bytes);
        }
        None => {
            assert_eq!(r, R::InvalidArgument);
            assert!(
                out.bytes.iter().all(|&b| b == UNTOUCHED),
                "written on failure"
            );
        }
    }
}

/// Reads a report through the C accessors, checks it against `expected`, frees it.
fn check_report(report: *mut agentloop_report, expected: &Report) {
    // SAFETY: `report` is a live report from the library, freed only at the end.
    unsafe {
        assert_eq!(agentloop_report_ok(report), expected.ok());
        assert_eq!(agentloop_report_count(report), expected.count);
        assert_eq!(
            agentloop_report_faults_omitted(report),
            expected.faults_omitted
        );
        let n = agentloop_report_fault_count(report);
        assert_eq!(n, expected.faults.len() as u64);
        for (i, fault) in (0u64..).zip(&expected.faults) {
            let (mut index, mut line, mut kind) = (0i64, 0i64, 0u32);
            let mut detail: *const std::ffi::c_char = ptr::null();
            let r =
                agentloop_report_fault(report, i, &mut index, &mut line, &mut kind, &mut detail);
            assert_eq!(r, R::Ok);
            assert_eq!(index, fault.index.map_or(-1, |i| i as i64));
            assert_eq!(line, fault.line.map_or(-1, |l| l as i64));
            assert!(!detail.is_null());
            let text = CStr::from_ptr(detail).to_str().expect("UTF-8 detail");
            assert_eq!(text, fault.detail.to_string());
            let name = CStr::from_ptr(agentloop_fault_kind_str(kind));
            assert_eq!(name.to_str().ok(), Some(fault.kind.as_str()));
            // Every output may be NULL.
            let r = agentloop_report_fault(
                report,
                i,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            );
            assert_eq!(r, R::Ok);
        }
        let r = agentloop_report_fault(
            report,
            n,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        assert_eq!(r, R::IndexOutOfRange);
        let mut head = agentloop_hash {
            bytes: [UNTOUCHED; 32],
        };
        let mut has = false;
        let r = agentloop_report_head(report, &mut head, &mut has);
        assert_eq!(r, R::Ok);
        assert_eq!(has, expected.head.is_some());
        if let Some(h) = expected.head {
            assert_eq!(head.bytes, h.0);
        }
        agentloop_report_free(report);
    }
}

fn verify(config: u8, bytes: &[u8]) {
    let mut options = agentloop_verify_options::default();
    // SAFETY: a live struct to fill.
    assert_eq!(
        unsafe { agentloop_verify_options_init(&mut options) },
        R::Ok
    );
    options.lenient = config & 1 != 0;
    options.max_line_bytes = u64::from(config >> 4) * 8;
    options.max_faults = u64::from((config >> 1) & 7);
    let core: Options = options.to_core().expect("options in range");
    let expected = verify::verify_bytes(bytes, &core);

    let mut report = ptr::null_mut();
    // SAFETY: live slice, live options, a live out pointer.
    let r = unsafe {
        agentloop_transcript_verify_buffer(bytes.as_ptr(), bytes.len(), &options, &mut report)
    };
    assert_eq!(r, R::Ok);
    check_report(report, &expected);

    // The streaming entry point, in chunks the configuration chooses.
    let mut verifier = ptr::null_mut();
    // SAFETY: live options and out pointer.
    assert_eq!(
        unsafe { agentloop_verifier_new(&options, &mut verifier) },
        R::Ok
    );
    let size = 1 + usize::from(config % 7);
    for chunk in bytes.chunks(size) {
        // SAFETY: a live verifier and slice.
        let r = unsafe { agentloop_verifier_push(verifier, chunk.as_ptr(), chunk.len()) };
        assert_eq!(r, R::Ok);
    }
    // SAFETY: NULL with length 0 is an empty push; NULL with a length is refused.
    unsafe {
        assert_eq!(agentloop_verifier_push(verifier, ptr::null(), 0), R::Ok);
        assert_eq!(
            agentloop_verifier_push(verifier, ptr::null(), 3),
            R::NullParameter
        );
        assert_eq!(
            agentloop_verifier_finish(verifier, ptr::null_mut()),
            R::NullParameter
        );
    }
    let mut report = ptr::null_mut();
    // SAFETY: a live verifier and out pointer.
    assert_eq!(
        unsafe { agentloop_verifier_finish(verifier, &mut report) },
        R::Ok
    );
    check_report(report, &expected);
    // SAFETY: as above; the verifier is finished but live until freed.
    unsafe {
        assert_eq!(
            agentloop_verifier_push(verifier, bytes.as_ptr(), bytes.len()),
            R::InvalidState
        );
        let mut again = ptr::null_mut();
        assert_eq!(agentloop_verifier_finish(verifier, &mut again), R::Ok);
        check_report(again, &expected);
        agentloop_verifier_free(verifier);
    }
}

fn schema(small: usize, data: &[u8]) {
    let (doc, instance) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let core = json::parse(doc).map_err(parse_result).and_then(|v| {
        Schema::compile(&v)
            .map_err(|e| (R::SchemaRefused, e.to_string()))
            .map_err(|e| e.0)
    });
    let mut handle: *mut agentloop_schema = ptr::null_mut();
    // SAFETY: a live slice and out pointer.
    let r = unsafe { agentloop_schema_new(doc.as_ptr(), doc.len(), &mut handle) };
    let (er, explanation) = size_query(small, |buf, cap, len| unsafe {
        // SAFETY: as for agentloop_json_canonicalize.
        agentloop_schema_explain(doc.as_ptr(), doc.len(), buf, cap, len)
    });
    let schema = match core {
        Err(code) => {
            assert_eq!(r, code);
            assert!(handle.is_null(), "*out written on failure");
            if code == R::SchemaRefused {
                assert_eq!(er, R::Ok);
                assert!(
                    explanation.starts_with(b"schema refused"),
                    "{explanation:?}"
                );
            } else {
                assert_eq!(er, code);
            }
            return;
        }
        Ok(schema) => schema,
    };
    assert_eq!(r, R::Ok);
    assert_eq!((er, explanation.len()), (R::Ok, 0));
    let mut valid = false;
    // SAFETY: a live schema, slice and bool.
    let r =
        unsafe { agentloop_schema_validate(handle, instance.as_ptr(), instance.len(), &mut valid) };
    let (vr, text) = size_query(small, |buf, cap, len| unsafe {
        // SAFETY: a live schema; the rest as for agentloop_json_canonicalize.
        agentloop_schema_violations(handle, instance.as_ptr(), instance.len(), buf, cap, len)
    });
    match json::parse(instance) {
        Ok(value) => {
            assert_eq!(r, R::Ok);
            assert_eq!(valid, schema.is_valid(&value));
            assert_eq!(vr, R::Ok);
            let expected: String = schema
                .validate(&value, "$")
                .iter()
                .map(|v| format!("{v}\n"))
                .collect();
            assert_eq!(text, expected.as_bytes());
        }
        Err(e) => {
            assert_eq!(r, parse_result(e));
            assert_eq!(vr, parse_result(e));
        }
    }
    // SAFETY: the handle is live and freed once; NULL frees are no-ops.
    unsafe {
        assert_eq!(
            agentloop_schema_validate(ptr::null(), ptr::null(), 0, &mut valid),
            R::NullParameter
        );
        agentloop_schema_free(handle);
        agentloop_schema_free(ptr::null_mut());
    }
}

fn chain(small: usize, data: &[u8]) {
    let (kind, payloads) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b"task"[..], data),
    };
    let mut handle = ptr::null_mut();
    // SAFETY: a live out pointer.
    assert_eq!(unsafe { agentloop_chain_new(&mut handle) }, R::Ok);
    let mut core = agentloop_core::chain::Chain::new();
    let mut transcript = Vec::new();
    for payload in payloads.split(|&b| b == 0).take(4) {
        let (r, line) = size_query(small, |buf, cap, len| unsafe {
            // SAFETY: a live chain and slices; the rest as for agentloop_json_canonicalize.
            agentloop_chain_append(
                handle,
                kind.as_ptr(),
                kind.len(),
                payload.as_ptr(),
                payload.len(),
                buf,
                cap,
                len,
            )
        });
        // The core's answer, mapped as the C API documents it.
        let expected = match std::str::from_utf8(kind) {
            Err(_) => Err(R::InvalidUtf8),
            Ok(kind) => match core.append_json(kind, payload) {
                Ok(line) => Ok(line.to_vec()),
                Err(AppendError::EmptyKind) => Err(R::InvalidArgument),
                Err(AppendError::SeqExhausted) => Err(R::ChainExhausted),
                Err(AppendError::Payload(_)) => Err(R::NoCanonicalForm),
                Err(AppendError::PayloadJson(e)) => Err(parse_result(e)),
                Err(AppendError::LineTooLong { .. }) => Err(R::RecordTooLong),
                Err(AppendError::TooDeep { .. }) => Err(R::InvalidJson),
                Err(AppendError::NotCanonical(_)) => Err(R::InvalidJson),
                Err(AppendError::BufferFull { .. }) => Err(R::InsufficientSize),
                Err(_) => Err(R::InvalidArgument),
            },
        };
        match expected {
            Ok(expected) => {
                assert_eq!(r, R::Ok);
                assert_eq!(line, expected);
                transcript.extend_from_slice(&line);
            }
            Err(code) => assert_eq!(r, code),
        }
        let mut head = agentloop_hash::default();
        let mut count = 0u64;
        // SAFETY: a live chain and outputs.
        unsafe {
            assert_eq!(agentloop_chain_head(handle, &mut head), R::Ok);
            assert_eq!(agentloop_chain_count(handle, &mut count), R::Ok);
        }
        assert_eq!(
            head.bytes,
            core.head().0,
            "a failed or size-query append changed the chain"
        );
        assert_eq!(count, core.count());
    }
    let report = verify::verify_bytes(&transcript, &Options::default());
    assert!(report.ok(), "{:?}", report.faults);
    // SAFETY: the handle is live and freed once.
    unsafe { agentloop_chain_free(handle) };
}

/// Proof checks on fuzzed proof bytes (and, after a 0x00 byte, an older checkpoint):
/// `agentloop_proof_explain` always writes a UTF-8 sentence by the size-query protocol,
/// and it is empty exactly when the verify call for the proof's kind says `OK`; every
/// verdict is one the header documents.
fn proof(small: usize, data: &[u8]) {
    let (proof, old) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[..0]),
    };
    let (r, why) = size_query(small, |buf, cap, len| unsafe {
        // SAFETY: live slices; `buf` is NULL or `cap` writable bytes; `len` NULL or live.
        agentloop_proof_explain(
            proof.as_ptr(),
            proof.len(),
            old.as_ptr(),
            old.len(),
            ptr::null(),
            0,
            ptr::null(),
            0,
            buf,
            cap,
            len,
        )
    });
    assert_eq!(r, R::Ok, "explain_proof");
    let why = std::str::from_utf8(&why).expect("the sentence is UTF-8");
    let verdict = if proof.starts_with(b"agentloop/tlog-consistency@v1\n") {
        // SAFETY: live slices; NULL keys and origin.
        unsafe {
            agentloop_proof_verify_consistency(
                proof.as_ptr(),
                proof.len(),
                old.as_ptr(),
                old.len(),
                ptr::null(),
                0,
                ptr::null(),
                0,
            )
        }
    } else {
        // SAFETY: a live slice; NULL keys and origin.
        unsafe {
            agentloop_proof_verify_inclusion(
                proof.as_ptr(),
                proof.len(),
                ptr::null(),
                0,
                ptr::null(),
                0,
            )
        }
    };
    assert!(
        matches!(
            verdict,
            R::Ok | R::ProofInvalid | R::InvalidUtf8 | R::AnchorMalformed
        ),
        "undocumented verdict {verdict:?}"
    );
    assert_eq!(verdict == R::Ok, why.is_empty(), "{verdict:?} but {why:?}");
}

fuzz_target!(|data: &[u8]| {
    let [op, config, rest @ ..] = data else {
        return;
    };
    let small = usize::from(*config);
    match op % 6 {
        0 => canonicalize(small, rest),
        1 => hex(small, rest),
        2 => verify(*config, rest),
        3 => schema(small, rest),
        4 => chain(small, rest),
        _ => proof(small, rest),
    }
});
