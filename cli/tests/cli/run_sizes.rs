//! `agentloop run` against a provider whose reply is too large for one record (the
//! stand-in provider, in process): the run ends as a failed model does, with a `stop`
//! record, and the transcript verifies.

use crate::common;

use agentloop_standin::{canned, Server};
use common::runs::*;
use common::{member, Scratch};

/// 20 MB of tool arguments — past the 16 MiB line limit, within the HTTP client's
/// 64 MiB bound on a response: no `assistant` record, a `stop` record with
/// `model_error` saying why, exit status 4 (as for any `model_error`), and a transcript
/// that passes `verify --loop`.
#[test]
fn a_reply_too_large_for_one_record_stops_the_run_with_model_error() {
    let scratch = Scratch::new("reply-too-large");
    let arguments = format!(r#"{{"a":"{}","b":40}}"#, "2".repeat(20_000_000));
    let server = Server::start([canned::openai::tool_calls(&[("add", &arguments)])]).unwrap();
    let args = run_args(OpenAi, &server, "t.jsonl", &[]);
    let run = agentloop(scratch.dir(), &strs(&args), &[]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(server.requests().len(), 1);
    let bytes = scratch.read("t.jsonl");
    assert_eq!(kinds(&bytes), ["task", "stop"]);
    let stop = last_payload(&bytes);
    assert_eq!(member(&stop, "reason").as_str(), Some("model_error"));
    let error = member(&stop, "error").as_str().unwrap();
    assert!(
        error.starts_with("the model's reply is too large for one record (2000")
            && error.ends_with(" bytes, the limit is 16777216)"),
        "{error}"
    );
    assert!(
        run.stdout.starts_with(&format!(
            "model_error: 0 turns, 0 tokens, 0 tool calls; error: {error}\n"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("seq 1 stop model_error: 0 turns"),
        "{}",
        run.stderr
    );
    assert_verifies_as_a_loop(&scratch, "t.jsonl");
}
