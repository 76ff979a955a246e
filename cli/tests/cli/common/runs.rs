//! Running `agentloop run` against the in-process stand-in provider: the providers'
//! canned answers, the command with a controlled environment, Ctrl-C, the transcript.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use agentloop_core::jcs;
use agentloop_core::json::{self, Value};
use agentloop_standin::{canned, Exchange, Request, Server};

use super::{member, Run, Scratch};

/// The key the tests put in the provider's key variable: it must reach the request's
/// header and nothing else.
pub const KEY: &str = "sk-agentloop-test-9f3c1e55d0b24a7e";

/// The variables the command reads keys from by default.
pub const KEY_VARIABLES: [&str; 2] = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Provider {
    OpenAi,
    Anthropic,
}

pub use Provider::{Anthropic, OpenAi};

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            OpenAi => "openai",
            Anthropic => "anthropic",
        }
    }

    pub fn model(self) -> String {
        format!("{}:test-model", self.name())
    }

    pub fn key_variable(self) -> &'static str {
        match self {
            OpenAi => "OPENAI_API_KEY",
            Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The header the key goes in, and how.
    pub fn key_header(self) -> (&'static str, String) {
        match self {
            OpenAi => ("authorization", format!("Bearer {KEY}")),
            Anthropic => ("x-api-key", KEY.to_string()),
        }
    }

    /// A turn calling `add {a: 2, b: 40}`.
    pub fn add_call(self) -> Exchange {
        match self {
            OpenAi => canned::openai::tool_calls(&[("add", r#"{"a":2,"b":40}"#)]),
            Anthropic => {
                canned::anthropic::tool_use(Some("Adding."), &[("add", r#"{"a":2,"b":40}"#)])
            }
        }
    }

    /// A turn that answers.
    pub fn answer(self, text: &str) -> Exchange {
        match self {
            OpenAi => canned::openai::text(text),
            Anthropic => canned::anthropic::text(text),
        }
    }

    /// A 429 asking for no particular wait (so the backoff flag sets it).
    pub fn rate_limited(self) -> Exchange {
        match self {
            OpenAi => canned::openai::rate_limited(0),
            Anthropic => canned::anthropic::rate_limited(0),
        }
    }

    /// A 5xx.
    pub fn server_error(self) -> Exchange {
        match self {
            OpenAi => canned::openai::server_error(),
            Anthropic => canned::anthropic::api_error(),
        }
    }
}

/// `agentloop ARGS` in `dir`, with the key variables unset but for `env`.
pub fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agentloop"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for variable in KEY_VARIABLES {
        command.env_remove(variable);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

pub fn finished(output: Output) -> Run {
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        raw_stdout: output.stdout,
        raw_stderr: output.stderr,
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

/// Runs `agentloop ARGS` in `dir` to its end.
pub fn agentloop(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    finished(command(dir, args, env).output().unwrap())
}

/// `run --task "add 2 and 40" --model P:test-model --base-url URL --demo-tools --out OUT`
/// plus `extra`.
pub fn run_args(provider: Provider, server: &Server, out: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--task",
        "add 2 and 40",
        "--model",
        &provider.model(),
        "--base-url",
        &format!("{}/v1", server.url()),
        "--demo-tools",
        "--max-steps",
        "4",
        "--out",
        out,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// `run --resume --out OUT --model MODEL --base-url URL` plus `extra`: the run in OUT
/// resumed against `server`.
pub fn resume_args(model: &str, server: &Server, out: &str, extra: &[&str]) -> Vec<String> {
    let url = format!("{}/v1", server.url());
    let args = [
        "run",
        "--resume",
        "--out",
        out,
        "--model",
        model,
        "--base-url",
        &url,
    ];
    args.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Resumes the run in `t.jsonl` against `server` (`resume_args`) to its end.
pub fn run_resume(scratch: &Scratch, model: &str, server: &Server, extra: &[&str]) -> Run {
    let args = resume_args(model, server, "t.jsonl", extra);
    agentloop(scratch.dir(), &strs(&args), &[])
}

pub fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The records of a transcript.
pub fn records(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| json::parse(l).unwrap())
        .collect()
}

/// A transcript's records as canonical text, without what a run against another
/// stand-in (another port) changes: each record's `hash` and `prev`, and the `task`
/// record's `setup.endpoint` (format 2 records where the requests went). Two runs that
/// differ only in the stand-in's port are the same here.
pub fn but_the_endpoint(bytes: &[u8]) -> Vec<String> {
    records(bytes)
        .into_iter()
        .map(|mut record| {
            let Value::Object(fields) = &mut record else {
                panic!("a record that is not an object")
            };
            fields.remove("hash");
            fields.remove("prev");
            if let Some(Value::Object(mut payload)) = fields.remove("payload") {
                if let Some(Value::Object(mut setup)) = payload.remove("setup") {
                    setup.remove("endpoint");
                    payload.insert("setup", Value::Object(setup));
                }
                fields.insert("payload", Value::Object(payload));
            }
            canonical(&record)
        })
        .collect()
}

pub fn kinds(bytes: &[u8]) -> Vec<String> {
    records(bytes)
        .iter()
        .map(|r| member(r, "kind").as_str().unwrap().to_string())
        .collect()
}

/// The payload of the last record.
pub fn last_payload(bytes: &[u8]) -> Value {
    member(records(bytes).last().unwrap(), "payload").clone()
}

pub fn canonical(value: &Value) -> String {
    String::from_utf8(jcs::to_vec(value).unwrap()).unwrap()
}

/// The `messages` of a request's body.
pub fn sent_messages(request: &Request) -> Vec<Value> {
    let body = json::parse(&request.body).unwrap();
    match member(&body, "messages") {
        Value::Array(messages) => messages.clone(),
        other => panic!("messages is {other:?}"),
    }
}

/// `agentloop verify --loop FILE` holds.
#[track_caller]
pub fn assert_verifies_as_a_loop(scratch: &Scratch, file: &str) {
    let verified = agentloop(scratch.dir(), &["verify", "--loop", file], &[]);
    assert_eq!(verified.code, 0, "{}{}", verified.stdout, verified.stderr);
}

/// Starts `agentloop ARGS` in the background.
pub fn spawn(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
    command(dir, args, env).spawn().unwrap()
}

/// Sends SIGINT to `child`.
pub fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `server` has received `n` requests; fails if `child` ends first.
pub fn wait_for_requests(server: &Server, n: usize, child: &mut Child) {
    while server.requests().len() < n {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before request {n} was made");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The delay of an answer the tests interrupt: long enough that only the interrupt
/// ends the wait; if the interrupt did not, the answer comes and the run ends some
/// other way than `cancelled` (the test fails, in bounded time).
pub const SLOW: std::time::Duration = std::time::Duration::from_secs(60);
