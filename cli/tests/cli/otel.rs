//! `export --format otlp` and `run --otlp-endpoint` (docs/otel.md): the trace is read by
//! the official protobuf classes (`opentelemetry-proto`) and its attribute names checked
//! against the pinned semantic conventions (`tests/oracle/otlp.py`, skipped — a failure
//! in CI — when python3 lacks the pinned packages); a live run sends the same spans to
//! a real OTLP/HTTP receiver (the oracle's, which parses each request with the same
//! classes); a receiver that never answers neither stops nor changes the run.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agentloop_core::json::{self, Value};
use agentloop_standin::Server;
use agentloop_tests::{skip_or_fail, workspace_root};

use crate::common::runs::*;
use crate::common::{member, spec_chain, tampered_chain, Run, Scratch};

/// The README's run (docs/examples/standin-add.json against the stand-in), into
/// `out`, with `extra` arguments and `env`.
fn readme_run(scratch: &Scratch, out: &str, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let script = fs::read_to_string(workspace_root().join("docs/examples/standin-add.json"));
    let exchanges = agentloop_standin::script::parse(&script.unwrap()).unwrap();
    let server = Server::start(exchanges).unwrap();
    let url = format!("{}/v1", server.url());
    let mut args = vec![
        "run",
        "--model",
        "openai:gpt-4.1-mini",
        "--base-url",
        &url,
        "--demo-tools",
        "--task",
        "add 2 and 40",
        "--max-steps",
        "4",
        "--out",
        out,
    ];
    args.extend(extra);
    let run = agentloop(scratch.dir(), &args, env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

/// Whether python3 has the pinned packages, after reporting the skip when not.
fn have_oracle() -> bool {
    let have = Command::new("python3")
        .args([
            "-c",
            "import opentelemetry.proto, opentelemetry.semconv, google.protobuf",
        ])
        .output()
        .is_ok_and(|out| out.status.success());
    if !have {
        skip_or_fail(
            "skipped: python3 lacks the OpenTelemetry packages; install them as .ci/run \
             does: python3 -m pip install opentelemetry-proto==1.45.2 \
             opentelemetry-semantic-conventions==0.66b2",
        );
    }
    have
}

/// The oracle's verdict on each file: `{"counts", "spans", "problems"}`.
fn oracle(files: &[&Path]) -> Vec<Value> {
    let out = Command::new("python3")
        .arg(workspace_root().join("tests/oracle/otlp.py"))
        .arg("check")
        .args(files)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the oracle failed: {stderr}");
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| json::parse(l).unwrap())
        .collect()
}

fn count(verdict: &Value, operation: &str) -> usize {
    member(verdict, "counts")
        .as_object()
        .unwrap()
        .get(operation)
        .and_then(Value::as_f64)
        .unwrap_or(0.0) as usize
}

fn problems(verdict: &Value) -> String {
    canonical(member(verdict, "problems"))
}

/// The records of each kind in a transcript.
fn kinds_count(bytes: &[u8], kind: &str) -> usize {
    kinds(bytes).iter().filter(|k| *k == kind).count()
}

#[test]
fn the_readme_run_and_the_demos_export_as_traces_the_official_protobufs_read() {
    let scratch = Scratch::new("otel-file");
    readme_run(&scratch, "run.jsonl", &[], &[]);
    let demo = agentloop(scratch.dir(), &["demo"], &[]);
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    let files = [
        "run.jsonl",
        "demo-answer.jsonl",
        "demo-recover.jsonl",
        "demo-budget.jsonl",
    ];
    let mut exported = Vec::new();
    for file in files {
        let once = agentloop(scratch.dir(), &["export", "--format", "otlp", file], &[]);
        assert_eq!(once.code, 0, "{}", once.stderr);
        let twice = agentloop(scratch.dir(), &["export", "--format", "otlp", file], &[]);
        assert_eq!(
            once.raw_stdout, twice.raw_stdout,
            "{file}: the same file, other bytes"
        );
        let content = agentloop(
            scratch.dir(),
            &["export", "--format", "otlp", "--otlp-content", file],
            &[],
        );
        assert_eq!(content.code, 0, "{}", content.stderr);
        exported.push(scratch.write(&format!("{file}.otlp.json"), &once.raw_stdout));
        exported.push(scratch.write(&format!("{file}.content.json"), &content.raw_stdout));
    }
    if !have_oracle() {
        return;
    }
    let paths: Vec<&Path> = exported.iter().map(|p| p.as_path()).collect();
    let verdicts = oracle(&paths);
    for (verdict, path) in verdicts.iter().zip(&paths) {
        let file = files[paths.iter().position(|p| p == path).unwrap() / 2];
        let bytes = scratch.read(file);
        assert_eq!(problems(verdict), "[]", "{}", path.display());
        assert_eq!(count(verdict, "invoke_agent"), 1, "{file}");
        assert_eq!(
            count(verdict, "chat"),
            kinds_count(&bytes, "assistant"),
            "{file}"
        );
        assert_eq!(
            count(verdict, "execute_tool"),
            kinds_count(&bytes, "tool"),
            "{file}"
        );
    }
}

#[test]
fn the_oracle_catches_a_name_the_conventions_do_not_have() {
    if !have_oracle() {
        return;
    }
    let scratch = Scratch::new("otel-negative");
    readme_run(&scratch, "run.jsonl", &[], &[]);
    let once = agentloop(
        scratch.dir(),
        &["export", "--format", "otlp", "run.jsonl"],
        &[],
    );
    let text = once
        .stdout
        .replace("\"gen_ai.tool.name\"", "\"gen_ai.tool.nam\"");
    let kind = once.stdout.replacen("\"kind\":3", "\"kind\":2", 1);
    let bad = [
        scratch.write("name.json", text),
        scratch.write("kind.json", kind),
    ];
    let verdicts = oracle(&[&bad[0], &bad[1]]);
    assert!(
        problems(&verdicts[0]).contains("gen_ai.tool.nam is not in"),
        "{verdicts:?}"
    );
    assert!(
        problems(&verdicts[1]).contains("kind 2, the conventions say 3"),
        "{verdicts:?}"
    );
}

/// A file whose chain does not verify, and one whose chain verifies but is not a run of
/// the loop (SPEC's three records: a task with no budgets, a turn, a tool result, and no
/// `stop`; `verify --loop` refuses it), are not exported: a trace is of a verified run.
#[test]
fn a_file_that_does_not_verify_is_not_exported() {
    let scratch = Scratch::new("otel-tampered");
    scratch.write("t.jsonl", tampered_chain());
    scratch.write("not-a-run.jsonl", spec_chain());
    let chain = agentloop(scratch.dir(), &["verify", "not-a-run.jsonl"], &[]);
    assert_eq!(chain.code, 0, "{}", chain.stderr);
    for (file, fault) in [
        ("t.jsonl", "hash_mismatch"),
        (
            "not-a-run.jsonl",
            "line 1: loop_malformed: task payload: missing 'budgets'",
        ),
    ] {
        let run = agentloop(scratch.dir(), &["export", "--format", "otlp", file], &[]);
        assert_eq!(run.code, 1, "{file}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{file}");
        assert!(run.stderr.contains(fault), "{file}: {}", run.stderr);
        assert!(
            run.stderr.contains("nothing was exported"),
            "{file}: {}",
            run.stderr
        );
    }
    let content = agentloop(
        scratch.dir(),
        &["export", "--format", "openai", "--otlp-content", "t.jsonl"],
        &[],
    );
    assert_eq!(content.code, 2);
    assert!(
        content.stderr.contains("it goes with --format otlp"),
        "{}",
        content.stderr
    );
}

/// The oracle's OTLP/HTTP receiver, started in `dir`; its URL.
fn receiver(dir: &Path) -> (Child, String) {
    let mut child = Command::new("python3")
        .arg(workspace_root().join("tests/oracle/otlp.py"))
        .arg("serve")
        .arg(dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let port = dir.join("port");
    // Bounded by tries, not by a clock: the receiver writes its port once it listens.
    for _ in 0..600 {
        if let Ok(port) = fs::read_to_string(&port) {
            return (child, format!("http://127.0.0.1:{port}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the receiver did not start");
}

/// The spans the receiver was sent, as the oracle lists them, sorted.
fn received(dir: &Path) -> Vec<String> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("request-")
        })
        .collect();
    files.sort();
    let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    spans_of(&oracle(&paths))
}

fn spans_of(verdicts: &[Value]) -> Vec<String> {
    let mut spans: Vec<String> = verdicts
        .iter()
        .inspect(|v| assert_eq!(problems(v), "[]"))
        .flat_map(|v| match member(v, "spans") {
            Value::Array(spans) => spans.iter().map(canonical).collect::<Vec<_>>(),
            _ => unreachable!(),
        })
        .collect();
    spans.sort();
    spans
}

#[test]
fn a_live_run_sends_the_spans_of_its_file_to_a_real_receiver_and_no_key() {
    if !have_oracle() {
        return;
    }
    let scratch = Scratch::new("otel-live");
    let inbox = scratch.path("inbox");
    fs::create_dir(&inbox).unwrap();
    let (mut child, url) = receiver(&inbox);
    let env = [("OPENAI_API_KEY", KEY), ("OTLP_TOKEN", "otlp-token-77")];
    let extra = [
        "--otlp-endpoint",
        &url,
        "--otlp-content",
        "--otlp-header",
        "x-token=OTLP_TOKEN",
    ];
    let run = readme_run(&scratch, "run.jsonl", &extra, &env);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        run.stderr.contains("otlp: 4 spans sent to"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("otlp-token-77"), "{}", run.stderr);
    let exported = agentloop(
        scratch.dir(),
        &["export", "--format", "otlp", "run.jsonl"],
        &[],
    );
    let file = scratch.write("run.otlp.json", &exported.raw_stdout);
    // The same spans (names, ids, parents, trace): one mapping, ids from the records.
    assert_eq!(received(&inbox), spans_of(&oracle(&[&file])));
    for entry in fs::read_dir(&inbox).unwrap() {
        let body = fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!body.contains(KEY), "the model's key reached the collector");
    }
}

/// A collector that accepts connections and never answers.
fn silent_collector() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            // Read what comes, answer nothing.
            let mut buf = [0u8; 4096];
            let _ = held.last_mut().unwrap().set_nonblocking(true);
            let _ = held.last_mut().unwrap().read(&mut buf);
        }
    });
    url
}

#[test]
fn a_collector_that_never_answers_neither_stops_nor_changes_the_run() {
    let scratch = Scratch::new("otel-silent");
    readme_run(&scratch, "plain.jsonl", &[], &[]);
    let url = silent_collector();
    let extra = ["--otlp-endpoint", &url, "--otlp-timeout", "1"];
    let run = readme_run(&scratch, "traced.jsonl", &extra, &[]);
    assert_eq!(
        but_the_endpoint(&scratch.read("plain.jsonl")),
        but_the_endpoint(&scratch.read("traced.jsonl"))
    );
    assert!(
        run.stderr.contains("otlp: 0 spans sent to"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("4 not sent"), "{}", run.stderr);
}

#[test]
fn a_resumed_run_is_a_second_agent_span_of_the_same_trace_live_and_from_the_file() {
    if !have_oracle() {
        return;
    }
    let scratch = Scratch::new("otel-resumed");
    readme_run(&scratch, "t.jsonl", &[], &[]);
    let inbox = scratch.path("inbox");
    fs::create_dir(&inbox).unwrap();
    let (mut child, url) = receiver(&inbox);
    let server = Server::start([OpenAi.answer("Still 42.")]).unwrap();
    let extra = ["--demo-tools", "--otlp-endpoint", &url];
    let resumed = run_resume(&scratch, "openai:gpt-4.1-mini", &server, &extra);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    // The resumed run's own records (resume, assistant, stop): its turn and its run.
    assert!(
        resumed.stderr.contains("otlp: 2 spans sent to"),
        "{}",
        resumed.stderr
    );
    let exported = agentloop(
        scratch.dir(),
        &["export", "--format", "otlp", "t.jsonl"],
        &[],
    );
    let file = scratch.write("t.otlp.json", &exported.raw_stdout);
    let verdict = &oracle(&[&file])[0];
    assert_eq!(count(verdict, "invoke_agent"), 2, "{verdict:?}");
    assert_eq!(count(verdict, "chat"), 3, "{verdict:?}");
    let from_file = spans_of(std::slice::from_ref(verdict));
    let live = received(&inbox);
    assert_eq!(live.len(), 2, "{live:?}");
    for span in &live {
        assert!(
            from_file.contains(span),
            "{span} is not in the file's trace"
        );
    }
}

#[test]
fn a_bad_endpoint_or_header_is_refused_before_anything_is_written() {
    let scratch = Scratch::new("otel-refused");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--otlp-endpoint", "ftp://x"],
            "--otlp-endpoint: the OTLP endpoint \"ftp://x\" is not",
        ),
        (
            &[
                "--otlp-endpoint",
                "http://127.0.0.1:9",
                "--otlp-header",
                "x-token",
            ],
            "give the header's name and the variable holding its value, NAME=VAR",
        ),
        (
            &[
                "--otlp-endpoint",
                "http://127.0.0.1:9",
                "--otlp-header",
                "x token=HOME",
            ],
            "the header's name is not a valid HTTP header name",
        ),
        (
            &[
                "--otlp-endpoint",
                "http://127.0.0.1:9",
                "--otlp-header",
                "x=AGENTLOOP_UNSET_9",
            ],
            "the variable is not set",
        ),
    ];
    for (extra, sentence) in cases {
        let mut args = vec![
            "run", "--task", "t", "--model", "openai:m", "--out", "x.jsonl",
        ];
        args.extend(extra);
        let refused = agentloop(scratch.dir(), &args, &[]);
        assert_eq!(refused.code, 2, "{extra:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(sentence),
            "{extra:?}: {}",
            refused.stderr
        );
        assert!(
            refused.stderr.contains("nothing was run"),
            "{}",
            refused.stderr
        );
        assert!(
            !scratch.path("x.jsonl").exists(),
            "a refused run wrote its file"
        );
    }
}
