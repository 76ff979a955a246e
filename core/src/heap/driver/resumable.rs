//! A transcript read to be continued ([`Resumable`]): its records, verified, where its
//! chain goes on, and what its `task` record states. The one reading of a transcript
//! for resuming, which a host that resumes over bytes, `agentloop run --resume` (through the durable
//! writer, which reads and verifies the file once) and `agentloop_agent_resume` share.

use alloc::vec::Vec;

use super::{OpenError, OpenErrorKind};
use crate::agent::{Agent, Budgets};
use crate::anchor::Anchor;
use crate::chain::Chain;
use crate::export::{parse_records, ParseRecordsError};
use crate::json::Value;
use crate::tools::Manifest;
use crate::verify::{self, Options};
use crate::vocabulary::{
    task, PayloadError, RecordKind, ResumePayload, Setup, SetupPayload, TaskPayload,
};

/// A transcript that verified, read to be continued: its records and where its chain
/// goes on. Made by [`Resumable::read`] (or by the durable writer, from the bytes it
/// verified when it opened the file).
#[derive(Debug, Clone, PartialEq)]
pub struct Resumable {
    records: Vec<Value>,
    next: Anchor,
}

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
            return Err(OpenErrorKind::Transcript(alloc::boxed::Box::new(fault)).into());
        }
        let next = Anchor {
            seq0: anchor.seq0.saturating_add(report.count),
            prev0: report.head.unwrap_or(anchor.prev0),
        };
        Ok(Resumable::verified(next, transcript)
            .map_err(|e| OpenErrorKind::Unreadable(e.index, e.error))?)
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
        task::text(self.payload()).ok()
    }

    /// What record 0 states: the task, the budgets and the tool limits (its payload
    /// decoded; no record, or one with no payload, is a payload that is not an object).
    pub fn stated(&self) -> Result<TaskPayload, PayloadError> {
        TaskPayload::decode(self.payload())
    }

    /// The setup in force where the transcript ends (format 2): the `task` record's,
    /// replaced by each later `resume` record's that states one and by each `setup`
    /// record's (a change between turns); `None` when the `task` record states none
    /// (format 1, or a host that gave none).
    pub fn setup(&self) -> Result<Option<Setup>, PayloadError> {
        let mut setup = self.stated()?.setup;
        for record in self.records.iter().skip(1) {
            let Some(record) = record.as_object() else {
                continue;
            };
            let kind = record.get("kind").and_then(Value::as_str);
            let payload = record.get("payload").unwrap_or(&Value::Null);
            match kind.and_then(RecordKind::from_name) {
                Some(RecordKind::Resume) => {
                    if let Some(changed) = ResumePayload::decode(payload)?.setup {
                        setup = Some(changed);
                    }
                }
                Some(RecordKind::Setup) => setup = Some(SetupPayload::decode(payload)?.setup),
                _ => {}
            }
        }
        Ok(setup)
    }

    /// Continues the run: the agent [`Agent::resume`] rebuilds from the records (which
    /// says what happens at each place a run can end), and the chain that continues
    /// them (from the last record's `seq` and `hash`): hand both to [`super::drive`],
    /// with a sink that appends to the same file. `budgets` and the manifest's call
    /// limits must be those the `task` record states ([`Resumable::stated`]). The model
    /// is shown the conversation the interrupted run had reached, so a model that
    /// answers by what it is shown gives the answers it would have given: where no call
    /// was in flight (or their tools are idempotent) the resumed file is byte for byte
    /// the file the uninterrupted run writes.
    pub fn resume(
        &self,
        budgets: Budgets,
        manifest: Manifest,
    ) -> Result<(Agent, Chain), OpenError> {
        let agent =
            Agent::resume(budgets, manifest, &self.records).map_err(OpenErrorKind::Resume)?;
        Ok((agent, Chain::from_anchor(self.next)))
    }

    /// Record 0's payload (null when there is none).
    fn payload(&self) -> &Value {
        self.records
            .first()
            .and_then(Value::as_object)
            .and_then(|record| record.get("payload"))
            .unwrap_or(&Value::Null)
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
        assert!(
            matches!(refused.0, OpenErrorKind::Transcript(_)),
            "{refused}"
        );
        let elsewhere = Anchor {
            seq0: 5,
            prev0: Anchor::GENESIS.prev0,
        };
        let (transcript, _) = recorded();
        let refused = Resumable::read(elsewhere, &transcript).unwrap_err();
        assert!(
            matches!(refused.0, OpenErrorKind::Transcript(_)),
            "{refused}"
        );
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
            (r#"{"budgets":{}}"#, "the task payload has no task"),
            (
                r#"{"task":"t","budgets":{"max_steps":-1}}"#,
                "the task payload's max_steps must be a count (an integer from 0 to 2^53-1)",
            ),
            (r#"{"task":"t"}"#, "the task payload has no budgets"),
            (
                r#"{"task":"t","budgets":{"stop_sentinel":1}}"#,
                "the task payload's budgets.stop_sentinel must be a string",
            ),
            (
                r#"{"task":"t","budgets":{"tool_limits":[]}}"#,
                "the task payload's budgets.tool_limits must be an object",
            ),
            (
                r#"{"task":"t","budgets":{"tool_limits":{"add":1.5}}}"#,
                "the task payload's budgets.tool_limits must be an object of counts",
            ),
        ] {
            let refused = task_record(payload).stated().unwrap_err();
            assert_eq!(refused.to_string(), error, "{payload}");
        }
        let not_an_object = "the task payload must be an object";
        let mut chain = Chain::new();
        let line = chain.append("task", &Value::Array(Vec::new())).unwrap();
        let read = Resumable::read(Anchor::GENESIS, line).unwrap();
        assert_eq!(read.stated().unwrap_err().to_string(), not_an_object);
        assert_eq!(read.task(), None);
        let empty = Resumable::read(Anchor::GENESIS, b"").unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.stated().unwrap_err().to_string(), not_an_object);
    }
}
