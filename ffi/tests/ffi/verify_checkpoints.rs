//! `agentloop_transcript_verify_checkpoints`: several checkpoints judged through the C signature
//! give the report core's `tlog::Checkpoints` gives (the rules of `agentloop verify
//! --checkpoint A --checkpoint B`), details included; bad calls are result codes that
//! write nothing.

use core::ffi::{c_char, CStr};
use core::ptr::{null, null_mut};

use agentloop::*;
use agentloop_core::chain::Chain;
use agentloop_core::note::SignerKey;
use agentloop_core::tlog::{leaves_of, read_checkpoint, report_checkpoint, Checkpoints, Leaves};
use agentloop_core::verify::{verify_bytes, Options};

/// A transcript of `n` records; record `changed` (if any) carries another payload.
fn transcript(n: usize, changed: Option<usize>) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for i in 0..n {
        let v = if Some(i) == changed { 1000 + i } else { i };
        let payload = format!("{{\"i\":{v}}}");
        out.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
    }
    out
}

/// The unsigned checkpoint body of the first `n` records of `bytes`.
fn checkpoint(bytes: &[u8], n: usize) -> Vec<u8> {
    let prefix: Vec<u8> = bytes
        .split_inclusive(|b| *b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect();
    let report = verify_bytes(&prefix, &Options::default());
    report_checkpoint(&report, None)
        .unwrap()
        .body()
        .into_bytes()
}

/// One fault as the C ABI tells it.
type CFault = (i64, i64, String, String);

/// Calls `agentloop_transcript_verify_checkpoints`; the report's faults, or the result code.
fn through_c(
    bytes: &[u8],
    texts: &[Vec<u8>],
    keys: Option<&str>,
    origin: Option<&str>,
) -> Result<Vec<CFault>, agentloop_result> {
    let ptrs: Vec<*const u8> = texts.iter().map(|t| t.as_ptr()).collect();
    let lens: Vec<usize> = texts.iter().map(Vec::len).collect();
    // None is length 0 (and NULL, which length 0 allows).
    let text = |s: Option<&str>| s.map_or((null(), 0), |s| (s.as_ptr(), s.len()));
    let (keys, origin) = (text(keys), text(origin));
    let mut report = null_mut();
    // SAFETY: every pointer is valid for the lengths given; report is writable.
    let r = unsafe {
        agentloop_transcript_verify_checkpoints(
            bytes.as_ptr(),
            bytes.len(),
            null(),
            if texts.is_empty() {
                null()
            } else {
                ptrs.as_ptr()
            },
            if texts.is_empty() {
                null()
            } else {
                lens.as_ptr()
            },
            texts.len(),
            keys.0,
            keys.1,
            origin.0,
            origin.1,
            &mut report,
        )
    };
    if r != agentloop_result::Ok {
        assert!(report.is_null(), "a failed call wrote its report");
        return Err(r);
    }
    let mut faults = Vec::new();
    // SAFETY: report is live until freed below; the out pointers are writable.
    unsafe {
        for i in 0..agentloop_report_fault_count(report) {
            let (mut index, mut line, mut kind) = (0i64, 0i64, 0u32);
            let mut detail: *const c_char = null();
            let r =
                agentloop_report_fault(report, i, &mut index, &mut line, &mut kind, &mut detail);
            assert_eq!(r, agentloop_result::Ok);
            let kind = CStr::from_ptr(agentloop_fault_kind_str(kind));
            faults.push((
                index,
                line,
                kind.to_str().unwrap().to_string(),
                CStr::from_ptr(detail).to_str().unwrap().to_string(),
            ));
        }
        agentloop_report_free(report);
    }
    Ok(faults)
}

/// The same judgement made with core's `Checkpoints`, told as the C ABI tells it.
fn through_core(bytes: &[u8], texts: &[Vec<u8>], origin: Option<&str>) -> Vec<CFault> {
    let given = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("checkpoints[{i}]"), read_checkpoint(t).unwrap()))
        .collect();
    let checkpoints = Checkpoints::admit(given, &[], origin);
    let mut report = verify_bytes(
        bytes,
        &Options {
            checkpoint: checkpoints.newest(),
            ..Options::default()
        },
    );
    let (leaves, hashes) = leaves_of(bytes).unwrap();
    checkpoints.judge(
        &mut report,
        Some(Leaves {
            leaves: &leaves,
            hashes: &hashes,
        }),
    );
    let signed = |n: Option<u64>| n.map_or(-1, |n| n as i64);
    report
        .faults
        .iter()
        .map(|f| {
            (
                signed(f.index),
                signed(f.line),
                f.kind.as_str().to_string(),
                f.detail.to_string(),
            )
        })
        .collect()
}

#[test]
fn the_c_report_is_cores_judgement_details_included() {
    let original = transcript(5, None);
    let rewritten = transcript(5, Some(2));
    let cut: Vec<u8> = original
        .split_inclusive(|b| *b == b'\n')
        .take(2)
        .flatten()
        .copied()
        .collect();
    /// What is verified, against which checkpoints, expecting which origin and kinds.
    type Case<'a> = (
        &'a str,
        &'a [u8],
        Vec<Vec<u8>>,
        Option<&'a str>,
        Vec<&'a str>,
    );
    let cases: Vec<Case> = vec![
        (
            "a prefix and the whole",
            &original,
            vec![checkpoint(&original, 3), checkpoint(&original, 5)],
            None,
            vec![],
        ),
        (
            "an old checkpoint of another history",
            &rewritten,
            vec![checkpoint(&original, 3), checkpoint(&rewritten, 5)],
            None,
            vec!["checkpoint_inconsistent"],
        ),
        (
            "the newest does not hold; the old one, alone, does",
            &original,
            vec![checkpoint(&original, 3), checkpoint(&rewritten, 5)],
            None,
            vec!["head_mismatch"],
        ),
        (
            "a cut file",
            &cut,
            vec![checkpoint(&original, 3), checkpoint(&original, 5)],
            None,
            vec!["truncated", "truncated"],
        ),
        (
            "another origin expected",
            &original,
            vec![checkpoint(&original, 3), checkpoint(&original, 5)],
            Some("example.com/log"),
            vec!["checkpoint_origin_mismatch", "checkpoint_origin_mismatch"],
        ),
        ("no checkpoint", &original, vec![], None, vec![]),
    ];
    for (what, bytes, texts, origin, kinds) in cases {
        let found = through_c(bytes, &texts, None, origin).unwrap();
        assert_eq!(found, through_core(bytes, &texts, origin), "{what}");
        let found_kinds: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
        assert_eq!(found_kinds, kinds, "{what}");
    }
    // Faults of an older checkpoint are named by its place in the array.
    let found = through_c(
        &rewritten,
        &[checkpoint(&original, 3), checkpoint(&rewritten, 5)],
        None,
        None,
    )
    .unwrap();
    assert!(
        found[0]
            .3
            .starts_with("checkpoint checkpoints[0]: its head "),
        "{found:?}"
    );
}

#[test]
fn trusted_keys_are_applied_to_every_checkpoint() {
    let t = transcript(4, None);
    let key = SignerKey::from_seed("alice", &[7; 32]).unwrap();
    let unsigned = checkpoint(&t, 4);
    let body = String::from_utf8(unsigned.clone()).unwrap();
    let agentloop_core::tlog::CheckpointText::Tlog { checkpoint: cp, .. } =
        read_checkpoint(body.as_bytes()).unwrap()
    else {
        unreachable!()
    };
    let signed = cp.sign(&key).unwrap().into_bytes();
    let keys = key.verifier().to_string();
    assert_eq!(
        through_c(&t, std::slice::from_ref(&signed), Some(&keys), None),
        Ok(vec![])
    );
    let found = through_c(&t, &[checkpoint(&t, 2), signed], Some(&keys), None).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].2, "checkpoint_untrusted");
    assert!(
        found[0].3.starts_with("checkpoint checkpoints[0]: "),
        "{found:?}"
    );
}

#[test]
fn bad_calls_are_result_codes_that_write_nothing() {
    let t = transcript(3, None);
    let cp = checkpoint(&t, 3);
    // Keys with nothing to check them against; a key line that is not a key.
    let key = SignerKey::from_seed("alice", &[7; 32])
        .unwrap()
        .verifier()
        .to_string();
    assert_eq!(
        through_c(&t, &[], Some(&key), None),
        Err(agentloop_result::InvalidArgument)
    );
    assert_eq!(
        through_c(&t, std::slice::from_ref(&cp), Some("not a key"), None),
        Err(agentloop_result::AnchorMalformed)
    );
    // A checkpoint that does not parse, or is not UTF-8.
    assert_eq!(
        through_c(&t, &[b"nonsense\n".to_vec()], None, None),
        Err(agentloop_result::AnchorMalformed)
    );
    assert_eq!(
        through_c(&t, &[vec![0xff, b'\n']], None, None),
        Err(agentloop_result::InvalidUtf8)
    );
    let mut report = null_mut();
    let lens = [cp.len()];
    let ptrs = [cp.as_ptr()];
    // SAFETY: each call passes valid pointers except the NULL under test.
    unsafe {
        assert_eq!(
            agentloop_transcript_verify_checkpoints(
                t.as_ptr(),
                t.len(),
                null(),
                null(),
                lens.as_ptr(),
                1,
                null(),
                0,
                null(),
                0,
                &mut report
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_verify_checkpoints(
                t.as_ptr(),
                t.len(),
                null(),
                ptrs.as_ptr(),
                null(),
                1,
                null(),
                0,
                null(),
                0,
                &mut report
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_verify_checkpoints(
                t.as_ptr(),
                t.len(),
                null(),
                ptrs.as_ptr(),
                lens.as_ptr(),
                1,
                null(),
                0,
                null(),
                0,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        // Options that carry their own checkpoint as well: which one? Refused.
        let mut options = core::mem::zeroed();
        assert_eq!(
            agentloop_verify_options_init(&mut options),
            agentloop_result::Ok
        );
        options.has_checkpoint = true;
        options.checkpoint_count = 3;
        assert_eq!(
            agentloop_transcript_verify_checkpoints(
                t.as_ptr(),
                t.len(),
                &options,
                ptrs.as_ptr(),
                lens.as_ptr(),
                1,
                null(),
                0,
                null(),
                0,
                &mut report
            ),
            agentloop_result::InvalidArgument
        );
    }
    assert!(report.is_null());
}
