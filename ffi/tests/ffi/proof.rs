//! Proofs through the C signatures: the bytes are those the shared core functions (and
//! so `agentloop prove`) give, every proof made verifies, a tampered one does not, and
//! bad inputs are result codes that change nothing.

use core::ptr::{null, null_mut};

use agentloop::*;
use agentloop_core::chain::Chain;
use agentloop_core::note::SignerKey;
use agentloop_core::tlog::{consistency_text, inclusion_text, leaves_of, report_checkpoint};
use agentloop_core::verify::{verify_bytes, Options};

/// A transcript of `n` records from genesis.
fn transcript(n: u64) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for i in 0..n {
        let line = chain
            .append_json("note", format!("{{\"i\":{i}}}").as_bytes())
            .unwrap();
        out.extend_from_slice(line);
    }
    out
}

type Maker = unsafe extern "C" fn(
    *const u8,
    usize,
    *const u8,
    usize,
    u64,
    *mut u8,
    usize,
    *mut usize,
) -> agentloop_result;

/// Calls a prover with the size-query protocol: first a size query, then a buffer of
/// exactly that size.
fn make(f: Maker, bytes: &[u8], checkpoint: &[u8], at: u64) -> Result<Vec<u8>, agentloop_result> {
    let mut len = 0usize;
    let cp = if checkpoint.is_empty() {
        null()
    } else {
        checkpoint.as_ptr()
    };
    // SAFETY: valid inputs; NULL buffer is a size query.
    let r = unsafe {
        f(
            bytes.as_ptr(),
            bytes.len(),
            cp,
            checkpoint.len(),
            at,
            null_mut(),
            0,
            &mut len,
        )
    };
    if r != agentloop_result::InsufficientSize {
        return Err(r);
    }
    let mut buf = vec![0u8; len];
    let mut got = 0usize;
    // SAFETY: a buffer of len bytes.
    let r = unsafe {
        f(
            bytes.as_ptr(),
            bytes.len(),
            cp,
            checkpoint.len(),
            at,
            buf.as_mut_ptr(),
            buf.len(),
            &mut got,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(got, len);
    Ok(buf)
}

fn checkpoint(
    bytes: &[u8],
    origin: Option<&str>,
    key: Option<&str>,
) -> Result<Vec<u8>, agentloop_result> {
    let (o, k) = (text(origin), text(key));
    let mut len = 0usize;
    // SAFETY: valid inputs; a size query.
    let r = unsafe {
        agentloop_transcript_checkpoint(
            bytes.as_ptr(),
            bytes.len(),
            o.0,
            o.1,
            k.0,
            k.1,
            null_mut(),
            0,
            &mut len,
        )
    };
    if r != agentloop_result::InsufficientSize {
        return Err(r);
    }
    let mut buf = vec![0u8; len];
    // SAFETY: a buffer of len bytes.
    let r = unsafe {
        agentloop_transcript_checkpoint(
            bytes.as_ptr(),
            bytes.len(),
            o.0,
            o.1,
            k.0,
            k.1,
            buf.as_mut_ptr(),
            len,
            &mut len,
        )
    };
    assert_eq!(r, agentloop_result::Ok);
    Ok(buf)
}

/// An optional text input as `(ptr, len)`: `None` is NULL with length 0.
fn text(s: Option<&str>) -> (*const u8, usize) {
    s.map_or((null(), 0), |s| (s.as_ptr(), s.len()))
}

fn verify_incl(proof: &[u8], keys: Option<&str>, origin: Option<&str>) -> agentloop_result {
    let (keys, origin) = (text(keys), text(origin));
    // SAFETY: valid inputs.
    unsafe {
        agentloop_proof_verify_inclusion(
            proof.as_ptr(),
            proof.len(),
            keys.0,
            keys.1,
            origin.0,
            origin.1,
        )
    }
}

fn verify_cons(proof: &[u8], old: &[u8], keys: Option<&str>) -> agentloop_result {
    let keys = text(keys);
    // SAFETY: valid inputs.
    unsafe {
        agentloop_proof_verify_consistency(
            proof.as_ptr(),
            proof.len(),
            old.as_ptr(),
            old.len(),
            keys.0,
            keys.1,
            null(),
            0,
        )
    }
}

const SEED: [u8; 32] = [7; 32];

#[test]
fn every_inclusion_and_consistency_proof_round_trips_byte_identical_to_core() {
    for n in 0..=6u64 {
        let bytes = transcript(n);
        let report = verify_bytes(&bytes, &Options::default());
        let (leaves, _) = leaves_of(&bytes).unwrap();
        let body = report_checkpoint(&report, None).unwrap().body();
        assert_eq!(checkpoint(&bytes, None, None).unwrap(), body.as_bytes());
        for i in 0..n {
            let want = inclusion_text(&bytes, &leaves, i, n, body.clone()).unwrap();
            let got = make(agentloop_transcript_prove_inclusion, &bytes, &[], i).unwrap();
            assert_eq!(got, want.as_bytes(), "n {n} index {i}");
            assert_eq!(verify_incl(&got, None, None), agentloop_result::Ok);
        }
        assert_eq!(
            make(agentloop_transcript_prove_inclusion, &bytes, &[], n),
            Err(agentloop_result::IndexOutOfRange)
        );
        // The empty tree has no consistency proof (as `agentloop prove --from 0`).
        assert_eq!(
            make(agentloop_transcript_prove_consistency, &bytes, &[], 0),
            Err(agentloop_result::InvalidArgument)
        );
        for m in 1..=n {
            let want = consistency_text(&leaves, m, n, body.clone()).unwrap();
            let got = make(agentloop_transcript_prove_consistency, &bytes, &[], m).unwrap();
            assert_eq!(got, want.as_bytes(), "n {n} from {m}");
            // The older checkpoint: that of the first m records.
            let prefix_len = bytes
                .split_inclusive(|b| *b == b'\n')
                .take(m as usize)
                .map(<[u8]>::len)
                .sum();
            let old = checkpoint(&bytes[..prefix_len], None, None).unwrap();
            assert_eq!(
                verify_cons(&got, &old, None),
                agentloop_result::Ok,
                "n {n} from {m}"
            );
            // Against a checkpoint of a prefix: the proof is of that prefix.
            {
                let to_old =
                    make(agentloop_transcript_prove_inclusion, &bytes, &old, m - 1).unwrap();
                let want = inclusion_text(
                    &bytes,
                    &leaves,
                    m - 1,
                    m,
                    String::from_utf8(old.clone()).unwrap(),
                )
                .unwrap();
                assert_eq!(to_old, want.as_bytes());
                assert_eq!(verify_incl(&to_old, None, None), agentloop_result::Ok);
            }
        }
        assert_eq!(
            make(agentloop_transcript_prove_consistency, &bytes, &[], n + 1),
            Err(agentloop_result::IndexOutOfRange)
        );
    }
}

#[test]
fn a_tampered_proof_or_a_wrong_older_checkpoint_is_proof_invalid() {
    let bytes = transcript(5);
    let proof = make(agentloop_transcript_prove_inclusion, &bytes, &[], 3).unwrap();
    let text = String::from_utf8(proof.clone()).unwrap();
    // Swap one proof hash for another well-formed one.
    let lines: Vec<&str> = text.split('\n').collect();
    let at = lines.iter().position(|l| l.starts_with("index ")).unwrap() + 1;
    let mut tampered: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    tampered[at] = String::from("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    let tampered = tampered.join("\n");
    assert_ne!(tampered, text);
    assert_eq!(
        verify_incl(tampered.as_bytes(), None, None),
        agentloop_result::ProofInvalid
    );
    // Claim the record sits at another index.
    let moved = text.replace("index 3\n", "index 2\n");
    assert_eq!(
        verify_incl(moved.as_bytes(), None, None),
        agentloop_result::ProofInvalid
    );
    // An origin other than the checkpoint's.
    assert_eq!(
        verify_incl(&proof, None, Some("example.com/other")),
        agentloop_result::ProofInvalid
    );

    // Consistency against a checkpoint of another transcript of the same size.
    let other = {
        let mut chain = Chain::new();
        let mut out = Vec::new();
        for i in 0..3 {
            out.extend_from_slice(
                chain
                    .append_json("other", format!("{{\"j\":{i}}}").as_bytes())
                    .unwrap(),
            );
        }
        out
    };
    let cons = make(agentloop_transcript_prove_consistency, &bytes, &[], 3).unwrap();
    let foreign = checkpoint(&other, None, None).unwrap();
    assert_eq!(
        verify_cons(&cons, &foreign, None),
        agentloop_result::ProofInvalid
    );
    // Same origin (record 0 shared) but another record 2: the roots differ.
    let mut chain = Chain::new();
    let mut forked = Vec::new();
    forked.extend_from_slice(chain.append_json("note", b"{\"i\":0}").unwrap());
    forked.extend_from_slice(chain.append_json("note", b"{\"i\":1}").unwrap());
    forked.extend_from_slice(chain.append_json("note", b"{\"i\":99}").unwrap());
    let fork = checkpoint(&forked, None, None).unwrap();
    assert_eq!(
        verify_cons(&cons, &fork, None),
        agentloop_result::ProofInvalid
    );
    // A checkpoint of another transcript cannot be proved against.
    assert_eq!(
        make(agentloop_transcript_prove_inclusion, &bytes, &fork, 0),
        Err(agentloop_result::InvalidArgument)
    );
}

#[test]
fn signed_checkpoints_are_checked_against_the_trusted_keys() {
    let bytes = transcript(4);
    let key = SignerKey::from_seed("example.com/log", &SEED).unwrap();
    let other = SignerKey::from_seed("example.com/log", &[8; 32]).unwrap();
    let secret = key.to_secret_string();
    let vkey = key.verifier().to_string();
    let signed = checkpoint(&bytes, Some("example.com/t1"), Some(&secret)).unwrap();
    let body = checkpoint(&bytes, Some("example.com/t1"), None).unwrap();
    assert!(signed.starts_with(&body));
    assert!(signed.len() > body.len());
    let proof = make(agentloop_transcript_prove_inclusion, &bytes, &signed, 1).unwrap();
    let keys = format!("# the log\n\n{vkey}\n");
    assert_eq!(verify_incl(&proof, Some(&keys), None), agentloop_result::Ok);
    assert_eq!(
        verify_incl(&proof, Some(&keys), Some("example.com/t1")),
        agentloop_result::Ok
    );
    let stranger = other.verifier().to_string();
    assert_eq!(
        verify_incl(&proof, Some(&stranger), None),
        agentloop_result::ProofInvalid
    );
    // The unsigned checkpoint is refused once a key is trusted.
    let unsigned = make(agentloop_transcript_prove_inclusion, &bytes, &body, 1).unwrap();
    assert_eq!(
        verify_incl(&unsigned, Some(&vkey), None),
        agentloop_result::ProofInvalid
    );
    let cons = make(agentloop_transcript_prove_consistency, &bytes, &signed, 4).unwrap();
    assert_eq!(
        verify_cons(&cons, &signed, Some(&vkey)),
        agentloop_result::Ok
    );
    // Bad key texts.
    assert_eq!(
        verify_incl(&proof, Some("not a key"), None),
        agentloop_result::AnchorMalformed
    );
    // Length 0 is no origin given: the default one, as NULL.
    assert_eq!(
        checkpoint(&bytes, Some(""), None),
        checkpoint(&bytes, None, None)
    );
    assert!(checkpoint(&bytes, Some(""), None)
        .unwrap()
        .starts_with(b"agentloop/transcript/"));
    for origin in [
        "two\nlines",
        "{example.com",
        " {example.com",
        " example.com",
    ] {
        assert_eq!(
            checkpoint(&bytes, Some(origin), None),
            Err(agentloop_result::AnchorMalformed),
            "origin {origin:?}"
        );
    }
    assert_eq!(
        checkpoint(&bytes, None, Some("PRIVATE+KEY+nope")),
        Err(agentloop_result::AnchorMalformed)
    );
}

#[test]
fn bad_inputs_are_result_codes_and_change_nothing() {
    let bytes = transcript(3);
    let proof = make(agentloop_transcript_prove_inclusion, &bytes, &[], 1).unwrap();
    let mut len = 12345usize;
    let mut buf = [0xAAu8; 8];
    // SAFETY (all calls below): the pointers are valid or NULL as each case says.
    unsafe {
        // NULL out_len, NULL transcript with a length.
        assert_eq!(
            agentloop_transcript_prove_inclusion(
                bytes.as_ptr(),
                bytes.len(),
                null(),
                0,
                0,
                buf.as_mut_ptr(),
                8,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_prove_inclusion(
                null(),
                5,
                null(),
                0,
                0,
                buf.as_mut_ptr(),
                8,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_prove_consistency(
                bytes.as_ptr(),
                bytes.len(),
                null(),
                3,
                0,
                buf.as_mut_ptr(),
                8,
                &mut len
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_transcript_checkpoint(
                bytes.as_ptr(),
                bytes.len(),
                null(),
                0,
                null(),
                0,
                buf.as_mut_ptr(),
                8,
                null_mut()
            ),
            agentloop_result::NullParameter
        );
        assert_eq!(len, 12345);
        // A tiny buffer: the needed length, the buffer untouched; a retry gives the bytes.
        assert_eq!(
            agentloop_transcript_prove_inclusion(
                bytes.as_ptr(),
                bytes.len(),
                null(),
                0,
                1,
                buf.as_mut_ptr(),
                8,
                &mut len
            ),
            agentloop_result::InsufficientSize
        );
        assert_eq!(len, proof.len());
        assert_eq!(buf, [0xAA; 8]);
        let mut big = vec![0u8; len];
        assert_eq!(
            agentloop_transcript_prove_inclusion(
                bytes.as_ptr(),
                bytes.len(),
                null(),
                0,
                1,
                big.as_mut_ptr(),
                big.len(),
                &mut len
            ),
            agentloop_result::Ok
        );
        assert_eq!(big, proof);
        assert_eq!(
            agentloop_proof_verify_inclusion(null(), 4, null(), 0, null(), 0),
            agentloop_result::NullParameter
        );
        assert_eq!(
            agentloop_proof_verify_consistency(
                proof.as_ptr(),
                proof.len(),
                null(),
                1,
                null(),
                0,
                null(),
                0
            ),
            agentloop_result::NullParameter
        );
        let mut root = agentloop_hash::default();
        let mut has = false;
        assert_eq!(
            agentloop_report_root(null(), &mut root, &mut has),
            agentloop_result::NullParameter
        );
    }
    // A transcript that does not verify.
    let mut broken = bytes.clone();
    broken[20] ^= 1;
    assert_eq!(
        make(agentloop_transcript_prove_inclusion, &broken, &[], 0),
        Err(agentloop_result::DoesNotVerify)
    );
    assert_eq!(
        checkpoint(&broken, None, None),
        Err(agentloop_result::DoesNotVerify)
    );
    // Malformed proof texts.
    assert_eq!(
        verify_incl(b"", None, None),
        agentloop_result::AnchorMalformed
    );
    assert_eq!(
        verify_incl(b"hello\n", None, None),
        agentloop_result::AnchorMalformed
    );
    assert_eq!(
        verify_incl(b"\xff\xfe\n", None, None),
        agentloop_result::InvalidUtf8
    );
    let cut = &proof[..proof.len() / 2];
    assert_ne!(verify_incl(cut, None, None), agentloop_result::Ok);
    assert_eq!(
        verify_cons(&proof, &checkpoint(&bytes, None, None).unwrap(), None),
        agentloop_result::AnchorMalformed,
        "an inclusion proof is not a consistency proof"
    );
    assert_eq!(
        make(
            agentloop_transcript_prove_inclusion,
            &bytes,
            b"not a checkpoint\n",
            0
        ),
        Err(agentloop_result::AnchorMalformed)
    );
    assert_eq!(
        make(agentloop_transcript_prove_inclusion, &bytes, b"\xff\n", 0),
        Err(agentloop_result::InvalidUtf8)
    );
    let origin = [0xffu8];
    // SAFETY: valid (non-UTF-8) byte inputs.
    let r = unsafe {
        agentloop_proof_verify_inclusion(proof.as_ptr(), proof.len(), null(), 0, origin.as_ptr(), 1)
    };
    assert_eq!(r, agentloop_result::InvalidUtf8);
}

#[test]
fn the_report_root_is_the_checkpoint_root() {
    let bytes = transcript(5);
    let (leaves, _) = leaves_of(&bytes).unwrap();
    let mut report = null_mut();
    let mut root = agentloop_hash::default();
    let mut has = false;
    // SAFETY: valid inputs and outputs; the report is freed once.
    unsafe {
        assert_eq!(
            agentloop_transcript_verify_buffer(bytes.as_ptr(), bytes.len(), null(), &mut report),
            agentloop_result::Ok
        );
        assert_eq!(
            agentloop_report_root(report, &mut root, &mut has),
            agentloop_result::Ok
        );
        agentloop_report_free(report);
    }
    assert!(has);
    assert_eq!(root.bytes, agentloop_core::merkle::root_of(&leaves).0);
    assert_ne!(root.bytes, [0; 32]);
}

/// `agentloop_proof_explain` with the size query: the sentence, and the result code of
/// the query that measured it.
fn explain(proof: &[u8], old: &[u8], keys: Option<&str>, origin: Option<&str>) -> String {
    let (keys, origin) = (text(keys), text(origin));
    let old_ptr = if old.is_empty() { null() } else { old.as_ptr() };
    let call = |buf: *mut u8, cap: usize, len: &mut usize| {
        // SAFETY: valid inputs; `buf` is NULL (the size query, cap 0) or `cap` writable
        // bytes.
        unsafe {
            agentloop_proof_explain(
                proof.as_ptr(),
                proof.len(),
                old_ptr,
                old.len(),
                keys.0,
                keys.1,
                origin.0,
                origin.1,
                buf,
                cap,
                len,
            )
        }
    };
    let mut len = usize::MAX;
    let r = call(null_mut(), 0, &mut len);
    if len == 0 {
        assert_eq!(r, agentloop_result::Ok, "an empty sentence fits any buffer");
        return String::new();
    }
    assert_eq!(r, agentloop_result::InsufficientSize);
    let mut buf = vec![0u8; len];
    let mut got = 0usize;
    let r = call(buf.as_mut_ptr(), buf.len(), &mut got);
    assert_eq!(r, agentloop_result::Ok);
    assert_eq!(got, len);
    String::from_utf8(buf).unwrap()
}

#[test]
fn explain_proof_says_why_a_proof_does_not_hold_and_agrees_with_the_verdict() {
    let bytes = transcript(5);
    let key = SignerKey::from_seed("example.com/log", &SEED).unwrap();
    let vkey = key.verifier().to_string();
    let stranger = SignerKey::from_seed("example.com/log", &[8; 32])
        .unwrap()
        .verifier()
        .to_string();
    let signed = checkpoint(&bytes, None, Some(&key.to_secret_string())).unwrap();
    let proof = make(agentloop_transcript_prove_inclusion, &bytes, &signed, 3).unwrap();
    let cons = make(agentloop_transcript_prove_consistency, &bytes, &signed, 2).unwrap();
    let old = checkpoint(&transcript(2), None, None).unwrap();

    // Holds: the empty sentence, for both kinds.
    assert_eq!(verify_incl(&proof, Some(&vkey), None), agentloop_result::Ok);
    assert_eq!(explain(&proof, &[], Some(&vkey), None), "");
    assert_eq!(verify_cons(&cons, &old, Some(&vkey)), agentloop_result::Ok);
    assert_eq!(explain(&cons, &old, Some(&vkey), None), "");

    // Each way of not holding names its finding, where the verdict is PROOF_INVALID.
    let moved = String::from_utf8(proof.clone())
        .unwrap()
        .replace("index 3\n", "index 2\n");
    // (proof, older checkpoint, trusted keys, origin, the finding named first)
    type Case<'a> = (
        &'a [u8],
        &'a [u8],
        Option<&'a str>,
        Option<&'a str>,
        &'a str,
    );
    let cases: Vec<Case> = vec![
        (&proof, &[], Some(&stranger), None, "checkpoint_untrusted: "),
        (
            &proof,
            &[],
            None,
            Some("example.com/x"),
            "checkpoint_origin_mismatch: ",
        ),
        (moved.as_bytes(), &[], None, None, "proof_invalid: "),
        (&cons, &signed, None, None, "checkpoint_inconsistent: "),
    ];
    for (p, o, keys, origin, kind) in cases {
        let why = explain(p, o, keys, origin);
        assert!(why.starts_with(kind), "{kind}: {why}");
        let code = if o.is_empty() {
            verify_incl(p, keys, origin)
        } else {
            verify_cons(p, o, keys)
        };
        assert_eq!(code, agentloop_result::ProofInvalid, "{why}");
    }

    // Text that does not parse: one sentence naming it.
    let why = explain(b"not a proof\n\nx\n", &[], None, None);
    assert!(
        why.starts_with("the proof is malformed: the first line"),
        "{why}"
    );
    let why = explain(&cons, &[], None, None);
    assert!(why.contains("old_checkpoint is empty"), "{why}");
    let why = explain(&proof, &[], Some("# keys\nnot a key\n"), None);
    assert!(
        why.starts_with("trusted_keys line 2 is not a note verifier key"),
        "{why}"
    );
    let why = explain(&cons, b"{\"count\":2}", None, None);
    assert!(why.starts_with("the older checkpoint is "), "{why}");

    // NULL out_len is NULL_PARAMETER.
    // SAFETY: valid inputs but for the NULL out_len, which the function checks.
    let r = unsafe {
        agentloop_proof_explain(
            proof.as_ptr(),
            proof.len(),
            null(),
            0,
            null(),
            0,
            null(),
            0,
            null_mut(),
            0,
            null_mut(),
        )
    };
    assert_eq!(r, agentloop_result::NullParameter);
}

#[test]
fn a_signer_key_among_the_trusted_keys_is_named_as_such() {
    let bytes = transcript(3);
    let key = SignerKey::from_seed("example.com/log", &SEED).unwrap();
    let secret = key.to_secret_string();
    let signed = checkpoint(&bytes, None, Some(&secret)).unwrap();
    let proof = make(agentloop_transcript_prove_inclusion, &bytes, &signed, 1).unwrap();
    let trusted = format!("# mine\n{secret}\n");
    assert_eq!(
        verify_incl(&proof, Some(&trusted), None),
        agentloop_result::AnchorMalformed
    );
    let why = explain(&proof, &[], Some(&trusted), None);
    assert!(
        why.starts_with(
            "trusted_keys line 2 is not a note verifier key: this is a signer key \
             (PRIVATE+KEY+..., secret), but a verifier key is wanted here"
        ),
        "{why}"
    );
    // PRIVATE+KEY+<name>+<key id>+<base64 seed>: the seed may itself hold a '+', so
    // split off the four fields before it (a fragment after its last '+' could be a
    // few letters that any sentence contains).
    let seed_text = secret.splitn(5, '+').nth(4).unwrap();
    assert!(seed_text.len() >= 40, "{secret}");
    assert!(!why.contains(seed_text), "{why}");
}

/// The signer key is read as `agentloop checkpoint --sign-key FILE` reads its file: the
/// first line that is not blank or a `#` comment — so the text `agentloop keygen`
/// prints (the signer key, then its verifier key) signs as the key alone does.
#[test]
fn the_signer_key_is_read_as_the_cli_reads_a_key_file() {
    let bytes = transcript(3);
    let key = SignerKey::from_seed("example.com/log", &SEED).unwrap();
    let secret = key.to_secret_string();
    let alone = checkpoint(&bytes, None, Some(&secret)).unwrap();
    let keygen = format!("{secret}\n{}\n", key.verifier());
    assert_eq!(checkpoint(&bytes, None, Some(&keygen)), Ok(alone.clone()));
    let commented = format!("# the log's key\n\n  {secret}  \n");
    assert_eq!(checkpoint(&bytes, None, Some(&commented)), Ok(alone));
    // A file of comments holds no key; a first key line that is not one is refused.
    assert_eq!(
        checkpoint(&bytes, None, Some("# no key here\n")),
        Err(agentloop_result::AnchorMalformed)
    );
    let verifier_first = format!("{}\n{secret}\n", key.verifier());
    assert_eq!(
        checkpoint(&bytes, None, Some(&verifier_first)),
        Err(agentloop_result::AnchorMalformed)
    );
}
