//! Go's published `sumdb/note` test vectors, byte for byte, and the refusals Go makes.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::keys::key_id;
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
        Err(KeyErrorKind::BadKey.into())
    );
    assert_eq!(
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW".parse::<VerifierKey>(),
        Err(KeyErrorKind::UnknownAlgorithm.into())
    );
    // The key id is exactly 8 hex digits: not 9 with a leading zero, not 7
    // (u32::from_str_radix would take either).
    for id in ["0c74f20a3", "c74f20a"] {
        let key = PETER_VKEY.replacen("c74f20a3", id, 1);
        assert_eq!(
            key.parse::<VerifierKey>(),
            Err(KeyErrorKind::BadKeyId.into()),
            "{key}"
        );
    }
    assert_eq!(
        SignerKey::from_seed("a+b", &[0; 32]).err(),
        Some(KeyErrorKind::BadName.into())
    );
}

#[test]
fn malformed_notes_are_refused_as_go_refuses_them() {
    let bad = [
        (String::from(TEXT), NoteErrorKind::NoSignatures),
        ([TEXT, "\n"].concat(), NoteErrorKind::NoSignatures),
        (
            [TEXT, "\n", &PETER_SIG[..PETER_SIG.len() - 1]].concat(),
            NoteErrorKind::BadSignatureLine(1),
        ),
        (["\x01", TEXT, "\n", PETER_SIG].concat(), NoteErrorKind::ControlCharacter),
        (
            [TEXT, "\n", "\u{2014} Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"].concat(),
            NoteErrorKind::BadSignatureLine(1),
        ),
        (
            [TEXT, "\n", PETER_SIG, "Unexpected line.\n"].concat(),
            NoteErrorKind::BadSignatureLine(2),
        ),
        (
            [TEXT, "\n", &PETER_SIG.repeat(101)].concat(),
            NoteErrorKind::TooManySignatures,
        ),
    ];
    for (message, want) in bad {
        assert_eq!(Note::parse(&message), Err(want.into()), "{message:?}");
    }
    let signer: SignerKey = PETER_SKEY.parse().unwrap();
    assert_eq!(
        Note::sign("abc", &signer),
        Err(NoteErrorKind::TextNotTerminated.into())
    );
    assert_eq!(
        Note::sign("a\tb\n", &signer),
        Err(NoteErrorKind::ControlCharacter.into())
    );
}

#[test]
fn a_key_of_the_other_kind_is_named_as_such_and_its_secret_never_echoed() {
    // A signer key where a verifier key is wanted (and a malformed one: recognised by
    // its prefix alone, so what follows it is never judged nor shown).
    for text in [PETER_SKEY, "PRIVATE+KEY+whatever"] {
        let e = text.parse::<VerifierKey>().unwrap_err();
        assert_eq!(e.0, KeyErrorKind::SignerKeyGiven);
        let said = e.to_string();
        assert!(said.contains("signer key"), "{said}");
        assert!(said.contains("verifier key"), "{said}");
        assert!(!said.contains("AYEKF"), "{said}");
    }
    assert_eq!(
        KeyErrorKind::SignerKeyGiven.to_string(),
        "this is a signer key (PRIVATE+KEY+..., secret), but a verifier key is wanted here: \
         NAME+KEYID+BASE64, without the PRIVATE+KEY+ prefix (`agentloop keygen` prints it \
         second)"
    );
    // A verifier key where a signer key is wanted.
    let e = PETER_VKEY.parse::<SignerKey>().unwrap_err();
    assert_eq!(e.0, KeyErrorKind::VerifierKeyGiven);
    assert_eq!(
        e.to_string(),
        "this is a verifier key (NAME+KEYID+BASE64), but a signer key is wanted here: \
         PRIVATE+KEY+NAME+KEYID+BASE64 (`agentloop keygen` prints it first)"
    );
    // Anything else is still judged by its shape.
    assert_eq!(
        "a+b".parse::<SignerKey>().unwrap_err().0,
        KeyErrorKind::Shape
    );
    assert_eq!(
        "x+nothex+AAAA".parse::<VerifierKey>().unwrap_err().0,
        KeyErrorKind::BadKeyId
    );
}

#[test]
fn key_lines_skip_blanks_and_comments_and_keep_line_numbers() {
    let text = "# trusted\n\n  a+1+x  \n#b\nc\n";
    let lines: alloc::vec::Vec<(usize, &str)> = super::key_lines(text).collect();
    assert_eq!(lines, [(3, "a+1+x"), (5, "c")]);
}

#[test]
fn errors_say_what_is_wrong_and_debug_never_prints_a_secret() {
    for (error, text) in [
        (
            KeyErrorKind::Shape,
            "a key is NAME+KEYID+BASE64 (PRIVATE+KEY+NAME+KEYID+BASE64 for a signer key)",
        ),
        (
            KeyErrorKind::BadName,
            "the key name is empty or holds a space or '+'",
        ),
        (KeyErrorKind::BadKeyId, "the key id is not 8 hex digits"),
        (KeyErrorKind::BadKey, "the key is not base64 of 33 bytes"),
        (
            KeyErrorKind::UnknownAlgorithm,
            "the key is not an Ed25519 key (algorithm byte 0x01)",
        ),
        (
            KeyErrorKind::KeyIdMismatch,
            "the key id does not match the name and key",
        ),
    ] {
        assert_eq!(error.to_string(), text);
    }
    for (error, text) in [
        (
            NoteErrorKind::TextNotTerminated,
            "the note text is empty or does not end in a newline",
        ),
        (
            NoteErrorKind::ControlCharacter,
            "the note holds a control character other than newline",
        ),
        (
            NoteErrorKind::NoSignatures,
            "no blank line and signature lines follow the note text",
        ),
        (
            NoteErrorKind::BadSignatureLine(3),
            "signature line 3 is not \"\u{2014} NAME BASE64\" ending in a newline",
        ),
        (
            NoteErrorKind::TooManySignatures,
            "the note has more than 100 signatures",
        ),
    ] {
        assert_eq!(error.to_string(), text);
    }
    let signer: SignerKey = PETER_SKEY.parse().unwrap();
    assert_eq!(
        alloc::format!("{signer:?}"),
        "SignerKey(PeterNeumann+c74f20a3)"
    );
    assert_eq!(
        alloc::format!("{:?}", signer.verifier()),
        alloc::format!("VerifierKey({PETER_VKEY})")
    );
}

#[test]
fn the_limits_of_a_signature_line_are_exact() {
    // 100 signature lines are allowed, the 101st is not (tested above).
    let hundred = [TEXT, "\n", &PETER_SIG.repeat(100)].concat();
    assert_eq!(Note::parse(&hundred).unwrap().signatures.len(), 100);
    // A key id and one signature byte (5 bytes) is the shortest line; 4 is refused.
    let five = [TEXT, "\n\u{2014} a AQIDBAU=\n"].concat();
    let note = Note::parse(&five).unwrap();
    assert_eq!(
        note.signatures,
        [NoteSignature {
            name: "a".to_string(),
            id: 0x01020304,
            signature: alloc::vec![5],
        }]
    );
    let four = [TEXT, "\n\u{2014} a AQIDBA==\n"].concat();
    assert_eq!(
        Note::parse(&four),
        Err(NoteErrorKind::BadSignatureLine(1).into())
    );
    // A space is not a control character; a tab, CR and 0x1f (just below the space) are.
    assert!(Note::parse(&["a b\n\n", PETER_SIG].concat()).is_ok());
    for c in ['\t', '\u{1f}', '\r'] {
        let text = alloc::format!("a{c}b\n\n{PETER_SIG}");
        assert_eq!(
            Note::parse(&text),
            Err(NoteErrorKind::ControlCharacter.into())
        );
    }
}

#[test]
fn a_line_counts_for_a_trusted_key_only_when_name_and_id_both_match() {
    let peter: VerifierKey = PETER_VKEY.parse().unwrap();
    let mut note = Note::parse(&[TEXT, "\n", PETER_SIG].concat()).unwrap();
    let good = note.signatures[0].clone();
    // A rotated key of the same name (another id), another name with the same id: both
    // are other keys' lines, ignored, not bad signatures of Peter's.
    let rotated = NoteSignature {
        id: good.id ^ 1,
        signature: alloc::vec![0; 64],
        ..good.clone()
    };
    let renamed = NoteSignature {
        name: "PeterNeumann2".to_string(),
        signature: alloc::vec![0; 64],
        ..good.clone()
    };
    note.signatures = alloc::vec![rotated.clone(), good, renamed.clone()];
    assert_eq!(
        note.check(core::slice::from_ref(&peter)),
        SignatureCheck::Trusted(alloc::vec!["PeterNeumann+c74f20a3".to_string()])
    );
    note.signatures = alloc::vec![rotated, renamed];
    assert_eq!(note.check(&[peter]), SignatureCheck::Untrusted);
}

#[test]
fn the_signer_key_is_the_first_key_line_of_its_text() {
    let key = SignerKey::from_seed("example.com/log", &[3; 32]).unwrap();
    let secret = key.to_secret_string();
    let keygen = alloc::format!("{secret}\n{}\n", key.verifier());
    let commented = alloc::format!("# mine\n\n  {secret}\r\n");
    for text in [secret.as_str(), keygen.as_str(), commented.as_str()] {
        let read = signer_key_text(text).unwrap();
        assert_eq!(read.to_secret_string(), secret, "{text:?}");
    }
    assert_eq!(
        signer_key_text("# none\n\n").unwrap_err(),
        SignerTextError::NoKey
    );
    assert_eq!(
        signer_key_text("").unwrap_err().to_string(),
        "the key text holds no key"
    );
    let verifier_first = alloc::format!("\n{}\n{secret}\n", key.verifier());
    let err = signer_key_text(&verifier_first).unwrap_err();
    assert_eq!(
        err,
        SignerTextError::Line {
            line: 2,
            error: KeyErrorKind::VerifierKeyGiven.into()
        }
    );
    assert!(err.to_string().starts_with("line 2: "), "{err}");
}
