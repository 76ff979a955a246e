//! The demo: three scripted end-to-end runs over the demo tools, and the claims each
//! transcript must bear out. `agentloop demo` writes and checks them; tests and other
//! hosts (the C ABI) reuse them.
//!
//! Internal: the demo scenarios are the fixtures of `agentloop demo` and the workspace's
//! tests, not covered by the API promise (the module is `#[doc(hidden)]`).
//!
//! | file | records | shows |
//! | --- | --- | --- |
//! | `demo-answer.jsonl` | 5 | task, a call to `add`, its result, the answer, `no_tool_calls` |
//! | `demo-recover.jsonl` | 11 | an unknown tool, a schema violation, a failing tool, then success |
//! | `demo-budget.jsonl` | 9 | three turns with a call each, then a turn over `max_tokens`: recorded, its two calls unrun, `token_budget` |

mod claims;
#[cfg(test)]
mod tests;
mod tools;

pub use claims::{check, Claim};
pub use tools::{all_tools, toolbox, Add, Fail};
#[cfg(test)]
pub(crate) use tools::{Echo, Greet};

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::agent::{Budgets, Outcome, RecordKind, StopReason};
use crate::driver::{self, RunError};
use crate::heap::opaque::opaque_error;
use crate::json::Value;
use crate::model::{Reply, Scripted};
use crate::tools::RegisterError;
use tools::object;
use RecordKind::{Assistant as A, Stop as S, Task as T, Tool as U};

/// What a demo transcript must show.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    /// The kinds of its records, in order (so also their number).
    pub kinds: Vec<RecordKind>,
    /// The stop reason.
    pub reason: StopReason,
    /// `tool` records by seq: `Ok(value)` for `ok:true`, `Err(sentence)` for `ok:false`.
    pub tools: Vec<(u64, Result<Value, &'static str>)>,
}

/// One scripted run.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file it is written to.
    pub file_name: &'static str,
    /// The task.
    pub task: &'static str,
    /// The budgets.
    pub budgets: Budgets,
    /// The scripted model's replies, in order.
    pub replies: Vec<Reply>,
    /// What its transcript must show.
    pub expect: Expect,
}

opaque_error! {
    /// Why a demo run failed to run at all.
    #[derive(Clone, PartialEq, Eq)]
    pub struct DemoError(DemoErrorKind);
}

/// What [`DemoError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DemoErrorKind {
    /// A demo tool was refused at registration (its schema, say).
    Register(RegisterError),
    /// The run could not be carried out.
    Run(RunError),
}

impl fmt::Display for DemoErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DemoErrorKind::Register(e) => write!(f, "a demo tool was refused: {e}"),
            DemoErrorKind::Run(e) => write!(f, "the demo run failed: {e}"),
        }
    }
}

impl Scenario {
    /// Runs it in memory: the transcript's bytes and how the run ended.
    pub fn run(&self) -> Result<(Vec<u8>, Outcome), DemoError> {
        let mut toolbox = toolbox().map_err(DemoErrorKind::Register)?;
        let mut model = Scripted::new(self.replies.iter().cloned());
        let mut transcript = Vec::new();
        let outcome = driver::run(
            self.task,
            self.budgets.clone(),
            &mut model,
            &mut toolbox,
            &mut || false,
            &mut transcript,
            driver::RunOptions::default(),
        )
        .map_err(DemoErrorKind::Run)?;
        Ok((transcript, outcome))
    }

    /// Checks a transcript (e.g. read back from disk) against what this run must show.
    pub fn check(&self, transcript: &[u8]) -> Vec<Claim> {
        check(self, transcript)
    }
}

/// The three demo runs, in the order `agentloop demo` writes them.
pub fn scenarios() -> [Scenario; 3] {
    [answer(), recover(), budget()]
}

fn args(a: Value, b: f64) -> Value {
    object([("a", a), ("b", Value::Number(b))])
}

fn sum(n: f64) -> Value {
    object([("sum", Value::Number(n))])
}

/// `demo-answer.jsonl`: one call, then the answer (5 records).
pub fn answer() -> Scenario {
    Scenario {
        file_name: "demo-answer.jsonl",
        task: "add 2 and 40",
        budgets: Budgets {
            max_steps: Some(4),
            ..Budgets::default()
        },
        replies: alloc::vec![
            Reply::new("").with_call("add", args(Value::Number(2.0), 40.0)),
            Reply::new("2 + 40 = 42."),
        ],
        expect: Expect {
            kinds: alloc::vec![T, A, U, A, S],
            reason: StopReason::NoToolCalls,
            tools: alloc::vec![(2, Ok(sum(42.0)))],
        },
    }
}

/// The three `ok:false` sentences `demo-recover.jsonl` shows, at seq 2, 4 and 6.
pub const RECOVER_ERRORS: [&str; 3] = [
    "no tool named 'multiply' (have: add, echo, fail, greet)",
    "invalid arguments: $.add.a: expected type integer, got string",
    "tool 'fail' failed: the tool is broken on purpose",
];

/// `demo-recover.jsonl`: an unknown tool, a schema violation, a failing tool, then
/// success (11 records).
pub fn recover() -> Scenario {
    Scenario {
        file_name: "demo-recover.jsonl",
        task: "add 2 and 40, whatever goes wrong on the way",
        budgets: Budgets {
            max_steps: Some(8),
            ..Budgets::default()
        },
        replies: alloc::vec![
            Reply::new("Multiplying is a kind of adding, right?")
                .with_call("multiply", args(Value::Number(2.0), 40.0)),
            Reply::new("No multiply. Adding, with the numbers as I was given them.")
                .with_call("add", args(Value::from("2"), 40.0)),
            Reply::new("The schema wants integers. Does the fail tool know more?")
                .with_call("fail", object([])),
            Reply::new("That tool is broken. Adding two integers now.")
                .with_call("add", args(Value::Number(2.0), 40.0)),
            Reply::new("2 + 40 = 42."),
        ],
        expect: Expect {
            kinds: alloc::vec![T, A, U, A, U, A, U, A, U, A, S],
            reason: StopReason::NoToolCalls,
            tools: alloc::vec![
                (2, Err(RECOVER_ERRORS[0])),
                (4, Err(RECOVER_ERRORS[1])),
                (6, Err(RECOVER_ERRORS[2])),
                (8, Ok(sum(42.0))),
            ],
        },
    }
}

/// `demo-budget.jsonl`: three turns with one call each (34 tokens), then a turn that
/// takes the sum to 49 > `max_tokens` 40: recorded, its two calls not run (9 records).
pub fn budget() -> Scenario {
    let ada = || object([("name", Value::from("ada"))]);
    Scenario {
        file_name: "demo-budget.jsonl",
        task: "add 2 and 40, greeting the user first",
        budgets: Budgets {
            max_steps: Some(10),
            max_tokens: Some(40),
            ..Budgets::default()
        },
        replies: alloc::vec![
            Reply::new("First I greet the user, as every run should start.")
                .with_call("greet", ada()),
            Reply::new("Then I echo the plan back so it is on the record.")
                .with_call("echo", object([("plan", Value::from("add 2 and 40"))])),
            Reply::new("Now the arithmetic itself: two plus forty.")
                .with_call("add", args(Value::Number(2.0), 40.0)),
            Reply::new("Let me double-check the sum and greet again before answering.")
                .with_call("add", args(Value::Number(40.0), 2.0))
                .with_call("greet", ada()),
        ],
        expect: Expect {
            kinds: alloc::vec![T, A, U, A, U, A, U, A, S],
            reason: StopReason::TokenBudget,
            tools: alloc::vec![(6, Ok(sum(42.0)))],
        },
    }
}

/// The scenario written to `file_name`, if any.
pub fn scenario(file_name: &str) -> Option<Scenario> {
    scenarios().into_iter().find(|s| s.file_name == file_name)
}

/// For docs and messages: `task assistant tool … stop`.
pub(crate) fn kinds_text(kinds: &[RecordKind]) -> String {
    let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    names.join(" ")
}
