//! The C2SP signed-note parser (`agentloop_core::note`) on arbitrary bytes: never a
//! panic; a note that parses writes back (`to_message`) as exactly the input, which
//! parses to the same note; judging its signatures with a fixed key (Go's published
//! `PeterNeumann` key, whose signature the seeds carry) never panics and is what the
//! key says of each line; a line forged under that key's name and id is a bad
//! signature; the parsed text signed by that key is trusted.
#![no_main]

use agentloop_core::note::{Note, SignatureCheck, SignerKey, VerifierKey};
use libfuzzer_sys::fuzz_target;

const SKEY: &str = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

fn names(key: &VerifierKey) -> String {
    format!("{}+{:08x}", key.name(), key.id())
}

fuzz_target!(|data: &[u8]| {
    let Ok(message) = core::str::from_utf8(data) else {
        return;
    };
    let note = match Note::parse(message) {
        Ok(note) => note,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let again = note.to_message();
    assert_eq!(again, message);
    assert_eq!(Note::parse(&again).as_ref(), Ok(&note));
    assert!(note.text.ends_with('\n'));
    assert!(!note.signatures.is_empty() && note.signatures.len() <= 100);

    let signer: SignerKey = SKEY.parse().unwrap();
    let key = signer.verifier();
    let trusted = core::slice::from_ref(&key);
    // What the key says of each of its lines decides the verdict.
    let mine: Vec<bool> = note
        .signatures
        .iter()
        .filter(|s| s.name == key.name() && s.id == key.id())
        .map(|s| key.verifies(note.text.as_bytes(), &s.signature))
        .collect();
    let want = if mine.contains(&false) {
        SignatureCheck::BadSignature(names(&key))
    } else if mine.is_empty() {
        SignatureCheck::Untrusted
    } else {
        SignatureCheck::Trusted(vec![names(&key); mine.len()])
    };
    assert_eq!(note.check(trusted), want);
    assert_eq!(note.check(&[]), SignatureCheck::Untrusted);

    // A line under the key's name and id that is not its signature: bad signature.
    let mut forged = note.clone();
    forged.signatures[0].name = key.name().to_owned();
    forged.signatures[0].id = key.id();
    if !key.verifies(forged.text.as_bytes(), &forged.signatures[0].signature) {
        assert_eq!(
            forged.check(trusted),
            SignatureCheck::BadSignature(names(&key))
        );
    }

    // The text signed by the key: trusted, and it parses back to the same note.
    let signed = Note::sign(&note.text, &signer).unwrap();
    let text = signed.to_message();
    assert_eq!(Note::parse(&text).as_ref(), Ok(&signed));
    assert_eq!(
        signed.check(trusted),
        SignatureCheck::Trusted(vec![names(&key)])
    );
});
