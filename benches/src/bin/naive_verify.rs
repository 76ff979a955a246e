//! `naive-verify FILE`: "the obvious Rust approach" to verifying a transcript, for the
//! side-by-side benchmark (`benches/verify_peers.sh`). Per line: parse into a
//! `serde_json::Value`, take out `hash`, re-encode the rest with `serde_jcs` (RFC 8785),
//! SHA-256 it (`sha2`), and check the hash, that the line is canonical (`{"hash":…,`
//! followed by that encoding), `seq` = index and `prev` = the hash before. Not part of
//! agentloop: a baseline to compare `agentloop verify` with.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::process::ExitCode;

use serde_json::Value;
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Checks one line (without its `\n`); the record's hash on success.
fn check(line: &[u8], seq: u64, prev: &str) -> Result<String, String> {
    let mut record: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let object = record.as_object_mut().ok_or("not an object")?;
    let hash = match object.remove("hash") {
        Some(Value::String(hash)) => hash,
        _ => return Err("no string hash".into()),
    };
    let body = serde_jcs::to_vec(&*object).map_err(|e| e.to_string())?;
    let prefix = format!("{{\"hash\":\"{hash}\",");
    if body.len() < 2
        || line.len() != prefix.len() + body.len() - 1
        || &line[..prefix.len()] != prefix.as_bytes()
        || line[prefix.len()..] != body[1..]
    {
        return Err("not canonical".into());
    }
    let digest = hex(&Sha256::digest(&body));
    if digest != hash {
        return Err(format!("hash mismatch: computed {digest}"));
    }
    if object.get("seq").and_then(Value::as_u64) != Some(seq) {
        return Err(format!("seq is not {seq}"));
    }
    if object.get("prev").and_then(Value::as_str) != Some(prev) {
        return Err("prev does not link".into());
    }
    Ok(hash)
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: naive-verify FILE");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let mut prev = "0".repeat(64);
    let (mut seq, mut faults) = (0u64, 0u64);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        match check(text, seq, &prev) {
            Ok(hash) => prev = hash,
            Err(why) => {
                faults += 1;
                eprintln!("{path}: record {seq}: {why}");
            }
        }
        seq += 1;
    }
    if faults == 0 {
        println!("{path}: ok, {seq} records");
        ExitCode::SUCCESS
    } else {
        println!("{path}: {faults} faults in {seq} records");
        ExitCode::FAILURE
    }
}
