//! External anchors end to end: C2SP checkpoints (signed with keys from `keygen`),
//! every checkpoint finding, proofs through `prove` and `verify-proof`, and the atomic
//! `--out`.

use crate::common;

use std::fs;

use agentloop_core::json::Value;
use common::*;

/// The SPEC chain and two more records, so there are prefixes worth proving.
fn five() -> String {
    let mut chain = agentloop_core::chain::Chain::new();
    let mut out = Vec::new();
    for line in spec_chain().lines() {
        let value = agentloop_core::json::parse(line.as_bytes()).unwrap();
        let o = value.as_object().unwrap();
        let kind = o.get("kind").unwrap().as_str().unwrap();
        out.extend_from_slice(chain.append(kind, o.get("payload").unwrap()).unwrap());
    }
    for i in 0..2 {
        let payload = format!("{{\"i\":{i}}}");
        out.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
    }
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with(&spec_chain()));
    text
}

fn keygen(s: &Scratch, name: &str) -> (String, String) {
    let run = s.run(&["keygen", name]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(&format!("PRIVATE+KEY+{name}+")));
    assert!(lines[1].starts_with(&format!("{name}+")));
    s.write(&format!("{name}.sk"), format!("{}\n", lines[0]));
    s.write(&format!("{name}.vk"), format!("{}\n", lines[1]));
    (lines[0].to_owned(), lines[1].to_owned())
}

fn kinds(run: &Run) -> Vec<(Value, String)> {
    let report = &json_lines(&run.stdout)[0];
    faults(report).into_iter().map(|(i, _, k)| (i, k)).collect()
}

#[test]
fn a_signed_checkpoint_verifies_and_each_fault_has_its_name() {
    let s = Scratch::new("findings");
    s.write("t.jsonl", five());
    let (_, alice_vk) = keygen(&s, "alice");
    keygen(&s, "bob");
    let run = s.run(&[
        "checkpoint",
        "t.jsonl",
        "--sign-key",
        "alice.sk",
        "--out",
        "cp",
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let cp = String::from_utf8(s.read("cp")).unwrap();
    let lines: Vec<&str> = cp.lines().collect();
    assert_eq!(lines[0], format!("agentloop/transcript/{HEAD0}"));
    assert_eq!(lines[1], "5");
    assert!(lines[3].starts_with("head "));
    assert_eq!(lines[4], "");
    assert!(lines[5].starts_with("\u{2014} alice "));
    // No temporary file is left beside it.
    let names: Vec<String> = fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");

    let verify = |extra: &[&str], file: &str| {
        let mut args = vec!["verify", "--json", "--checkpoint", "cp"];
        args.extend_from_slice(extra);
        args.push(file);
        s.run(&args)
    };
    // Holds, with the key as a file or as a string, and without keys.
    for extra in [&["--key-file", "alice.vk"][..], &["--key", &alice_vk], &[]] {
        let run = verify(extra, "t.jsonl");
        assert_eq!(run.code, 0, "{extra:?}: {}", run.stdout);
    }
    // Records beyond the checkpoint are information.
    let longer = format!("{}{}", five(), "");
    s.write("longer.jsonl", &longer);
    let run = s.run(&["append", "longer.jsonl", "--kind", "x", "--payload", "1"]);
    assert_eq!(run.code, 0);
    let run = verify(&["--key-file", "alice.vk"], "longer.jsonl");
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        member(&json_lines(&run.stdout)[0], "beyond_checkpoint"),
        &num(1.0)
    );
    // Untrusted: only bob is trusted.
    let run = verify(&["--key-file", "bob.vk"], "t.jsonl");
    assert_eq!(run.code, 1);
    assert_eq!(
        kinds(&run),
        [(Value::Null, String::from("checkpoint_untrusted"))]
    );
    // Bad signature: the count changed under alice's signature.
    s.write("forged", cp.replacen("\n5\n", "\n4\n", 1));
    let run = s.run(&[
        "verify",
        "--json",
        "--checkpoint",
        "forged",
        "--key-file",
        "alice.vk",
        "t.jsonl",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(
        kinds(&run),
        [(Value::Null, String::from("checkpoint_bad_signature"))]
    );
    // Truncated below the checkpoint.
    let cut: String = five().lines().take(3).map(|l| format!("{l}\n")).collect();
    s.write("cut.jsonl", &cut);
    let run = verify(&["--key-file", "alice.vk"], "cut.jsonl");
    assert_eq!(kinds(&run), [(num(3.0), String::from("truncated"))]);
    // A rewritten prefix, re-chained (every hash recomputed): head_mismatch at 4.
    let rewritten = rechain(five().replace(r#""sum":42"#, r#""sum":41"#).as_bytes());
    assert_ne!(rewritten, five().as_bytes());
    s.write("rewritten.jsonl", &rewritten);
    let run = verify(&["--key-file", "alice.vk"], "rewritten.jsonl");
    assert_eq!(kinds(&run), [(num(4.0), String::from("head_mismatch"))]);
    // Another transcript against this checkpoint: origin mismatch.
    s.write(
        "other.jsonl",
        rechain(five().replace("add 2 and 40", "add 1 and 1").as_bytes()),
    );
    let run = verify(&[], "other.jsonl");
    assert_eq!(run.code, 1);
    assert_eq!(
        kinds(&run),
        [(num(0.0), String::from("checkpoint_origin_mismatch"))]
    );
    // An explicit origin that the checkpoint does not name.
    let run = verify(&["--origin", "example.com/other"], "t.jsonl");
    assert_eq!(
        kinds(&run),
        [(Value::Null, String::from("checkpoint_origin_mismatch"))]
    );
    // Malformed: which part is said; exit 2.
    s.write("bad", cp.replacen("\n5\n", "\n05\n", 1));
    let run = s.run(&["verify", "--checkpoint", "bad", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: bad: checkpoint_malformed: the size line (line 2)",
    );
    s.write("bad2", format!("{cp}not a signature\n"));
    let run = s.run(&["verify", "--checkpoint", "bad2", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: bad2: checkpoint_malformed: the signed note is malformed: signature line 2",
    );
    s.write("bad3", cp.replacen("head ", "head 0", 1));
    let run = s.run(&["verify", "--checkpoint", "bad3", "t.jsonl"]);
    assert_fails(
        &run,
        2,
        "agentloop: bad3: checkpoint_malformed: extension line 1 (line 4)",
    );
}

/// The records of `bytes` with each hash and prev recomputed from seq 0, as a forger
/// who rewrites history would.
fn rechain(bytes: &[u8]) -> Vec<u8> {
    let mut chain = agentloop_core::chain::Chain::new();
    let mut out = Vec::new();
    for line in String::from_utf8(bytes.to_vec()).unwrap().lines() {
        let value = agentloop_core::json::parse(line.as_bytes()).unwrap();
        let o = value.as_object().unwrap();
        let kind = o.get("kind").unwrap().as_str().unwrap();
        out.extend_from_slice(chain.append(kind, o.get("payload").unwrap()).unwrap());
    }
    out
}

#[test]
fn proofs_round_trip_through_the_cli_and_damage_is_caught() {
    let s = Scratch::new("proofs");
    s.write("t.jsonl", five());
    keygen(&s, "alice");
    keygen(&s, "bob");
    let run = s.run(&[
        "checkpoint",
        "t.jsonl",
        "--sign-key",
        "alice.sk",
        "--out",
        "cp",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for i in 0..5 {
        let i = i.to_string();
        let run = s.run(&["prove", "t.jsonl", "--index", &i, "--checkpoint", "cp"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.starts_with("c2sp.org/tlog-proof@v1\nextra "));
        s.write("p", &run.stdout);
        let run = s.run(&["verify-proof", "p", "--key-file", "alice.vk"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(
            run.stdout.contains(&format!("holds: record {i} ")),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("signed by alice+"));
        // Someone else's key: untrusted.
        let run = s.run(&["verify-proof", "p", "--key-file", "bob.vk"]);
        assert_eq!(run.code, 1);
        assert!(run.stdout.contains("does not hold: checkpoint_untrusted"));
        // A changed audit path, and a record moved to another index, do not hold.
        let text = fs::read_to_string(s.path("p")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut bad = lines.clone();
        let flipped = if bad[3].starts_with('A') { "B" } else { "A" };
        let replaced = format!("{flipped}{}", &bad[3][1..]);
        bad[3] = &replaced;
        s.write("bad", bad.join("\n") + "\n");
        let run = s.run(&["verify-proof", "bad"]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(
            run.stdout.contains("does not hold: proof_invalid"),
            "{}",
            run.stdout
        );
        let other = (i.parse::<u64>().unwrap() + 1) % 5;
        s.write(
            "moved",
            text.replacen(&format!("\nindex {i}\n"), &format!("\nindex {other}\n"), 1),
        );
        assert_eq!(s.run(&["verify-proof", "moved"]).code, 1);
    }
    // A fresh checkpoint when none is given; index out of range is exit 2.
    let run = s.run(&["prove", "t.jsonl", "--index", "4"]);
    assert_eq!(run.code, 0);
    s.write("fresh", &run.stdout);
    assert_eq!(s.run(&["verify-proof", "fresh"]).code, 0);
    assert_eq!(
        s.run(&["verify-proof", "fresh", "--key-file", "alice.vk"])
            .code,
        1
    );
    let run = s.run(&["prove", "t.jsonl", "--index", "5"]);
    assert_fails(
        &run,
        2,
        "agentloop: t.jsonl: cannot make that proof: leaf index 5",
    );

    // Consistency: every old size to the checkpoint.
    for m in 1..=5 {
        let cut: String = five().lines().take(m).map(|l| format!("{l}\n")).collect();
        s.write("old.jsonl", &cut);
        let run = s.run(&["checkpoint", "old.jsonl", "--out", "old"]);
        assert_eq!(run.code, 0);
        let m = m.to_string();
        let run = s.run(&["prove", "t.jsonl", "--from", &m, "--checkpoint", "cp"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        s.write("c", &run.stdout);
        let run = s.run(&[
            "verify-proof",
            "c",
            "--old",
            "old",
            "--key-file",
            "alice.vk",
        ]);
        assert_eq!(run.code, 0, "{m}: {}", run.stdout);
        // Both checkpoints given to verify: consistent.
        let run = s.run(&[
            "verify",
            "--json",
            "--checkpoint",
            "old",
            "--checkpoint",
            "cp",
            "t.jsonl",
        ]);
        assert_eq!(run.code, 0, "{m}: {}", run.stdout);
    }
    // Without --old, a consistency proof cannot be judged.
    assert_eq!(s.run(&["verify-proof", "c"]).code, 2);
}

#[test]
fn checkpoints_of_two_histories_are_inconsistent() {
    let s = Scratch::new("inconsistent");
    s.write("t.jsonl", five());
    // The old checkpoint saw the first three records as they were.
    let first3: String = five().lines().take(3).map(|l| format!("{l}\n")).collect();
    s.write("old.jsonl", &first3);
    assert_eq!(s.run(&["checkpoint", "old.jsonl", "--out", "old"]).code, 0);
    // Then history was rewritten (record 2 changed, all re-chained, same record 0) and
    // a new checkpoint made of the rewrite.
    let rewritten = rechain(five().replace(r#""sum":42"#, r#""sum":41"#).as_bytes());
    s.write("re.jsonl", &rewritten);
    assert_eq!(s.run(&["checkpoint", "re.jsonl", "--out", "new"]).code, 0);
    // verify with both: the new one holds for the rewrite; the old is not its prefix.
    let run = s.run(&[
        "verify",
        "--json",
        "--checkpoint",
        "old",
        "--checkpoint",
        "new",
        "re.jsonl",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        kinds(&run),
        [(Value::Null, String::from("checkpoint_inconsistent"))]
    );
    // The original file: the newest checkpoint does not hold (head_mismatch at 4),
    // and the old one, judged alone, does.
    let run = s.run(&[
        "verify",
        "--json",
        "--checkpoint",
        "old",
        "--checkpoint",
        "new",
        "t.jsonl",
    ]);
    assert_eq!(kinds(&run), [(num(4.0), String::from("head_mismatch"))]);
    // A consistency proof from the rewrite, checked against the old checkpoint.
    let run = s.run(&["prove", "re.jsonl", "--from", "3", "--checkpoint", "new"]);
    assert_eq!(run.code, 0);
    s.write("c", &run.stdout);
    let run = s.run(&["verify-proof", "c", "--old", "old"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("does not hold: checkpoint_inconsistent"),
        "{}",
        run.stdout
    );
    // A checkpoint of another transcript cannot be used to prove this one.
    let run = s.run(&["prove", "t.jsonl", "--index", "0", "--checkpoint", "new"]);
    assert_eq!(run.code, 2);
}

#[test]
fn an_independent_ed25519_verifies_agentloops_signature() {
    use agentloop_core::note::{Note, VerifierKey};
    use agentloop_tests::{have_program, skip_or_fail};
    if !have_program("node") {
        skip_or_fail("skipped: node not found (the Ed25519 oracle)");
        return;
    }
    let s = Scratch::new("ed25519_oracle");
    s.write("t.jsonl", five());
    let (_, vk) = keygen(&s, "alice");
    let run = s.run(&["checkpoint", "t.jsonl", "--sign-key", "alice.sk"]);
    assert_eq!(run.code, 0);
    let note = Note::parse(&run.stdout).unwrap();
    let key: VerifierKey = vk.parse().unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    s.write("msg", &note.text);
    s.write("tampered", note.text.replacen("\n5\n", "\n6\n", 1));
    s.write(
        "oracle.js",
        r#"const crypto = require('crypto'); const fs = require('fs');
const [pub, sig, file] = process.argv.slice(2);
const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(pub, 'hex')]);
const key = crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' });
console.log(crypto.verify(null, fs.readFileSync(file), key, Buffer.from(sig, 'hex')) ? 'valid' : 'invalid');
"#,
    );
    let node = |file: &str| {
        let out = std::process::Command::new("node")
            .current_dir(s.dir())
            .args([
                "oracle.js",
                &hex(&key.public_key()),
                &hex(&note.signatures[0].signature),
                file,
            ])
            .output()
            .expect("run node");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    assert_eq!(node("msg"), "valid");
    // The oracle can say no: the same signature over another text.
    assert_eq!(node("tampered"), "invalid");
}

/// An origin a checkpoint could not carry and read back is a usage error that says
/// why, for every command taking `--origin`; an accepted one (with a brace or a space
/// past its first character) round-trips through `checkpoint` and `verify`.
#[test]
fn an_origin_that_would_not_read_back_is_refused_with_the_reason() {
    let s = Scratch::new("origin");
    s.write("t.jsonl", five());
    let cases = [
        ("{example.com/log", "starts with '{'"),
        (" {example.com/log", "starts with white space"),
        (" example.com", "starts with white space"),
        ("", "the origin is empty"),
        ("two\nlines", "control character '\\n' at byte 3"),
    ];
    for (origin, reason) in cases {
        for args in [
            vec!["checkpoint", "--origin", origin, "t.jsonl"],
            vec!["prove", "--index", "1", "--origin", origin, "t.jsonl"],
            vec!["verify", "--origin", origin, "t.jsonl"],
        ] {
            let run = s.run(&args);
            assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
            assert!(run.stdout.is_empty(), "{args:?}");
            assert!(run.stderr.contains("--origin"), "{args:?}: {}", run.stderr);
            assert!(run.stderr.contains(reason), "{args:?}: {}", run.stderr);
        }
    }
    assert!(!s.dir().join("cp").exists());
    for origin in ["example.com/{log}", "a b+c"] {
        let run = s.run(&["checkpoint", "--origin", origin, "--out", "cp", "t.jsonl"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let run = s.run(&[
            "verify",
            "--checkpoint",
            "cp",
            "--origin",
            origin,
            "t.jsonl",
        ]);
        assert_eq!(run.code, 0, "{origin:?}: {}{}", run.stdout, run.stderr);
    }
}

/// A transcript that continues `five()` (anchor `5:<its head>`), of three records.
fn continuation() -> (String, String) {
    let (text, _) = (five(), ());
    let head = text.lines().last().map(|l| l[9..73].to_owned()).unwrap();
    let anchor = agentloop_core::Anchor {
        seq0: 5,
        prev0: agentloop_core::Hash::from_hex(head.as_bytes()).unwrap(),
    };
    let mut chain = agentloop_core::chain::Chain::from_anchor(anchor);
    let mut out = Vec::new();
    for i in 0..3 {
        let payload = format!("{{\"more\":{i}}}");
        out.extend_from_slice(chain.append_json("note", payload.as_bytes()).unwrap());
    }
    (String::from_utf8(out).unwrap(), format!("5:{head}"))
}

#[test]
fn a_proof_of_a_continuing_transcript_is_checked_with_its_anchor() {
    let s = Scratch::new("proof-anchor");
    let (text, anchor) = continuation();
    s.write("t2.jsonl", &text);
    assert_eq!(s.run(&["verify", "--anchor", &anchor, "t2.jsonl"]).code, 0);
    let zeros = "0".repeat(64);
    for i in 0..3u64 {
        let index = i.to_string();
        let run = s.run(&["prove", "t2.jsonl", "--index", &index, "--anchor", &anchor]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        s.write("p", &run.stdout);
        // With the transcript's anchor, the proof holds and names the record's seq.
        let run = s.run(&["verify-proof", "p", "--anchor", &anchor]);
        assert_eq!(run.code, 0, "record {i}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout
                .contains(&format!("holds: record {i} (seq {}, hash ", 5 + i)),
            "{}",
            run.stdout
        );
        // Without it, the record is judged as one of a transcript from seq 0, and the
        // sentence says that an anchor is wanted.
        let run = s.run(&["verify-proof", "p"]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(
            run.stdout.contains(&format!(
                "does not hold: proof_invalid: the record in the proof: seq_gap: expected seq {i}, found {}",
                5 + i
            )) && run.stdout.contains("no anchor was given"),
            "{}",
            run.stdout
        );
        // Another seq0 does not hold either.
        let wrong = anchor.replacen("5:", "4:", 1);
        let run = s.run(&["verify-proof", "p", "--anchor", &wrong]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        assert!(run.stdout.contains("seq_gap"), "{}", run.stdout);
        // Record 0 must carry the anchor's prev0.
        let run = s.run(&["verify-proof", "p", "--anchor", &format!("5:{zeros}")]);
        if i == 0 {
            assert_eq!(run.code, 1, "{}", run.stdout);
            assert!(
                run.stdout.contains("prev_mismatch") && run.stdout.contains("the anchor's prev0"),
                "{}",
                run.stdout
            );
        } else {
            assert_eq!(run.code, 0, "{}", run.stdout);
        }
    }
    // A transcript from seq 0: record 0's prev must be 64 zeros, with or without
    // --anchor 0:<zeros>.
    s.write("t.jsonl", five());
    let run = s.run(&["prove", "t.jsonl", "--index", "0"]);
    s.write("p0", &run.stdout);
    assert_eq!(s.run(&["verify-proof", "p0"]).code, 0);
    let genesis = format!("0:{zeros}");
    assert_eq!(s.run(&["verify-proof", "p0", "--anchor", &genesis]).code, 0);
}
