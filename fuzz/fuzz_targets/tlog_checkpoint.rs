//! `agentloop_core::tlog::read_checkpoint` (both forms: C2SP `tlog-checkpoint`, bare or
//! as a signed note, and v1 JSON) on arbitrary bytes: never a panic; an accepted C2SP
//! checkpoint's `body()` reads back as the same checkpoint (bare), so does its note
//! re-serialised, and so does the body signed with a fixed key (when the body is
//! signable), which that key then trusts. A v1 checkpoint's text reads back the same.
//! The v1-only parser has its own target, `checkpoint`.
#![no_main]

use agentloop_core::note::{Note, SignatureCheck, SignerKey};
use agentloop_core::tlog::{read_checkpoint, CheckpointText, TlogCheckpoint};
use libfuzzer_sys::fuzz_target;

const SKEY: &str = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

fuzz_target!(|data: &[u8]| {
    let read = match read_checkpoint(data) {
        Ok(read) => read,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = read.checkpoint();
    let (checkpoint, note) = match read {
        CheckpointText::V1(cp) => {
            let text = cp.to_text();
            assert_eq!(
                read_checkpoint(text.as_bytes()),
                Ok(CheckpointText::V1(cp)),
                "{text}"
            );
            return;
        }
        CheckpointText::Tlog { checkpoint, note } => (checkpoint, note),
    };
    let body = checkpoint.body();
    assert_eq!(
        read_checkpoint(body.as_bytes()),
        Ok(CheckpointText::Tlog {
            checkpoint: checkpoint.clone(),
            note: None
        }),
        "{body:?}"
    );
    assert_eq!(TlogCheckpoint::parse_body(&body).as_ref(), Ok(&checkpoint));
    let signer: SignerKey = SKEY.parse().unwrap();
    let key = signer.verifier();
    if let Some(note) = note {
        assert_eq!(
            TlogCheckpoint::parse_body(&note.text).as_ref(),
            Ok(&checkpoint)
        );
        let message = note.to_message();
        assert_eq!(
            read_checkpoint(message.as_bytes()),
            Ok(CheckpointText::Tlog {
                checkpoint: checkpoint.clone(),
                note: Some(note.clone())
            })
        );
        let _ = note.check(core::slice::from_ref(&key));
    }
    // A body with a control character other than newline cannot be a note's text.
    if let Ok(signed) = Note::sign(&body, &signer) {
        let message = signed.to_message();
        match read_checkpoint(message.as_bytes()) {
            Ok(CheckpointText::Tlog {
                checkpoint: again,
                note: Some(note),
            }) => {
                assert_eq!(again, checkpoint);
                assert_eq!(note, signed);
                assert!(matches!(
                    note.check(core::slice::from_ref(&key)),
                    SignatureCheck::Trusted(_)
                ));
            }
            other => panic!("{message:?} read back as {other:?}"),
        }
    } else {
        assert!(body.chars().any(|c| c < ' ' && c != '\n'), "{body:?}");
    }
});
