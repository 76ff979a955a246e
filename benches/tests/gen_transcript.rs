//! `gen-transcript` and `naive-verify` as built: same arguments, same bytes; the file
//! verifies with agentloop and with the naive verifier.

use std::path::PathBuf;
use std::process::Command;

use agentloop_core::{audit, verify};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("agentloop-bench-{}-{name}", std::process::id()))
}

fn generate(path: &PathBuf, size_mb: &str) {
    let status = Command::new(env!("CARGO_BIN_EXE_gen-transcript"))
        .arg(path)
        .arg(size_mb)
        .status()
        .expect("gen-transcript runs");
    assert!(status.success());
}

#[test]
fn same_arguments_give_the_same_bytes_and_they_verify() {
    let (a, b) = (temp("a.jsonl"), temp("b.jsonl"));
    generate(&a, "0.3");
    generate(&b, "0.3");
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap());
    assert!(bytes.len() >= 300_000);
    assert!(audit::verify_loop_bytes(&bytes, &verify::Options::default()).ok());

    let naive = Command::new(env!("CARGO_BIN_EXE_naive-verify"))
        .arg(&a)
        .output()
        .expect("naive-verify runs");
    assert!(naive.status.success(), "{naive:?}");

    // One byte changed inside a string: both verifiers object.
    let mut bad = bytes.clone();
    let at = bytes.len() / 2
        + bytes[bytes.len() / 2..]
            .windows(8)
            .position(|w| w == b"\"text\":\"")
            .unwrap()
        + 9;
    bad[at] = if bad[at] == b'x' { b'y' } else { b'x' };
    std::fs::write(&b, &bad).unwrap();
    assert!(!verify::verify_bytes(&bad, &verify::Options::default()).ok());
    let naive = Command::new(env!("CARGO_BIN_EXE_naive-verify"))
        .arg(&b)
        .output()
        .unwrap();
    assert!(!naive.status.success());
    for p in [a, b] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn the_rich_profile_is_its_own_file_and_verifies_with_both_verifiers() {
    let (rich, typical) = (temp("rich.jsonl"), temp("typical.jsonl"));
    let status = Command::new(env!("CARGO_BIN_EXE_gen-transcript"))
        .args(["--profile", "rich"])
        .arg(&rich)
        .arg("0.3")
        .status()
        .expect("gen-transcript runs");
    assert!(status.success());
    generate(&typical, "0.3");
    let bytes = std::fs::read(&rich).unwrap();
    assert_ne!(bytes, std::fs::read(&typical).unwrap());
    assert!(audit::verify_loop_bytes(&bytes, &verify::Options::default()).ok());
    let naive = Command::new(env!("CARGO_BIN_EXE_naive-verify"))
        .arg(&rich)
        .output()
        .expect("naive-verify runs");
    assert!(naive.status.success(), "{naive:?}");
    // An unknown profile is refused with its name.
    let bad = Command::new(env!("CARGO_BIN_EXE_gen-transcript"))
        .args(["--profile", "spicy"])
        .arg(&rich)
        .arg("0.1")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("\"spicy\""));
    for p in [rich, typical] {
        std::fs::remove_file(p).unwrap();
    }
}
