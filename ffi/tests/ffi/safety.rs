//! The exports called through the rlib the way a careless C caller would: NULL
//! pointers, bad lengths, bad text, bad JSON, small buffers, unknown enum values, NULL
//! frees, calls in the wrong state. Each is a result code, never UB or a panic, and a
//! failed call writes no output and changes no object.

use core::ffi::{c_char, CStr};
use core::ptr::{null, null_mut};

use agentloop::*;

const R: fn(agentloop_result) -> u32 = |r| r as u32;

fn s(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: the library returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
}

const SPEC_LINES: [&str; 3] = [
    r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#,
    r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#,
    r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#,
];
const SPEC_PAYLOADS: [(&str, &str); 3] = [
    ("task", r#"{"task":"add 2 and 40"}"#),
    (
        "assistant",
        r#"{"tool_calls":[{"name":"add","arguments":{"b":40,"a":2}}],"text":""}"#,
    ),
    ("tool", r#"{"value":{"sum":42},"ok":true,"name":"add"}"#),
];

fn spec_transcript() -> String {
    SPEC_LINES.iter().map(|l| format!("{l}\n")).collect()
}

struct Chain(*mut agentloop_chain);
impl Chain {
    fn new() -> Chain {
        let mut out = null_mut();
        // SAFETY: a valid out pointer.
        assert_eq!(
            unsafe { agentloop_chain_new(&mut out) },
            agentloop_result::Ok
        );
        Chain(out)
    }
    fn head(&self) -> [u8; 32] {
        let mut h = agentloop_hash::default();
        // SAFETY: a live chain and a writable hash.
        assert_eq!(
            unsafe { agentloop_chain_head(self.0, &mut h) },
            agentloop_result::Ok
        );
        h.bytes
    }
    fn count(&self) -> u64 {
        let mut n = 0;
        // SAFETY: a live chain and a valid out pointer.
        assert_eq!(
            unsafe { agentloop_chain_count(self.0, &mut n) },
            agentloop_result::Ok
        );
        n
    }
    /// Appends with a buffer of `cap` bytes; returns the result, the length written
    /// to out_len and the buffer.
    fn append(
        &self,
        kind: &[u8],
        payload: &[u8],
        cap: usize,
    ) -> (agentloop_result, usize, Vec<u8>) {
        let mut buf = vec![0xAAu8; cap];
        let mut len = usize::MAX;
        // SAFETY: a live chain, valid inputs, cap writable bytes.
        let r = unsafe {
            agentloop_chain_append(
                self.0,
                kind.as_ptr(),
                kind.len(),
                payload.as_ptr(),
                payload.len(),
                if cap == 0 {
                    null_mut()
                } else {
                    buf.as_mut_ptr()
                },
                cap,
                &mut len,
            )
        };
        (r, len, buf)
    }
}
impl Drop for Chain {
    fn drop(&mut self) {
        // SAFETY: a chain from agentloop_chain_new, freed once.
        unsafe { agentloop_chain_free(self.0) }
    }
}

fn verify(bytes: &[u8], options: Option<&agentloop_verify_options>) -> *mut agentloop_report {
    let mut report = null_mut();
    let opts = options.map_or(null(), |o| o as *const _);
    // SAFETY: valid bytes, options and out pointer.
    let r = unsafe {
        agentloop_transcript_verify_buffer(bytes.as_ptr(), bytes.len(), opts, &mut report)
    };
    assert_eq!(r, agentloop_result::Ok);
    report
}

#[test]
fn result_and_fault_kind_strings_cover_every_value() {
    assert_eq!(s(agentloop_result_str(0)), "ok");
    assert_eq!(
        s(agentloop_result_str(R(agentloop_result::InsufficientSize))),
        "the output buffer is too small; the needed length was written to out_len"
    );
    // Counted from the enum, so appending a code needs no edit here.
    let known = agentloop_result::ALL.len() as u32;
    assert_eq!(known, 24);
    for code in [known, 99, u32::MAX] {
        assert_eq!(s(agentloop_result_str(code)), "unknown result code");
    }
    for code in 0..known {
        assert_ne!(s(agentloop_result_str(code)), "unknown result code");
    }
    assert_eq!(
        s(agentloop_fault_kind_str(
            agentloop_fault_kind::HashMismatch as u32
        )),
        "hash_mismatch"
    );
    assert_eq!(s(agentloop_fault_kind_str(0)), "unknown");
    assert_eq!(s(agentloop_fault_kind_str(u32::MAX)), "unknown");
    assert_eq!(s(agentloop_library_version()), env!("CARGO_PKG_VERSION"));
}

#[test]
fn canonicalize_size_query_and_refusals() {
    let input = "{\"€\":1,\"\\r\":2,\"😀\":3,\"ﬁ\":4,\"a\":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}";
    let expected = "{\"\\r\":2,\"a\":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],\"€\":1,\"😀\":3,\"ﬁ\":4}";
    let mut len = 0usize;
    // SAFETY (this test): valid pointers and lengths unless the point is otherwise.
    unsafe {
        // Size query: NULL buffer.
        let r = agentloop_json_canonicalize(input.as_ptr(), input.len(), null_mut(), 0, &mut len);
        assert_eq!(r, agentloop_result::InsufficientSize);
        assert_eq!(len, expected.len());
        // Too small by one: nothing written into the buffer.
        let mut buf = vec![0u8; expected.len() - 1];
        let mut len2 = 0usize;
        let r = agentloop_json_canonicalize(
            input.as_ptr(),
            input.len(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut len2,
        );
        assert_eq!(
            (r, len2),
            (agentloop_result::InsufficientSize, expected.len())
        );
        assert!(buf.iter().all(|&b| b == 0));
        let mut buf = vec![0u8; len];
        let r = agentloop_json_canonicalize(
            input.as_ptr(),
            input.len(),
            buf.as_mut_ptr(),
            len,
            &mut len,
        );
        assert_eq!(r, agentloop_result::Ok);
        assert_eq!(std::str::from_utf8(&buf[..len]).unwrap(), expected);

        // NULL out_len; NULL input with a length; NULL input with len 0 is empty input.
        let mut big = [0u8; 64];
        assert_eq!(
            agentloop_json_canonicalize(b"1".as_ptr(), 1, big.as_mut_ptr(), 64, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_json_canonicalize(null(), 5, big.as_mut_ptr(), 64, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_json_canonicalize(null(), 0, big.as_mut_ptr(), 64, &mut len),
            agentloop_result::InvalidJson
        );
        assert_eq!(
            agentloop_json_canonicalize(null(), usize::MAX, big.as_mut_ptr(), 64, &mut len),
            agentloop_result::NullParameter
        );
        for (bad, code) in [
            (&b"{\"a\":1,\"a\":2}"[..], agentloop_result::InvalidJson),
            (b"{\"a\":1,\"\\u0061\":2}", agentloop_result::InvalidJson),
            (b"\"\\ud800\"", agentloop_result::InvalidJson),
            (b"\xff", agentloop_result::InvalidJson),
            (b"\xef\xbb\xbf{}", agentloop_result::InvalidJson),
            (b"NaN", agentloop_result::InvalidJson),
            (b"9007199254740993", agentloop_result::NoCanonicalForm),
            (b"1e400", agentloop_result::NoCanonicalForm),
            (b"1e-400", agentloop_result::NoCanonicalForm),
        ] {
            let mut out_len = 12345usize;
            let r = agentloop_json_canonicalize(
                bad.as_ptr(),
                bad.len(),
                big.as_mut_ptr(),
                64,
                &mut out_len,
            );
            assert_eq!(r, code, "{}", String::from_utf8_lossy(bad));
            assert_eq!(out_len, 12345, "out_len written on failure");
        }
        let nested = format!("{}{}", "[".repeat(129), "]".repeat(129));
        let r = agentloop_json_canonicalize(
            nested.as_ptr(),
            nested.len(),
            big.as_mut_ptr(),
            64,
            &mut len,
        );
        assert_eq!(r, agentloop_result::InvalidJson);
        // An empty output (impossible for JSON) is not the case; `0` fits 1 byte.
        let r = agentloop_json_canonicalize(b"-0".as_ptr(), 2, big.as_mut_ptr(), 1, &mut len);
        assert_eq!((r, len, big[0]), (agentloop_result::Ok, 1, b'0'));
    }
}

#[test]
fn chain_writes_the_spec_vector_and_small_buffers_change_nothing() {
    let chain = Chain::new();
    let mut transcript = Vec::new();
    for ((kind, payload), line) in SPEC_PAYLOADS.iter().zip(SPEC_LINES) {
        let (head, count) = (chain.head(), chain.count());
        // Size query, then one byte short, then exact: the chain must not move.
        let (r, needed, _) = chain.append(kind.as_bytes(), payload.as_bytes(), 0);
        assert_eq!(
            (r, needed),
            (agentloop_result::InsufficientSize, line.len() + 1)
        );
        assert_eq!((chain.head(), chain.count()), (head, count));
        let (r, again, buf) = chain.append(kind.as_bytes(), payload.as_bytes(), needed - 1);
        assert_eq!((r, again), (agentloop_result::InsufficientSize, needed));
        assert!(buf.iter().all(|&b| b == 0xAA), "buffer written on failure");
        assert_eq!((chain.head(), chain.count()), (head, count));
        let (r, len, buf) = chain.append(kind.as_bytes(), payload.as_bytes(), needed);
        assert_eq!((r, len), (agentloop_result::Ok, needed));
        assert_eq!(&buf[..len], format!("{line}\n").as_bytes());
        assert_eq!(chain.count(), count + 1);
        transcript.extend_from_slice(&buf[..len]);
    }
    assert_eq!(transcript, spec_transcript().as_bytes());
    let head = agentloop_hash {
        bytes: chain.head(),
    };
    let (mut hex, mut len) = ([b'#'; 65], 0usize);
    // SAFETY: a readable hash, a buffer of the capacity given, a writable length.
    unsafe {
        // The size query: NULL, then one byte short; nothing written but the length.
        for (buf, cap) in [
            (null_mut(), 0),
            (hex.as_mut_ptr(), AGENTLOOP_HASH_HEX_LEN - 1),
        ] {
            len = 0;
            assert_eq!(
                agentloop_hash_to_hex(&head, buf, cap, &mut len),
                agentloop_result::InsufficientSize
            );
            assert_eq!(len, AGENTLOOP_HASH_HEX_LEN);
            assert_eq!(hex, [b'#'; 65]);
        }
        assert_eq!(
            agentloop_hash_to_hex(&head, hex.as_mut_ptr(), hex.len(), &mut len),
            agentloop_result::Ok
        );
    }
    // 64 digits, no NUL: the byte after them is untouched.
    assert_eq!(len, 64);
    assert_eq!(
        &hex[..64],
        b"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"
    );
    assert_eq!(hex[64], b'#');
    let mut back = agentloop_hash::default();
    let text = std::str::from_utf8(&hex[..64]).unwrap();
    // SAFETY: valid inputs and writable outputs.
    unsafe {
        assert_eq!(
            agentloop_hash_from_hex(text.as_ptr(), 64, &mut back),
            agentloop_result::Ok
        );
        assert_eq!(back, head);
        let upper = text.to_uppercase();
        let mut untouched = agentloop_hash { bytes: [7u8; 32] };
        assert_eq!(
            agentloop_hash_from_hex(upper.as_ptr(), 64, &mut untouched),
            agentloop_result::InvalidArgument
        );
        assert_eq!(untouched.bytes, [7u8; 32]);
        assert_eq!(
            agentloop_hash_from_hex(text.as_ptr(), 63, &mut untouched),
            agentloop_result::InvalidArgument
        );
        assert_eq!(
            agentloop_hash_to_hex(null(), hex.as_mut_ptr(), 64, &mut len),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_hash_to_hex(&back, hex.as_mut_ptr(), 64, null_mut()),
            agentloop_result::NullParameter
        );
    }
}

impl Chain {
    /// Appends with the line lent: the result, and the line copied out of the chain.
    fn append_borrowed(&self, kind: &[u8], payload: &[u8]) -> (agentloop_result, Vec<u8>) {
        let (mut line, mut len) = (null(), usize::MAX);
        // SAFETY: a live chain, valid inputs, writable outputs.
        let r = unsafe {
            agentloop_chain_append_borrowed(
                self.0,
                kind.as_ptr(),
                kind.len(),
                payload.as_ptr(),
                payload.len(),
                &mut line,
                &mut len,
            )
        };
        if r != agentloop_result::Ok {
            assert!(line.is_null() && len == usize::MAX, "written on failure");
            return (r, Vec::new());
        }
        // SAFETY: the library lends `len` bytes at `line` until the chain's next call.
        (
            r,
            unsafe { core::slice::from_raw_parts(line, len) }.to_vec(),
        )
    }
}

#[test]
fn a_borrowed_append_lends_the_bytes_a_copying_one_writes() {
    let (copying, lending) = (Chain::new(), Chain::new());
    for ((kind, payload), line) in SPEC_PAYLOADS.iter().zip(SPEC_LINES) {
        let (r, len, buf) = copying.append(kind.as_bytes(), payload.as_bytes(), 4096);
        assert_eq!(r, agentloop_result::Ok);
        let (r, lent) = lending.append_borrowed(kind.as_bytes(), payload.as_bytes());
        assert_eq!(r, agentloop_result::Ok);
        assert_eq!(lent, &buf[..len]);
        assert_eq!(lent, format!("{line}\n").as_bytes());
        assert_eq!(
            (lending.head(), lending.count()),
            (copying.head(), copying.count())
        );
    }
    // Refusals change nothing and write nothing.
    let (head, count) = (lending.head(), lending.count());
    for (kind, payload, code) in [
        (&b""[..], &b"{}"[..], agentloop_result::InvalidArgument),
        (b"\xff", b"{}", agentloop_result::InvalidUtf8),
        (b"note", b"{", agentloop_result::InvalidJson),
        (b"note", b"1e400", agentloop_result::NoCanonicalForm),
    ] {
        assert_eq!(lending.append_borrowed(kind, payload).0, code);
        assert_eq!((lending.head(), lending.count()), (head, count));
    }
    // A line too long for any verifier is refused whole, as by the copying append.
    let big = format!("\"{}\"", "x".repeat(16 << 20));
    assert_eq!(
        lending.append_borrowed(b"note", big.as_bytes()).0,
        agentloop_result::RecordTooLong
    );
    assert_eq!((lending.head(), lending.count()), (head, count));
    let (mut line, mut len) = (null(), 0usize);
    // SAFETY: each call passes valid pointers but the NULL under test.
    unsafe {
        assert_eq!(
            agentloop_chain_append_borrowed(
                null_mut(),
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                &mut line,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append_borrowed(
                lending.0,
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                null_mut(),
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append_borrowed(
                lending.0,
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                &mut line,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append_borrowed(
                lending.0,
                null(),
                1,
                b"1".as_ptr(),
                1,
                &mut line,
                &mut len
            ),
            agentloop_result::NullParameter
        );
    }
    assert!(line.is_null());
    assert_eq!((lending.head(), lending.count()), (head, count));
}

#[test]
fn chain_refusals_change_nothing() {
    let chain = Chain::new();
    let (r, _, _) = chain.append(b"task", b"{}", 4096);
    assert_eq!(r, agentloop_result::Ok);
    let (head, count) = (chain.head(), chain.count());
    for (kind, payload, code) in [
        (&b""[..], &b"{}"[..], agentloop_result::InvalidArgument),
        (b"\xff\xfe", b"{}", agentloop_result::InvalidUtf8),
        (b"note", b"{", agentloop_result::InvalidJson),
        (b"note", b"", agentloop_result::InvalidJson),
        (b"note", b"{\"a\":1,\"a\":1}", agentloop_result::InvalidJson),
        (
            b"note",
            b"{\"n\":9007199254740993}",
            agentloop_result::NoCanonicalForm,
        ),
        (b"note", b"[1e999]", agentloop_result::NoCanonicalForm),
    ] {
        let (r, len, buf) = chain.append(kind, payload, 4096);
        assert_eq!(r, code, "{:?} {:?}", kind, String::from_utf8_lossy(payload));
        assert_eq!(len, usize::MAX, "out_len written on failure");
        assert!(buf.iter().all(|&b| b == 0xAA));
        assert_eq!((chain.head(), chain.count()), (head, count));
    }
    let mut len = 0usize;
    let mut buf = [0u8; 16];
    // SAFETY (this block): deliberately NULL pointers; the rest valid.
    unsafe {
        assert_eq!(
            agentloop_chain_append(
                null_mut(),
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                buf.as_mut_ptr(),
                16,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append(
                chain.0,
                null(),
                1,
                b"1".as_ptr(),
                1,
                buf.as_mut_ptr(),
                16,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append(
                chain.0,
                b"k".as_ptr(),
                1,
                null(),
                1,
                buf.as_mut_ptr(),
                16,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_append(
                chain.0,
                b"k".as_ptr(),
                1,
                b"1".as_ptr(),
                1,
                buf.as_mut_ptr(),
                16,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_new(null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_head(null(), &mut agentloop_hash::default()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_head(chain.0, null_mut()),
            agentloop_result::NullParameter
        );
        let mut n = 99u64;
        assert_eq!(
            agentloop_chain_count(null(), &mut n),
            agentloop_result::NullParameter
        );
        assert_eq!(n, 99);
        assert_eq!(
            agentloop_chain_count(chain.0, null_mut()),
            agentloop_result::NullParameter
        );
        agentloop_chain_free(null_mut());
    }
    assert_eq!((chain.head(), chain.count()), (head, count));
}

#[test]
fn resumed_chain_and_its_limits() {
    let prev0 = agentloop_hash { bytes: [0x11; 32] };
    let mut out = null_mut();
    // SAFETY (this block): valid pointers unless NULL on purpose.
    unsafe {
        assert_eq!(
            agentloop_chain_resume(1 << 53, &prev0, &mut out),
            agentloop_result::InvalidArgument
        );
        assert!(out.is_null(), "out written on failure");
        assert_eq!(
            agentloop_chain_resume(5, null(), &mut out),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_resume(5, &prev0, null_mut()),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_chain_resume((1 << 53) - 1, &prev0, &mut out),
            agentloop_result::Ok
        );
    }
    let chain = Chain(out);
    assert_eq!(chain.head(), prev0.bytes);
    assert_eq!(chain.count(), 0);
    let (r, len, buf) = chain.append(b"k", b"null", 4096);
    assert_eq!(r, agentloop_result::Ok);
    let line = std::str::from_utf8(&buf[..len]).unwrap();
    assert!(line.ends_with(&format!(
        "\"prev\":\"{}\",\"seq\":9007199254740991}}\n",
        "11".repeat(32)
    )));
    assert_eq!(chain.count(), 1);
    let (r, _, _) = chain.append(b"k", b"null", 4096);
    assert_eq!(r, agentloop_result::ChainExhausted);
    assert_eq!(chain.count(), 1);

    // The resumed line verifies against its anchor.
    let mut options = agentloop_verify_options::default();
    // SAFETY: a valid struct to write.
    assert_eq!(
        unsafe { agentloop_verify_options_init(&mut options) },
        agentloop_result::Ok
    );
    options.seq0 = (1 << 53) - 1;
    options.prev0 = prev0;
    let report = verify(&buf[..len], Some(&options));
    // SAFETY: a live report, freed once.
    unsafe {
        assert!(agentloop_report_ok(report));
        agentloop_report_free(report);
    }
}

#[test]
fn reports_faults_heads_and_bad_indexes() {
    let good = spec_transcript();
    let tampered = good.replace("\"sum\":42", "\"sum\":43");
    let report = verify(tampered.as_bytes(), None);
    // SAFETY (this block): a live report; output pointers valid unless NULL on purpose.
    unsafe {
        assert!(!agentloop_report_ok(report));
        assert_eq!(agentloop_report_count(report), 3);
        assert_eq!(agentloop_report_fault_count(report), 1);
        assert_eq!(agentloop_report_faults_omitted(report), 0);
        let (mut index, mut line, mut kind, mut detail) = (0i64, 0i64, 0u32, null());
        assert_eq!(
            agentloop_report_fault(report, 0, &mut index, &mut line, &mut kind, &mut detail),
            agentloop_result::Ok
        );
        assert_eq!((index, line), (2, 3));
        assert_eq!(kind, agentloop_fault_kind::HashMismatch as u32);
        assert!(
            s(detail).starts_with("stored hash 8428b0f3"),
            "{}",
            s(detail)
        );
        // Every output may be NULL.
        assert_eq!(
            agentloop_report_fault(report, 0, null_mut(), null_mut(), null_mut(), null_mut()),
            agentloop_result::Ok
        );
        // Out of range: nothing written.
        let mut untouched = 77i64;
        for i in [1, 2, u64::MAX] {
            assert_eq!(
                agentloop_report_fault(
                    report,
                    i,
                    &mut untouched,
                    null_mut(),
                    null_mut(),
                    null_mut()
                ),
                agentloop_result::IndexOutOfRange
            );
        }
        assert_eq!(untouched, 77);
        assert_eq!(
            agentloop_report_fault(
                null(),
                0,
                &mut untouched,
                null_mut(),
                null_mut(),
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        // NULL reports read as empty / not ok.
        assert!(!agentloop_report_ok(null()));
        assert_eq!(agentloop_report_count(null()), 0);
        assert_eq!(agentloop_report_fault_count(null()), 0);
        assert_eq!(agentloop_report_faults_omitted(null()), 0);
        let mut head = agentloop_hash::default();
        let mut has = false;
        assert_eq!(
            agentloop_report_head(null(), &mut head, &mut has),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_report_head(report, null_mut(), &mut has),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_report_head(report, &mut head, null_mut()),
            agentloop_result::NullParameter
        );
        agentloop_report_free(report);
        agentloop_report_free(null_mut());

        // A good transcript: ok, head = last hash; an empty one: head = prev0.
        let report = verify(good.as_bytes(), None);
        assert!(agentloop_report_ok(report));
        assert_eq!(
            agentloop_report_head(report, &mut head, &mut has),
            agentloop_result::Ok
        );
        assert!(has);
        let mut expected = agentloop_hash::default();
        let hex = b"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6";
        assert_eq!(
            agentloop_hash_from_hex(hex.as_ptr(), 64, &mut expected),
            agentloop_result::Ok
        );
        assert_eq!(head, expected);
        let mut beyond = 0u64;
        assert_eq!(
            agentloop_report_beyond_checkpoint(report, &mut beyond, &mut has),
            agentloop_result::Ok
        );
        assert!(!has);
        agentloop_report_free(report);
        let report = verify(b"", None);
        assert!(agentloop_report_ok(report));
        assert_eq!(
            agentloop_report_head(report, &mut head, &mut has),
            agentloop_result::Ok
        );
        assert_eq!((head.bytes, has), ([0u8; 32], true));
        agentloop_report_free(report);

        // A torn tail and a line that is not JSON.
        let report = verify(b"{\n{\"a\"", None);
        let mut kinds = Vec::new();
        for i in 0..agentloop_report_fault_count(report) {
            let mut kind = 0u32;
            assert_eq!(
                agentloop_report_fault(report, i, null_mut(), null_mut(), &mut kind, null_mut()),
                agentloop_result::Ok
            );
            kinds.push(s(agentloop_fault_kind_str(kind)));
        }
        assert_eq!(kinds, ["bad_json", "torn_tail"]);
        assert_eq!(
            agentloop_report_head(report, &mut head, &mut has),
            agentloop_result::Ok
        );
        assert!(!has);
        agentloop_report_free(report);

        // NULL bytes with a length; NULL out.
        let mut out = null_mut();
        assert_eq!(
            agentloop_transcript_verify_buffer(null(), 1, null(), &mut out),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_verify_buffer(b"".as_ptr(), 0, null(), null_mut()),
            agentloop_result::NullParameter
        );
        assert!(out.is_null());
        assert_eq!(
            agentloop_verify_options_init(null_mut()),
            agentloop_result::NullParameter
        );
    }
}

#[test]
fn checkpoints_and_option_ranges() {
    let good = spec_transcript();
    let mut options = agentloop_verify_options {
        has_checkpoint: true,
        checkpoint_count: 4,
        ..Default::default()
    };
    let report = verify(good.as_bytes(), Some(&options));
    // SAFETY (this block): live reports and valid pointers.
    unsafe {
        let mut kind = 0u32;
        let mut index = 0i64;
        let mut line = 0i64;
        assert_eq!(
            agentloop_report_fault(report, 0, &mut index, &mut line, &mut kind, null_mut()),
            agentloop_result::Ok
        );
        assert_eq!(
            (kind, index, line),
            (agentloop_fault_kind::Truncated as u32, 3, -1)
        );
        agentloop_report_free(report);

        options.checkpoint_count = 2;
        options.has_checkpoint_head = true;
        options.checkpoint_head = agentloop_hash { bytes: [0x42; 32] };
        let report = verify(good.as_bytes(), Some(&options));
        assert_eq!(
            agentloop_report_fault(report, 0, &mut index, null_mut(), &mut kind, null_mut()),
            agentloop_result::Ok
        );
        assert_eq!(
            (kind, index),
            (agentloop_fault_kind::HeadMismatch as u32, 1)
        );
        agentloop_report_free(report);

        let hex = b"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01";
        assert_eq!(
            agentloop_hash_from_hex(hex.as_ptr(), 64, &mut options.checkpoint_head),
            agentloop_result::Ok
        );
        let report = verify(good.as_bytes(), Some(&options));
        assert!(agentloop_report_ok(report));
        let (mut beyond, mut has) = (0u64, false);
        assert_eq!(
            agentloop_report_beyond_checkpoint(report, &mut beyond, &mut has),
            agentloop_result::Ok
        );
        assert_eq!((beyond, has), (1, true));
        agentloop_report_free(report);

        // Out of range: refused, out untouched.
        let mut out = null_mut();
        for bad in [
            agentloop_verify_options {
                seq0: 1 << 53,
                ..Default::default()
            },
            agentloop_verify_options {
                has_checkpoint: true,
                checkpoint_count: (1 << 53) + 1,
                ..Default::default()
            },
        ] {
            assert_eq!(
                agentloop_transcript_verify_buffer(b"".as_ptr(), 0, &bad, &mut out),
                agentloop_result::InvalidArgument
            );
            let mut v = null_mut();
            assert_eq!(
                agentloop_verifier_new(&bad, &mut v),
                agentloop_result::InvalidArgument
            );
            assert!(v.is_null());
        }
        assert!(out.is_null());

        // Lenient accepts a non-canonical spelling, strict does not.
        let spaced = good.replacen("{\"task\":", "{ \"task\":", 1);
        let report = verify(spaced.as_bytes(), None);
        assert_eq!(
            agentloop_report_fault(report, 0, null_mut(), null_mut(), &mut kind, null_mut()),
            agentloop_result::Ok
        );
        assert_eq!(kind, agentloop_fault_kind::NotCanonical as u32);
        agentloop_report_free(report);
        let lenient = agentloop_verify_options {
            lenient: true,
            ..Default::default()
        };
        let report = verify(spaced.as_bytes(), Some(&lenient));
        assert!(agentloop_report_ok(report));
        agentloop_report_free(report);

        // max_faults keeps a few and counts the rest.
        let few = agentloop_verify_options {
            max_faults: 2,
            ..Default::default()
        };
        let report = verify(b"1\n2\n3\n4\n", Some(&few));
        assert_eq!(agentloop_report_fault_count(report), 2);
        assert_eq!(agentloop_report_faults_omitted(report), 2);
        agentloop_report_free(report);
    }
}

fn finish(v: *mut agentloop_verifier) -> core_report::Summary {
    let mut report = null_mut();
    // SAFETY: a live verifier and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_verifier_finish(v, &mut report) },
        agentloop_result::Ok
    );
    // SAFETY: a live report from the library.
    let summary = core_report::summary(unsafe { &*report });
    // SAFETY: freed once.
    unsafe { agentloop_report_free(report) };
    summary
}

mod core_report {
    use agentloop::agentloop_report;
    pub type Summary = (
        u64,
        Option<[u8; 32]>,
        Vec<(Option<u64>, Option<u64>, String, String)>,
    );
    pub fn summary(report: &agentloop_report) -> Summary {
        let r = report.report();
        (
            r.count,
            r.head.map(|h| h.0),
            r.faults
                .iter()
                .map(|f| (f.index, f.line, f.kind.to_string(), f.detail.to_string()))
                .collect(),
        )
    }
}

#[test]
fn streaming_in_any_chunking_equals_the_buffer() {
    let mut input = spec_transcript()
        .replace("\"sum\":42", "\"sum\":43")
        .into_bytes();
    input.extend_from_slice(b"not json\n\n{\"torn\"");
    let report = verify(&input, None);
    // SAFETY: a live report.
    let whole = core_report::summary(unsafe { &*report });
    // SAFETY: freed once.
    unsafe { agentloop_report_free(report) };
    assert_eq!(whole.2.len(), 4);
    for chunk in [1, 2, 3, 7, 64, 1000, input.len()] {
        let mut v = null_mut();
        // SAFETY (this block): valid pointers; the verifier is freed once.
        unsafe {
            assert_eq!(agentloop_verifier_new(null(), &mut v), agentloop_result::Ok);
            for piece in input.chunks(chunk) {
                assert_eq!(
                    agentloop_verifier_push(v, piece.as_ptr(), piece.len()),
                    agentloop_result::Ok
                );
                assert_eq!(agentloop_verifier_push(v, null(), 0), agentloop_result::Ok);
            }
            assert_eq!(finish(v), whole, "chunk {chunk}");
            // Finished: pushes are refused, finishing again gives the same report.
            assert_eq!(
                agentloop_verifier_push(v, b"x".as_ptr(), 1),
                agentloop_result::InvalidState
            );
            assert_eq!(
                agentloop_verifier_push(v, null(), 0),
                agentloop_result::InvalidState
            );
            assert_eq!(finish(v), whole);
            agentloop_verifier_free(v);
        }
    }
    // SAFETY (this block): NULL on purpose.
    unsafe {
        let mut report = null_mut();
        assert_eq!(
            agentloop_verifier_push(null_mut(), b"x".as_ptr(), 1),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_verifier_finish(null_mut(), &mut report),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_verifier_new(null(), null_mut()),
            agentloop_result::NullParameter
        );
        let mut v = null_mut();
        assert_eq!(agentloop_verifier_new(null(), &mut v), agentloop_result::Ok);
        assert_eq!(
            agentloop_verifier_push(v, null(), 3),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_verifier_finish(v, null_mut()),
            agentloop_result::NullParameter
        );
        agentloop_verifier_free(v);
        agentloop_verifier_free(null_mut());
    }
}

#[test]
fn streaming_bounds_long_lines() {
    let options = agentloop_verify_options {
        max_line_bytes: 8,
        ..Default::default()
    };
    let mut v = null_mut();
    // SAFETY (this block): valid pointers; the verifier is freed once.
    unsafe {
        assert_eq!(
            agentloop_verifier_new(&options, &mut v),
            agentloop_result::Ok
        );
        let long = [b'x'; 100];
        for _ in 0..3 {
            assert_eq!(
                agentloop_verifier_push(v, long.as_ptr(), long.len()),
                agentloop_result::Ok
            );
        }
        assert_eq!(
            agentloop_verifier_push(v, b"\n123".as_ptr(), 4),
            agentloop_result::Ok
        );
        let (count, _, faults) = finish(v);
        assert_eq!(count, 1);
        assert_eq!(faults[0].2, "bad_json");
        assert!(faults[0].3.contains("300 bytes"), "{}", faults[0].3);
        assert_eq!(faults[1].2, "torn_tail");
        agentloop_verifier_free(v);
    }
}

#[test]
fn a_schema_past_its_budget_is_refused_and_explained() {
    // The red team's schema of issue 28, each pattern its own: 9 MB of automaton each.
    let properties: Vec<String> = (0..80)
        .map(|i| format!(r#""p{i}":{{"pattern":"^\\p{{L}}{{195}}{i}$"}}"#))
        .collect();
    let schema = format!(r#"{{"properties":{{{}}}}}"#, properties.join(","));
    let mut out = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r = unsafe { agentloop_schema_new(schema.as_ptr(), schema.len(), &mut out) };
    assert_eq!(r, agentloop_result::SchemaRefused);
    assert!(out.is_null());
    let mut buf = vec![0u8; 1024];
    let mut len = 0;
    // SAFETY: valid inputs and a buffer of its length.
    let r = unsafe {
        agentloop_schema_explain(
            schema.as_ptr(),
            schema.len(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    let sentence = std::str::from_utf8(&buf[..len]).unwrap();
    assert!(
        sentence.starts_with("schema refused at /properties/p1/pattern: keyword 'pattern': ")
            && sentence.contains("more than its budget of 16777216 bytes"),
        "{sentence}"
    );
}

#[test]
fn schemas_compile_validate_and_explain() {
    let schema_text = br#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;
    let mut schema = null_mut();
    // SAFETY (this block): valid pointers unless NULL on purpose; freed once.
    unsafe {
        assert_eq!(
            agentloop_schema_new(schema_text.as_ptr(), schema_text.len(), &mut schema),
            agentloop_result::Ok
        );
        let mut valid = false;
        let good = br#"{"a":2,"b":40}"#;
        assert_eq!(
            agentloop_schema_validate(schema, good.as_ptr(), good.len(), &mut valid),
            agentloop_result::Ok
        );
        assert!(valid);
        let bad = br#"{"a":"2"}"#;
        assert_eq!(
            agentloop_schema_validate(schema, bad.as_ptr(), bad.len(), &mut valid),
            agentloop_result::Ok
        );
        assert!(!valid);
        let mut len = 0usize;
        assert_eq!(
            agentloop_schema_violations(schema, bad.as_ptr(), bad.len(), null_mut(), 0, &mut len),
            agentloop_result::InsufficientSize
        );
        let mut buf = vec![0u8; len];
        assert_eq!(
            agentloop_schema_violations(
                schema,
                bad.as_ptr(),
                bad.len(),
                buf.as_mut_ptr(),
                len,
                &mut len
            ),
            agentloop_result::Ok
        );
        assert_eq!(
            std::str::from_utf8(&buf[..len]).unwrap(),
            "$: missing required property 'b'\n$.a: expected type integer, got string\n"
        );
        assert_eq!(
            agentloop_schema_violations(schema, good.as_ptr(), good.len(), null_mut(), 0, &mut len),
            agentloop_result::Ok
        );
        assert_eq!(len, 0);
        let mut untouched = true;
        assert_eq!(
            agentloop_schema_validate(schema, b"{".as_ptr(), 1, &mut untouched),
            agentloop_result::InvalidJson
        );
        assert_eq!(
            agentloop_schema_validate(schema, b"1e400".as_ptr(), 5, &mut untouched),
            agentloop_result::NoCanonicalForm
        );
        assert!(untouched);
        assert_eq!(
            agentloop_schema_validate(null(), good.as_ptr(), good.len(), &mut valid),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_schema_validate(schema, good.as_ptr(), good.len(), null_mut()),
            agentloop_result::NullParameter
        );
        agentloop_schema_free(schema);
        agentloop_schema_free(null_mut());

        let refused = br#"{"required":["a","a"]}"#;
        let mut out = null_mut();
        assert_eq!(
            agentloop_schema_new(refused.as_ptr(), refused.len(), &mut out),
            agentloop_result::SchemaRefused
        );
        assert!(out.is_null());
        assert_eq!(
            agentloop_schema_new(b"{".as_ptr(), 1, &mut out),
            agentloop_result::InvalidJson
        );
        assert_eq!(
            agentloop_schema_new(schema_text.as_ptr(), schema_text.len(), null_mut()),
            agentloop_result::NullParameter
        );
        let mut small = [0u8; 4];
        assert_eq!(
            agentloop_schema_explain(
                refused.as_ptr(),
                refused.len(),
                small.as_mut_ptr(),
                4,
                &mut len
            ),
            agentloop_result::InsufficientSize
        );
        assert_eq!(small, [0; 4]);
        let mut buf = vec![0u8; len];
        assert_eq!(
            agentloop_schema_explain(
                refused.as_ptr(),
                refused.len(),
                buf.as_mut_ptr(),
                len,
                &mut len
            ),
            agentloop_result::Ok
        );
        let text = String::from_utf8(buf[..len].to_vec()).unwrap();
        assert!(text.starts_with("schema refused at /required"), "{text}");
        assert_eq!(
            agentloop_schema_explain(
                schema_text.as_ptr(),
                schema_text.len(),
                null_mut(),
                0,
                &mut len
            ),
            agentloop_result::Ok
        );
        assert_eq!(len, 0);
    }
}

#[test]
fn files_verify_and_writers_append_under_a_lock() {
    let dir = std::env::temp_dir().join(format!("agentloop-ffi-safety-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    let _ = std::fs::remove_file(&path);
    let c_path = path.to_str().unwrap().to_owned();
    // SAFETY (this block): valid pointers unless NULL on purpose; objects freed once.
    unsafe {
        let mut w = null_mut();
        assert_eq!(
            agentloop_writer_open(c_path.as_ptr(), c_path.len(), null(), &mut w),
            agentloop_result::Ok
        );
        for (kind, payload) in SPEC_PAYLOADS {
            assert_eq!(
                agentloop_writer_append(
                    w,
                    kind.as_ptr(),
                    kind.len(),
                    payload.as_ptr(),
                    payload.len()
                ),
                agentloop_result::Ok
            );
        }
        assert_eq!(
            agentloop_writer_append(w, b"".as_ptr(), 0, b"1".as_ptr(), 1),
            agentloop_result::InvalidArgument
        );
        assert_eq!(
            agentloop_writer_append(w, b"k".as_ptr(), 1, b"9007199254740993".as_ptr(), 16),
            agentloop_result::NoCanonicalForm
        );
        assert_eq!(
            agentloop_writer_append(null_mut(), b"k".as_ptr(), 1, b"1".as_ptr(), 1),
            agentloop_result::NullParameter
        );
        assert_eq!(agentloop_writer_sync(w), agentloop_result::Ok);
        let mut n = 0u64;
        assert_eq!(agentloop_writer_count(w, &mut n), agentloop_result::Ok);
        assert_eq!(n, 3);
        let mut head = agentloop_hash::default();
        assert_eq!(agentloop_writer_head(w, &mut head), agentloop_result::Ok);
        agentloop_writer_free(w);
        agentloop_writer_free(null_mut());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), spec_transcript());

        // Reopen: continues at the end.
        let mut w = null_mut();
        assert_eq!(
            agentloop_writer_open(c_path.as_ptr(), c_path.len(), null(), &mut w),
            agentloop_result::Ok
        );
        let mut again = agentloop_hash::default();
        assert_eq!(agentloop_writer_head(w, &mut again), agentloop_result::Ok);
        assert_eq!(again, head);
        assert_eq!(
            agentloop_writer_append(w, b"note".as_ptr(), 4, b"{}".as_ptr(), 2),
            agentloop_result::Ok
        );
        assert_eq!(agentloop_writer_count(w, &mut n), agentloop_result::Ok);
        assert_eq!(n, 4);
        agentloop_writer_free(w);

        let mut report = null_mut();
        assert_eq!(
            agentloop_transcript_verify_file(c_path.as_ptr(), c_path.len(), null(), &mut report),
            agentloop_result::Ok
        );
        assert!(agentloop_report_ok(report));
        assert_eq!(agentloop_report_count(report), 4);
        agentloop_report_free(report);

        // A tampered file is refused and left untouched.
        let tampered = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\"sum\":42", "\"sum\":43");
        std::fs::write(&path, &tampered).unwrap();
        let mut w = null_mut();
        assert_eq!(
            agentloop_writer_open(c_path.as_ptr(), c_path.len(), null(), &mut w),
            agentloop_result::DoesNotVerify
        );
        assert!(w.is_null());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), tampered);

        // A missing file verifies to an `unreadable` fault; a directory cannot be opened.
        let missing = dir.join("absent.jsonl").to_str().unwrap().to_owned();
        assert_eq!(
            agentloop_transcript_verify_file(missing.as_ptr(), missing.len(), null(), &mut report),
            agentloop_result::Ok
        );
        let (mut index, mut line, mut kind) = (0i64, 0i64, 0u32);
        assert_eq!(
            agentloop_report_fault(report, 0, &mut index, &mut line, &mut kind, null_mut()),
            agentloop_result::Ok
        );
        assert_eq!(
            (index, line, kind),
            (-1, -1, agentloop_fault_kind::Unreadable as u32)
        );
        agentloop_report_free(report);
        let c_dir = dir.to_str().unwrap().to_owned();
        assert_eq!(
            agentloop_writer_open(c_dir.as_ptr(), c_dir.len(), null(), &mut w),
            agentloop_result::Io
        );
        // A path is (ptr, len): NULL with a length is NULL_PARAMETER; an empty path,
        // or one with a NUL byte (the system would open a shorter one), is refused.
        assert_eq!(
            agentloop_transcript_verify_file(null(), 5, null(), &mut report),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_writer_open(null(), 5, null(), &mut w),
            agentloop_result::NullParameter
        );
        let cut = format!("{c_path}\0.other");
        for (ptr, len) in [(null(), 0), (c_path.as_ptr(), 0), (cut.as_ptr(), cut.len())] {
            assert_eq!(
                agentloop_transcript_verify_file(ptr, len, null(), &mut report),
                agentloop_result::InvalidArgument
            );
            assert_eq!(
                agentloop_writer_open(ptr, len, null(), &mut w),
                agentloop_result::InvalidArgument
            );
            assert_eq!(
                agentloop_transcript_repair(ptr, len, null(), &mut 0, &mut 0),
                agentloop_result::InvalidArgument
            );
        }
        // Not NUL-terminated: the length says where the path ends.
        let fresh = dir.join("fresh.jsonl").to_str().unwrap().to_owned();
        let longer = format!("{fresh}.and-more");
        assert_eq!(
            agentloop_writer_open(longer.as_ptr(), fresh.len(), null(), &mut w),
            agentloop_result::Ok
        );
        agentloop_writer_free(w);
        w = null_mut();
        assert!(std::path::Path::new(&fresh).is_file());
        assert!(!std::path::Path::new(&longer).exists());
        assert_eq!(
            agentloop_writer_open(c_path.as_ptr(), c_path.len(), null(), null_mut()),
            agentloop_result::NullParameter
        );
        assert!(w.is_null());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
