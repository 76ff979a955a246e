//! Differential test against an independent verifier: `tests/oracle/verify.py`, a short
//! Python (stdlib) implementation of SPEC section 3 written from the SPEC text. On a
//! corpus of valid and tampered transcripts covering every record-level fault kind, its
//! count, head and `(index, kind)` faults must equal agentloop's `verify_file` report.

use std::path::PathBuf;
use std::process::Command;

use agentloop_core::hash::Hash;
use agentloop_core::json::{self, Object, Value};
use agentloop_core::verify::{self, Options, Report};
use agentloop_tests::{
    forge_chain, have_program, parse_record, replace_once, sample_chain, seal, skip_or_fail,
    transcript, workspace_root, TempDir, XorShift,
};

/// Random payloads that exercise the Python side's number and string encoding.
fn random_payload(rng: &mut XorShift) -> Value {
    let mut numbers = Vec::new();
    for _ in 0..12 {
        let n = match rng.below(4) {
            0 => f64::from_bits(rng.next_u64()),
            1 => (rng.below(1 << 53) as f64) * if rng.one_in(2) { -1.0 } else { 1.0 },
            2 => f64::from_bits(rng.below(1 << 52)),
            _ => (1 + rng.below(9)) as f64 * 10f64.powi(rng.below(60) as i32 - 30),
        };
        numbers.push(Value::Number(if n.is_finite() { n } else { 1.5 }));
    }
    let mut text = String::new();
    for _ in 0..16 {
        let c = match rng.below(5) {
            0 => rng.below(0x20) as u32,
            1 => 0xe000 + rng.below(0x2000) as u32,
            2 => 0x10000 + rng.below(0x10000) as u32,
            3 => [0x22, 0x5c, 0x7f, 0x2028][rng.below(4) as usize],
            _ => 0x20 + rng.below(0x5f) as u32,
        };
        text.push(char::from_u32(c).unwrap_or('?'));
    }
    let mut o = Object::new();
    o.insert("numbers", Value::Array(numbers));
    o.insert(text.clone(), Value::from(text.as_str()));
    o.insert("😀", Value::Bool(true));
    o.insert("ﬁ", Value::Null);
    Value::Object(o)
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>| files.push((name.to_string(), bytes));
    let (lines, _) = sample_chain(5);
    let hashes = forge_chain(5, |_, _| {}).1;
    let line2 = lines[2].clone();
    let with2 = |line: Vec<u8>| {
        let mut l = lines.clone();
        l[2] = line;
        transcript(&l)
    };
    let forged = |edit: &dyn Fn(&mut Object)| {
        transcript(
            &forge_chain(5, |i, r| {
                if i == 2 {
                    edit(r)
                }
            })
            .0,
        )
    };

    // Valid transcripts.
    add("empty", Vec::new());
    add("one", transcript(&lines[..1]));
    add("five", transcript(&lines));
    add("truncated", transcript(&lines[..4]));
    let spec = [
        ("task", r#"{"task":"add 2 and 40"}"#),
        (
            "assistant",
            r#"{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]}"#,
        ),
        ("tool", r#"{"name":"add","ok":true,"value":{"sum":42}}"#),
    ];
    let mut chain = agentloop_core::chain::Chain::new();
    let mut bytes = Vec::new();
    for (kind, payload) in spec {
        bytes.extend_from_slice(chain.append_json(kind, payload.as_bytes()).unwrap());
    }
    add("spec-section-5", bytes);
    let mut rng = XorShift::new(8785);
    for n in 0..4 {
        let mut chain = agentloop_core::chain::Chain::new();
        let mut bytes = Vec::new();
        for _ in 0..6 {
            bytes.extend_from_slice(chain.append("note", &random_payload(&mut rng)).unwrap());
        }
        add(&format!("random-{n}"), bytes);
    }
    add(
        "depth-128",
        forged(&|r| {
            let mut v = Value::Null;
            for _ in 0..128 {
                v = Value::Array(vec![v]);
            }
            r.insert("payload", v);
        }),
    );

    // The chain's claims.
    add(
        "payload-rewrite",
        with2(replace_once(&line2, "\"i\":2,", "\"i\":3,")),
    );
    let mut r = parse_record(&line2);
    r.insert("payload", Value::from("forged"));
    add("rewrite-rehashed", with2(seal(r).0));
    let mut swapped = lines.clone();
    swapped.swap(1, 3);
    add("swap", transcript(&swapped));
    let mut deleted = lines.clone();
    deleted.remove(2);
    add("delete-middle", transcript(&deleted));
    let mut deleted = lines.clone();
    deleted.remove(0);
    add("delete-first", transcript(&deleted));

    // Every record-level fault kind.
    add("not-an-object", with2(b"[1,2]".to_vec()));
    add("not-an-object-spaced", with2(b"[1, 2]".to_vec()));
    add("not-an-object-string", with2(b"\"x\"".to_vec()));
    for member in ["kind", "payload", "prev", "seq"] {
        add(
            &format!("missing-{member}"),
            forged(&|r| {
                r.remove(member);
            }),
        );
    }
    let mut r = parse_record(&line2);
    r.remove("hash");
    add("missing-hash", with2(agentloop_tests::encode_record(&r)));
    add("missing-all", with2(b"{}".to_vec()));
    add(
        "kind-empty",
        forged(&|r| {
            r.insert("kind", Value::from(""));
        }),
    );
    add(
        "kind-number",
        forged(&|r| {
            r.insert("kind", Value::Number(3.0));
        }),
    );
    add(
        "unexpected-member",
        forged(&|r| {
            r.insert("extra", Value::from("x"));
        }),
    );
    for (name, literal) in [
        ("big-int", "9007199254740993"),
        ("out-of-range", "1e400"),
        ("underflow", "1e-400"),
    ] {
        add(
            &format!("unserialisable-{name}"),
            with2(replace_once(
                &line2,
                "\"i\":2,",
                &format!("\"i\":{literal},"),
            )),
        );
    }
    let mut l = lines.clone();
    l[2] = replace_once(&line2, "\"i\":2,", "\"i\":1e400,");
    l[3] = forge_chain(5, |i, r| {
        if i == 3 {
            r.insert("prev", Value::String(Hash([5; 32]).to_string()));
        }
    })
    .0[3]
        .clone();
    add("unserialisable-then-wrong-prev", transcript(&l));
    add(
        "hash-wrong",
        with2(replace_once(
            &line2,
            &hashes[2].to_string(),
            &hashes[0].to_string(),
        )),
    );
    add(
        "hash-malformed",
        with2(replace_once(&line2, &hashes[2].to_string(), "ABC")),
    );
    add(
        "seq-wrong",
        forged(&|r| {
            r.insert("seq", Value::Number(9.0));
        }),
    );
    // Past 2^53 - 1 a seq is always a seq_gap, also when it repeats (in doubles
    // 2^53 + 1 is 2^53 again); a fraction gives nothing to count on from.
    add(
        "seq-past-the-limit-repeated",
        transcript(
            &forge_chain(5, |i, r| {
                if i >= 2 {
                    r.insert("seq", Value::Number(9007199254740992.0));
                }
            })
            .0,
        ),
    );
    add(
        "seq-fraction",
        forged(&|r| {
            r.insert("seq", Value::Number(2.5));
        }),
    );
    add(
        "seq-string",
        forged(&|r| {
            r.insert("seq", Value::from("2"));
        }),
    );
    add(
        "seq-true",
        forged(&|r| {
            r.insert("seq", Value::Bool(true));
        }),
    );
    add(
        "prev-wrong",
        forged(&|r| {
            r.insert("prev", Value::String(Hash([1; 32]).to_string()));
        }),
    );
    add(
        "prev-malformed",
        forged(&|r| {
            r.insert("prev", Value::from("0"));
        }),
    );
    add(
        "not-canonical-space",
        with2(replace_once(&line2, ",\"kind\":", ", \"kind\":")),
    );
    add(
        "not-canonical-escape",
        with2(replace_once(&line2, "é", "\\u00e9")),
    );
    add(
        "not-canonical-number",
        with2(replace_once(&line2, "\"seq\":2}", "\"seq\":2.0}")),
    );
    add("not-canonical-cr", with2([&line2[..], b"\r"].concat()));
    let text = String::from_utf8(line2.clone()).unwrap();
    let cut = format!("\"hash\":\"{}\",", hashes[2]).len() + 1;
    add(
        "not-canonical-order",
        with2(
            format!(
                "{{{},\"hash\":\"{}\"}}",
                &text[cut..text.len() - 1],
                hashes[2]
            )
            .into_bytes(),
        ),
    );
    add("bad-json-syntax", with2(line2[..40].to_vec()));
    add(
        "bad-json-utf8",
        with2([&line2[..20], b"\xff", &line2[21..]].concat()),
    );
    add(
        "bad-json-bom",
        with2([&b"\xef\xbb\xbf"[..], &line2[..]].concat()),
    );
    add(
        "bad-json-duplicate",
        with2(replace_once(&line2, "\"i\":2,", "\"i\":2,\"\\u0069\":2,")),
    );
    add(
        "bad-json-surrogate",
        with2(replace_once(&line2, "😀", "\\ud83d")),
    );
    add(
        "bad-json-nan",
        with2(replace_once(&line2, "\"i\":2,", "\"i\":NaN,")),
    );
    add("bad-json-empty-line", with2(Vec::new()));
    add(
        "bad-json-depth-129",
        forged(&|r| {
            let mut v = Value::Null;
            for _ in 0..129 {
                v = Value::Array(vec![v]);
            }
            r.insert("payload", v);
        }),
    );
    let mut torn = transcript(&lines);
    torn.pop();
    add("torn-tail", torn);
    let mut many = lines.clone();
    many[0] = replace_once(&lines[0], "\"i\":0,", "\"i\":-0,");
    many[1] = b"".to_vec();
    many[3] = replace_once(&lines[3], &hashes[3].to_string(), &hashes[2].to_string());
    let mut bytes = transcript(&many);
    bytes.extend_from_slice(b"{\"hash\"");
    add("many-faults", bytes);
    files
}

/// The Python verifier's report for one file.
struct OracleReport {
    count: u64,
    head: Option<String>,
    faults: Vec<(Option<u64>, String)>,
}

fn read_oracle_line(line: &[u8]) -> OracleReport {
    let value = json::parse(line).unwrap_or_else(|e| {
        panic!(
            "oracle output is not JSON ({e}): {}",
            String::from_utf8_lossy(line)
        )
    });
    let o = value.as_object().expect("an object");
    let count = o.get("count").and_then(Value::as_f64).expect("count") as u64;
    let head = o.get("head").and_then(Value::as_str).map(String::from);
    let faults = match o.get("faults") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|f| match f {
                Value::Array(pair) if pair.len() == 2 => (
                    pair[0].as_f64().map(|i| i as u64),
                    pair[1].as_str().expect("kind").to_string(),
                ),
                other => panic!("bad fault {other:?}"),
            })
            .collect(),
        other => panic!("bad faults {other:?}"),
    };
    OracleReport {
        count,
        head,
        faults,
    }
}

fn sorted_faults(report: &Report) -> Vec<(Option<u64>, String)> {
    let mut v: Vec<(Option<u64>, String)> = report
        .faults
        .iter()
        .map(|f| (f.index, f.kind.as_str().to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn python_verifier_written_from_the_spec_agrees() {
    if !have_program("python3") {
        skip_or_fail("skipped: python3 not found");
        return;
    }
    let dir = TempDir::new("oracle");
    let corpus = corpus();
    assert!(corpus.len() >= 40, "{}", corpus.len());
    let mut paths: Vec<PathBuf> = corpus
        .iter()
        .map(|(name, bytes)| dir.write(&format!("{name}.jsonl"), bytes))
        .collect();
    paths.push(dir.path().join("unreadable-does-not-exist.jsonl"));
    let script = workspace_root()
        .join("tests")
        .join("oracle")
        .join("verify.py");
    let output = Command::new("python3")
        .arg(&script)
        .args(&paths)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "verify.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&[u8]> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), paths.len(), "one report per file");
    let mut disagreements = Vec::new();
    let mut kinds_seen = std::collections::BTreeSet::new();
    for (path, line) in paths.iter().zip(lines) {
        let ours = verify::verify_file(path, &Options::default(), &verify::Parallel::default());
        let theirs = read_oracle_line(line);
        let mut their_faults = theirs.faults.clone();
        their_faults.sort();
        let our_faults = sorted_faults(&ours);
        let our_head = ours.head.map(|h| h.to_string());
        kinds_seen.extend(our_faults.iter().map(|(_, k)| k.clone()));
        if (ours.count, &our_head, &our_faults) != (theirs.count, &theirs.head, &their_faults) {
            disagreements.push(format!(
                "{}:\n  agentloop count {} head {:?} faults {:?}\n  verify.py count {} head {:?} faults {:?}",
                path.display(),
                ours.count,
                our_head,
                our_faults,
                theirs.count,
                theirs.head,
                their_faults
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The corpus covers every fault kind a file alone can show.
    for kind in [
        "not_an_object",
        "missing_fields",
        "unexpected_fields",
        "unserialisable_payload",
        "hash_mismatch",
        "seq_gap",
        "prev_mismatch",
        "not_canonical",
        "bad_json",
        "torn_tail",
        "unreadable",
    ] {
        assert!(kinds_seen.contains(kind), "corpus lacks {kind}");
    }
}
