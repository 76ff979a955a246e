//! Builds `c-examples/` against the freshly built `libagentloop.a` and `libagentloop.so`
//! with the warning flags of the Makefile, and runs them: linked statically and
//! dynamically, under valgrind, and with `-fsanitize=address,undefined`.
//!
//! Needs `cc` and `c++` (skipped with a message when absent, failing when `CI` is set);
//! valgrind likewise. The library is a crate type of this package, so cargo has built
//! it before this test runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread;

/// What `cargo rustc -p agentloop-ffi --lib --crate-type staticlib -- --print
/// native-static-libs` prints on Linux; the Makefile and docs/c-api.md must say the same.
const NATIVE_STATIC_LIBS: &str = "-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc";
/// The shared library's SONAME (`ffi/build.rs`), bumped by every ABI change before 1.0
/// (docs/c-api.md, "ABI policy"); every file that names it must name this one.
const SONAME: &str = "libagentloop.so.2";
const CFLAGS: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-g",
];
const CXXFLAGS: &[&str] = &[
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-Wconversion",
    "-Wsign-conversion",
    "-Wshadow",
    "-Wold-style-cast",
    "-g",
];
const SANITIZE: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
];

const SPEC_TRANSCRIPT: &str = concat!(
    r#"{"hash":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","kind":"task","payload":{"task":"add 2 and 40"},"prev":"0000000000000000000000000000000000000000000000000000000000000000","seq":0}"#,
    "\n",
    r#"{"hash":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","kind":"assistant","payload":{"text":"","tool_calls":[{"arguments":{"a":2,"b":40},"name":"add"}]},"prev":"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949","seq":1}"#,
    "\n",
    r#"{"hash":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6","kind":"tool","payload":{"name":"add","ok":true,"value":{"sum":42}},"prev":"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01","seq":2}"#,
    "\n",
);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where cargo put the library this test binary was built with. Built as a dependency
/// of the tests, all its crate types land in `target/<profile>/deps` (unhashed, next to
/// this binary; that also covers `CARGO_TARGET_DIR`); `cargo build` copies them up to
/// `target/<profile>`, which may be older. A library older than the rlib the tests link
/// is refused as stale.
fn lib_dir() -> PathBuf {
    let mut candidates = Vec::new();
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("a directory").to_path_buf();
    candidates.push(deps.clone());
    if let Some(profile_dir) = deps.parent() {
        candidates.push(profile_dir.to_path_buf());
    }
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => candidates.push(PathBuf::from(dir).join(profile)),
        None => candidates.push(root().join("target").join(profile)),
    }
    let rlib_time = std::fs::metadata(deps.join("libagentloop.rlib"))
        .and_then(|m| m.modified())
        .ok();
    for dir in &candidates {
        let (a, so) = (dir.join("libagentloop.a"), dir.join("libagentloop.so"));
        if !(a.is_file() && so.is_file()) {
            continue;
        }
        let fresh = |p: &Path| match (rlib_time, std::fs::metadata(p).and_then(|m| m.modified())) {
            (Some(rlib), Ok(lib)) => lib + std::time::Duration::from_secs(60) >= rlib,
            _ => true,
        };
        if fresh(&a) && fresh(&so) {
            return dir.clone();
        }
        eprintln!(
            "{}: libagentloop is older than the tests' rlib, skipping it",
            dir.display()
        );
    }
    panic!(
        "a fresh libagentloop.a / libagentloop.so was not found in {candidates:?}; \
         build them with `cargo build -p agentloop-ffi`"
    );
}

/// Whether `tool` answers `--version`.
fn have(tool: &str) -> bool {
    agentloop_tests::have_program(tool)
}

/// Reports the missing `tool` as a skip (a developer machine; a failure when `CI` is
/// set), and says yes.
fn missing(tool: &str) -> bool {
    agentloop_tests::skip_or_fail(&format!("{tool} is not installed"));
    true
}

fn run(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    output
}

fn expect_status(output: &Output, code: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One way of building and running the examples.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Flavour {
    Static,
    Dynamic,
    Sanitized,
}

struct Build {
    dir: PathBuf,
    lib: PathBuf,
}

impl Build {
    /// A fresh build directory `<name>-<pid>` next to the library, with the shared
    /// library under the names the linker and the loader look for.
    fn new(name: &str) -> Build {
        let lib = lib_dir();
        let dir = lib.join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        // The loader looks for the SONAME; the linker for libagentloop.so.
        std::fs::copy(lib.join("libagentloop.so"), dir.join("lib").join(SONAME)).unwrap();
        std::os::unix::fs::symlink(SONAME, dir.join("lib/libagentloop.so")).unwrap();
        Build { dir, lib }
    }

    /// Compiles `source` (with its [`parts`]) one way; `libs` come last on the link line.
    fn compile(&self, source: &str, flavour: Flavour, libs: &[String]) -> PathBuf {
        let cpp = source.ends_with(".cpp");
        let stem = source.split('.').next().unwrap();
        let out = self.dir.join(format!("{stem}-{flavour:?}").to_lowercase());
        let mut cmd = Command::new(if cpp { "c++" } else { "cc" });
        cmd.args(if cpp { CXXFLAGS } else { CFLAGS });
        if flavour == Flavour::Sanitized {
            cmd.args(SANITIZE);
        }
        cmd.arg(format!("-I{}", root().join("include").display()))
            .arg(root().join("c-examples").join(source))
            .args(parts(source))
            .arg("-o")
            .arg(&out);
        match flavour {
            Flavour::Static | Flavour::Sanitized => {
                cmd.arg(self.lib.join("libagentloop.a"));
                cmd.args(NATIVE_STATIC_LIBS.split(' '));
            }
            Flavour::Dynamic => {
                let shared = self.dir.join("lib");
                cmd.arg(format!("-L{}", shared.display()))
                    .arg("-lagentloop")
                    .arg(format!("-Wl,-rpath,{}", shared.display()));
            }
        }
        cmd.args(libs);
        let output = run(&mut cmd);
        expect_status(&output, 0, &format!("compiling {source} ({flavour:?})"));
        out
    }
}

/// The files a program is built from besides its own source: for `stress.c`, the
/// Makefile's `STRESS_PARTS` (read from it, so the two builds cannot disagree); none
/// for the others.
fn parts(source: &str) -> Vec<PathBuf> {
    if source != "stress.c" {
        return Vec::new();
    }
    let examples = root().join("c-examples");
    let makefile = std::fs::read_to_string(examples.join("Makefile")).unwrap();
    makefile
        .lines()
        .find_map(|l| l.strip_prefix("STRESS_PARTS = "))
        .expect("c-examples/Makefile sets STRESS_PARTS")
        .split_whitespace()
        .map(|part| examples.join(part))
        .collect()
}

/// Iterations of `stress.c` natively and under ASan/UBSan; valgrind runs a tenth.
const STRESS_ITERATIONS: u32 = 20_000;

/// A command running `program` under `wrapper` (valgrind and its flags; none if
/// empty), with sanitizer findings as failures.
fn wrapped(program: &Path, wrapper: &[&str]) -> Command {
    let mut cmd = Command::new(
        wrapper
            .first()
            .copied()
            .unwrap_or(program.to_str().unwrap()),
    );
    if !wrapper.is_empty() {
        cmd.args(&wrapper[1..]).arg(program);
    }
    // Leak checking in ASan builds; report UBSan findings as failures.
    cmd.env(
        "ASAN_OPTIONS",
        "detect_leaks=1:abort_on_error=0:exitcode=99",
    )
    .env(
        "UBSAN_OPTIONS",
        "print_stacktrace=1:halt_on_error=1:exitcode=98",
    );
    cmd
}

/// valgrind as the examples run under it.
const VALGRIND: &[&str] = &[
    "valgrind",
    "-q",
    "--error-exitcode=1",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite",
];

/// The transcript `batch.c` writes, made by the Rust driver: the same tools (specs
/// and results), the same scripted replies, a turn's calls run on 8 threads.
fn batch_reference() -> Vec<u8> {
    use agentloop_core::agent::Budgets;
    use agentloop_core::driver::{self, RunOptions};
    use agentloop_core::json::{self, Value};
    use agentloop_core::model::{Reply, Scripted};
    use agentloop_core::tools::{FnTool, ToolError, ToolOptions, ToolSpec, Toolbox};

    let j = |text: &str| json::parse(text.as_bytes()).unwrap();
    let member = |v: &Value, key: &str| v.as_object().unwrap().get(key).cloned().unwrap();
    let mut tools = Toolbox::new();
    let add = ToolSpec::new(
        "add",
        "Adds two integers a and b; returns {\"sum\": a + b}.",
        j(
            r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#,
        ),
    );
    tools
        .register(
            FnTool::new(add, move |a: &Value| {
                let n = |key| member(a, key).as_f64().unwrap_or(f64::NAN);
                let mut sum = agentloop_core::json::Object::new();
                sum.insert("sum", Value::Number(n("a") + n("b")));
                Ok(Value::Object(sum))
            }),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    let fail = ToolSpec::new("fail", "Always fails.", j(r#"{"type":"object"}"#));
    tools
        .register(
            FnTool::new(fail, |_: &Value| {
                Err(ToolError::new("the tool is broken on purpose"))
            }),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    let shout = ToolSpec::new(
        "shout",
        "Returns {\"text\": text in capitals}.",
        j(r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#),
    );
    tools
        .register(
            FnTool::new(shout, move |a: &Value| {
                let text = member(a, "text")
                    .as_str()
                    .unwrap_or_default()
                    .to_uppercase();
                let mut out = agentloop_core::json::Object::new();
                out.insert("text", Value::from(text.as_str()));
                Ok(Value::Object(out))
            }),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    let turn = Reply::new("Six at once.")
        .with_call("add", j(r#"{"a":2,"b":40}"#))
        .with_call("shout", j(r#"{"text":"hello"}"#))
        .with_call("nosuch", j("{}"))
        .with_call("fail", j("{}"))
        .with_call("add", j(r#"{"a":"2","b":40}"#))
        .with_call("shout", j(r#"{"text":"bye"}"#));
    let mut transcript = Vec::new();
    driver::run(
        "add, shout and fail, all at once",
        Budgets::default(),
        &mut Scripted::new([turn, Reply::new("Done.")]),
        &mut tools,
        &mut || false,
        &mut transcript,
        RunOptions { parallel: 8 },
    )
    .unwrap();
    transcript
}

/// The transcript `cpp_example.cpp` writes twice (agent handle, driver), made by the
/// Rust driver: the same task, echo tool and scripted replies.
fn cpp_reference() -> Vec<u8> {
    use agentloop_core::agent::Budgets;
    use agentloop_core::driver::{self, RunOptions};
    use agentloop_core::json::{self, Value};
    use agentloop_core::model::{Reply, Scripted};
    use agentloop_core::tools::{FnTool, ToolOptions, ToolSpec, Toolbox};

    let j = |text: &str| json::parse(text.as_bytes()).unwrap();
    let mut tools = Toolbox::new();
    let echo = ToolSpec::new(
        "echo",
        "Returns its arguments.",
        j(r#"{"type":"object","properties":{"say":{"type":"string"}},"required":["say"]}"#),
    );
    tools
        .register(
            FnTool::new(echo, |a: &Value| Ok(a.clone())),
            ToolOptions::new().concurrent(),
        )
        .unwrap();
    let replies = [
        Reply::new("Echoing.").with_call("echo", j(r#"{"say":"hi"}"#)),
        Reply::new("It said hi."),
    ];
    let mut transcript = Vec::new();
    driver::run(
        "Say hi through the echo tool.",
        Budgets::default(),
        &mut Scripted::new(replies),
        &mut tools,
        &mut || false,
        &mut transcript,
        RunOptions { parallel: 1 },
    )
    .unwrap();
    transcript
}

/// Runs the examples built one way, with an optional wrapper (valgrind).
fn exercise(build: &Build, programs: &[PathBuf; 8], wrapper: &[&str], label: &str) {
    let [append, verify, cpp, agent_loop, stress, proof, at_most_once, batch] = programs;
    let command = |program: &Path| wrapped(program, wrapper);
    let dir = build.dir.join(label);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.jsonl");

    let out = run(command(append).arg(&spec));
    expect_status(&out, 0, &format!("{label}: append"));
    assert_eq!(
        std::fs::read_to_string(&spec).unwrap(),
        SPEC_TRANSCRIPT,
        "{label}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("seq=2 tool head=8428b0f390a2bdfa"),
        "{label}: {stdout}"
    );
    assert!(
        stdout.contains("the durable writer wrote the chain; a torn tail was refused and repaired"),
        "{label}: {stdout}"
    );

    let out = run(command(verify).arg(&spec));
    expect_status(&out, 0, &format!("{label}: verify"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.ends_with(&format!(
            "{}: ok, 3 records, head 8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6\n",
            spec.display()
        )),
        "{label}: {stdout}"
    );

    let tampered = dir.join("tampered.jsonl");
    std::fs::write(
        &tampered,
        SPEC_TRANSCRIPT.replace("\"sum\":42", "\"sum\":43"),
    )
    .unwrap();
    let absent = dir.join("absent.jsonl");
    let out = run(command(verify).arg(&tampered).arg(&spec));
    expect_status(&out, 1, &format!("{label}: verify tampered"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "{} line 3: hash_mismatch: stored hash 8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6, but the record hashes to ",
        tampered.display()
    );
    assert!(
        stderr.lines().any(|l| l.starts_with(&expected)),
        "{label}: {stderr}"
    );
    let out = run(command(verify).arg(&tampered).arg(&absent));
    expect_status(&out, 2, &format!("{label}: verify absent"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: unreadable: cannot open", absent.display())),
        "{label}: {stderr}"
    );
    let out = run(&mut command(verify));
    expect_status(&out, 2, &format!("{label}: verify usage"));

    // cpp_example.cpp, through include/agentloop.hpp: the SPEC transcript made with the
    // chain and with the writer, and a run through the agent handle and through the
    // driver's C++ callbacks, each byte for byte what Rust writes.
    let cpp_dir = dir.join("cpp");
    std::fs::create_dir_all(&cpp_dir).unwrap();
    let out = run(command(cpp).arg(&cpp_dir));
    expect_status(&out, 0, &format!("{label}: cpp_example"));
    for file in ["spec.jsonl", "writer.jsonl"] {
        assert_eq!(
            std::fs::read_to_string(cpp_dir.join(file)).unwrap(),
            SPEC_TRANSCRIPT,
            "{label}: cpp_example's {file}"
        );
    }
    let expected = cpp_reference();
    for file in ["loop.jsonl", "driver.jsonl"] {
        let written = std::fs::read(cpp_dir.join(file)).unwrap();
        assert!(
            written == expected,
            "{label}: cpp_example's {file} differs from the Rust driver's:\n{}\nexpected:\n{}",
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&expected)
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "cpp_example: tampered: line 3: hash_mismatch: stored hash \
             8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6, but the record \
             hashes to "
        ) && stdout.ends_with(&format!(
            "cpp_example: ok (agentloop {})\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{label}: {stdout}"
    );
    let out = run(&mut command(cpp));
    expect_status(&out, 2, &format!("{label}: cpp_example usage"));

    // loop.c: a C model and C tools reproduce the Rust demo's recover transcript, through
    // the sans-I/O agent handle and through the callback driver.
    let transcript = dir.join("demo-recover.jsonl");
    let driven = dir.join("demo-recover-driver.jsonl");
    let out = run(command(agent_loop).arg(&transcript).arg(&driven));
    expect_status(&out, 0, &format!("{label}: loop"));
    let (expected, _) = agentloop_core::demo::recover().run().unwrap();
    for path in [&transcript, &driven] {
        let written = std::fs::read(path).unwrap();
        assert!(
            written == expected,
            "{label}: {} differs from the Rust demo's transcript:\n{}\nexpected:\n{}",
            path.display(),
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&expected)
        );
        assert_eq!(
            written.iter().filter(|&&b| b == b'\n').count(),
            11,
            "{label}"
        );
    }
    let out = run(&mut command(agent_loop));
    expect_status(&out, 2, &format!("{label}: loop usage"));

    // proof.c: inclusion and consistency proofs made and checked through the C ABI, and
    // agentloop_proof_explain's reason for refusing the tampered one; the proof it keeps is byte for byte the shared core function's (so `agentloop prove`'s).
    let written = dir.join("proof.jsonl");
    let out = run(command(proof).arg(&written));
    expect_status(&out, 0, &format!("{label}: proof"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "proof: the tampered proof: proof_invalid: the record in the proof is not I-JSON: \
         unescaped control character in a string\n\
         proof: 5 inclusion proofs hold; a tampered one was refused\n\
         proof: the checkpoint of 2 records is a prefix of the checkpoint of 5\n\
         proof: both checkpoints hold for the whole transcript; its first 2 records are truncated\n",
        "{label}"
    );
    let bytes = std::fs::read(&written).unwrap();
    let report = agentloop_core::verify::verify_bytes(&bytes, &Default::default());
    assert!(report.ok() && report.count == 5, "{label}");
    let (leaves, _) = agentloop_core::tlog::leaves_of(&bytes).unwrap();
    let body = agentloop_core::tlog::report_checkpoint(&report, None)
        .unwrap()
        .body();
    let expected = agentloop_core::tlog::inclusion_text(&bytes, &leaves, 2, 5, body).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("proof.jsonl.proof")).unwrap(),
        expected,
        "{label}"
    );
    let out = run(&mut command(proof));
    expect_status(&out, 2, &format!("{label}: proof usage"));

    // at_most_once.c: the callback driver hands each record over before it calls out
    // again (model, cancel, tool); killed while a tool runs, the file holds every
    // record before that call, and a resume does not run the tool again.
    let out = run(command(at_most_once).arg("order"));
    expect_status(&out, 0, &format!("{label}: at_most_once order"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .collect::<Vec<_>>(),
        [
            "record task",
            "cancel",
            "model",
            "record assistant",
            "cancel",
            "record tool",
            "cancel",
            "tool t",
            "record tool",
            "cancel",
            "model",
            "record assistant",
            "cancel",
            "tool t",
            "record tool",
            "cancel",
            "record tool",
            "cancel",
            "model",
            "record assistant",
            "record stop",
        ],
        "{label}: every record reaches the callback before the next callback"
    );
    let (file, counter) = (dir.join("crash.jsonl"), dir.join("crash.count"));
    let out = run(command(at_most_once).arg("crash").arg(&file).arg(&counter));
    expect_status(&out, 3, &format!("{label}: at_most_once crash"));
    let kinds = |path: &Path| -> Vec<String> {
        agentloop_core::export::parse_records(&std::fs::read(path).unwrap())
            .unwrap()
            .iter()
            .map(|r| {
                r.as_object()
                    .unwrap()
                    .get("kind")
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(
        kinds(&file),
        ["task", "assistant", "tool"],
        "{label}: on disk at the crash"
    );
    let out = run(command(at_most_once).arg("resume").arg(&file).arg(&counter));
    expect_status(&out, 0, &format!("{label}: at_most_once resume"));
    assert_eq!(
        std::fs::read(&counter).unwrap().len(),
        1,
        "{label}: the tool ran again after the crash"
    );
    assert_eq!(
        kinds(&file),
        ["task", "assistant", "tool", "tool", "assistant", "stop"],
        "{label}"
    );
    let lost = std::fs::read_to_string(&file).unwrap();
    assert!(
        lost.lines()
            .nth(3)
            .unwrap()
            .contains(&agentloop_core::agent::result_lost_sentence("t")),
        "{label}: {lost}"
    );

    // batch.c: a turn's calls taken at once, run on threads and fed by id newest first,
    // write the one-at-a-time run's bytes (batch.c compares them), which are the Rust
    // driver's with the same tools run on 8 threads; a call's record waits for the
    // calls before it; a result for a refused or already fed call is refused.
    let written = dir.join("batch.jsonl");
    let out = run(command(batch).arg(&written));
    expect_status(&out, 0, &format!("{label}: batch"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .collect::<Vec<_>>(),
        [
            "batch: 4 calls handed out, run on their own threads",
            "batch: fed call_1_5 (shout ok), 0 records written",
            "batch: fed call_1_3 (fail failed), 0 records written",
            "batch: fed call_1_1 (shout ok), 0 records written",
            "batch: fed call_1_0 (add ok), 6 records written",
            &format!(
                "batch: the transcript is the one-at-a-time run's, {} bytes",
                batch_reference().len()
            ),
        ],
        "{label}"
    );
    let bytes = std::fs::read(&written).unwrap();
    assert!(
        bytes == batch_reference(),
        "{label}: batch.c's transcript is not the Rust driver's:\n{}\nexpected:\n{}",
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&batch_reference())
    );
    let report = agentloop_core::audit::verify_loop_bytes(&bytes, &Default::default());
    assert!(
        report.ok() && report.count == 10,
        "{label}: {:?}",
        report.faults
    );
    let out = run(&mut command(batch));
    expect_status(&out, 2, &format!("{label}: batch usage"));

    // stress.c: random call sequences with NULLs, tiny buffers and freed handles; every
    // result must be documented. Two seeds, so a change of the sequence is no escape.
    let iterations = if wrapper.is_empty() {
        STRESS_ITERATIONS
    } else {
        STRESS_ITERATIONS / 10
    };
    for seed in ["1", "2"] {
        let out = run(command(stress).arg(iterations.to_string()).arg(seed));
        expect_status(&out, 0, &format!("{label}: stress seed {seed}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with(&format!("stress: {iterations} iterations, "))
                && stdout.ends_with(&format!("seed {seed}: every result documented\n")),
            "{label}: {stdout}"
        );
    }
}

#[test]
fn c_examples_build_and_run_static_dynamic_valgrind_and_sanitized() {
    if (!have("cc") && missing("cc")) || (!have("c++") && missing("c++")) {
        return;
    }
    let build = Build::new("c-examples-test");

    let sources = [
        "append.c",
        "verify.c",
        "cpp_example.cpp",
        "loop.c",
        "stress.c",
        "proof.c",
        "at_most_once.c",
        "batch.c",
    ];
    // batch.c runs its calls on POSIX threads.
    let pthread = [String::from("-pthread")];
    let libs = |source: &str| -> &[String] {
        if source == "batch.c" {
            &pthread
        } else {
            &[]
        }
    };
    let flavours = [Flavour::Static, Flavour::Dynamic, Flavour::Sanitized];
    let programs: Vec<[PathBuf; 8]> = thread::scope(|s| {
        let handles: Vec<_> = flavours
            .iter()
            .map(|&flavour| {
                let build = &build;
                let libs = &libs;
                s.spawn(move || sources.map(|source| build.compile(source, flavour, libs(source))))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let valgrind = have("valgrind") || !missing("valgrind");
    let vg = VALGRIND;
    thread::scope(|s| {
        let build = &build;
        let programs = &programs;
        s.spawn(move || exercise(build, &programs[0], &[], "static"));
        s.spawn(move || exercise(build, &programs[1], &[], "dynamic"));
        s.spawn(move || exercise(build, &programs[2], &[], "sanitized"));
        if valgrind {
            s.spawn(move || exercise(build, &programs[0], vg, "valgrind-static"));
            s.spawn(move || exercise(build, &programs[1], vg, "valgrind-dynamic"));
        }
    });
    std::fs::remove_dir_all(&build.dir).unwrap();
}

/// Compiles the first C block after `heading` in the Markdown file `doc` (statically
/// linked, the Makefile's flags) and runs it: it must exit 0.
fn doc_example_runs(doc: &str, heading: &str) {
    if !have("cc") && missing("cc") {
        return;
    }
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let section = &text[text
        .find(heading)
        .unwrap_or_else(|| panic!("{doc}: {heading}"))..];
    let start = section.find("```c\n").expect("a C block") + 5;
    let code = &section[start..start + section[start..].find("```").unwrap()];
    let lib = lib_dir();
    let stem = format!("{doc}-{heading}").replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    let dir = lib.join(format!("{stem}-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("example.c");
    std::fs::write(&source, code).unwrap();
    let program = dir.join("example");
    let out = run(Command::new("cc")
        .args(CFLAGS)
        .arg(format!("-I{}", root().join("include").display()))
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .arg(lib.join("libagentloop.a"))
        .args(NATIVE_STATIC_LIBS.split(' ')));
    expect_status(&out, 0, &format!("compiling the {doc} example"));
    expect_status(
        &run(&mut Command::new(&program)),
        0,
        &format!("running the {doc} example"),
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_guides_worked_example_compiles_and_runs() {
    doc_example_runs("docs/c-api.md", "## A worked example");
}

#[test]
fn the_guides_loop_example_compiles_and_runs() {
    doc_example_runs("docs/c-api.md", "## A worked example: the loop");
}

#[test]
fn the_guides_proof_example_compiles_and_runs() {
    doc_example_runs("docs/c-api.md", "### A worked example: proofs");
}

#[test]
fn the_readme_c_example_compiles_and_runs() {
    doc_example_runs("README.md", "## In C");
}

/// Whether `c++` takes `-std=<std>` (C++20 needs a newer compiler than C++17).
fn cxx_supports(std: &str, dir: &Path) -> bool {
    let probe = dir.join("probe.cpp");
    std::fs::write(&probe, "int main() { return 0; }\n").unwrap();
    Command::new("c++")
        .arg(format!("-std={std}"))
        .arg("-fsyntax-only")
        .arg(&probe)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `include/agentloop.hpp` alone in a translation unit, with the examples' C++ flags,
/// under C++17 and (where the compiler has it) C++20: a header error is caught even in
/// the parts cpp_example.cpp does not use. Then the header's promises about itself: it
/// names no C function the C header does not declare, and it calls every function the
/// C header declares but those it says it leaves out, and why.
#[test]
fn the_cpp_header_compiles_alone_and_covers_the_c_api() {
    if !have("c++") && missing("c++") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("agentloop-hpp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let unit = dir.join("alone.cpp");
    std::fs::write(&unit, "#include \"agentloop.hpp\"\n").unwrap();
    let mut standards = vec!["c++17"];
    if cxx_supports("c++20", &dir) {
        standards.push("c++20");
    } else {
        eprintln!("c++ does not take -std=c++20: the header is compiled as C++17 only");
    }
    for std in standards {
        let output = run(Command::new("c++")
            .args(CXXFLAGS.iter().filter(|f| !f.starts_with("-std=")))
            .arg(format!("-std={std}"))
            .arg(format!("-I{}", root().join("include").display()))
            .arg("-c")
            .arg(&unit)
            .arg("-o")
            .arg(dir.join(format!("alone-{std}.o"))));
        expect_status(&output, 0, &format!("agentloop.hpp alone, -std={std}"));
    }
    std::fs::remove_dir_all(&dir).unwrap();

    let c = std::fs::read_to_string(root().join("include/agentloop.h")).unwrap();
    let cpp = std::fs::read_to_string(root().join("include/agentloop.hpp")).unwrap();
    // Every `agentloop_…` word of `text` outside string literals (a word right after a
    // `"` is an error's `where`), with what follows it.
    fn words(text: &str) -> Vec<(String, char)> {
        text.match_indices("agentloop_")
            .filter(|(i, _)| {
                !text[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '"')
            })
            .map(|(i, _)| {
                let word: String = text[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let next = text[i + word.len()..].chars().next().unwrap_or(' ');
                (word, next)
            })
            .collect()
    }
    let declared: Vec<String> = words(&c)
        .into_iter()
        .filter(|(w, next)| {
            *next == '(' && (c.contains(&format!(" {w}(")) || c.contains(&format!("*{w}(")))
        })
        .map(|(w, _)| w)
        .collect();
    assert!(declared.len() >= 90, "found only {}", declared.len());
    let top = cpp.find("#ifndef AGENTLOOP_HPP").unwrap();
    let (comment, code) = cpp.split_at(top);
    // The code without its `//` comments, which name the C functions they wrap.
    let code: String = code
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let used: Vec<String> = words(code).into_iter().map(|(w, _)| w).collect();
    // Left out on purpose; the header's top comment says why for each.
    let left_out = ["agentloop_chain_append", "agentloop_agent_take_record"];
    for name in &declared {
        let is_used = used.contains(name);
        if left_out.contains(&name.as_str()) {
            assert!(!is_used, "{name} is used, but listed as left out");
            assert!(
                comment.contains(name.as_str()),
                "agentloop.hpp's top comment does not say why {name} is left out"
            );
        } else {
            assert!(is_used, "agentloop.hpp does not wrap {name}");
        }
    }
    for (word, next) in words(code) {
        assert!(
            next != '(' || declared.contains(&word),
            "agentloop.hpp calls {word}, which agentloop.h does not declare"
        );
    }
}

#[test]
fn the_shared_library_carries_its_soname() {
    let lib = lib_dir().join("libagentloop.so");
    if !have("readelf") && missing("readelf") {
        return;
    }
    let out = run(Command::new("readelf").arg("-d").arg(&lib));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("Library soname: [{SONAME}]")),
        "{}: {text}",
        lib.display()
    );
}

/// Every `libagentloop.so.<N>` in `text`.
fn sonames_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("libagentloop.so.") {
        let rest = &text[at + "libagentloop.so.".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            found.push(format!("libagentloop.so.{digits}"));
        }
    }
    found
}

#[test]
fn every_file_that_names_the_soname_names_the_current_one() {
    // Where it is set and documented it must be named; the Makefiles read it from the
    // built library (readelf), and if one ever names it, it must be the current one.
    let must = ["ffi/build.rs", "docs/c-api.md", "README.md"];
    let may = ["c-examples/Makefile", "Makefile", "ffi/agentloop.pc.in"];
    for file in must.into_iter().chain(may) {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let found = sonames_in(&text);
        assert!(
            !found.is_empty() || may.contains(&file),
            "{file} no longer names the SONAME"
        );
        for name in found {
            assert_eq!(name, SONAME, "{file} names {name}; the SONAME is {SONAME}");
        }
    }
    assert_eq!(
        sonames_in("a libagentloop.so.12 and libagentloop.so"),
        ["libagentloop.so.12"]
    );
}

#[test]
fn makefile_and_guide_give_the_link_lines_the_test_uses() {
    let makefile = std::fs::read_to_string(root().join("c-examples/Makefile")).unwrap();
    assert!(
        makefile.contains(&format!("NATIVE_STATIC_LIBS = {NATIVE_STATIC_LIBS}\n")),
        "c-examples/Makefile must link with {NATIVE_STATIC_LIBS}"
    );
    assert!(makefile.contains(&format!("CFLAGS     ?= {}\n", CFLAGS.join(" "))));
    assert!(makefile.contains(&format!("CXXFLAGS   ?= {}\n", CXXFLAGS.join(" "))));
    let guide = std::fs::read_to_string(root().join("docs/c-api.md")).unwrap();
    assert!(
        guide.contains(&format!("libagentloop.a {NATIVE_STATIC_LIBS}")),
        "docs/c-api.md must give the static link line with {NATIVE_STATIC_LIBS}"
    );
    assert!(
        guide.contains("-lagentloop"),
        "docs/c-api.md must give the dynamic link line"
    );
}

#[test]
fn the_pkg_config_file_gives_the_link_lines() {
    let pc = std::fs::read_to_string(root().join("c-examples/agentloop.pc")).unwrap();
    let field = |name: &str| {
        pc.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("agentloop.pc has no {name}"))
            .trim()
            .to_owned()
    };
    assert_eq!(field("Libs.private:"), NATIVE_STATIC_LIBS);
    assert_eq!(field("Libs:"), "-L${libdir} -lagentloop");
    assert_eq!(field("Cflags:"), "-I${includedir}");
    assert_eq!(field("Version:"), env!("CARGO_PKG_VERSION"));
    let static_pc = std::fs::read_to_string(root().join("c-examples/agentloop-static.pc")).unwrap();
    assert!(
        static_pc
            .lines()
            .any(|l| l == format!("Libs: ${{libdir}}/libagentloop.a {NATIVE_STATIC_LIBS}")),
        "agentloop-static.pc must link the archive with {NATIVE_STATIC_LIBS}:\n{static_pc}"
    );
    if !have("pkg-config") {
        agentloop_tests::skip_or_fail(
            "pkg-config is not installed: only the files' content was checked",
        );
        return;
    }
    let out = run(Command::new("pkg-config")
        .args(["--libs", "--static", "agentloop"])
        .env("PKG_CONFIG_PATH", root().join("c-examples")));
    expect_status(&out, 0, "pkg-config --libs --static agentloop");
    let libs = String::from_utf8(out.stdout).unwrap();
    assert!(
        libs.trim_end()
            .ends_with(&format!("-lagentloop {NATIVE_STATIC_LIBS}")),
        "pkg-config --libs --static: {libs}"
    );
    let out = run(Command::new("pkg-config")
        .args(["--cflags", "agentloop"])
        .env("PKG_CONFIG_PATH", root().join("c-examples")));
    expect_status(&out, 0, "pkg-config --cflags agentloop");
    let cflags = String::from_utf8(out.stdout).unwrap();
    let include = cflags.trim().strip_prefix("-I").expect("an -I flag");
    assert!(
        Path::new(include).join("agentloop.h").is_file(),
        "pkg-config --cflags: {cflags}"
    );
}

/// The guide's tables of result codes and fault kinds list every value the library
/// knows, with the name `agentloop_fault_kind_str` gives (its table once stopped at 14
/// of 19 kinds).
#[test]
fn the_guides_tables_list_every_result_code_and_fault_kind() {
    use std::ffi::CStr;
    let guide = std::fs::read_to_string(root().join("docs/c-api.md")).unwrap();
    let codes = agentloop::agentloop_result::ALL.len();
    for code in 0..codes {
        let row = format!("| {code} | `AGENTLOOP_RESULT_");
        assert!(guide.contains(&row), "docs/c-api.md has no row {row}…");
    }
    let mut kinds = 0;
    for kind in 1u32.. {
        // SAFETY: the library returns a static NUL-terminated string for any value.
        let name = unsafe { CStr::from_ptr(agentloop::agentloop_fault_kind_str(kind)) };
        let name = name.to_str().unwrap();
        if name == "unknown" {
            break;
        }
        let cell = format!("| {kind} | `{name}` |");
        assert!(
            guide.contains(&cell),
            "docs/c-api.md's fault kinds lack {cell}"
        );
        kinds += 1;
    }
    assert_eq!(kinds, 19);
}

// ---- c-examples/provider.c against the loopback stand-in provider. ----

mod provider_example {
    use std::collections::VecDeque;
    use std::path::Path;

    use agentloop_core::agent::Budgets;
    use agentloop_core::json::{self, Value};
    use agentloop_core::model::{Message, Model, ModelError, Reply};
    use agentloop_core::provider::{Provider, RequestOptions};
    use agentloop_core::tools::{FnTool, ToolError, ToolOptions, ToolSpec, Toolbox};
    use agentloop_standin::{canned, Exchange, Server};

    use super::{expect_status, run, wrapped};

    /// What provider.c asks and offers, for the Rust run it is held to.
    const TASK: &str = "Add 2 and 40 with the add tool, then say the sum.";
    const ADD_DESCRIPTION: &str = "Adds two integers a and b.";
    const ADD_SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#;
    /// The key given to one run: it must reach the header and nothing else.
    const KEY: &str = "sk-standin-test-key-0000";

    /// The stand-in's script for a provider: a tool call (add 2 and 40), then text.
    fn script(provider: Provider) -> Vec<Exchange> {
        let calls = [("add", r#"{"a":2,"b":40}"#)];
        match provider {
            Provider::OpenAi => vec![
                canned::openai::tool_calls(&calls),
                canned::openai::text("2 + 40 = 42."),
            ],
            _ => vec![
                canned::anthropic::tool_use(Some("I will add them."), &calls),
                canned::anthropic::text("2 + 40 = 42."),
            ],
        }
    }

    /// The codec's model over the same answers, reporting the digests of both bodies.
    struct Reference {
        provider: Provider,
        options: RequestOptions,
        answers: VecDeque<Exchange>,
        bodies: Vec<Vec<u8>>,
    }

    impl Model for Reference {
        fn reply(
            &mut self,
            messages: &[Message],
            manifest: &[ToolSpec],
        ) -> Result<Reply, ModelError> {
            let body = self.provider.request(messages, manifest, &self.options);
            let body = body.unwrap();
            self.bodies.push(body.clone());
            let answer = self.answers.pop_front().expect("an answer left");
            // The callback driver records the SHA-256 of the body it built and of the
            // answer parsed, as the HTTP model does.
            let reply = self.provider.parse(answer.status, &answer.body, None)?;
            let report = reply.provider.clone();
            let report = report
                .with_request_body(&body)
                .with_response_body(&answer.body);
            Ok(reply.with_provider(report))
        }
    }

    /// The transcript and request bodies of the Rust driver with provider.c's task,
    /// budgets, tool, options and the stand-in's answers.
    fn reference(provider: Provider) -> (Vec<u8>, Vec<Vec<u8>>) {
        let model_name = match provider {
            Provider::OpenAi => "gpt-4.1",
            _ => "claude-sonnet-4-0",
        };
        let options = format!(r#"{{"model":"{model_name}","max_output_tokens":1024}}"#);
        let mut model = Reference {
            provider,
            options: RequestOptions::from_json(&json::parse(options.as_bytes()).unwrap()).unwrap(),
            answers: script(provider).into(),
            bodies: Vec::new(),
        };
        let spec = ToolSpec::new(
            "add",
            ADD_DESCRIPTION,
            json::parse(ADD_SCHEMA.as_bytes()).unwrap(),
        );
        let mut toolbox = Toolbox::new();
        toolbox
            .register(
                FnTool::new(spec, |arguments: &Value| {
                    let object = arguments.as_object().unwrap();
                    let term = |k| object.get(k).and_then(Value::as_f64).unwrap();
                    let sum = format!("{{\"sum\":{}}}", term("a") + term("b"));
                    Ok::<_, ToolError>(json::parse(sum.as_bytes()).unwrap())
                }),
                ToolOptions::new(),
            )
            .unwrap();
        let budgets = Budgets {
            max_steps: Some(8),
            ..Budgets::default()
        };
        let mut transcript = Vec::new();
        agentloop_core::driver::run(
            TASK,
            budgets,
            &mut model,
            &mut toolbox,
            &mut || false,
            &mut transcript,
            agentloop_core::driver::RunOptions::default(),
        )
        .unwrap();
        (transcript, model.bodies)
    }

    /// Runs `program` (under `wrapper`) against a fresh stand-in for each provider,
    /// once with an API key in the environment; checks the exit, the transcript (the
    /// Rust run's bytes, verified, a well-formed run) and what the stand-in got.
    pub(super) fn exercise(program: &Path, wrapper: &[&str], dir: &Path, label: &str) {
        std::fs::create_dir_all(dir).unwrap();
        for (provider, key) in [
            (Provider::OpenAi, None),
            (Provider::Anthropic, None),
            (Provider::OpenAi, Some(KEY)),
            (Provider::Anthropic, Some(KEY)),
        ] {
            let what = format!("{label}: provider.c {provider} (key: {})", key.is_some());
            let server = Server::start(script(provider)).unwrap();
            let file = dir.join(format!("{provider}-{}.jsonl", key.is_some()));
            let mut command = wrapped(program, wrapper);
            command
                .arg(server.url())
                .arg(provider.name())
                .arg(&file)
                .env_remove("OPENAI_API_KEY")
                .env_remove("ANTHROPIC_API_KEY");
            if let Some(key) = key {
                let variable = match provider {
                    Provider::OpenAi => "OPENAI_API_KEY",
                    _ => "ANTHROPIC_API_KEY",
                };
                command.env(variable, key);
            }
            let out = run(&mut command);
            let requests = server.requests();
            server.stop();
            expect_status(&out, 0, &what);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                stdout,
                format!(
                    "provider: stopped with no_tool_calls after 2 turns and 1 tool calls\n\
                     provider: {} verifies: 5 records\n",
                    file.display()
                ),
                "{what}"
            );

            let written = std::fs::read(&file).unwrap();
            let (expected, bodies) = reference(provider);
            assert!(
                written == expected,
                "{what}: the transcript differs from the Rust run's:\n{}\nexpected:\n{}",
                String::from_utf8_lossy(&written),
                String::from_utf8_lossy(&expected)
            );
            let report = agentloop_core::audit::verify_loop_bytes(&written, &Default::default());
            assert!(report.ok(), "{what}: {:?}", report.faults);

            let path = match provider {
                Provider::OpenAi => "/chat/completions",
                _ => "/messages",
            };
            assert_eq!(requests.len(), 2, "{what}");
            for (request, body) in requests.iter().zip(&bodies) {
                assert_eq!(request.method, "POST", "{what}");
                assert_eq!(request.target, path, "{what}");
                assert!(request.body == *body, "{what}: {}", request.head_text());
                assert_eq!(request.header("content-type"), Some("application/json"));
                let version = request.header("anthropic-version");
                match provider {
                    Provider::OpenAi => assert_eq!(version, None, "{what}"),
                    _ => assert_eq!(version, Some("2023-06-01"), "{what}"),
                }
                let (authorization, api_key) =
                    (request.header("authorization"), request.header("x-api-key"));
                match (provider, key) {
                    (_, None) => assert_eq!((authorization, api_key), (None, None), "{what}"),
                    (Provider::OpenAi, Some(key)) => {
                        assert_eq!(authorization, Some(format!("Bearer {key}").as_str()));
                        assert_eq!(api_key, None, "{what}");
                    }
                    (_, Some(key)) => {
                        assert_eq!((authorization, api_key), (None, Some(key)), "{what}")
                    }
                }
            }
            // The key goes in the header only: not in the output, nor in the file.
            let shown = [&out.stdout[..], &out.stderr, &written].concat();
            assert!(
                !String::from_utf8_lossy(&shown).contains(KEY),
                "{what}: the key leaked"
            );
        }
        let out = run(&mut wrapped(program, wrapper));
        expect_status(&out, 2, &format!("{label}: provider.c usage"));
        let out = run(wrapped(program, wrapper).args(["http://127.0.0.1:9", "gemini", "x"]));
        expect_status(&out, 2, &format!("{label}: provider.c unknown provider"));
    }
}

/// libcurl's compile and link flags from pkg-config, or `None` (a skip, a failure
/// when `CI` is set) when libcurl's development files are not installed.
fn libcurl() -> Option<Vec<String>> {
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "libcurl"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>()
        });
    if flags.is_none() {
        agentloop_tests::skip_or_fail(
            "libcurl's development files are not installed (pkg-config libcurl)",
        );
    }
    flags
}

/// `c-examples/provider.c`: a loop with a C tool whose model is a provider reached with
/// libcurl — here the loopback stand-in, answering a tool call then text in each
/// provider's shape — built static, dynamic and with ASan/UBSan, run natively and
/// under valgrind. Its transcript is the Rust driver's with the same codec, byte for
/// byte; the stand-in got the codec's request bodies on the provider's path.
#[test]
fn the_provider_example_runs_against_the_stand_in() {
    if !have("cc") && missing("cc") {
        return;
    }
    let Some(curl) = libcurl() else {
        return;
    };
    let build = Build::new("c-examples-provider");
    let flavours = [Flavour::Static, Flavour::Dynamic, Flavour::Sanitized];
    let programs: Vec<PathBuf> = thread::scope(|s| {
        let handles: Vec<_> = flavours
            .iter()
            .map(|&flavour| {
                let (build, curl) = (&build, &curl);
                s.spawn(move || build.compile("provider.c", flavour, curl))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let valgrind = have("valgrind") || !missing("valgrind");
    thread::scope(|s| {
        let dir = &build.dir;
        let programs = &programs;
        s.spawn(move || {
            provider_example::exercise(&programs[0], &[], &dir.join("static"), "static")
        });
        s.spawn(move || {
            provider_example::exercise(&programs[1], &[], &dir.join("dynamic"), "dynamic")
        });
        s.spawn(move || {
            provider_example::exercise(&programs[2], &[], &dir.join("sanitized"), "sanitized")
        });
        if valgrind {
            s.spawn(move || {
                provider_example::exercise(
                    &programs[0],
                    VALGRIND,
                    &dir.join("vg-static"),
                    "valgrind-static",
                )
            });
            s.spawn(move || {
                provider_example::exercise(
                    &programs[1],
                    VALGRIND,
                    &dir.join("vg-dynamic"),
                    "valgrind-dynamic",
                )
            });
        }
    });
    std::fs::remove_dir_all(&build.dir).unwrap();
}

/// A C string literal holding `bytes` (ASCII).
fn c_literal(bytes: &[u8]) -> String {
    let mut literal = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => literal.push_str("\\\""),
            b'\\' => literal.push_str("\\\\"),
            b'\n' => literal.push_str("\\n"),
            0x20..=0x7e => literal.push(char::from(b)),
            _ => literal.push_str(&format!("\\x{b:02x}\"\"")),
        }
    }
    literal.push('"');
    literal
}

/// The guide's model callback for real models, run by `agentloop_driver_run` with a `post`
/// that answers as OpenAI does (a tool call, then text): the loop ends with
/// `no_tool_calls` after two posts of the codec's bodies to `/chat/completions`.
#[test]
fn the_guides_real_models_callback_runs_with_a_providers_answers() {
    if !have("cc") && missing("cc") {
        return;
    }
    let text = std::fs::read_to_string(root().join("docs/c-api.md")).unwrap();
    let section = &text[text.find("## Real models").expect("the section")..];
    let start = section.find("```c\n").expect("a C block") + 5;
    let snippet = &section[start..start + section[start..].find("```").unwrap()];
    // The README shows the same callback: it must be this, tested, text.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let readme = &readme[readme.find("## Real models").expect("the README's section")..];
    let at = readme
        .find("```c\n")
        .expect("a C block in the README's section")
        + 5;
    assert_eq!(
        &readme[at..at + readme[at..].find("```").unwrap()],
        snippet,
        "the README's Real models callback is the guide's"
    );
    let answers = [
        agentloop_standin::canned::openai::tool_calls(&[("add", r#"{"a":2,"b":40}"#)]),
        agentloop_standin::canned::openai::text("42."),
    ]
    .map(|exchange| c_literal(&exchange.body));
    let program = format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agentloop.h"

static long post(void *http, const char *path, const uint8_t *body, size_t len,
                 uint8_t **answer, size_t *answer_len);

{snippet}
static const char *const ANSWERS[2] = {{{first}, {second}}};

static long post(void *http, const char *path, const uint8_t *body, size_t len,
                 uint8_t **answer, size_t *answer_len) {{
    int *posts = http;
    if (*posts >= 2 || strcmp(path, "/chat/completions") != 0 || len < 2 || body[0] != '{{' ||
        memcmp(body + len - 1, "}}", 1) != 0) {{
        return 0;
    }}
    const char *a = ANSWERS[(*posts)++];
    *answer_len = strlen(a);
    *answer = malloc(*answer_len);
    memcpy(*answer, a, *answer_len);
    return 200;
}}

static void add(void *u, const uint8_t *args, size_t n, agentloop_tool_result *result) {{
    (void)u;
    const char *sum = n == 14 && memcmp(args, "{{\"a\":2,\"b\":40}}", 14) == 0 ? "{{\"sum\":42}}" : "{{}}";
    agentloop_tool_result_set_value(result, (const uint8_t *)sum, strlen(sum));
}}

static uint32_t record(void *u, const uint8_t *line, size_t n) {{
    (void)u, (void)line, (void)n;
    return 0;
}}

int main(void) {{
    int posts = 0;
    const char *schema = "{{\"type\":\"object\"}}", *task = "add 2 and 40";
    agentloop_tool tool = {{(const uint8_t *)"add", 3, (const uint8_t *)"Adds.", 5,
                           (const uint8_t *)schema, strlen(schema), 0, add, NULL}};
    agentloop_outcome outcome;
    agentloop_result r = agentloop_driver_run((const uint8_t *)task, strlen(task), NULL, model, &posts,
                                       &tool, 1, NULL, NULL, record, NULL, &outcome);
    printf("%s %s %d %llu\n", agentloop_result_str(r), agentloop_stop_str(outcome.reason),
           posts, (unsigned long long)outcome.tool_calls);
    return r == AGENTLOOP_RESULT_OK && outcome.reason == AGENTLOOP_STOP_NO_TOOL_CALLS &&
           posts == 2 && outcome.tool_calls == 1 ? 0 : 1;
}}
"#,
        first = answers[0],
        second = answers[1],
    );
    let build = Build::new("c-api-real-models");
    let source = build.dir.join("real_models.c");
    std::fs::write(&source, program).unwrap();
    let binary = build.dir.join("real_models");
    let out = run(Command::new("cc")
        .args(CFLAGS)
        .args(SANITIZE)
        .arg(format!("-I{}", root().join("include").display()))
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .arg(build.lib.join("libagentloop.a"))
        .args(NATIVE_STATIC_LIBS.split(' ')));
    expect_status(&out, 0, "compiling the guide's real-models callback");
    let out = run(&mut wrapped(&binary, &[]));
    expect_status(&out, 0, "running the guide's real-models callback");
    std::fs::remove_dir_all(&build.dir).unwrap();
}
