//! Fixtures for the benchmarks (`benches/`): a trivial model and a trivial tool, so a
//! run measures the loop's own work — the state machine, the checks, building records,
//! canonical encoding and hashing — and nothing else.
#![forbid(unsafe_code)]

pub mod realistic;
pub mod rich;
pub mod schema_cases;

use agentloop_core::agent::{Budgets, Outcome};
use agentloop_core::chain::Chain;
use agentloop_core::driver;
use agentloop_core::json::{Object, Value};
use agentloop_core::model::{Message, Model, ModelError, Reply};
use agentloop_core::tools::{FnTool, ToolError, ToolOptions, ToolSpec, Toolbox};

/// A model that asks for the `noop` tool once every turn, forever: a run ends on its
/// step budget, so `steps` turns make `2 * steps + 2` records.
#[derive(Debug, Clone, Default)]
pub struct Looping;

impl Model for Looping {
    fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
        Ok(Reply::new("again").with_call("noop", Value::Object(Object::new())))
    }
}

/// A toolbox with one tool, `noop`: `{}` (an object, no other constraint) → `null`.
pub fn toolbox() -> Toolbox {
    let mut schema = Object::new();
    schema.insert("type", Value::from("object"));
    let spec = ToolSpec::new("noop", "Does nothing.", Value::Object(schema));
    let mut toolbox = Toolbox::new();
    toolbox
        .register(
            FnTool::new(spec, |_: &Value| -> Result<Value, ToolError> {
                Ok(Value::Null)
            }),
            ToolOptions::new(),
        )
        .expect("the noop tool registers");
    toolbox
}

/// Runs `steps` turns of [`Looping`] against [`toolbox`], writing the transcript into
/// `out` (cleared first): the records land in memory, each appended to the chain.
pub fn run_steps(steps: u64, toolbox: &mut Toolbox, out: &mut Vec<u8>) -> Outcome {
    out.clear();
    let budgets = Budgets {
        max_steps: Some(steps),
        ..Budgets::default()
    };
    driver::run(
        "loop",
        budgets,
        &mut Looping,
        toolbox,
        &mut || false,
        out,
        driver::RunOptions::default(),
    )
    .expect("the benchmark run completes")
}

/// A transcript of `count` small records (`{"i": n, "note": "..."}`), for append
/// and verify throughput.
pub fn transcript(count: u64) -> Vec<u8> {
    let mut chain = Chain::new();
    let mut out = Vec::new();
    for i in 0..count {
        out.extend_from_slice(
            chain
                .append("note", &payload(i))
                .expect("a small record appends"),
        );
    }
    out
}

/// The payload of record `i` in [`transcript`].
pub fn payload(i: u64) -> Value {
    let mut o = Object::new();
    o.insert("i", Value::Number(i as f64));
    o.insert("note", Value::from("a short note of about forty bytes"));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_core::agent::StopReason;
    use agentloop_core::verify;

    #[test]
    fn fixtures_make_verified_transcripts() {
        let mut tools = toolbox();
        let mut out = Vec::new();
        let outcome = run_steps(10, &mut tools, &mut out);
        assert_eq!(outcome.reason, StopReason::StepBudget);
        assert_eq!(outcome.steps, 10);
        let report = verify::verify_bytes(&out, &verify::Options::default());
        assert!(report.ok());
        assert_eq!(report.count, 22);
        let bytes = transcript(100);
        assert_eq!(
            verify::verify_bytes(&bytes, &verify::Options::default()).count,
            100
        );
    }
}
