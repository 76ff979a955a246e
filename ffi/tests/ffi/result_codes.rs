//! The result-code matrix: every export that returns `agentloop_result` is called with
//! each failure its header comment documents — NULL for each pointer parameter, a
//! buffer too small, each refused input, each wrong state — and the code it returns is
//! checked. Then the matrix is held against the header: every code a function's
//! comment names (by its name, with or without the `AGENTLOOP_RESULT_` prefix) must be
//! produced by some case here, and every code a case produced must be named in that
//! function's comment — or be one the header's conventions give every function of its
//! shape (`NULL_PARAMETER` to one with a pointer parameter, `INSUFFICIENT_SIZE` to one
//! with a caller buffer). So the header cannot document a code the function never
//! returns, nor leave out one it does.
//!
//! The few documented codes no test can provoke on this machine are listed in
//! [`UNREACHABLE`], each with the reason; a failed `fdatasync` or a panic cannot be
//! caused from outside. A file-size limit (`ulimit -f`, with `SIGXFSZ` ignored) makes
//! writes fail with `EFBIG`: a child process of this test binary
//! ([`child_under_a_file_size_limit`]) appends under one and reports what it got.

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Write;
use std::process::Command;

use agentloop::*;

use crate::common;
use common::{declared_functions, new_agent, parameters, root, waiting_agent, Agent, Dir};

use agentloop_result as R;

/// Documented pairs no test here can produce, and why.
const UNREACHABLE: &[(&str, &str, &str)] = &[
    (
        "agentloop_writer_sync",
        "IO",
        "needs fdatasync to fail (a failing disk)",
    ),
    (
        "agentloop_writer_sync",
        "INVALID_STATE",
        "a writer is refused only after a failed sync or a failed cut-back",
    ),
    (
        "agentloop_writer_append",
        "INVALID_STATE",
        "a writer is refused only after a failed sync or a failed cut-back",
    ),
    (
        "agentloop_driver_run_to_writer",
        "INVALID_STATE",
        "a writer is refused only after a failed sync or a failed cut-back",
    ),
    (
        "agentloop_writer_refresh",
        "IO",
        "needs reading an open file to fail",
    ),
    (
        "agentloop_transcript_verify_file",
        "INVALID_UTF8",
        "on Unix a path is any bytes but NUL; only elsewhere must it be UTF-8",
    ),
    (
        "agentloop_writer_open_with",
        "INVALID_UTF8",
        "on Unix a path is any bytes but NUL; only elsewhere must it be UTF-8",
    ),
    (
        "agentloop_writer_open",
        "INVALID_UTF8",
        "on Unix a path is any bytes but NUL; only elsewhere must it be UTF-8",
    ),
    (
        "agentloop_transcript_repair",
        "INVALID_UTF8",
        "on Unix a path is any bytes but NUL; only elsewhere must it be UTF-8",
    ),
];

/// Pointer parameters of functions with a state that may be NULL (an output not
/// wanted, a default), so no NULL of theirs is refused and the NULL-before-state rule
/// has nothing to hold there. A caller buffer (`out_buf`) may be NULL too: that is the
/// size query.
const MAY_BE_NULL: &[(&str, &str)] = &[
    ("agentloop_agent_outcome", "out_reason"),
    ("agentloop_agent_outcome", "out_steps"),
    ("agentloop_agent_outcome", "out_tokens"),
    ("agentloop_agent_outcome", "out_unrun_calls"),
    ("agentloop_agent_outcome", "out_tool_calls"),
    ("agentloop_agent_resume", "prev0"),
    ("agentloop_agent_resume", "out_next_seq"),
    ("agentloop_agent_resume", "out_head"),
];

/// What the cases produced, `(function, code)`, the cases that got another code than
/// they expected (reported together at the end), and the `(function, parameter)` pairs
/// given NULL while the function's object was in a state that refuses the call.
#[derive(Default)]
struct Matrix(
    BTreeSet<(String, u32)>,
    Vec<String>,
    BTreeSet<(String, String)>,
);

impl Matrix {
    /// Checks that `function` returned `expected`, and records what it returned.
    #[track_caller]
    fn hit(&mut self, function: &str, expected: agentloop_result, got: agentloop_result) {
        if got != expected {
            let at = core::panic::Location::caller();
            self.1.push(format!(
                "{function} (line {}): expected {expected:?}, got {got:?}",
                at.line()
            ));
        }
        self.0.insert((function.to_string(), got as u32));
    }

    /// Checks that `function`, given NULL for `parameter` while its object is in a
    /// state that refuses the call, returns `NULL_PARAMETER` — the header's rule: NULL
    /// is checked before the state — and records the pair.
    #[track_caller]
    fn null_first(&mut self, function: &str, parameter: &str, got: agentloop_result) {
        self.hit(function, R::NullParameter, got);
        self.2.insert((function.to_string(), parameter.to_string()));
    }
}

/// The name of a result code without its prefix (`NULL_PARAMETER`), as the header
/// spells it.
fn code_name(code: u32) -> String {
    static NAMES: std::sync::OnceLock<Vec<(u32, String)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let header = fs::read_to_string(root().join("include/agentloop.h")).unwrap();
        header
            .lines()
            .filter_map(|l| l.trim().strip_prefix("AGENTLOOP_RESULT_"))
            .filter_map(|l| {
                let (name, value) = l.split_once(" = ")?;
                Some((value.trim_end_matches(',').parse().ok()?, name.to_string()))
            })
            .collect()
    });
    names
        .iter()
        .find(|(c, _)| *c == code)
        .map_or_else(|| format!("code {code}"), |(_, n)| n.clone())
}

const BAD_UTF8: &[u8] = b"\xff";
const BAD_JSON: &[u8] = b"{";
const NO_CANON: &[u8] = b"9007199254740993";
const MAX_SEQ: u64 = (1 << 53) - 1;

/// An input of a call: a pointer and its length.
type Bytes = (*const u8, usize);
/// No input: NULL with length 0, which the calls read as "not given".
const NONE: Bytes = (null(), 0);
/// NULL with a length: the input every pointer parameter must refuse.
const NULL1: Bytes = (null(), 1);

/// `b` as a call's input.
fn bytes(b: &[u8]) -> Bytes {
    (b.as_ptr(), b.len())
}

fn chain_new() -> *mut agentloop_chain {
    let mut c = null_mut();
    // SAFETY: a valid out pointer.
    assert_eq!(unsafe { agentloop_chain_new(&mut c) }, R::Ok);
    c
}

/// A transcript of `n` records from seq 0.
fn transcript(n: usize) -> Vec<u8> {
    let chain = chain_new();
    let mut out = Vec::new();
    for i in 0..n {
        let payload = format!("{{\"i\":{i}}}");
        let (mut line, mut len) = (null(), 0);
        // SAFETY: a live chain, valid inputs and outputs; the line is copied at once.
        unsafe {
            let r = agentloop_chain_append_borrowed(
                chain,
                b"note".as_ptr(),
                4,
                payload.as_ptr(),
                payload.len(),
                &mut line,
                &mut len,
            );
            assert_eq!(r, R::Ok);
            out.extend_from_slice(core::slice::from_raw_parts(line, len));
        }
    }
    // SAFETY: freed once.
    unsafe { agentloop_chain_free(chain) };
    out
}

fn verify_options() -> agentloop_verify_options {
    // SAFETY: a zeroed plain struct is a valid place to write the defaults to.
    let mut o: agentloop_verify_options = unsafe { core::mem::zeroed() };
    // SAFETY: a valid out pointer.
    assert_eq!(unsafe { agentloop_verify_options_init(&mut o) }, R::Ok);
    o
}

fn report_of(bytes: &[u8]) -> *mut agentloop_report {
    let mut out = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r = unsafe {
        agentloop_transcript_verify_buffer(bytes.as_ptr(), bytes.len(), null(), &mut out)
    };
    assert_eq!(r, R::Ok);
    out
}

fn json(m: &mut Matrix) {
    let name = "agentloop_json_canonicalize";
    let mut buf = [0u8; 4];
    let mut len = 0;
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        m.hit(
            name,
            R::NullParameter,
            agentloop_json_canonicalize(null(), 1, buf.as_mut_ptr(), 4, &mut len),
        );
        m.hit(
            name,
            R::NullParameter,
            agentloop_json_canonicalize(b"1".as_ptr(), 1, buf.as_mut_ptr(), 4, null_mut()),
        );
        m.hit(
            name,
            R::InvalidJson,
            agentloop_json_canonicalize(BAD_JSON.as_ptr(), 1, buf.as_mut_ptr(), 4, &mut len),
        );
        m.hit(
            name,
            R::NoCanonicalForm,
            agentloop_json_canonicalize(
                NO_CANON.as_ptr(),
                NO_CANON.len(),
                buf.as_mut_ptr(),
                4,
                &mut len,
            ),
        );
        m.hit(
            name,
            R::InsufficientSize,
            agentloop_json_canonicalize(b"[1,2,3]".as_ptr(), 7, buf.as_mut_ptr(), 4, &mut len),
        );
        assert_eq!(len, 7);
        m.hit(
            name,
            R::Ok,
            agentloop_json_canonicalize(b"[1]".as_ptr(), 3, buf.as_mut_ptr(), 4, &mut len),
        );
    }
}

fn hashes(m: &mut Matrix) {
    let h = agentloop_hash::default();
    let mut buf = [0u8; 64];
    let mut len = 0;
    let mut out = agentloop_hash::default();
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        let n = "agentloop_hash_to_hex";
        m.hit(
            n,
            R::NullParameter,
            agentloop_hash_to_hex(null(), buf.as_mut_ptr(), 64, &mut len),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_hash_to_hex(&h, buf.as_mut_ptr(), 64, null_mut()),
        );
        m.hit(
            n,
            R::InsufficientSize,
            agentloop_hash_to_hex(&h, buf.as_mut_ptr(), 63, &mut len),
        );
        assert_eq!(len, 64);
        m.hit(
            n,
            R::Ok,
            agentloop_hash_to_hex(&h, buf.as_mut_ptr(), 64, &mut len),
        );
        let n = "agentloop_hash_from_hex";
        m.hit(
            n,
            R::NullParameter,
            agentloop_hash_from_hex(null(), 64, &mut out),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_hash_from_hex(buf.as_ptr(), 64, null_mut()),
        );
        m.hit(
            n,
            R::InvalidArgument,
            agentloop_hash_from_hex(b"zz".as_ptr(), 2, &mut out),
        );
        m.hit(
            n,
            R::Ok,
            agentloop_hash_from_hex(buf.as_ptr(), 64, &mut out),
        );
    }
}

/// The append calls of a chain, copying and borrowed, with the same arguments.
fn both_appends(
    m: &mut Matrix,
    chain: *mut agentloop_chain,
    kind: Bytes,
    payload: Bytes,
    expected: agentloop_result,
) {
    let mut buf = vec![0u8; 1 << 10];
    let (mut len, mut line) = (0, null());
    // SAFETY: the pointers are valid for their lengths, or NULL on purpose.
    unsafe {
        m.hit(
            "agentloop_chain_append",
            expected,
            agentloop_chain_append(
                chain,
                kind.0,
                kind.1,
                payload.0,
                payload.1,
                buf.as_mut_ptr(),
                buf.len(),
                &mut len,
            ),
        );
        m.hit(
            "agentloop_chain_append_borrowed",
            expected,
            agentloop_chain_append_borrowed(
                chain, kind.0, kind.1, payload.0, payload.1, &mut line, &mut len,
            ),
        );
    }
}

fn chains(m: &mut Matrix) {
    let chain = chain_new();
    let k = (b"k".as_ptr(), 1);
    let p = (b"1".as_ptr(), 1);
    both_appends(m, null_mut(), k, p, R::NullParameter);
    both_appends(m, chain, NULL1, p, R::NullParameter);
    both_appends(m, chain, k, NULL1, R::NullParameter);
    both_appends(m, chain, bytes(BAD_UTF8), p, R::InvalidUtf8);
    both_appends(m, chain, (b"".as_ptr(), 0), p, R::InvalidArgument);
    both_appends(m, chain, k, bytes(BAD_JSON), R::InvalidJson);
    both_appends(m, chain, k, bytes(NO_CANON), R::NoCanonicalForm);
    let long = format!("\"{}\"", "a".repeat(16 << 20));
    both_appends(m, chain, k, (long.as_ptr(), long.len()), R::RecordTooLong);
    let (mut len, mut line) = (0, null());
    let mut small = [0u8; 8];
    let mut hash = agentloop_hash::default();
    let mut count = 0;
    let mut resumed = null_mut();
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        m.hit(
            "agentloop_chain_append",
            R::NullParameter,
            agentloop_chain_append(chain, k.0, 1, p.0, 1, small.as_mut_ptr(), 8, null_mut()),
        );
        m.hit(
            "agentloop_chain_append",
            R::InsufficientSize,
            agentloop_chain_append(chain, k.0, 1, p.0, 1, small.as_mut_ptr(), 8, &mut len),
        );
        m.hit(
            "agentloop_chain_append_borrowed",
            R::NullParameter,
            agentloop_chain_append_borrowed(chain, k.0, 1, p.0, 1, null_mut(), &mut len),
        );
        m.hit(
            "agentloop_chain_append_borrowed",
            R::NullParameter,
            agentloop_chain_append_borrowed(chain, k.0, 1, p.0, 1, &mut line, null_mut()),
        );
        m.hit(
            "agentloop_chain_new",
            R::NullParameter,
            agentloop_chain_new(null_mut()),
        );
        let n = "agentloop_chain_head";
        m.hit(n, R::NullParameter, agentloop_chain_head(null(), &mut hash));
        m.hit(n, R::NullParameter, agentloop_chain_head(chain, null_mut()));
        m.hit(n, R::Ok, agentloop_chain_head(chain, &mut hash));
        let n = "agentloop_chain_count";
        m.hit(
            n,
            R::NullParameter,
            agentloop_chain_count(null(), &mut count),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_chain_count(chain, null_mut()),
        );
        m.hit(n, R::Ok, agentloop_chain_count(chain, &mut count));
        assert_eq!(count, 0, "every refusal left the chain as it was");
        let n = "agentloop_chain_resume";
        m.hit(
            n,
            R::NullParameter,
            agentloop_chain_resume(0, null(), &mut resumed),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_chain_resume(0, &hash, null_mut()),
        );
        m.hit(
            n,
            R::InvalidArgument,
            agentloop_chain_resume(MAX_SEQ + 1, &hash, &mut resumed),
        );
        m.hit(
            n,
            R::Ok,
            agentloop_chain_resume(MAX_SEQ, &hash, &mut resumed),
        );
        agentloop_chain_free(chain);
    }
    // The record with seq 2^53 − 1 is the last a chain writes.
    // SAFETY: a live chain and valid pointers.
    unsafe {
        m.hit(
            "agentloop_chain_append_borrowed",
            R::Ok,
            agentloop_chain_append_borrowed(resumed, k.0, 1, p.0, 1, &mut line, &mut len),
        );
    }
    both_appends(m, resumed, k, p, R::ChainExhausted);
    // SAFETY: freed once.
    unsafe { agentloop_chain_free(resumed) };
    let mut last = null_mut();
    // SAFETY: valid pointers.
    unsafe { assert_eq!(agentloop_chain_resume(MAX_SEQ, &hash, &mut last), R::Ok) };
    let mut buf = [0u8; 1024];
    // SAFETY: valid pointers.
    unsafe {
        m.hit(
            "agentloop_chain_append",
            R::Ok,
            agentloop_chain_append(last, k.0, 1, p.0, 1, buf.as_mut_ptr(), 1024, &mut len),
        );
    }
    both_appends(m, last, k, p, R::ChainExhausted);
    // SAFETY: freed once.
    unsafe { agentloop_chain_free(last) };
}

fn reports(m: &mut Matrix) {
    let good = transcript(2);
    let report = report_of(&good);
    let mut hash = agentloop_hash::default();
    let (mut has, mut n) = (false, 0u64);
    let (mut index, mut line, mut kind, mut detail) = (0i64, 0i64, 0u32, null());
    // SAFETY (this block): a live report and valid pointers, but for the NULLs on purpose.
    unsafe {
        for (name, f) in [
            (
                "agentloop_report_head",
                agentloop_report_head as unsafe extern "C" fn(_, _, _) -> _,
            ),
            ("agentloop_report_root", agentloop_report_root),
        ] {
            m.hit(name, R::NullParameter, f(null(), &mut hash, &mut has));
            m.hit(name, R::NullParameter, f(report, null_mut(), &mut has));
            m.hit(name, R::NullParameter, f(report, &mut hash, null_mut()));
            m.hit(name, R::Ok, f(report, &mut hash, &mut has));
        }
        let name = "agentloop_report_beyond_checkpoint";
        m.hit(
            name,
            R::NullParameter,
            agentloop_report_beyond_checkpoint(null(), &mut n, &mut has),
        );
        m.hit(
            name,
            R::NullParameter,
            agentloop_report_beyond_checkpoint(report, null_mut(), &mut has),
        );
        m.hit(
            name,
            R::NullParameter,
            agentloop_report_beyond_checkpoint(report, &mut n, null_mut()),
        );
        m.hit(
            name,
            R::Ok,
            agentloop_report_beyond_checkpoint(report, &mut n, &mut has),
        );
        let name = "agentloop_report_fault";
        m.hit(
            name,
            R::NullParameter,
            agentloop_report_fault(null(), 0, &mut index, &mut line, &mut kind, &mut detail),
        );
        m.hit(
            name,
            R::IndexOutOfRange,
            agentloop_report_fault(report, 0, &mut index, &mut line, &mut kind, &mut detail),
        );
        agentloop_report_free(report);
    }
}

fn verifying(m: &mut Matrix, dir: &Dir) {
    let good = transcript(2);
    let mut bad = verify_options();
    bad.seq0 = MAX_SEQ + 1;
    let mut out = null_mut();
    let (_, path) = dir.path("absent.jsonl");
    let checkpoint = {
        let mut buf = vec![0u8; 4096];
        let mut len = 0;
        // SAFETY: valid pointers.
        let r = unsafe {
            agentloop_transcript_checkpoint(
                good.as_ptr(),
                good.len(),
                null(),
                0,
                null(),
                0,
                buf.as_mut_ptr(),
                4096,
                &mut len,
            )
        };
        assert_eq!(r, R::Ok);
        buf.truncate(len);
        buf
    };
    let with_checkpoint = {
        let mut o = verify_options();
        o.has_checkpoint = true;
        o.checkpoint_count = 2;
        o
    };
    // SAFETY (this block): valid pointers, but for the NULLs on purpose; each report
    // made is freed.
    unsafe {
        let n = "agentloop_verify_options_init";
        m.hit(
            n,
            R::NullParameter,
            agentloop_verify_options_init(null_mut()),
        );
        let buffer = |t: Bytes, o, out| agentloop_transcript_verify_buffer(t.0, t.1, o, out);
        let (g, b) = (bytes(&good), &bad as *const _);
        let n = "agentloop_transcript_verify_buffer";
        m.hit(n, R::NullParameter, buffer(NULL1, null(), &mut out));
        m.hit(n, R::NullParameter, buffer(g, null(), null_mut()));
        m.hit(n, R::InvalidArgument, buffer(g, b, &mut out));
        let file = |p: Bytes, o, out| agentloop_transcript_verify_file(p.0, p.1, o, out);
        let p = bytes(path.as_bytes());
        let n = "agentloop_transcript_verify_file";
        m.hit(n, R::NullParameter, file(NULL1, null(), &mut out));
        m.hit(n, R::NullParameter, file(p, null(), null_mut()));
        m.hit(n, R::InvalidArgument, file((p.0, 0), null(), &mut out));
        m.hit(
            n,
            R::InvalidArgument,
            file(bytes(b"a\0b"), null(), &mut out),
        );
        m.hit(n, R::InvalidArgument, file(p, b, &mut out));
        m.hit(n, R::Ok, file(p, null(), &mut out));
        agentloop_report_free(out);

        let n = "agentloop_transcript_verify_checkpoints";
        let cps = [checkpoint.as_ptr()];
        let lens = [checkpoint.len()];
        /// The arguments of `agentloop_transcript_verify_checkpoints` a case varies.
        #[derive(Clone, Copy)]
        struct Args {
            transcript: *const u8,
            options: *const agentloop_verify_options,
            texts: *const *const u8,
            lens: *const usize,
            count: usize,
            keys: Bytes,
            origin: Bytes,
            out: *mut *mut agentloop_report,
        }
        let call = |a: Args| {
            agentloop_transcript_verify_checkpoints(
                a.transcript,
                good.len(),
                a.options,
                a.texts,
                a.lens,
                a.count,
                a.keys.0,
                a.keys.1,
                a.origin.0,
                a.origin.1,
                a.out,
            )
        };
        let base = Args {
            transcript: good.as_ptr(),
            options: null(),
            texts: cps.as_ptr(),
            lens: lens.as_ptr(),
            count: 1,
            keys: bytes(b""),
            origin: NONE,
            out: &mut out,
        };
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                transcript: null(),
                ..base
            }),
        );
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                texts: null(),
                ..base
            }),
        );
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                lens: null(),
                ..base
            }),
        );
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                out: null_mut(),
                ..base
            }),
        );
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                keys: (null(), 3),
                ..base
            }),
        );
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                keys: NONE,
                origin: (null(), 3),
                ..base
            }),
        );
        let null_text = [null::<u8>()];
        m.hit(
            n,
            R::NullParameter,
            call(Args {
                texts: null_text.as_ptr(),
                ..base
            }),
        );
        let options = &with_checkpoint;
        m.hit(n, R::InvalidArgument, call(Args { options, ..base }));
        let key = agentloop_core::note::SignerKey::from_seed("alice", &[7; 32])
            .unwrap()
            .verifier()
            .to_string();
        let keys = bytes(key.as_bytes());
        let no_checkpoints = Args {
            texts: null(),
            lens: null(),
            count: 0,
            keys,
            ..base
        };
        m.hit(n, R::InvalidArgument, call(no_checkpoints));
        let bad_cp = [b"not a checkpoint".as_ptr()];
        let bad_len = [16usize];
        let malformed = Args {
            texts: bad_cp.as_ptr(),
            lens: bad_len.as_ptr(),
            ..base
        };
        m.hit(n, R::AnchorMalformed, call(malformed));
        m.hit(
            n,
            R::AnchorMalformed,
            call(Args {
                keys: bytes(b"not a key"),
                ..base
            }),
        );
        let utf8_cp = [BAD_UTF8.as_ptr()];
        let one = [1usize];
        let utf8 = Args {
            texts: utf8_cp.as_ptr(),
            lens: one.as_ptr(),
            ..base
        };
        m.hit(n, R::InvalidUtf8, call(utf8));
        m.hit(n, R::Ok, call(base));
        agentloop_report_free(out);

        let mut v = null_mut();
        let n = "agentloop_verifier_new";
        m.hit(
            n,
            R::NullParameter,
            agentloop_verifier_new(null(), null_mut()),
        );
        m.hit(n, R::InvalidArgument, agentloop_verifier_new(&bad, &mut v));
        m.hit(n, R::Ok, agentloop_verifier_new(null(), &mut v));
        let n = "agentloop_verifier_push";
        m.hit(
            n,
            R::NullParameter,
            agentloop_verifier_push(null_mut(), good.as_ptr(), good.len()),
        );
        m.hit(n, R::NullParameter, agentloop_verifier_push(v, null(), 1));
        m.hit(
            n,
            R::Ok,
            agentloop_verifier_push(v, good.as_ptr(), good.len()),
        );
        let n = "agentloop_verifier_finish";
        m.hit(
            n,
            R::NullParameter,
            agentloop_verifier_finish(null_mut(), &mut out),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_verifier_finish(v, null_mut()),
        );
        m.hit(n, R::Ok, agentloop_verifier_finish(v, &mut out));
        agentloop_report_free(out);
        m.hit(
            "agentloop_verifier_push",
            R::InvalidState,
            agentloop_verifier_push(v, good.as_ptr(), good.len()),
        );
        agentloop_verifier_free(v);
    }
}

/// Opens a writer on `path` with `options` (NULL: defaults), as both open calls.
fn open(
    path: &str,
    verify: *const agentloop_verify_options,
    options: *const agentloop_writer_options,
) -> (agentloop_result, *mut agentloop_writer) {
    let mut w = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r =
        unsafe { agentloop_writer_open_with(path.as_ptr(), path.len(), verify, options, &mut w) };
    (r, w)
}

fn writer_options() -> agentloop_writer_options {
    let mut o = agentloop_writer_options::default();
    // SAFETY: a valid out pointer.
    assert_eq!(unsafe { agentloop_writer_options_init(&mut o) }, R::Ok);
    o
}

fn writers(m: &mut Matrix, dir: &Dir) {
    let (p, path) = dir.path("w.jsonl");
    let mut w = null_mut();
    let mut bad = verify_options();
    bad.seq0 = MAX_SEQ + 1;
    let mut bad_sync = writer_options();
    bad_sync.sync = 7;
    let mut no_wait = writer_options();
    no_wait.wait_for_lock = false;
    let (_, dir_path) = (&dir.0, dir.0.to_str().unwrap().to_string());
    // SAFETY (this block): valid pointers, but for the NULLs on purpose; each writer
    // opened is freed.
    unsafe {
        m.hit(
            "agentloop_writer_options_init",
            R::NullParameter,
            agentloop_writer_options_init(null_mut()),
        );
        for open_with in [false, true] {
            let call = |path: *const u8,
                        len: usize,
                        v: *const agentloop_verify_options,
                        o: *const agentloop_writer_options,
                        out: *mut *mut agentloop_writer| {
                if open_with {
                    (
                        "agentloop_writer_open_with",
                        agentloop_writer_open_with(path, len, v, o, out),
                    )
                } else {
                    (
                        "agentloop_writer_open",
                        agentloop_writer_open(path, len, v, out),
                    )
                }
            };
            let mut check =
                |expected, (name, got): (&str, agentloop_result)| m.hit(name, expected, got);
            check(R::NullParameter, call(null(), 1, null(), null(), &mut w));
            check(
                R::NullParameter,
                call(path.as_ptr(), path.len(), null(), null(), null_mut()),
            );
            check(
                R::InvalidArgument,
                call(path.as_ptr(), 0, null(), null(), &mut w),
            );
            check(
                R::InvalidArgument,
                call(b"a\0b".as_ptr(), 3, null(), null(), &mut w),
            );
            check(
                R::InvalidArgument,
                call(path.as_ptr(), path.len(), &bad, null(), &mut w),
            );
            check(
                R::Io,
                call(dir_path.as_ptr(), dir_path.len(), null(), null(), &mut w),
            );
            fs::write(&p, b"{\"not\":\"a record\"}\n").unwrap();
            check(
                R::DoesNotVerify,
                call(path.as_ptr(), path.len(), null(), null(), &mut w),
            );
            fs::write(&p, b"{\"torn").unwrap();
            check(
                R::TornTail,
                call(path.as_ptr(), path.len(), null(), null(), &mut w),
            );
            fs::remove_file(&p).unwrap();
        }
        m.hit(
            "agentloop_writer_open_with",
            R::InvalidArgument,
            agentloop_writer_open_with(path.as_ptr(), path.len(), null(), &bad_sync, &mut w),
        );
        let holder = File::create(&p).unwrap();
        holder.lock().unwrap();
        m.hit(
            "agentloop_writer_open_with",
            R::Locked,
            agentloop_writer_open_with(path.as_ptr(), path.len(), null(), &no_wait, &mut w),
        );
        holder.unlock().unwrap();

        let (r, w) = open(&path, null(), &no_wait);
        assert_eq!(r, R::Ok);
        let append = |w, kind: Bytes, payload: Bytes| {
            agentloop_writer_append(w, kind.0, kind.1, payload.0, payload.1)
        };
        let n = "agentloop_writer_append";
        let (k, one) = (bytes(b"k"), bytes(b"1"));
        m.hit(n, R::NullParameter, append(null_mut(), k, one));
        m.hit(n, R::NullParameter, append(w, NULL1, one));
        m.hit(n, R::NullParameter, append(w, k, NULL1));
        m.hit(n, R::InvalidUtf8, append(w, bytes(BAD_UTF8), one));
        m.hit(n, R::InvalidArgument, append(w, (k.0, 0), one));
        m.hit(n, R::InvalidJson, append(w, k, bytes(BAD_JSON)));
        m.hit(n, R::NoCanonicalForm, append(w, k, bytes(NO_CANON)));
        m.hit(n, R::Ok, append(w, k, one));
        holder.lock().unwrap();
        m.hit(n, R::Locked, append(w, k, one));
        m.hit(
            "agentloop_writer_refresh",
            R::Locked,
            agentloop_writer_refresh(w),
        );
        holder.unlock().unwrap();
        m.hit(
            "agentloop_writer_refresh",
            R::NullParameter,
            agentloop_writer_refresh(null_mut()),
        );
        m.hit(
            "agentloop_writer_refresh",
            R::Ok,
            agentloop_writer_refresh(w),
        );
        m.hit(
            "agentloop_writer_sync",
            R::NullParameter,
            agentloop_writer_sync(null_mut()),
        );
        m.hit("agentloop_writer_sync", R::Ok, agentloop_writer_sync(w));
        let mut hash = agentloop_hash::default();
        let mut count = 0;
        m.hit(
            "agentloop_writer_head",
            R::NullParameter,
            agentloop_writer_head(null(), &mut hash),
        );
        m.hit(
            "agentloop_writer_head",
            R::NullParameter,
            agentloop_writer_head(w, null_mut()),
        );
        m.hit(
            "agentloop_writer_head",
            R::Ok,
            agentloop_writer_head(w, &mut hash),
        );
        m.hit(
            "agentloop_writer_count",
            R::NullParameter,
            agentloop_writer_count(null(), &mut count),
        );
        m.hit(
            "agentloop_writer_count",
            R::NullParameter,
            agentloop_writer_count(w, null_mut()),
        );
        m.hit(
            "agentloop_writer_count",
            R::Ok,
            agentloop_writer_count(w, &mut count),
        );
        assert_eq!(count, 1);
        // Another writer's torn line, then its garbage: refused, file untouched.
        let before = fs::read(&p).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"{\"torn")
            .unwrap();
        m.hit(n, R::TornTail, append(w, k, one));
        m.hit(
            "agentloop_writer_refresh",
            R::TornTail,
            agentloop_writer_refresh(w),
        );
        fs::write(&p, [&before[..], b"{\"not\":\"a record\"}\n"].concat()).unwrap();
        m.hit(n, R::DoesNotVerify, append(w, k, one));
        m.hit(
            "agentloop_writer_refresh",
            R::DoesNotVerify,
            agentloop_writer_refresh(w),
        );
        agentloop_writer_free(w);

        // A line limit: a record past it is refused.
        fs::remove_file(&p).unwrap();
        let mut short = verify_options();
        short.max_line_bytes = 200;
        let (r, w) = open(&path, &short, null());
        assert_eq!(r, R::Ok);
        let long = format!("\"{}\"", "a".repeat(300));
        m.hit(n, R::RecordTooLong, append(w, k, bytes(long.as_bytes())));
        agentloop_writer_free(w);
        // The last seq a chain writes.
        fs::remove_file(&p).unwrap();
        let mut last = verify_options();
        last.seq0 = MAX_SEQ;
        let (r, w) = open(&path, &last, null());
        assert_eq!(r, R::Ok);
        m.hit(n, R::Ok, append(w, k, one));
        m.hit(n, R::ChainExhausted, append(w, k, one));
        agentloop_writer_free(w);
    }
}

fn repairing(m: &mut Matrix, dir: &Dir) {
    let (p, path) = dir.path("r.jsonl");
    let n = "agentloop_transcript_repair";
    let (mut offset, mut removed) = (0u64, 0u64);
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        m.hit(
            n,
            R::NullParameter,
            agentloop_transcript_repair(null(), 1, null(), &mut offset, &mut removed),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_transcript_repair(
                path.as_ptr(),
                path.len(),
                null(),
                null_mut(),
                &mut removed,
            ),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_transcript_repair(path.as_ptr(), path.len(), null(), &mut offset, null_mut()),
        );
        m.hit(
            n,
            R::InvalidArgument,
            agentloop_transcript_repair(path.as_ptr(), 0, null(), &mut offset, &mut removed),
        );
        m.hit(
            n,
            R::Io,
            agentloop_transcript_repair(
                path.as_ptr(),
                path.len(),
                null(),
                &mut offset,
                &mut removed,
            ),
        );
        let mut bad = verify_options();
        bad.seq0 = MAX_SEQ + 1;
        fs::write(&p, transcript(1)).unwrap();
        m.hit(
            n,
            R::InvalidArgument,
            agentloop_transcript_repair(path.as_ptr(), path.len(), &bad, &mut offset, &mut removed),
        );
        fs::write(&p, b"{\"not\":\"a record\"}\n{\"torn").unwrap();
        m.hit(
            n,
            R::DoesNotVerify,
            agentloop_transcript_repair(
                path.as_ptr(),
                path.len(),
                null(),
                &mut offset,
                &mut removed,
            ),
        );
        let good = transcript(1);
        fs::write(&p, [&good[..], b"{\"torn"].concat()).unwrap();
        fs::write(format!("{path}.torn-{}", good.len()), b"evidence").unwrap();
        m.hit(
            n,
            R::SideFileExists,
            agentloop_transcript_repair(
                path.as_ptr(),
                path.len(),
                null(),
                &mut offset,
                &mut removed,
            ),
        );
    }
}

fn proofs(m: &mut Matrix) {
    let (t3, first, other) = (transcript(3), transcript(2), transcript(4));
    let t = bytes(&t3);
    let mut buf = vec![0u8; 8192];
    let b = buf.as_mut_ptr();
    let mut len = 0;
    let l: *mut usize = &mut len;
    // SAFETY: `b` holds 8192 bytes and the call wrote `len` of them.
    let out = || unsafe { core::slice::from_raw_parts(b, *l).to_vec() };
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        let checkpoint = |t: Bytes, origin: Bytes, key: Bytes, cap: usize, l: *mut usize| {
            agentloop_transcript_checkpoint(t.0, t.1, origin.0, origin.1, key.0, key.1, b, cap, l)
        };
        let n = "agentloop_transcript_checkpoint";
        m.hit(n, R::NullParameter, checkpoint(NULL1, NONE, NONE, 8192, l));
        m.hit(n, R::NullParameter, checkpoint(t, NULL1, NONE, 8192, l));
        m.hit(n, R::NullParameter, checkpoint(t, NONE, NULL1, 8192, l));
        m.hit(
            n,
            R::NullParameter,
            checkpoint(t, NONE, NONE, 8192, null_mut()),
        );
        m.hit(
            n,
            R::DoesNotVerify,
            checkpoint(bytes(b"{}\n"), NONE, NONE, 8192, l),
        );
        m.hit(
            n,
            R::InvalidUtf8,
            checkpoint(t, bytes(BAD_UTF8), NONE, 8192, l),
        );
        m.hit(
            n,
            R::AnchorMalformed,
            checkpoint(t, bytes(b"{x"), NONE, 8192, l),
        );
        let key = bytes(b"PRIVATE+KEY+no");
        m.hit(n, R::AnchorMalformed, checkpoint(t, NONE, key, 8192, l));
        m.hit(n, R::InsufficientSize, checkpoint(t, NONE, NONE, 4, l));
        m.hit(n, R::Ok, checkpoint(bytes(&first), NONE, NONE, 8192, l));
        let old = out();
        let origin = bytes(b"other");
        m.hit(n, R::Ok, checkpoint(bytes(&other), origin, NONE, 8192, l));
        let foreign = out();

        for (n, inclusion) in [
            ("agentloop_transcript_prove_inclusion", true),
            ("agentloop_transcript_prove_consistency", false),
        ] {
            let prove = |t: Bytes, cp: Bytes, at: u64, cap: usize, l: *mut usize| {
                if inclusion {
                    agentloop_transcript_prove_inclusion(t.0, t.1, cp.0, cp.1, at, b, cap, l)
                } else {
                    agentloop_transcript_prove_consistency(t.0, t.1, cp.0, cp.1, at, b, cap, l)
                }
            };
            m.hit(n, R::NullParameter, prove(NULL1, NONE, 1, 8192, l));
            m.hit(n, R::NullParameter, prove(t, NULL1, 1, 8192, l));
            m.hit(n, R::NullParameter, prove(t, NONE, 1, 8192, null_mut()));
            m.hit(n, R::DoesNotVerify, prove(bytes(b"{}\n"), NONE, 1, 8192, l));
            let past_the_end = if inclusion { 3 } else { 4 };
            m.hit(n, R::IndexOutOfRange, prove(t, NONE, past_the_end, 8192, l));
            m.hit(n, R::InvalidUtf8, prove(t, bytes(BAD_UTF8), 1, 8192, l));
            m.hit(n, R::AnchorMalformed, prove(t, bytes(b"nope"), 1, 8192, l));
            m.hit(n, R::InvalidArgument, prove(t, bytes(&foreign), 1, 8192, l));
            m.hit(n, R::InsufficientSize, prove(t, NONE, 1, 4, l));
            if !inclusion {
                m.hit(n, R::InvalidArgument, prove(t, NONE, 0, 8192, l));
            }
        }
        let n = "agentloop_transcript_prove_inclusion";
        m.hit(
            n,
            R::Ok,
            agentloop_transcript_prove_inclusion(t.0, t.1, null(), 0, 1, b, 8192, l),
        );
        let inclusion = out();
        let n = "agentloop_transcript_prove_consistency";
        m.hit(
            n,
            R::Ok,
            agentloop_transcript_prove_consistency(t.0, t.1, null(), 0, 2, b, 8192, l),
        );
        let consistency = out();

        let verify = |p: Bytes, keys: Bytes, origin: Bytes| {
            agentloop_proof_verify_inclusion(p.0, p.1, keys.0, keys.1, origin.0, origin.1)
        };
        let n = "agentloop_proof_verify_inclusion";
        let p = bytes(&inclusion);
        m.hit(n, R::NullParameter, verify(NULL1, NONE, NONE));
        m.hit(n, R::NullParameter, verify(p, NULL1, NONE));
        m.hit(n, R::NullParameter, verify(p, NONE, NULL1));
        m.hit(n, R::InvalidUtf8, verify(bytes(BAD_UTF8), NONE, NONE));
        m.hit(n, R::AnchorMalformed, verify(bytes(b"nope"), NONE, NONE));
        m.hit(n, R::ProofInvalid, verify(p, NONE, bytes(b"elsewhere")));
        m.hit(n, R::Ok, verify(p, NONE, NONE));

        let verify = |c: Bytes, old: Bytes, keys: Bytes, origin: Bytes| {
            agentloop_proof_verify_consistency(
                c.0, c.1, old.0, old.1, keys.0, keys.1, origin.0, origin.1,
            )
        };
        let n = "agentloop_proof_verify_consistency";
        let (c, old) = (bytes(&consistency), bytes(&old));
        m.hit(n, R::NullParameter, verify(NULL1, old, NONE, NONE));
        m.hit(n, R::NullParameter, verify(c, NULL1, NONE, NONE));
        m.hit(n, R::NullParameter, verify(c, old, NULL1, NONE));
        m.hit(n, R::NullParameter, verify(c, old, NONE, NULL1));
        m.hit(n, R::InvalidUtf8, verify(bytes(BAD_UTF8), old, NONE, NONE));
        m.hit(n, R::AnchorMalformed, verify(c, bytes(b"nope"), NONE, NONE));
        m.hit(n, R::ProofInvalid, verify(c, bytes(&foreign), NONE, NONE));
        m.hit(n, R::Ok, verify(c, old, NONE, NONE));

        let explain_to =
            |p: Bytes, old: Bytes, keys: Bytes, origin: Bytes, out: (*mut u8, usize), l| {
                agentloop_proof_explain(
                    p.0, p.1, old.0, old.1, keys.0, keys.1, origin.0, origin.1, out.0, out.1, l,
                )
            };
        let explain = |p, old, keys, origin, l| explain_to(p, old, keys, origin, (b, 8192), l);
        let n = "agentloop_proof_explain";
        m.hit(n, R::NullParameter, explain(NULL1, NONE, NONE, NONE, l));
        m.hit(n, R::NullParameter, explain(p, NULL1, NONE, NONE, l));
        m.hit(n, R::NullParameter, explain(p, NONE, NULL1, NONE, l));
        m.hit(n, R::NullParameter, explain(p, NONE, NONE, NULL1, l));
        m.hit(
            n,
            R::NullParameter,
            explain(p, NONE, NONE, NONE, null_mut()),
        );
        m.hit(
            n,
            R::InvalidUtf8,
            explain(p, NONE, bytes(BAD_UTF8), NONE, l),
        );
        m.hit(
            n,
            R::InvalidUtf8,
            explain(p, NONE, NONE, bytes(BAD_UTF8), l),
        );
        let nope = bytes(b"nope");
        m.hit(
            n,
            R::InsufficientSize,
            explain_to(nope, NONE, NONE, NONE, (b, 2), l),
        );
        m.hit(
            n,
            R::Ok,
            explain_to(p, NONE, NONE, NONE, (null_mut(), 0), l),
        );
    }
}

fn schemas(m: &mut Matrix) {
    let text = bytes(br#"{"type":"integer"}"#);
    let mut s = null_mut();
    let mut buf = [0u8; 4];
    let b = buf.as_mut_ptr();
    let mut len = 0;
    let l: *mut usize = &mut len;
    let mut valid = false;
    let v: *mut bool = &mut valid;
    let refused = bytes(br#"{"type":5}"#);
    let (json, canon, one) = (bytes(BAD_JSON), bytes(NO_CANON), bytes(b"1"));
    // SAFETY (this block): valid pointers, but for the NULLs on purpose.
    unsafe {
        let new = |t: Bytes, out| agentloop_schema_new(t.0, t.1, out);
        let n = "agentloop_schema_new";
        m.hit(n, R::NullParameter, new(NULL1, &mut s));
        m.hit(n, R::NullParameter, new(text, null_mut()));
        m.hit(n, R::InvalidJson, new(json, &mut s));
        m.hit(n, R::NoCanonicalForm, new(canon, &mut s));
        m.hit(n, R::SchemaRefused, new(refused, &mut s));
        m.hit(n, R::Ok, new(text, &mut s));
        let explain = |t: Bytes, l| agentloop_schema_explain(t.0, t.1, b, 4, l);
        let n = "agentloop_schema_explain";
        m.hit(n, R::NullParameter, explain(NULL1, l));
        m.hit(n, R::NullParameter, explain(refused, null_mut()));
        m.hit(n, R::InvalidJson, explain(json, l));
        m.hit(n, R::NoCanonicalForm, explain(canon, l));
        m.hit(n, R::InsufficientSize, explain(refused, l));
        let validate = |s, value: Bytes, v| agentloop_schema_validate(s, value.0, value.1, v);
        let n = "agentloop_schema_validate";
        m.hit(n, R::NullParameter, validate(null(), one, v));
        m.hit(n, R::NullParameter, validate(s, NULL1, v));
        m.hit(n, R::NullParameter, validate(s, one, null_mut()));
        m.hit(n, R::InvalidJson, validate(s, json, v));
        m.hit(n, R::NoCanonicalForm, validate(s, canon, v));
        m.hit(n, R::Ok, validate(s, one, v));
        let violations =
            |s, value: Bytes, l| agentloop_schema_violations(s, value.0, value.1, b, 4, l);
        let n = "agentloop_schema_violations";
        m.hit(n, R::NullParameter, violations(null(), one, l));
        m.hit(n, R::NullParameter, violations(s, NULL1, l));
        m.hit(n, R::NullParameter, violations(s, one, null_mut()));
        m.hit(n, R::InvalidJson, violations(s, json, l));
        m.hit(n, R::NoCanonicalForm, violations(s, canon, l));
        m.hit(n, R::InsufficientSize, violations(s, bytes(b"\"x\""), l));
        agentloop_schema_free(s);

        let explain = |name: Bytes, schema: Bytes, l| {
            agentloop_tool_explain(name.0, name.1, schema.0, schema.1, b, 4, l)
        };
        let n = "agentloop_tool_explain";
        let (t, obj) = (bytes(b"t"), bytes(br#"{"type":"object"}"#));
        m.hit(n, R::NullParameter, explain(NULL1, obj, l));
        m.hit(n, R::NullParameter, explain(t, NULL1, l));
        m.hit(n, R::NullParameter, explain(t, obj, null_mut()));
        m.hit(n, R::InvalidUtf8, explain(bytes(BAD_UTF8), obj, l));
        m.hit(n, R::InvalidJson, explain(t, json, l));
        m.hit(n, R::NoCanonicalForm, explain(t, canon, l));
        m.hit(n, R::InsufficientSize, explain(bytes(b"not ok"), obj, l));
        m.hit(n, R::InsufficientSize, explain(t, refused, l));
    }
}

type Getter =
    unsafe extern "C" fn(*const agentloop_agent, *mut u8, usize, *mut usize) -> agentloop_result;

/// A getter of the agent with a caller buffer: NULL agent, NULL length, and `expected`
/// with a 1-byte buffer.
fn getter(m: &mut Matrix, name: &str, f: Getter, agent: &Agent, expected: agentloop_result) {
    let mut buf = [0u8; 1];
    let mut len = 0;
    // SAFETY: a live agent (or NULL on purpose) and valid outputs (or NULL on purpose).
    unsafe {
        m.hit(
            name,
            R::NullParameter,
            f(null(), buf.as_mut_ptr(), 1, &mut len),
        );
        m.hit(
            name,
            R::NullParameter,
            f(agent.0, buf.as_mut_ptr(), 1, null_mut()),
        );
        m.hit(name, expected, f(agent.0, buf.as_mut_ptr(), 1, &mut len));
    }
}

const CALL_GETTERS: [(&str, Getter); 4] = [
    ("agentloop_agent_call_json", agentloop_agent_call_json),
    ("agentloop_agent_call_name", agentloop_agent_call_name),
    ("agentloop_agent_call_id", agentloop_agent_call_id),
    (
        "agentloop_agent_call_arguments",
        agentloop_agent_call_arguments,
    ),
];

/// An agent with the tool "echo", polled: waiting for a model reply.
fn echo_agent() -> Agent {
    let agent = new_agent();
    let schema = br#"{"type":"object"}"#;
    let mut need = 0;
    // SAFETY: a live agent and valid inputs.
    unsafe {
        assert_eq!(
            agentloop_agent_add_tool(
                agent.0,
                b"echo".as_ptr(),
                4,
                b"".as_ptr(),
                0,
                schema.as_ptr(),
                schema.len(),
                0
            ),
            R::Ok
        );
        assert_eq!(agentloop_agent_poll(agent.0, &mut need), R::Ok);
    }
    agent
}

/// Feeds a reply asking for `n` calls of echo, then polls (every call at once, or one
/// at a time).
fn ask_calls(agent: &Agent, n: usize, batch: bool) -> u32 {
    let calls = format!(
        "[{}]",
        vec![r#"{"name":"echo","arguments":{}}"#; n].join(",")
    );
    let mut need = 0;
    // SAFETY: a live agent and valid inputs.
    unsafe {
        assert_eq!(
            agentloop_agent_feed_reply(
                agent.0,
                b"".as_ptr(),
                0,
                calls.as_ptr(),
                calls.len(),
                false,
                0
            ),
            R::Ok
        );
        let parallel = if batch { u64::MAX } else { 1 };
        assert_eq!(agentloop_agent_set_parallel(agent.0, parallel), R::Ok);
        assert_eq!(agentloop_agent_poll(agent.0, &mut need), R::Ok);
    }
    need
}

fn agents(m: &mut Matrix) {
    let mut out = null_mut();
    let mut need = 0;
    let schema = br#"{"type":"object"}"#;
    // SAFETY (this block): valid pointers, but for the NULLs on purpose; every agent
    // made is freed by its guard.
    unsafe {
        let new = |task: Bytes, budgets: *const agentloop_budgets, seq0, out| {
            agentloop_agent_new(task.0, task.1, budgets, seq0, out)
        };
        let t = bytes(b"t");
        let n = "agentloop_agent_new";
        m.hit(n, R::NullParameter, new(NULL1, null(), 0, &mut out));
        m.hit(n, R::NullParameter, new(t, null(), 0, null_mut()));
        m.hit(n, R::InvalidUtf8, new(bytes(BAD_UTF8), null(), 0, &mut out));
        m.hit(n, R::InvalidArgument, new(t, null(), MAX_SEQ + 1, &mut out));
        let mut budgets = agentloop_budgets::default();
        m.hit(
            "agentloop_budgets_init",
            R::NullParameter,
            agentloop_budgets_init(null_mut()),
        );
        m.hit(
            "agentloop_budgets_init",
            R::Ok,
            agentloop_budgets_init(&mut budgets),
        );
        budgets.has_max_steps = true;
        budgets.max_steps = MAX_SEQ + 1;
        m.hit(n, R::InvalidArgument, new(t, &budgets, 0, &mut out));
        budgets.has_max_steps = false;
        budgets.stop_sentinel = BAD_UTF8.as_ptr();
        budgets.stop_sentinel_len = 1;
        m.hit(n, R::InvalidUtf8, new(t, &budgets, 0, &mut out));
        budgets.stop_sentinel = null();
        m.hit(n, R::NullParameter, new(t, &budgets, 0, &mut out));

        let agent = new_agent();
        let n = "agentloop_agent_add_tool";
        let add = |a: *mut agentloop_agent, name: Bytes, desc: Bytes, schema: Bytes, limit: u64| {
            agentloop_agent_add_tool(a, name.0, name.1, desc.0, desc.1, schema.0, schema.1, limit)
        };
        let (e, d, s) = (bytes(b"e"), bytes(b""), bytes(schema));
        m.hit(n, R::NullParameter, add(null_mut(), e, d, s, 0));
        m.hit(n, R::NullParameter, add(agent.0, NULL1, d, s, 0));
        m.hit(n, R::NullParameter, add(agent.0, e, NULL1, s, 0));
        m.hit(n, R::NullParameter, add(agent.0, e, d, NULL1, 0));
        m.hit(n, R::InvalidUtf8, add(agent.0, bytes(BAD_UTF8), d, s, 0));
        m.hit(n, R::InvalidUtf8, add(agent.0, e, bytes(BAD_UTF8), s, 0));
        m.hit(n, R::InvalidJson, add(agent.0, e, d, bytes(BAD_JSON), 0));
        m.hit(
            n,
            R::NoCanonicalForm,
            add(agent.0, e, d, bytes(NO_CANON), 0),
        );
        m.hit(
            n,
            R::NotProviderSafe,
            add(agent.0, (b"not ok".as_ptr(), 6), d, s, 0),
        );
        let refused = br#"{"type":"object","minProperties":-1}"#;
        m.hit(n, R::SchemaRefused, add(agent.0, e, d, bytes(refused), 0));
        m.hit(n, R::InvalidArgument, add(agent.0, e, d, s, MAX_SEQ + 1));
        m.hit(n, R::Ok, add(agent.0, e, d, s, 0));
        m.hit(n, R::InvalidArgument, add(agent.0, e, d, s, 0));

        let idempotent = |a, name: Bytes| agentloop_agent_set_idempotent(a, name.0, name.1);
        let n = "agentloop_agent_set_idempotent";
        m.hit(n, R::NullParameter, idempotent(null_mut(), e));
        m.hit(n, R::NullParameter, idempotent(agent.0, NULL1));
        m.hit(n, R::InvalidUtf8, idempotent(agent.0, bytes(BAD_UTF8)));
        m.hit(n, R::InvalidArgument, idempotent(agent.0, bytes(b"nosuch")));
        m.hit(n, R::Ok, idempotent(agent.0, e));

        let set_setup = |a, json: Bytes| agentloop_agent_set_setup(a, json.0, json.1);
        let n = "agentloop_agent_set_setup";
        let tool = |idempotent: bool| agentloop_core::vocabulary::OfferedTool {
            name: "e".into(),
            description: String::new(),
            schema: agentloop_core::json::parse(schema).unwrap(),
            idempotent,
            source: agentloop_core::vocabulary::ToolSource::Host,
        };
        let setup_json = |idempotent: bool| {
            let setup = agentloop_core::vocabulary::Setup {
                tools: vec![tool(idempotent)],
                ..Default::default()
            };
            agentloop_core::jcs::to_vec(&setup.encode()).unwrap()
        };
        let (offered, other) = (setup_json(true), setup_json(false));
        m.hit(n, R::NullParameter, set_setup(null_mut(), bytes(&offered)));
        m.hit(n, R::NullParameter, set_setup(agent.0, NULL1));
        m.hit(n, R::InvalidJson, set_setup(agent.0, bytes(BAD_JSON)));
        m.hit(n, R::NoCanonicalForm, set_setup(agent.0, bytes(NO_CANON)));
        m.hit(n, R::InvalidArgument, set_setup(agent.0, bytes(&other)));
        m.hit(n, R::Ok, set_setup(agent.0, bytes(&offered)));

        // Before the first poll: no reply asked for, no outcome.
        getter(
            m,
            "agentloop_agent_messages_json",
            agentloop_agent_messages_json,
            &agent,
            R::InvalidState,
        );
        getter(
            m,
            "agentloop_agent_manifest_json",
            agentloop_agent_manifest_json,
            &agent,
            R::InsufficientSize,
        );
        let n = "agentloop_agent_outcome";
        let mut reason = 0;
        m.hit(
            n,
            R::NullParameter,
            agentloop_agent_outcome(
                null(),
                &mut reason,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
            ),
        );
        m.hit(
            n,
            R::InvalidState,
            agentloop_agent_outcome(
                agent.0,
                &mut reason,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
            ),
        );
        getter(
            m,
            "agentloop_agent_stop_error",
            agentloop_agent_stop_error,
            &agent,
            R::InvalidState,
        );

        let n = "agentloop_agent_poll";
        m.hit(
            n,
            R::NullParameter,
            agentloop_agent_poll(null_mut(), &mut need),
        );
        m.hit(
            n,
            R::NullParameter,
            agentloop_agent_poll(agent.0, null_mut()),
        );
        let n = "agentloop_agent_set_parallel";
        m.hit(
            n,
            R::NullParameter,
            agentloop_agent_set_parallel(null_mut(), u64::MAX),
        );
        m.hit(n, R::Ok, agentloop_agent_set_parallel(agent.0, u64::MAX));
        m.hit(
            "agentloop_agent_poll",
            R::Ok,
            agentloop_agent_poll(agent.0, &mut need),
        );
        getter(
            m,
            "agentloop_agent_messages_json",
            agentloop_agent_messages_json,
            &agent,
            R::InsufficientSize,
        );
        m.hit(
            "agentloop_agent_add_tool",
            R::InvalidState,
            add(agent.0, bytes(b"f"), d, s, 0),
        );
        m.hit(
            "agentloop_agent_set_idempotent",
            R::InvalidState,
            idempotent(agent.0, e),
        );
        m.hit(
            "agentloop_agent_set_setup",
            R::InvalidState,
            set_setup(agent.0, bytes(&offered)),
        );
        m.hit(
            "agentloop_agent_cancel",
            R::NullParameter,
            agentloop_agent_cancel(null_mut()),
        );

        // Waiting for a reply: the refusals of each feed.
        let n = "agentloop_agent_feed_reply";
        let feed = |a: *mut agentloop_agent, text: Bytes, calls: Bytes| {
            agentloop_agent_feed_reply(a, text.0, text.1, calls.0, calls.1, false, 0)
        };
        m.hit(n, R::NullParameter, feed(null_mut(), e, NONE));
        m.hit(n, R::NullParameter, feed(agent.0, NULL1, NONE));
        m.hit(n, R::NullParameter, feed(agent.0, e, NULL1));
        m.hit(n, R::InvalidUtf8, feed(agent.0, bytes(BAD_UTF8), NONE));
        m.hit(n, R::InvalidJson, feed(agent.0, e, bytes(BAD_JSON)));
        m.hit(n, R::NoCanonicalForm, feed(agent.0, e, bytes(NO_CANON)));
        m.hit(n, R::InvalidArgument, feed(agent.0, e, bytes(b"[1]")));
        let model_error = |a, text: Bytes| agentloop_agent_feed_model_error(a, text.0, text.1);
        let n = "agentloop_agent_feed_model_error";
        m.hit(n, R::NullParameter, model_error(null_mut(), e));
        m.hit(n, R::NullParameter, model_error(agent.0, NULL1));
        m.hit(n, R::InvalidUtf8, model_error(agent.0, bytes(BAD_UTF8)));
        let response = |a, provider, status, body: Bytes, secret: Bytes| {
            agentloop_agent_feed_response(a, provider, status, body.0, body.1, secret.0, secret.1)
        };
        let n = "agentloop_agent_feed_response";
        m.hit(n, R::NullParameter, response(null_mut(), 1, 200, e, NONE));
        m.hit(n, R::NullParameter, response(agent.0, 1, 200, NULL1, NONE));
        m.hit(n, R::InvalidArgument, response(agent.0, 99, 200, e, NONE));
        m.hit(n, R::InvalidArgument, response(agent.0, 1, 0, e, NONE));
        m.hit(n, R::NullParameter, response(agent.0, 1, 200, e, NULL1));
        m.hit(
            n,
            R::InvalidUtf8,
            response(agent.0, 1, 200, e, bytes(BAD_UTF8)),
        );
        let exchange = |a, provider, sent: Bytes, status, body: Bytes, secret: Bytes| {
            agentloop_agent_feed_exchange(
                a, provider, sent.0, sent.1, status, body.0, body.1, secret.0, secret.1,
            )
        };
        let n = "agentloop_agent_feed_exchange";
        m.hit(
            n,
            R::NullParameter,
            exchange(null_mut(), 1, e, 200, e, NONE),
        );
        m.hit(
            n,
            R::NullParameter,
            exchange(agent.0, 1, NULL1, 200, e, NONE),
        );
        m.hit(
            n,
            R::NullParameter,
            exchange(agent.0, 1, e, 200, NULL1, NONE),
        );
        m.hit(n, R::NullParameter, exchange(agent.0, 1, e, 200, e, NULL1));
        m.hit(
            n,
            R::InvalidArgument,
            exchange(agent.0, 99, e, 200, e, NONE),
        );
        m.hit(n, R::InvalidArgument, exchange(agent.0, 1, e, 0, e, NONE));
        m.hit(
            n,
            R::InvalidUtf8,
            exchange(agent.0, 1, e, 200, e, bytes(BAD_UTF8)),
        );
        let n = "agentloop_agent_request";
        let mut buf = [0u8; 1];
        let b = buf.as_mut_ptr();
        let mut len = 0;
        let model = br#"{"model":"m"}"#;
        let request = |a: *mut agentloop_agent, p: u32, o: Bytes, l: *mut usize| {
            agentloop_agent_request(a, p, o.0, o.1, b, 1, l)
        };
        let mo = bytes(model);
        m.hit(n, R::NullParameter, request(null_mut(), 1, mo, &mut len));
        m.hit(n, R::NullParameter, request(agent.0, 1, NULL1, &mut len));
        m.hit(n, R::NullParameter, request(agent.0, 1, mo, null_mut()));
        m.hit(n, R::InvalidArgument, request(agent.0, 99, mo, &mut len));
        m.hit(
            n,
            R::InvalidJson,
            request(agent.0, 1, bytes(BAD_JSON), &mut len),
        );
        m.hit(
            n,
            R::NoCanonicalForm,
            request(agent.0, 1, bytes(NO_CANON), &mut len),
        );
        m.hit(n, R::InsufficientSize, request(agent.0, 1, mo, &mut len));
        m.hit(
            n,
            R::RequestRefused,
            request(agent.0, 1, bytes(b"{}"), &mut len),
        );
        getter(
            m,
            "agentloop_agent_request_error",
            agentloop_agent_request_error,
            &agent,
            R::InsufficientSize,
        );

        // No call asked for: the call getters, the tool feeds and take_calls refuse.
        for (name, f) in CALL_GETTERS {
            getter(m, name, f, &agent, R::InvalidState);
        }
        getter(
            m,
            "agentloop_agent_take_calls",
            agentloop_agent_take_calls,
            &agent,
            R::InvalidState,
        );
        let one = bytes(b"1");
        let tool_result = |a, value: Bytes| agentloop_agent_feed_tool_result(a, value.0, value.1);
        let n = "agentloop_agent_feed_tool_result";
        m.hit(n, R::NullParameter, tool_result(null_mut(), one));
        m.hit(n, R::InvalidState, tool_result(agent.0, one));
        let tool_error = |a, text: Bytes| agentloop_agent_feed_tool_error(a, text.0, text.1);
        let n = "agentloop_agent_feed_tool_error";
        m.hit(n, R::NullParameter, tool_error(null_mut(), e));
        m.hit(n, R::NullParameter, tool_error(agent.0, NULL1));
        m.hit(n, R::InvalidState, tool_error(agent.0, e));
        for (n, f) in [
            (
                "agentloop_agent_feed_tool_result_for",
                agentloop_agent_feed_tool_result_for as unsafe extern "C" fn(_, _, _, _, _) -> _,
            ),
            (
                "agentloop_agent_feed_tool_error_for",
                agentloop_agent_feed_tool_error_for,
            ),
        ] {
            m.hit(n, R::NullParameter, f(null_mut(), e.0, 1, b"1".as_ptr(), 1));
            m.hit(n, R::InvalidState, f(agent.0, e.0, 1, b"1".as_ptr(), 1));
        }
    }

    // A call asked for, one at a time.
    let agent = echo_agent();
    assert_eq!(
        ask_calls(&agent, 1, false),
        agentloop_need::ToolResult as u32
    );
    for (name, f) in CALL_GETTERS {
        getter(m, name, f, &agent, R::InsufficientSize);
    }
    // SAFETY (this block): a live agent and valid inputs.
    unsafe {
        m.hit(
            "agentloop_agent_feed_reply",
            R::InvalidState,
            agentloop_agent_feed_reply(agent.0, b"x".as_ptr(), 1, null(), 0, false, 0),
        );
        m.hit(
            "agentloop_agent_feed_model_error",
            R::InvalidState,
            agentloop_agent_feed_model_error(agent.0, b"x".as_ptr(), 1),
        );
        m.hit(
            "agentloop_agent_feed_response",
            R::InvalidState,
            agentloop_agent_feed_response(agent.0, 1, 200, b"{}".as_ptr(), 2, null(), 0),
        );
        m.hit(
            "agentloop_agent_feed_exchange",
            R::InvalidState,
            agentloop_agent_feed_exchange(
                agent.0,
                1,
                b"{}".as_ptr(),
                2,
                200,
                b"{}".as_ptr(),
                2,
                null(),
                0,
            ),
        );
        let mut len = 0;
        m.hit(
            "agentloop_agent_request",
            R::InvalidState,
            agentloop_agent_request(
                agent.0,
                1,
                br#"{"model":"m"}"#.as_ptr(),
                13,
                null_mut(),
                0,
                &mut len,
            ),
        );
        m.hit(
            "agentloop_agent_feed_tool_result",
            R::InvalidJson,
            agentloop_agent_feed_tool_result(agent.0, BAD_JSON.as_ptr(), 1),
        );
        m.hit(
            "agentloop_agent_feed_tool_result",
            R::NullParameter,
            agentloop_agent_feed_tool_result(agent.0, null(), 1),
        );
        m.hit(
            "agentloop_agent_feed_tool_error",
            R::NullParameter,
            agentloop_agent_feed_tool_error(agent.0, null(), 1),
        );
        m.hit(
            "agentloop_agent_feed_tool_error",
            R::InvalidUtf8,
            agentloop_agent_feed_tool_error(agent.0, BAD_UTF8.as_ptr(), 1),
        );
        m.hit(
            "agentloop_agent_feed_tool_result",
            R::Ok,
            agentloop_agent_feed_tool_result(agent.0, b"1".as_ptr(), 1),
        );
    }

    // A batch of two calls.
    let agent = echo_agent();
    assert_eq!(
        ask_calls(&agent, 2, true),
        agentloop_need::ToolResults as u32
    );
    getter(
        m,
        "agentloop_agent_take_calls",
        agentloop_agent_take_calls,
        &agent,
        R::InsufficientSize,
    );
    let mut len = 0;
    let mut calls = vec![0u8; 4096];
    // SAFETY (this block): a live agent and valid inputs.
    unsafe {
        assert_eq!(
            agentloop_agent_take_calls(agent.0, calls.as_mut_ptr(), calls.len(), &mut len),
            R::Ok
        );
        let text = String::from_utf8(calls[..len].to_vec()).unwrap();
        let at = text.find("\"id\":\"").unwrap() + 6;
        let id = &text[at..at + text[at..].find('"').unwrap()];
        for (n, f) in [
            (
                "agentloop_agent_feed_tool_result_for",
                agentloop_agent_feed_tool_result_for as unsafe extern "C" fn(_, _, _, _, _) -> _,
            ),
            (
                "agentloop_agent_feed_tool_error_for",
                agentloop_agent_feed_tool_error_for,
            ),
        ] {
            m.hit(
                n,
                R::InvalidUtf8,
                f(agent.0, BAD_UTF8.as_ptr(), 1, b"1".as_ptr(), 1),
            );
            m.hit(
                n,
                R::InvalidArgument,
                f(agent.0, b"nosuch".as_ptr(), 6, b"1".as_ptr(), 1),
            );
        }
        let n = "agentloop_agent_feed_tool_result_for";
        m.hit(
            n,
            R::InvalidJson,
            agentloop_agent_feed_tool_result_for(
                agent.0,
                id.as_ptr(),
                id.len(),
                BAD_JSON.as_ptr(),
                1,
            ),
        );
        for (n, f) in [
            (
                "agentloop_agent_feed_tool_result_for",
                agentloop_agent_feed_tool_result_for as unsafe extern "C" fn(_, _, _, _, _) -> _,
            ),
            (
                "agentloop_agent_feed_tool_error_for",
                agentloop_agent_feed_tool_error_for,
            ),
        ] {
            m.hit(n, R::NullParameter, f(agent.0, null(), 1, b"1".as_ptr(), 1));
            m.hit(
                n,
                R::NullParameter,
                f(agent.0, id.as_ptr(), id.len(), null(), 1),
            );
        }
        m.hit(
            "agentloop_agent_feed_tool_error_for",
            R::InvalidUtf8,
            agentloop_agent_feed_tool_error_for(
                agent.0,
                id.as_ptr(),
                id.len(),
                BAD_UTF8.as_ptr(),
                1,
            ),
        );
        m.hit(
            n,
            R::Ok,
            agentloop_agent_feed_tool_result_for(agent.0, id.as_ptr(), id.len(), b"1".as_ptr(), 1),
        );
        m.hit(
            n,
            R::InvalidArgument,
            agentloop_agent_feed_tool_result_for(agent.0, id.as_ptr(), id.len(), b"1".as_ptr(), 1),
        );
    }

    // Ended: outcome and stop error; feeds refused.
    let agent = waiting_agent();
    // SAFETY (this block): a live agent and valid inputs.
    unsafe {
        assert_eq!(
            agentloop_agent_feed_model_error(agent.0, b"down".as_ptr(), 4),
            R::Ok
        );
        let mut need = 0;
        assert_eq!(agentloop_agent_poll(agent.0, &mut need), R::Ok);
        let mut reason = 0;
        m.hit(
            "agentloop_agent_outcome",
            R::Ok,
            agentloop_agent_outcome(
                agent.0,
                &mut reason,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
            ),
        );
        m.hit(
            "agentloop_agent_cancel",
            R::Ok,
            agentloop_agent_cancel(agent.0),
        );
    }
    getter(
        m,
        "agentloop_agent_stop_error",
        agentloop_agent_stop_error,
        &agent,
        R::InsufficientSize,
    );

    records(m);
    resuming(m);
}

/// NULL before state: every function whose object has a state that can refuse the call
/// is given NULL for each pointer it needs while its object is in such a state, and
/// must say `NULL_PARAMETER` (the header's rule), not `INVALID_STATE`.
/// [`every_documented_result_code_is_produced`] checks that no such pointer is left
/// out.
fn null_before_state(m: &mut Matrix) {
    let e = b"e".as_ptr();
    let options = br#"{"model":"m"}"#;
    let mut buf = [0u8; 1];
    let mut len = 0usize;
    let (b, l) = (buf.as_mut_ptr(), &mut len as *mut usize);

    // Not polled yet: no conversation, no outcome.
    let fresh = new_agent();
    let getters: [(&str, Getter); 2] = [
        (
            "agentloop_agent_messages_json",
            agentloop_agent_messages_json,
        ),
        ("agentloop_agent_stop_error", agentloop_agent_stop_error),
    ];
    // Waiting for a model reply: no call to run, no batch, nothing to set up.
    let replying = echo_agent();
    // Waiting for a tool result: no reply asked for.
    let running = echo_agent();
    assert_eq!(
        ask_calls(&running, 1, false),
        agentloop_need::ToolResult as u32
    );
    // SAFETY (this block): live objects, and NULL on purpose for one pointer a call.
    unsafe {
        for (n, f) in getters {
            m.null_first(n, "out_len", f(fresh.0, b, 1, null_mut()));
        }
        for (n, f) in CALL_GETTERS.into_iter().chain([(
            "agentloop_agent_take_calls",
            agentloop_agent_take_calls as Getter,
        )]) {
            m.null_first(n, "out_len", f(replying.0, b, 1, null_mut()));
        }
        let a = replying.0;
        let n = "agentloop_agent_add_tool";
        let s = (br#"{"type":"object"}"#.as_ptr(), 17);
        let add = |name: *const u8, desc: *const u8, schema: *const u8| {
            agentloop_agent_add_tool(a, name, 1, desc, 1, schema, s.1, 0)
        };
        m.null_first(n, "name_ptr", add(null(), e, s.0));
        m.null_first(n, "description_ptr", add(e, null(), s.0));
        m.null_first(n, "schema_ptr", add(e, e, null()));
        let n = "agentloop_agent_set_idempotent";
        m.null_first(n, "name_ptr", agentloop_agent_set_idempotent(a, null(), 1));
        let n = "agentloop_agent_set_setup";
        m.null_first(n, "json_ptr", agentloop_agent_set_setup(a, null(), 1));
        let n = "agentloop_agent_resume";
        let r = agentloop_agent_resume(a, null(), null(), 1, null_mut(), null_mut());
        m.null_first(n, "transcript_ptr", r);
        let n = "agentloop_agent_feed_tool_result";
        m.null_first(n, "ptr", agentloop_agent_feed_tool_result(a, null(), 1));
        let n = "agentloop_agent_feed_tool_error";
        m.null_first(n, "ptr", agentloop_agent_feed_tool_error(a, null(), 1));
        for (n, f) in [
            (
                "agentloop_agent_feed_tool_result_for",
                agentloop_agent_feed_tool_result_for as unsafe extern "C" fn(_, _, _, _, _) -> _,
            ),
            (
                "agentloop_agent_feed_tool_error_for",
                agentloop_agent_feed_tool_error_for,
            ),
        ] {
            m.null_first(n, "id_ptr", f(a, null(), 1, b"1".as_ptr(), 1));
            m.null_first(n, "ptr", f(a, e, 1, null(), 1));
        }

        let a = running.0;
        let n = "agentloop_agent_feed_reply";
        let feed = |text: *const u8, calls: *const u8| {
            agentloop_agent_feed_reply(a, text, 1, calls, 2, false, 0)
        };
        m.null_first(n, "text_ptr", feed(null(), b"[]".as_ptr()));
        m.null_first(n, "calls_ptr", feed(e, null()));
        let n = "agentloop_agent_feed_model_error";
        m.null_first(n, "ptr", agentloop_agent_feed_model_error(a, null(), 1));
        let n = "agentloop_agent_feed_response";
        let r = agentloop_agent_feed_response(a, 1, 200, null(), 1, null(), 0);
        m.null_first(n, "body_ptr", r);
        let r = agentloop_agent_feed_response(a, 1, 200, e, 1, null(), 1);
        m.null_first(n, "secret_ptr", r);
        let n = "agentloop_agent_feed_exchange";
        let r = agentloop_agent_feed_exchange(a, 1, null(), 1, 200, e, 1, null(), 0);
        m.null_first(n, "sent_ptr", r);
        let r = agentloop_agent_feed_exchange(a, 1, e, 1, 200, null(), 1, null(), 0);
        m.null_first(n, "body_ptr", r);
        let r = agentloop_agent_feed_exchange(a, 1, e, 1, 200, e, 1, null(), 1);
        m.null_first(n, "secret_ptr", r);
        let n = "agentloop_agent_request";
        let r = agentloop_agent_request(a, 1, null(), 1, b, 1, l);
        m.null_first(n, "options_ptr", r);
        let r = agentloop_agent_request(a, 1, options.as_ptr(), 13, b, 1, null_mut());
        m.null_first(n, "out_len", r);

        // A finished verifier refuses pushes.
        let (mut v, mut report) = (null_mut(), null_mut());
        assert_eq!(agentloop_verifier_new(null(), &mut v), R::Ok);
        assert_eq!(agentloop_verifier_finish(v, &mut report), R::Ok);
        agentloop_report_free(report);
        let n = "agentloop_verifier_push";
        m.null_first(n, "ptr", agentloop_verifier_push(v, null(), 1));
        agentloop_verifier_free(v);
    }
}

/// The pointers [`null_before_state`] must cover: every one a function that documents
/// `INVALID_STATE` needs, but its object (the first parameter), a caller buffer and
/// those in [`MAY_BE_NULL`] — unless its `INVALID_STATE` is [`UNREACHABLE`].
fn needs_null_before_state() -> Vec<(String, String)> {
    let header = fs::read_to_string(root().join("include/agentloop.h")).unwrap();
    let stateful: Vec<String> = documented()
        .into_iter()
        .filter(|(name, codes)| {
            codes.contains("INVALID_STATE")
                && !UNREACHABLE
                    .iter()
                    .any(|(n, c, _)| n == name && *c == "INVALID_STATE")
        })
        .map(|(name, _)| name)
        .collect();
    let mut needed = Vec::new();
    for f in declared_functions(&header) {
        if !stateful.contains(&f.name) {
            continue;
        }
        for (ty, param) in parameters(&f.params).into_iter().skip(1) {
            let optional =
                param == "out_buf" || MAY_BE_NULL.iter().any(|(n, p)| *n == f.name && *p == param);
            if ty.contains('*') && !optional {
                needed.push((f.name.clone(), param));
            }
        }
    }
    needed
}

fn records(m: &mut Matrix) {
    let agent = waiting_agent();
    let chain = chain_new();
    let mut buf = [0u8; 8];
    let (mut len, mut has, mut line) = (0, false, null());
    let other = {
        let mut c = null_mut();
        // SAFETY: valid pointers.
        unsafe {
            assert_eq!(
                agentloop_chain_resume(5, &agentloop_hash::default(), &mut c),
                R::Ok
            )
        };
        c
    };
    // SAFETY (this block): live objects and valid outputs, but for the NULLs on purpose.
    unsafe {
        let (l, h): (*mut usize, *mut bool) = (&mut len, &mut has);
        let b = buf.as_mut_ptr();
        let take = |a, c, l, h| agentloop_agent_take_record(a, c, b, 8, l, h);
        let n = "agentloop_agent_take_record";
        m.hit(n, R::NullParameter, take(null_mut(), chain, l, h));
        m.hit(n, R::NullParameter, take(agent.0, null_mut(), l, h));
        m.hit(n, R::NullParameter, take(agent.0, chain, null_mut(), h));
        m.hit(n, R::NullParameter, take(agent.0, chain, l, null_mut()));
        m.hit(n, R::InsufficientSize, take(agent.0, chain, l, h));
        m.hit(n, R::InvalidArgument, take(agent.0, other, l, h));
        let line_p: *mut *const u8 = &mut line;
        let borrowed = |a, c, line, l, h| agentloop_agent_take_record_borrowed(a, c, line, l, h);
        let n = "agentloop_agent_take_record_borrowed";
        m.hit(
            n,
            R::NullParameter,
            borrowed(null_mut(), chain, line_p, l, h),
        );
        m.hit(
            n,
            R::NullParameter,
            borrowed(agent.0, null_mut(), line_p, l, h),
        );
        m.hit(
            n,
            R::NullParameter,
            borrowed(agent.0, chain, null_mut(), l, h),
        );
        m.hit(
            n,
            R::NullParameter,
            borrowed(agent.0, chain, line_p, null_mut(), h),
        );
        m.hit(
            n,
            R::NullParameter,
            borrowed(agent.0, chain, line_p, l, null_mut()),
        );
        m.hit(
            n,
            R::InvalidArgument,
            borrowed(agent.0, other, line_p, l, h),
        );
        m.hit(n, R::Ok, borrowed(agent.0, chain, line_p, l, h));
        agentloop_chain_free(chain);
        agentloop_chain_free(other);

        // The last seq: the task record fits, the stop after it does not.
        for n in [
            "agentloop_agent_take_record",
            "agentloop_agent_take_record_borrowed",
        ] {
            let mut a = null_mut();
            assert_eq!(
                agentloop_agent_new(b"t".as_ptr(), 1, null(), MAX_SEQ, &mut a),
                R::Ok
            );
            let a = Agent(a);
            assert_eq!(agentloop_agent_cancel(a.0), R::Ok);
            let mut c = null_mut();
            assert_eq!(
                agentloop_chain_resume(MAX_SEQ, &agentloop_hash::default(), &mut c),
                R::Ok
            );
            let mut big = vec![0u8; 1024];
            let mut take = || {
                if n.ends_with("borrowed") {
                    agentloop_agent_take_record_borrowed(a.0, c, &mut line, &mut len, &mut has)
                } else {
                    agentloop_agent_take_record(a.0, c, big.as_mut_ptr(), 1024, &mut len, &mut has)
                }
            };
            m.hit(n, R::Ok, take());
            m.hit(n, R::ChainExhausted, take());
            agentloop_chain_free(c);
        }
        // A task whose record is longer than a line may be.
        let task = "a".repeat(16 << 20);
        for n in [
            "agentloop_agent_take_record",
            "agentloop_agent_take_record_borrowed",
        ] {
            let mut a = null_mut();
            assert_eq!(
                agentloop_agent_new(task.as_ptr(), task.len(), null(), 0, &mut a),
                R::Ok
            );
            let a = Agent(a);
            assert_eq!(agentloop_agent_cancel(a.0), R::Ok);
            let c = chain_new();
            let r = if n.ends_with("borrowed") {
                agentloop_agent_take_record_borrowed(a.0, c, &mut line, &mut len, &mut has)
            } else {
                agentloop_agent_take_record(a.0, c, null_mut(), 0, &mut len, &mut has)
            };
            m.hit(n, R::RecordTooLong, r);
            agentloop_chain_free(c);
        }
    }
}

fn resuming(m: &mut Matrix) {
    // A finished run of task "t" with no tools.
    let agent = waiting_agent();
    let chain = chain_new();
    let mut run = Vec::new();
    let (mut line, mut len, mut has) = (null(), 0, true);
    // SAFETY (this block): live objects and valid inputs.
    unsafe {
        assert_eq!(
            agentloop_agent_feed_reply(agent.0, b"done".as_ptr(), 4, null(), 0, false, 0),
            R::Ok
        );
        let mut need = 0;
        assert_eq!(agentloop_agent_poll(agent.0, &mut need), R::Ok);
        while has {
            assert_eq!(
                agentloop_agent_take_record_borrowed(agent.0, chain, &mut line, &mut len, &mut has),
                R::Ok
            );
            if has {
                run.extend_from_slice(core::slice::from_raw_parts(line, len));
            }
        }
        agentloop_chain_free(chain);
    }
    let fresh = new_agent();
    let (mut next, mut head) = (0u64, agentloop_hash::default());
    // SAFETY (this block): a live agent and valid inputs, but for the NULLs on purpose.
    unsafe {
        let mut resume =
            |a, t: Bytes| agentloop_agent_resume(a, null(), t.0, t.1, &mut next, &mut head);
        let r = bytes(&run);
        let n = "agentloop_agent_resume";
        m.hit(n, R::NullParameter, resume(null_mut(), r));
        m.hit(n, R::NullParameter, resume(fresh.0, NULL1));
        m.hit(n, R::DoesNotVerify, resume(fresh.0, (r.0, r.1 - 1)));
        getter(
            m,
            "agentloop_agent_resume_error",
            agentloop_agent_resume_error,
            &fresh,
            R::InsufficientSize,
        );
        let mut other = null_mut();
        assert_eq!(
            agentloop_agent_new(b"u".as_ptr(), 1, null(), 0, &mut other),
            R::Ok
        );
        let other = Agent(other);
        m.hit(n, R::ResumeRefused, resume(other.0, r));
        m.hit(n, R::Ok, resume(fresh.0, r));
    }
}

/// What the model callback of [`driving`] records: the results of the reply calls.
struct Seen(Vec<(&'static str, agentloop_result, agentloop_result)>);

unsafe extern "C" fn model(
    userdata: *mut c_void,
    _: *const u8,
    _: usize,
    _: *const u8,
    _: usize,
    reply: *mut agentloop_reply,
) {
    // SAFETY: userdata is the Seen the test passed; reply is live during the callback.
    unsafe {
        let seen = &mut *(userdata as *mut Seen);
        let mut note = |n, expected, got| seen.0.push((n, expected, got));
        let mut len = 0;
        let l: *mut usize = &mut len;
        let mut buf = [0u8; 1];
        let b = buf.as_mut_ptr();
        let (x, e, empty) = (bytes(b"x"), bytes(b"e"), bytes(b"{}"));
        let (utf8, json, canon) = (bytes(BAD_UTF8), bytes(BAD_JSON), bytes(NO_CANON));
        let model = bytes(br#"{"model":"m"}"#);

        let text = |r, t: Bytes| agentloop_reply_set_text(r, t.0, t.1);
        let n = "agentloop_reply_set_text";
        note(n, R::NullParameter, text(null_mut(), x));
        note(n, R::NullParameter, text(reply, NULL1));
        note(n, R::InvalidUtf8, text(reply, utf8));
        let add = |r, name: Bytes, args: Bytes| {
            agentloop_reply_add_call(r, name.0, name.1, args.0, args.1)
        };
        let n = "agentloop_reply_add_call";
        note(n, R::NullParameter, add(null_mut(), e, empty));
        note(n, R::NullParameter, add(reply, NULL1, empty));
        note(n, R::NullParameter, add(reply, e, NULL1));
        note(n, R::InvalidUtf8, add(reply, utf8, empty));
        note(n, R::InvalidJson, add(reply, e, json));
        note(n, R::NoCanonicalForm, add(reply, e, canon));
        let n = "agentloop_reply_set_output_tokens";
        note(
            n,
            R::NullParameter,
            agentloop_reply_set_output_tokens(null_mut(), 1),
        );
        note(n, R::Ok, agentloop_reply_set_output_tokens(reply, 1));
        let error = |r, t: Bytes| agentloop_reply_set_error(r, t.0, t.1);
        let n = "agentloop_reply_set_error";
        note(n, R::NullParameter, error(null_mut(), x));
        note(n, R::NullParameter, error(reply, NULL1));
        note(n, R::InvalidUtf8, error(reply, utf8));
        let request =
            |r, provider, o: Bytes, l| agentloop_reply_request(r, provider, o.0, o.1, b, 1, l);
        let n = "agentloop_reply_request";
        note(n, R::NullParameter, request(null_mut(), 1, model, l));
        note(n, R::NullParameter, request(reply, 1, NULL1, l));
        note(n, R::NullParameter, request(reply, 1, model, null_mut()));
        note(n, R::InvalidArgument, request(reply, 99, model, l));
        note(n, R::InvalidJson, request(reply, 1, json, l));
        note(n, R::NoCanonicalForm, request(reply, 1, canon, l));
        note(n, R::RequestRefused, request(reply, 1, empty, l));
        note(n, R::InsufficientSize, request(reply, 1, model, l));
        let parse = |r, provider, status, body: Bytes, secret: Bytes| {
            agentloop_reply_parse(r, provider, status, body.0, body.1, secret.0, secret.1)
        };
        let n = "agentloop_reply_parse";
        note(n, R::NullParameter, parse(null_mut(), 1, 200, empty, NONE));
        note(n, R::NullParameter, parse(reply, 1, 200, NULL1, NONE));
        note(n, R::InvalidArgument, parse(reply, 99, 200, empty, NONE));
        note(n, R::InvalidArgument, parse(reply, 1, 0, empty, NONE));
        note(n, R::NullParameter, parse(reply, 1, 200, empty, NULL1));
        note(n, R::InvalidUtf8, parse(reply, 1, 200, empty, utf8));
        let provider_json = |r, j: Bytes| agentloop_reply_set_provider_json(r, j.0, j.1);
        let n = "agentloop_reply_set_provider_json";
        note(n, R::NullParameter, provider_json(null_mut(), empty));
        note(n, R::NullParameter, provider_json(reply, NULL1));
        note(n, R::InvalidJson, provider_json(reply, json));
        note(n, R::NoCanonicalForm, provider_json(reply, canon));
        note(n, R::InvalidArgument, provider_json(reply, bytes(b"[1]")));
        note(n, R::Ok, provider_json(reply, empty));
        note("agentloop_reply_set_text", R::Ok, text(reply, x));
    }
}

unsafe extern "C" fn tool(
    userdata: *mut c_void,
    _: *const u8,
    _: usize,
    result: *mut agentloop_tool_result,
) {
    // SAFETY: userdata is the Seen the test passed; result is live during the callback.
    unsafe {
        let seen = &mut *(userdata as *mut Seen);
        let mut note = |n, expected, got| seen.0.push((n, expected, got));
        let value = |r, v: Bytes| agentloop_tool_result_set_value(r, v.0, v.1);
        let error = |r, t: Bytes| agentloop_tool_result_set_error(r, t.0, t.1);
        let (one, x) = (bytes(b"1"), bytes(b"x"));
        let n = "agentloop_tool_result_set_value";
        note(n, R::NullParameter, value(null_mut(), one));
        note(n, R::NullParameter, value(result, NULL1));
        note(n, R::InvalidJson, value(result, bytes(BAD_JSON)));
        let n = "agentloop_tool_result_set_error";
        note(n, R::NullParameter, error(null_mut(), x));
        note(n, R::NullParameter, error(result, NULL1));
        note(n, R::InvalidUtf8, error(result, bytes(BAD_UTF8)));
        note(n, R::Ok, error(result, x));
        // The value set last is the call's result.
        note("agentloop_tool_result_set_value", R::Ok, value(result, one));
    }
}

/// Turn 0 asks for the tool "e", turn 1 ends.
unsafe extern "C" fn call_then_end(
    userdata: *mut c_void,
    _: *const u8,
    _: usize,
    _: *const u8,
    _: usize,
    reply: *mut agentloop_reply,
) {
    // SAFETY: userdata is a u32 turn counter; reply is live during the callback.
    unsafe {
        let turn = &mut *(userdata as *mut u32);
        if *turn == 0 {
            assert_eq!(
                agentloop_reply_add_call(reply, b"e".as_ptr(), 1, b"{}".as_ptr(), 2),
                R::Ok
            );
        }
        *turn += 1;
    }
}

unsafe extern "C" fn refuse(_: *mut c_void, _: *const u8, _: usize) -> u32 {
    1
}

unsafe extern "C" fn take(_: *mut c_void, _: *const u8, _: usize) -> u32 {
    0
}

fn tools_for(seen: &mut Seen, name: &'static [u8], schema: &'static [u8]) -> agentloop_tool {
    agentloop_tool {
        name: name.as_ptr(),
        name_len: name.len(),
        description: null(),
        description_len: 0,
        schema: schema.as_ptr(),
        schema_len: schema.len(),
        limit: 0,
        callback: Some(tool),
        userdata: seen as *mut Seen as *mut c_void,
    }
}

fn driving(m: &mut Matrix, dir: &Dir) {
    let mut seen = Seen(Vec::new());
    let mut outcome = agentloop_outcome::default();
    let obj: &'static [u8] = br#"{"type":"object"}"#;
    let good = tools_for(&mut seen, b"e", obj);
    let seen_ptr = &mut seen as *mut Seen as *mut c_void;
    let n = "agentloop_driver_run";
    let mut turn = 0u32;
    let turn_ptr = &mut turn as *mut u32 as *mut c_void;
    /// The arguments of `agentloop_driver_run` a case varies; the others are NULL.
    #[derive(Clone, Copy)]
    struct Args {
        task: Bytes,
        model: agentloop_model_callback,
        userdata: *mut c_void,
        tools: (*const agentloop_tool, usize),
        record: agentloop_record_callback,
        out: *mut agentloop_outcome,
    }
    let run = |a: Args| {
        // SAFETY: the pointers are valid for their lengths, or NULL on purpose; the
        // callbacks are this file's and take the userdata given.
        unsafe {
            agentloop_driver_run(
                a.task.0,
                a.task.1,
                null(),
                a.model,
                a.userdata,
                a.tools.0,
                a.tools.1,
                None,
                null_mut(),
                a.record,
                null_mut(),
                a.out,
            )
        }
    };
    let t = bytes(b"t");
    let tools = [good];
    let base = Args {
        task: t,
        model: Some(model),
        userdata: seen_ptr,
        tools: (tools.as_ptr(), 1),
        record: Some(take),
        out: &mut outcome,
    };
    m.hit(
        n,
        R::NullParameter,
        run(Args {
            task: NULL1,
            ..base
        }),
    );
    m.hit(
        n,
        R::NullParameter,
        run(Args {
            model: None,
            ..base
        }),
    );
    m.hit(
        n,
        R::NullParameter,
        run(Args {
            tools: (null(), 1),
            ..base
        }),
    );
    m.hit(
        n,
        R::NullParameter,
        run(Args {
            record: None,
            ..base
        }),
    );
    m.hit(
        n,
        R::NullParameter,
        run(Args {
            out: null_mut(),
            ..base
        }),
    );
    let task = bytes(BAD_UTF8);
    m.hit(n, R::InvalidUtf8, run(Args { task, ..base }));
    let refusals: [(agentloop_tool, agentloop_result); 6] = [
        (
            agentloop_tool {
                callback: None,
                ..good
            },
            R::NullParameter,
        ),
        (
            agentloop_tool {
                name: null(),
                ..good
            },
            R::NullParameter,
        ),
        (
            agentloop_tool {
                name: BAD_UTF8.as_ptr(),
                ..good
            },
            R::InvalidUtf8,
        ),
        (
            agentloop_tool {
                schema: BAD_JSON.as_ptr(),
                schema_len: 1,
                ..good
            },
            R::InvalidJson,
        ),
        (
            agentloop_tool {
                name: b"no t".as_ptr(),
                name_len: 4,
                ..good
            },
            R::NotProviderSafe,
        ),
        (
            agentloop_tool {
                schema: br#"{"type":"object","minProperties":-1}"#.as_ptr(),
                schema_len: 36,
                ..good
            },
            R::SchemaRefused,
        ),
    ];
    for (bad, expected) in refusals {
        let tools = [bad];
        m.hit(
            n,
            expected,
            run(Args {
                tools: (tools.as_ptr(), 1),
                ..base
            }),
        );
    }
    let twice = [good, good];
    m.hit(
        n,
        R::InvalidArgument,
        run(Args {
            tools: (twice.as_ptr(), 2),
            ..base
        }),
    );
    let limited = [agentloop_tool {
        limit: MAX_SEQ + 1,
        ..good
    }];
    m.hit(
        n,
        R::InvalidArgument,
        run(Args {
            tools: (limited.as_ptr(), 1),
            ..base
        }),
    );
    m.hit(
        n,
        R::CallbackRefused,
        run(Args {
            record: Some(refuse),
            ..base
        }),
    );
    let long = "a".repeat(16 << 20);
    let task = bytes(long.as_bytes());
    m.hit(n, R::RecordTooLong, run(Args { task, ..base }));
    // The reply calls, once the model callback runs; then the tool's.
    m.hit(n, R::Ok, run(base));
    let then_end = Some(call_then_end as _);
    m.hit(
        n,
        R::Ok,
        run(Args {
            model: then_end,
            userdata: turn_ptr,
            ..base
        }),
    );
    assert!(
        seen.0
            .iter()
            .any(|(n, _, _)| n.starts_with("agentloop_tool_result")),
        "the tool ran"
    );
    for (name, expected, got) in std::mem::take(&mut seen.0) {
        m.hit(name, expected, got);
    }

    let n = "agentloop_driver_run_to_writer";
    let (p, path) = dir.path("driven.jsonl");
    let (r, w) = open(&path, null(), null());
    assert_eq!(r, R::Ok);
    let to_writer = |w, a: Args| {
        // SAFETY: as for `run` above.
        unsafe {
            agentloop_driver_run_to_writer(
                w,
                a.task.0,
                a.task.1,
                null(),
                a.model,
                a.userdata,
                a.tools.0,
                a.tools.1,
                None,
                null_mut(),
                a.out,
            )
        }
    };
    m.hit(n, R::NullParameter, to_writer(null_mut(), base));
    m.hit(
        n,
        R::NullParameter,
        to_writer(
            w,
            Args {
                task: NULL1,
                ..base
            },
        ),
    );
    m.hit(
        n,
        R::NullParameter,
        to_writer(
            w,
            Args {
                model: None,
                ..base
            },
        ),
    );
    m.hit(
        n,
        R::NullParameter,
        to_writer(
            w,
            Args {
                out: null_mut(),
                ..base
            },
        ),
    );
    let task = bytes(BAD_UTF8);
    m.hit(n, R::InvalidUtf8, to_writer(w, Args { task, ..base }));
    // The refusals of a tool that reach past the NULL checks.
    for &(bad, expected) in &refusals[3..] {
        let tools = [bad];
        m.hit(
            n,
            expected,
            to_writer(
                w,
                Args {
                    tools: (tools.as_ptr(), 1),
                    ..base
                },
            ),
        );
    }
    m.hit(
        n,
        R::InvalidArgument,
        to_writer(
            w,
            Args {
                tools: (twice.as_ptr(), 2),
                ..base
            },
        ),
    );
    let task = bytes(long.as_bytes());
    m.hit(n, R::RecordTooLong, to_writer(w, Args { task, ..base }));
    m.hit(n, R::Ok, to_writer(w, base));
    // Another writer's garbage after the run: the next run refuses the file.
    fs::OpenOptions::new()
        .append(true)
        .open(&p)
        .unwrap()
        .write_all(b"{\"not\":\"a record\"}\n")
        .unwrap();
    m.hit(n, R::DoesNotVerify, to_writer(w, base));
    fs::write(&p, b"").unwrap();
    // SAFETY: freed once.
    unsafe { agentloop_writer_free(w) };
    for (name, expected, got) in std::mem::take(&mut seen.0) {
        m.hit(name, expected, got);
    }
}

/// What the header documents for each function that returns `agentloop_result`: the
/// codes its comment names, and those its shape gives it.
fn documented() -> Vec<(String, BTreeSet<String>)> {
    let header = fs::read_to_string(root().join("include/agentloop.h")).unwrap();
    let codes: Vec<String> = header
        .lines()
        .filter_map(|l| l.trim().strip_prefix("AGENTLOOP_RESULT_"))
        .map(|l| l[..l.find(' ').unwrap()].to_string())
        .collect();
    assert!(codes.len() >= 24, "found only {} result codes", codes.len());
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    declared_functions(&header)
        .into_iter()
        .filter(|f| f.returns == "agentloop_result")
        .map(|f| {
            let mut named = BTreeSet::new();
            for code in &codes {
                let found = f.comment.match_indices(code.as_str()).any(|(i, _)| {
                    let before = f.comment[..i]
                        .strip_suffix("AGENTLOOP_RESULT_")
                        .unwrap_or(&f.comment[..i]);
                    !before.ends_with(is_word) && !f.comment[i + code.len()..].starts_with(is_word)
                });
                if found && code != "OK" && code != "PANIC" {
                    named.insert(code.clone());
                }
            }
            let params = parameters(&f.params);
            if params.iter().any(|(ty, _)| ty.contains('*')) {
                named.insert("NULL_PARAMETER".to_string());
            }
            if params.iter().any(|(_, name)| name == "out_buf") {
                named.insert("INSUFFICIENT_SIZE".to_string());
            }
            (f.name, named)
        })
        .collect()
}

/// Appends past the file-size limit the parent set (`ulimit -f`, `SIGXFSZ` ignored)
/// and prints what each call returned as `HIT <function> <code>` lines. Does nothing
/// unless run by [`every_documented_result_code_is_produced`] with
/// `AGENTLOOP_RESULT_CODES_FSIZE` naming a transcript larger than the limit.
#[test]
fn child_under_a_file_size_limit() {
    let Some(path) = std::env::var_os("AGENTLOOP_RESULT_CODES_FSIZE") else {
        return;
    };
    let path = path.into_string().unwrap();
    let before = fs::read(&path).unwrap();
    let (r, w) = open(&path, null(), null());
    assert_eq!(r, R::Ok);
    // SAFETY: a live writer and valid inputs.
    let append = unsafe { agentloop_writer_append(w, b"k".as_ptr(), 1, b"1".as_ptr(), 1) };
    let mut seen = Seen(Vec::new());
    let tools = [tools_for(&mut seen, b"e", br#"{"type":"object"}"#)];
    let mut outcome = agentloop_outcome::default();
    // SAFETY: a live writer, valid inputs; the callbacks are this file's.
    let run = unsafe {
        agentloop_driver_run_to_writer(
            w,
            b"t".as_ptr(),
            1,
            null(),
            Some(model),
            &mut seen as *mut Seen as *mut c_void,
            tools.as_ptr(),
            1,
            None,
            null_mut(),
            &mut outcome,
        )
    };
    // SAFETY: freed once.
    unsafe { agentloop_writer_free(w) };
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "each failed write was cut back"
    );
    println!("HIT agentloop_writer_append {}", append as u32);
    println!("HIT agentloop_driver_run_to_writer {}", run as u32);
}

/// Runs [`child_under_a_file_size_limit`] in a child under `ulimit -f`; returns its hits.
fn under_a_file_size_limit(dir: &Dir) -> Vec<(String, u32)> {
    let (p, path) = dir.path("fsize.jsonl");
    // 40 records: more than the 8 blocks of the limit (4 KiB or 8 KiB, as the shell counts).
    fs::write(&p, transcript(120)).unwrap();
    assert!(fs::metadata(&p).unwrap().len() > 8192);
    let exe = std::env::current_exe().unwrap();
    // The test's name as the harness knows it: its path below the crate (`result_codes::…`).
    let child = module_path!()
        .split_once("::")
        .map_or(String::new(), |(_, module)| format!("{module}::"))
        + "child_under_a_file_size_limit";
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 8 && exec \"$0\" --exact \"$1\" --nocapture --test-threads 1")
        .arg(&exe)
        .arg(&child)
        .env("AGENTLOOP_RESULT_CODES_FSIZE", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child under a file-size limit failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: Vec<(String, u32)> = stdout
        .lines()
        // libtest prints the test's name on the line the first HIT continues.
        .filter_map(|l| l.find("HIT ").map(|at| &l[at + 4..]))
        .map(|l| {
            let (name, code) = l.split_once(' ').unwrap();
            (name.to_string(), code.parse().unwrap())
        })
        .collect();
    assert_eq!(hits.len(), 2, "{stdout}");
    hits
}

#[test]
fn every_documented_result_code_is_produced() {
    let dir = Dir::new("result-codes-matrix");
    let mut m = Matrix::default();
    json(&mut m);
    hashes(&mut m);
    chains(&mut m);
    reports(&mut m);
    verifying(&mut m, &dir);
    writers(&mut m, &dir);
    repairing(&mut m, &dir);
    proofs(&mut m);
    schemas(&mut m);
    agents(&mut m);
    null_before_state(&mut m);
    driving(&mut m, &dir);
    for (name, code) in under_a_file_size_limit(&dir) {
        assert_eq!(code, R::Io as u32, "{name} under a file-size limit");
        m.0.insert((name, code));
    }

    assert!(
        m.1.is_empty(),
        "cases that got another code:\n  {}",
        m.1.join("\n  ")
    );
    let documented = documented();
    assert!(
        documented.len() >= 80,
        "found only {} functions",
        documented.len()
    );
    let produced =
        |name: &str, code: &str| m.0.iter().any(|(n, c)| n == name && code_name(*c) == code);
    let mut missing = Vec::new();
    let mut undocumented = Vec::new();
    for (name, codes) in &documented {
        for code in codes {
            let unreachable = UNREACHABLE.iter().any(|(n, c, _)| n == name && c == code);
            if produced(name, code) {
                assert!(
                    !unreachable,
                    "{name} {code} is produced, yet listed as unreachable"
                );
            } else if !unreachable {
                missing.push(format!("{name} {code}"));
            }
        }
    }
    for (name, code) in &m.0 {
        let code = code_name(*code);
        if code == "OK" {
            continue;
        }
        match documented.iter().find(|(n, _)| n == name) {
            Some((_, codes)) if codes.contains(&code) => {}
            Some(_) => undocumented.push(format!("{name} {code}")),
            None => undocumented.push(format!("{name} (not declared)")),
        }
    }
    assert!(
        missing.is_empty() && undocumented.is_empty(),
        "documented in the header but produced by no case here:\n  {}\n\
         produced here but not in the function's header comment:\n  {}",
        missing.join("\n  "),
        undocumented.join("\n  ")
    );
    for (name, code, _) in UNREACHABLE {
        assert!(
            documented
                .iter()
                .any(|(n, c)| n == name && c.contains(*code)),
            "{name} {code} is listed as unreachable but not documented"
        );
    }
    // NULL before state: every pointer a function with a state needs was given NULL in
    // a state that refuses the call.
    let needed = needs_null_before_state();
    assert!(needed.len() >= 20, "found only {} pointers", needed.len());
    let left_out: Vec<String> = needed
        .iter()
        .filter(|pair| !m.2.contains(*pair))
        .map(|(f, p)| format!("{f} {p}"))
        .collect();
    assert!(
        left_out.is_empty(),
        "never given NULL in a state that refuses the call (null_before_state):
  {}",
        left_out.join(
            "
  "
        )
    );
    // Every function that returns a result is in the matrix.
    for (name, _) in &documented {
        assert!(
            m.0.iter().any(|(n, _)| n == name),
            "{name} is not exercised"
        );
    }
}
