//! The task a run starts with: the one rule it must keep, checked by every edge that
//! starts a run from a task it was given (`agentloop run`, `agentloop_agent_new`,
//! `agentloop_driver_run`) before anything is written.

use core::fmt;

use crate::model::is_blank;

/// Why a task was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskError {
    /// The task is empty or nothing but white space ([`is_blank`]).
    Blank,
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::Blank => f.write_str(
                "the task is empty or only white space: it asks the model nothing \
                 (and Anthropic refuses text without a character other than white space)",
            ),
        }
    }
}

impl core::error::Error for TaskError {}

/// Checks a task before a run starts with it: one that is empty or nothing but white
/// space ([`is_blank`]) is refused, whatever the provider — it asks nothing, a
/// transcript of it records no question, and Anthropic refuses it outright (OpenAI
/// would take it). [`crate::agent::Agent::new`] itself takes any task, so that a
/// transcript written before this rule still resumes and replays; a host starting a
/// run from a task it was given calls this first, as the CLI and the C ABI do.
///
/// ```
/// use agentloop_core::agent::{check_task, TaskError};
/// assert_eq!(check_task("add 2 and 40"), Ok(()));
/// assert_eq!(check_task(" \n\t"), Err(TaskError::Blank));
/// assert_eq!(check_task(""), Err(TaskError::Blank));
/// ```
pub fn check_task(task: &str) -> Result<(), TaskError> {
    if is_blank(task) {
        return Err(TaskError::Blank);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;

    #[test]
    fn a_task_needs_a_character_other_than_white_space() {
        for blank in [
            "",
            " ",
            "\n\n",
            "\t\r\n",
            "\u{a0}\u{2003}\u{3000}\u{2028}\u{85}",
        ] {
            assert_eq!(check_task(blank), Err(TaskError::Blank), "{blank:?}");
        }
        for task in ["a", " a ", "\n.\n", "\u{200b}", "😀"] {
            assert_eq!(check_task(task), Ok(()), "{task:?}");
        }
        assert!(TaskError::Blank
            .to_string()
            .starts_with("the task is empty or only white space"));
    }
}
