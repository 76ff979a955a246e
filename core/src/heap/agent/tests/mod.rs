//! Tests of the loop: every stop reason and precedence rule, built with a scripted
//! model and checked on the records of a transcript that must verify.

mod batch;
mod calls;
mod change;
mod follow;
mod machine;
mod order;
mod resume;
mod sizes;
mod stops;
#[cfg(feature = "serde")]
mod typed;
mod usage;

use crate::heap::test_cells::Cell;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{Budgets, Outcome};
use crate::chain::Chain;
use crate::driver;
use crate::json::{parse, parse_record_line, Object, Value};
use crate::model::{ModelError, Reply, Scripted};
use crate::tools::{FnTool, Tool, ToolSpec, Toolbox};
use crate::verify::{self, Options};
use crate::Anchor;

/// The polls the tests use, over [`super::Agent::poll`]: one call at a time, or every
/// call of a turn at once; with no cancellation hook, or with one.
trait Polls {
    fn poll_one(&mut self) -> super::Need<'_>;
    fn poll_one_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> super::Need<'_>;
    fn poll_all(&mut self) -> super::Need<'_>;
    fn poll_all_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> super::Need<'_>;
}

impl Polls for super::Agent {
    fn poll_one(&mut self) -> super::Need<'_> {
        self.poll_one_with(&mut || false)
    }
    fn poll_one_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> super::Need<'_> {
        self.set_parallel(1);
        self.poll(cancel)
    }
    fn poll_all(&mut self) -> super::Need<'_> {
        self.poll_all_with(&mut || false)
    }
    fn poll_all_with(&mut self, cancel: &mut dyn FnMut() -> bool) -> super::Need<'_> {
        self.set_parallel(usize::MAX);
        self.poll(cancel)
    }
}

/// JSON from text.
fn j(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

/// A reply with no text and one call.
fn call(name: &str, arguments: &str) -> Reply {
    Reply::new("").with_call(name, j(arguments))
}

/// A tool `name` accepting any object, counting its runs; returns `{"run": n}`.
fn counting(name: &str) -> (impl Tool, Arc<Cell<u32>>) {
    let runs = Arc::new(Cell::new(0u32));
    let seen = runs.clone();
    let spec = ToolSpec::new(name, "counts its runs", j(r#"{"type":"object"}"#));
    let tool = FnTool::new(spec, move |_: &Value| {
        seen.set(seen.get() + 1);
        let mut out = Object::new();
        out.insert("run", Value::Number(f64::from(seen.get())));
        Ok(Value::Object(out))
    });
    (tool, runs)
}

/// A finished run, read back from its transcript.
struct Run {
    transcript: Vec<u8>,
    /// `(seq, kind, payload)` of each line.
    records: Vec<(u64, String, Object)>,
    outcome: Outcome,
}

impl Run {
    fn kinds(&self) -> Vec<&str> {
        self.records.iter().map(|(_, k, _)| k.as_str()).collect()
    }

    /// The payload at `seq` (records start at the run's first seq).
    fn at(&self, seq: u64) -> &Object {
        &self.records.iter().find(|(s, _, _)| *s == seq).unwrap().2
    }

    fn stop(&self) -> &Object {
        &self.records.last().unwrap().2
    }

    /// `(ok, value-or-error)` of every tool record, in order.
    fn tools(&self) -> Vec<(bool, Value)> {
        self.records
            .iter()
            .filter(|(_, k, _)| k == "tool")
            .map(|(_, _, p)| match p.get("ok") {
                Some(Value::Bool(true)) => (true, p.get("value").unwrap().clone()),
                _ => (false, p.get("error").unwrap().clone()),
            })
            .collect()
    }

    fn errors(&self) -> Vec<String> {
        self.tools()
            .into_iter()
            .filter(|(ok, _)| !ok)
            .map(|(_, e)| String::from(e.as_str().unwrap()))
            .collect()
    }
}

/// Runs to the end with these replies and tools; checks what must hold of every run:
/// the transcript verifies, steps = assistant records, and the stop record matches
/// the outcome.
fn run_with(
    budgets: Budgets,
    replies: Vec<Result<Reply, ModelError>>,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
) -> Run {
    run_on(&mut Chain::new(), budgets, replies, toolbox, cancel)
}

fn run_on(
    chain: &mut Chain,
    budgets: Budgets,
    replies: Vec<Result<Reply, ModelError>>,
    toolbox: &mut Toolbox,
    cancel: &mut dyn FnMut() -> bool,
) -> Run {
    let anchor = Anchor {
        seq0: chain.next_seq(),
        prev0: chain.head(),
    };
    let mut model = Scripted::from_results(replies);
    let mut transcript = Vec::new();
    let outcome = driver::testing::run_on(
        chain,
        "the task",
        budgets,
        &mut model,
        toolbox,
        cancel,
        &mut transcript,
    )
    .unwrap();
    let options = Options {
        anchor,
        ..Options::default()
    };
    let report = verify::verify_bytes(&transcript, &options);
    assert!(report.ok(), "{:?}", report.faults);
    let records: Vec<(u64, String, Object)> = transcript
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|line| {
            // A record line may be one level deeper than a payload.
            let record = parse_record_line(line).unwrap();
            let record = record.as_object().unwrap();
            (
                record.get("seq").unwrap().as_f64().unwrap() as u64,
                String::from(record.get("kind").unwrap().as_str().unwrap()),
                record.get("payload").unwrap().as_object().unwrap().clone(),
            )
        })
        .collect();
    let run = Run {
        transcript,
        records,
        outcome,
    };
    let assistants = run.kinds().iter().filter(|k| **k == "assistant").count();
    assert_eq!(run.outcome.steps, assistants as u64);
    let stop = run.stop();
    assert_eq!(run.kinds().last(), Some(&"stop"));
    assert_eq!(run.kinds().first(), Some(&"task"));
    assert_eq!(
        stop.get("reason").unwrap().as_str(),
        Some(run.outcome.reason.as_str())
    );
    let n = |key: &str| stop.get(key).unwrap().as_f64().unwrap() as u64;
    assert_eq!(n("steps"), run.outcome.steps);
    assert_eq!(n("tokens"), run.outcome.tokens);
    assert_eq!(n("unrun_calls"), run.outcome.unrun_calls);
    let tool_records = run.kinds().iter().filter(|k| **k == "tool").count();
    assert_eq!(run.outcome.tool_calls, tool_records as u64);
    run
}

/// Runs with never-cancelling host.
fn run(budgets: Budgets, replies: Vec<Reply>, toolbox: &mut Toolbox) -> Run {
    run_with(
        budgets,
        replies.into_iter().map(Ok).collect(),
        toolbox,
        &mut || false,
    )
}

fn demo_tools() -> Toolbox {
    crate::demo::toolbox().unwrap()
}

fn num(payload: &Object, key: &str) -> u64 {
    payload.get(key).unwrap().as_f64().unwrap() as u64
}

fn text(payload: &Object, key: &str) -> String {
    String::from(payload.get(key).unwrap().as_str().unwrap())
}
