//! The `task` payload: `{"task": text, "budgets": {…}}`, the budgets that are set and,
//! when a tool has a limit, `tool_limits` (name → limit) among them.

use alloc::collections::BTreeMap;
use alloc::string::String;

use super::member::{BUDGETS, SETUP, STOP_SENTINEL, TASK, TOOL_LIMITS};
use super::read::{number, object, Members};
use super::{Budgets, PayloadError, RecordKind, Setup};
use crate::json::Value;

/// What a `task` record (the first) states: the task, the budgets in force and each
/// limited tool's most runs. A resumed run keeps them.
///
/// ```
/// use agentloop_core::agent::Budgets;
/// use agentloop_core::json::parse;
/// use agentloop_core::vocabulary::TaskPayload;
///
/// let payload = parse(br#"{"budgets":{"max_steps":3},"task":"add 2 and 40"}"#).unwrap();
/// let task = TaskPayload::decode(&payload).unwrap();
/// assert_eq!(task.task, "add 2 and 40");
/// assert_eq!(task.budgets, Budgets { max_steps: Some(3), ..Budgets::default() });
/// assert_eq!(task.encode(), payload);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPayload {
    /// The task text.
    pub task: String,
    /// The budgets in force (`budgets`, but `tool_limits`).
    pub budgets: Budgets,
    /// Each limited tool's most runs (`budgets.tool_limits`; left out when empty).
    pub tool_limits: BTreeMap<String, u64>,
    /// What determined the requests (`setup`, format 2; absent in format 1 and when the
    /// host gave none).
    pub setup: Option<Setup>,
}

const KIND: RecordKind = RecordKind::Task;

impl TaskPayload {
    /// The payload the loop writes: only the budgets that are set.
    pub fn encode(&self) -> Value {
        let mut set = self.budgets.encode();
        if let (Value::Object(set), false) = (&mut set, self.tool_limits.is_empty()) {
            let limits = self
                .tool_limits
                .iter()
                .map(|(name, limit)| (name.as_str(), number(*limit)));
            set.insert(TOOL_LIMITS, object(limits));
        }
        let mut members = alloc::vec![(TASK, Value::from(self.task.as_str())), (BUDGETS, set)];
        if let Some(setup) = &self.setup {
            members.push((SETUP, setup.encode()));
        }
        object(members)
    }

    /// Reads a `task` payload. Budget members the loop does not write are left out.
    pub fn decode(payload: &Value) -> Result<TaskPayload, PayloadError> {
        let task = text(payload)?;
        let set = Members::of(KIND, payload)?.object(BUDGETS, BUDGETS)?;
        let tool_limits = match set.optional(TOOL_LIMITS) {
            None => BTreeMap::new(),
            Some(limits) => set
                .inner(limits, "budgets.tool_limits")?
                .counts("budgets.tool_limits")?
                .into_iter()
                .collect(),
        };
        let setup = match Members::of(KIND, payload)?.optional(SETUP) {
            None => None,
            Some(setup) => Some(Setup::decode(setup)?),
        };
        Ok(TaskPayload {
            task: String::from(task),
            budgets: budgets(set)?,
            tool_limits,
            setup,
        })
    }
}

/// The task text of a `task` payload (the first step of [`TaskPayload::decode`]).
pub(crate) fn text(payload: &Value) -> Result<&str, PayloadError> {
    Members::of(KIND, payload)?.string(TASK, TASK)
}

/// The budgets of a `task` payload (the second step of [`TaskPayload::decode`], which
/// also reads the tool limits).
pub(crate) fn recorded_budgets(payload: &Value) -> Result<Budgets, PayloadError> {
    budgets(Members::of(KIND, payload)?.object(BUDGETS, BUDGETS)?)
}

fn budgets(set: Members<'_>) -> Result<Budgets, PayloadError> {
    let mut budgets = Budgets {
        stop_sentinel: set.opt_string(STOP_SENTINEL, "budgets.stop_sentinel")?,
        ..Budgets::default()
    };
    for (name, slot) in budgets.slots() {
        *slot = set.opt_count(name, name)?;
    }
    Ok(budgets)
}
