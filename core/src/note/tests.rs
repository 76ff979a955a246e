//! Go's published `sumdb/note` test vectors, byte for byte, and the refusals Go makes.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::*;

const PETER_SKEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VKEY: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const ENOCH_VKEY: &str = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const TEXT: &str = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
const PETER_SIG: &str = "\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const ENOCH_SIG: &str = "\u{2014} EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

#[test]
fn go_signer_key_signs_gos_published_note_byte_for_byte() {
    let signer: SignerKey = PETER_SKEY.parse().unwrap();
    assert_eq!(signer.name(), "PeterNeumann");
    assert_eq!(signer.id(), 0xc74f20a3);
    assert_eq!(signer.to_secret_string(), PETER_SKEY);
    assert_eq!(signer.verifier().to_string(), PETER_VKEY);
    let note = Note::sign(TEXT, &signer).unwrap();
    let want = [TEXT, "\n", PETER_SIG].concat();
    assert_eq!(note.to_message(), want);
}

#[test]
fn go_verifier_keys_parse_and_print_and_check_gos_signatures() {
    let peter: VerifierKey = PETER_VKEY.parse().unwrap();
    let enoch: VerifierKey = ENOCH_VKEY.parse().unwrap();
    assert_eq!(peter.to_string(), PETER_VKEY);
    assert_eq!(enoch.id(), 0xaf0cfe78);
    assert_eq!(key_id("PeterNeumann", &peter.public_key()), 0xc74f20a3);
    let message = [TEXT, "\n", PETER_SIG, ENOCH_SIG].concat();
    let note = Note::parse(&message).unwrap();
    assert_eq!(note.text, TEXT);
    assert_eq!(note.signatures.len(), 2);
    assert_eq!(note.to_message(), message);
    assert_eq!(
        note.check(core::slice::from_ref(&peter)),
        SignatureCheck::Trusted(alloc::vec!["PeterNeumann+c74f20a3".to_string()])
    );
    assert_eq!(
        note.check(&[peter.clone(), enoch.clone()]),
        SignatureCheck::Trusted(alloc::vec![
            "PeterNeumann+c74f20a3".to_string(),
            "EnochRoot+af0cfe78".to_string()
        ])
    );
    assert_eq!(note.check(&[]), SignatureCheck::Untrusted);
    // Go's "invalid signature" case: four letters inserted into Peter's line.
    let forged = [TEXT, "\n", &PETER_SIG[..60], "ABCD", &PETER_SIG[60..]].concat();
    let note = Note::parse(&forged).unwrap();
    assert_eq!(
        note.check(core::slice::from_ref(&peter)),
        SignatureCheck::BadSignature("PeterNeumann+c74f20a3".to_string())
    );
    // Another text under Peter's signature.
    let other = ["Something else.\n\n", PETER_SIG].concat();
    assert!(matches!(
        Note::parse(&other).unwrap().check(&[peter]),
        SignatureCheck::BadSignature(_)
    ));
}

#[test]
fn every_mangling_of_gos_keys_is_refused() {
    // As Go's TestNewVerifier / TestNewSigner: every proper substring, every byte + 1.
    for key in [PETER_VKEY, PETER_SKEY] {
        let parse = |k: &str| {
            if key == PETER_VKEY {
                k.parse::<VerifierKey>().is_ok()
            } else {
                k.parse::<SignerKey>().is_ok()
            }
        };
        assert!(parse(key));
        let b = key.as_bytes();
        for i in 0..=b.len() {
            for j in i + 1..=b.len() {
                if (i, j) != (0, b.len()) {
                    assert!(!parse(&key[i..j]), "{}", &key[i..j]);
                }
            }
        }
        for i in 0..b.len() {
            let mut m: Vec<u8> = b.to_vec();
            m[i] += 1;
            let m = String::from_utf8(m).unwrap();
            assert!(!parse(&m), "{m}");
        }
    }
    assert_eq!(
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="
            .parse::<VerifierKey>(),
        Err(KeyError::BadKey)
    );
    assert_eq!(
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW".parse::<VerifierKey>(),
        Err(KeyError::UnknownAlgorithm)
    );
    assert_eq!(
        SignerKey::from_seed("a+b", &[0; 32]).err(),
        Some(KeyError::BadName)
    );
}

#[test]
fn malformed_notes_are_refused_as_go_refuses_them() {
    let bad = [
        (String::from(TEXT), NoteError::NoSignatures),
        ([TEXT, "\n"].concat(), NoteError::NoSignatures),
        (
            [TEXT, "\n", &PETER_SIG[..PETER_SIG.len() - 1]].concat(),
            NoteError::BadSignatureLine(1),
        ),
        (["\x01", TEXT, "\n", PETER_SIG].concat(), NoteError::ControlCharacter),
        (
            [TEXT, "\n", "\u{2014} Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"].concat(),
            NoteError::BadSignatureLine(1),
        ),
        (
            [TEXT, "\n", PETER_SIG, "Unexpected line.\n"].concat(),
            NoteError::BadSignatureLine(2),
        ),
        (
            [TEXT, "\n", &PETER_SIG.repeat(101)].concat(),
            NoteError::TooManySignatures,
        ),
    ];
    for (message, want) in bad {
        assert_eq!(Note::parse(&message), Err(want), "{message:?}");
    }
    let signer: SignerKey = PETER_SKEY.parse().unwrap();
    assert_eq!(
        Note::sign("abc", &signer),
        Err(NoteError::TextNotTerminated)
    );
    assert_eq!(
        Note::sign("a\tb\n", &signer),
        Err(NoteError::ControlCharacter)
    );
}

#[test]
fn key_lines_skip_blanks_and_comments_and_keep_line_numbers() {
    let text = "# trusted\n\n  a+1+x  \n#b\nc\n";
    let lines: alloc::vec::Vec<(usize, &str)> = super::key_lines(text).collect();
    assert_eq!(lines, [(3, "a+1+x"), (5, "c")]);
}
