//! Exit statuses (SPEC section 6): 0 the claim held, 1 a graded fault, 2 could not grade;
//! `agentloop run` adds 3 (a budget stopped the run), 4 (the model failed) and 130
//! (cancelled by Ctrl-C).

use std::process::ExitCode;

use agentloop_core::verify::{FaultKind, Report};

/// The outcome of a command, ordered so that the worst of several is the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: the claim held (verified, canonical, appended, printed).
    Held,
    /// 1: a graded fault (a fault found, input with no canonical form).
    Fault,
    /// 2: could not grade (unreadable input, malformed checkpoint, bad usage).
    CannotGrade,
    /// 3 (`run`): the run stopped on a budget (`step_budget`, `token_budget`,
    /// `tool_budget`).
    Budget,
    /// 4 (`run`): the run stopped on `model_error`.
    ModelFailed,
    /// 130 (`run`): the run was cancelled by SIGINT (128 + 2, as a shell reports a
    /// process that SIGINT ended).
    Cancelled,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Held => 0,
            Exit::Fault => 1,
            Exit::CannotGrade => 2,
            Exit::Budget => 3,
            Exit::ModelFailed => 4,
            Exit::Cancelled => 130,
        }
    }

    /// The outcome of a verification: held when it has no fault, could not grade when
    /// the input was unreadable, a graded fault otherwise.
    pub fn of_report(report: &Report) -> Exit {
        if report
            .faults
            .iter()
            .any(|f| f.kind == FaultKind::Unreadable)
        {
            Exit::CannotGrade
        } else if report.ok() {
            Exit::Held
        } else {
            Exit::Fault
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_of_several_is_the_maximum() {
        assert_eq!(Exit::Held.max(Exit::Fault), Exit::Fault);
        assert_eq!(Exit::CannotGrade.max(Exit::Fault), Exit::CannotGrade);
        assert_eq!(
            [Exit::Held, Exit::CannotGrade, Exit::Fault]
                .into_iter()
                .max()
                .map(Exit::code),
            Some(2)
        );
    }
}
