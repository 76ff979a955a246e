//! The task a run starts with: the one rule it must keep, checked by every edge that
//! starts a run from a task it was given (`agentloop run`, `agentloop_agent_new`,
//! `agentloop_driver_run`) before anything is written.

use core::fmt;

use crate::heap::opaque::opaque_error;
use crate::model::is_blank;

opaque_error! {
    /// Why a task was refused.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct TaskError(TaskErrorKind);
}

/// What [`TaskError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskErrorKind {
    /// The task is empty or nothing but white space ([`is_blank`]).
    Blank,
}

impl fmt::Display for TaskErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskErrorKind::Blank => f.write_str(
                "the task is empty or only white space: it asks the model nothing \
                 (and Anthropic refuses text without a character other than white space)",
            ),
        }
    }
}

/// Checks a task before a run starts with it: one that is empty or nothing but white
/// space (as [`char::is_whitespace`] counts it) is refused, whatever the provider — it asks nothing, a
/// transcript of it records no question, and Anthropic refuses it outright (OpenAI
/// would take it). [`crate::agent::Agent::new`] itself takes any task, so that a
/// transcript written before this rule still resumes and replays; a host starting a
/// run from a task it was given calls this first, as the CLI and the C ABI do.
///
/// ```
/// use agentloop_core::agent::check_task;
/// assert_eq!(check_task("add 2 and 40"), Ok(()));
/// assert!(check_task(" \n\t").is_err());
/// assert!(check_task("").unwrap_err().to_string().starts_with("the task is empty"));
/// ```
pub fn check_task(task: &str) -> Result<(), TaskError> {
    if is_blank(task) {
        return Err(TaskErrorKind::Blank.into());
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
            assert_eq!(
                check_task(blank),
                Err(TaskErrorKind::Blank.into()),
                "{blank:?}"
            );
        }
        for task in ["a", " a ", "\n.\n", "\u{200b}", "😀"] {
            assert_eq!(check_task(task), Ok(()), "{task:?}");
        }
        assert!(TaskErrorKind::Blank
            .to_string()
            .starts_with("the task is empty or only white space"));
    }
}
