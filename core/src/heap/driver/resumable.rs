//! A transcript read to be continued ([`Resumable`]): its records, verified, where its
//! chain goes on, and what its `task` record states. The one reading of a transcript
//! for resuming, which [`super::open`], `agentloop run --resume` (through the durable
//! writer, which reads and verifies the file once) and `agentloop_agent_resume` share.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::OpenError;
use crate::agent::{recorded_budgets, Agent, Budgets};
use crate::anchor::{seq_of, Anchor};
use crate::chain::Chain;
use crate::export::{parse_records, ParseRecordsError};
use crate::json::{Object, Value};
use crate::tools::Manifest;
use crate::verify::{self, Options};

/// A transcript that verified, read to be continued: its records and where its chain
/// goes on. Made by [`Resumable::read`] (or by the durable writer, from the bytes it
/// verified when it opened the file).
#[derive(Debug, Clone, PartialEq)]
pub struct Resumable {
    records: Vec<Value>,
    next: Anchor,
}

/// What a transcript's `task` record (record 0) states: the run's task, budgets and
/// tool limits, which a resumed run keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    /// The task text.
    pub task: String,
    /// The budgets ([`recorded_budgets`]).
    pub budgets: Budgets,
    /// Each limited tool's most runs (`budgets.tool_limits`).
    pub tool_limits: BTreeMap<String, u64>,
}

/// Why record 0 does not state a run's task, budgets and tool limits as the loop
/// writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatedError {
    /// Record 0 is not an object with a `payload` object (or there is no record).
    NotTask,
    /// The payload has no `task` string.
    NoTaskText,
    /// The budgets are not the counts and sentinel the loop writes.
    Budgets,
    /// `budgets.tool_limits` is not an object.
    ToolLimitsNotObject,
    /// `budgets.tool_limits` holds a limit that is not a count.
    LimitNotCount,
}

impl fmt::Display for StatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StatedError::NotTask => "record 0 is not a task record with a payload",
            StatedError::NoTaskText => "record 0 has no task text",
            StatedError::Budgets => {
                "record 0's budgets are not the counts and sentinel the loop writes"
            }
            StatedError::ToolLimitsNotObject => "record 0's tool_limits is not an object",
            StatedError::LimitNotCount => {
                "record 0's tool_limits holds a limit that is not a count"
            }
        })
    }
}

impl core::error::Error for StatedError {}

impl Resumable {
    /// Reads `transcript`, whose chain starts at `anchor` ([`Anchor::GENESIS`] for a
    /// whole transcript): verifies it strictly (any fault, a torn last line included,
    /// refuses it) and parses its records.
    pub fn read(anchor: Anchor, transcript: &[u8]) -> Result<Resumable, OpenError> {
        let options = Options {
            anchor,
            ..Options::default()
        };
        let report = verify::verify_bytes(transcript, &options);
        if let Some(fault) = report.faults.into_iter().next() {
            return Err(OpenError::Transcript(alloc::boxed::Box::new(fault)));
        }
        let next = Anchor {
            seq0: anchor.seq0.saturating_add(report.count),
            prev0: report.head.unwrap_or(anchor.prev0),
        };
        Resumable::verified(next, transcript).map_err(|e| OpenError::Unreadable(e.index, e.error))
    }

    /// The records of `transcript`, which the caller verified (its chain goes on at
    /// `next`): parsed only.
    pub(crate) fn verified(
        next: Anchor,
        transcript: &[u8],
    ) -> Result<Resumable, ParseRecordsError> {
        let records = parse_records(transcript)?;
        Ok(Resumable { records, next })
    }

    /// The records, in order (the `task` first).
    pub fn records(&self) -> &[Value] {
        &self.records
    }

    /// How many records the transcript holds.
    pub fn count(&self) -> u64 {
        self.records.len() as u64
    }

    /// Whether the transcript holds no record (there is no run to continue).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Where the chain goes on: the next record's `seq` and the transcript's head
    /// (the last record's hash; the anchor's `prev0` when there is none).
    pub fn next(&self) -> Anchor {
        self.next
    }

    /// The task text record 0 states, if it states one.
    pub fn task(&self) -> Option<&str> {
        self.payload()?.get("task")?.as_str()
    }

    /// What record 0 states: the task, the budgets and the tool limits.
    pub fn stated(&self) -> Result<Stated, StatedError> {
        let payload = self.payload().ok_or(StatedError::NotTask)?;
        let task = payload
            .get("task")
            .and_then(Value::as_str)
            .ok_or(StatedError::NoTaskText)?;
        let budgets = self
            .records
            .first()
            .and_then(recorded_budgets)
            .ok_or(StatedError::Budgets)?;
        let mut tool_limits = BTreeMap::new();
        let recorded = payload
            .get("budgets")
            .and_then(Value::as_object)
            .and_then(|b| b.get("tool_limits"));
        if let Some(recorded) = recorded {
            let recorded = recorded
                .as_object()
                .ok_or(StatedError::ToolLimitsNotObject)?;
            for (name, limit) in recorded.iter() {
                let limit = limit
                    .as_f64()
                    .and_then(seq_of)
                    .ok_or(StatedError::LimitNotCount)?;
                tool_limits.insert(String::from(name), limit);
            }
        }
        Ok(Stated {
            task: String::from(task),
            budgets,
            tool_limits,
        })
    }

    /// Continues the run: the agent [`Agent::resume`] rebuilds from the records (which
    /// says what happens at each place a run can end), and the chain that continues
    /// them. `budgets` and the manifest's call limits must be those the `task` record
    /// states ([`Resumable::stated`]).
    pub fn resume(
        &self,
        budgets: Budgets,
        manifest: Manifest,
    ) -> Result<(Agent, Chain), OpenError> {
        let agent = Agent::resume(budgets, manifest, &self.records).map_err(OpenError::Resume)?;
        Ok((agent, Chain::from_anchor(self.next)))
    }

    /// Record 0's payload, if it is an object with one.
    fn payload(&self) -> Option<&Object> {
        self.records
            .first()?
            .as_object()?
            .get("payload")?
            .as_object()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    use crate::demo;
    use crate::json::parse;

    /// A whole demo transcript, its task and budgets.
    fn recorded() -> (Vec<u8>, demo::Scenario) {
        let scenario = demo::recover();
        let (transcript, _) = scenario.run().unwrap();
        (transcript, scenario)
    }

    #[test]
    fn a_transcript_read_states_its_task_and_budgets_and_where_its_chain_goes_on() {
        let (transcript, scenario) = recorded();
        let read = Resumable::read(Anchor::GENESIS, &transcript).unwrap();
        let report = verify::verify_bytes(&transcript, &Options::default());
        assert_eq!(read.count(), report.count);
        assert_eq!(read.next().seq0, report.count);
        assert_eq!(Some(read.next().prev0), report.head);
        assert_eq!(read.task(), Some(scenario.task));
        let stated = read.stated().unwrap();
        assert_eq!(stated.task, scenario.task);
        assert_eq!(stated.budgets, scenario.budgets);
        assert!(stated.tool_limits.is_empty());
        let manifest = demo::toolbox().unwrap().manifest().clone();
        let (_, chain) = read.resume(stated.budgets, manifest).unwrap();
        assert_eq!(chain.next(), read.next());
    }

    #[test]
    fn a_transcript_that_does_not_verify_is_not_read() {
        let (mut transcript, _) = recorded();
        transcript.pop();
        let refused = Resumable::read(Anchor::GENESIS, &transcript).unwrap_err();
        assert!(matches!(refused, OpenError::Transcript(_)), "{refused}");
        let elsewhere = Anchor {
            seq0: 5,
            prev0: Anchor::GENESIS.prev0,
        };
        let (transcript, _) = recorded();
        let refused = Resumable::read(elsewhere, &transcript).unwrap_err();
        assert!(matches!(refused, OpenError::Transcript(_)), "{refused}");
    }

    /// A one-record transcript of the task record `payload`.
    fn task_record(payload: &str) -> Resumable {
        let mut chain = Chain::new();
        let line = chain.append("task", &parse(payload.as_bytes()).unwrap());
        Resumable::read(Anchor::GENESIS, line.unwrap()).unwrap()
    }

    #[test]
    fn what_the_task_record_states_is_read_or_refused_saying_why() {
        let read = task_record(
            r#"{"task":"t","budgets":{"max_steps":3,"tool_limits":{"add":2,"mul":5}}}"#,
        );
        let stated = read.stated().unwrap();
        let limits: Vec<(&str, u64)> = stated
            .tool_limits
            .iter()
            .map(|(n, l)| (n.as_str(), *l))
            .collect();
        assert_eq!(limits, [("add", 2), ("mul", 5)]);
        assert_eq!(stated.budgets.max_steps, Some(3));
        for (payload, error) in [
            (r#"{"budgets":{}}"#, StatedError::NoTaskText),
            (
                r#"{"task":"t","budgets":{"max_steps":-1}}"#,
                StatedError::Budgets,
            ),
            (r#"{"task":"t"}"#, StatedError::Budgets),
            (
                r#"{"task":"t","budgets":{"tool_limits":[]}}"#,
                StatedError::ToolLimitsNotObject,
            ),
            (
                r#"{"task":"t","budgets":{"tool_limits":{"add":1.5}}}"#,
                StatedError::LimitNotCount,
            ),
        ] {
            assert_eq!(task_record(payload).stated(), Err(error), "{payload}");
            assert!(error.to_string().starts_with("record 0"), "{error}");
        }
        let mut chain = Chain::new();
        let line = chain.append("task", &Value::Array(Vec::new())).unwrap();
        let read = Resumable::read(Anchor::GENESIS, line).unwrap();
        assert_eq!(read.stated(), Err(StatedError::NotTask));
        assert_eq!(read.task(), None);
        let empty = Resumable::read(Anchor::GENESIS, b"").unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.stated(), Err(StatedError::NotTask));
    }
}
