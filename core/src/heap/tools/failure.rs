//! The sentences the loop writes for a call that failed before or instead of running,
//! and their class: one place for the words, so that a reader of `tool` records (the
//! loop audit, a trace exporter) classifies a failure without spelling them again.
//! Part of the record vocabulary, which re-exports them (`crate::vocabulary`); here
//! because the call checks that write them are the tools' own.

use alloc::format;
use alloc::string::String;

/// How the sentence of an unknown tool begins.
pub(crate) const UNKNOWN_TOOL: &str = "no tool named ";
/// How the sentence of a schema refusal begins.
pub(crate) const INVALID_ARGUMENTS: &str = "invalid arguments: ";
/// How the sentence of a lost result begins.
const RESULT_LOST: &str = "result lost: ";
/// What follows the tool's name in the sentence of a call over its tool's limit.
const LIMIT_REACHED: &str = "' reached its limit of ";

/// The class of a failed call's `error` sentence (a `tool` record with `"ok": false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallFailure {
    /// The call named no offered tool.
    UnknownTool,
    /// The call was over its tool's call limit.
    ToolLimit,
    /// The call's arguments broke its tool's schema.
    InvalidArguments,
    /// The run was interrupted while the call may have been running (`result lost: the
    /// run was interrupted while tool '<name>' was running; …`).
    ResultLost,
    /// The tool ran and failed (or its result had no canonical form).
    Tool,
}

impl CallFailure {
    /// The class of the `error` sentence the loop wrote for a call to `name`.
    pub fn of(name: &str, sentence: &str) -> CallFailure {
        let limit = sentence
            .strip_prefix("tool '")
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.starts_with(LIMIT_REACHED));
        if sentence.starts_with(UNKNOWN_TOOL) {
            CallFailure::UnknownTool
        } else if sentence.starts_with(INVALID_ARGUMENTS) {
            CallFailure::InvalidArguments
        } else if limit {
            CallFailure::ToolLimit
        } else if sentence.starts_with(RESULT_LOST) {
            CallFailure::ResultLost
        } else {
            CallFailure::Tool
        }
    }

    /// The class in snake case: `unknown_tool`, `tool_limit`, `invalid_arguments`,
    /// `result_lost` or `tool_error`.
    pub fn name(self) -> &'static str {
        match self {
            CallFailure::UnknownTool => "unknown_tool",
            CallFailure::ToolLimit => "tool_limit",
            CallFailure::InvalidArguments => "invalid_arguments",
            CallFailure::ResultLost => "result_lost",
            CallFailure::Tool => "tool_error",
        }
    }
}

/// The `error` of a call over its tool's limit of `limit` calls.
pub(crate) fn tool_limit_sentence(name: &str, limit: u64) -> String {
    let calls = if limit == 1 { "call" } else { "calls" };
    format!("tool '{name}{LIMIT_REACHED}{limit} {calls}")
}

/// The `error` of a call whose result was lost: the run was interrupted while it may
/// have been running, and its tool is not idempotent, so it is not run again.
/// Internal (`#[doc(hidden)]` where re-exported, not API): the C ABI's tests compare
/// with it; a library user classifies an error with [`CallFailure::of`].
pub fn result_lost_sentence(name: &str) -> String {
    format!(
        "{RESULT_LOST}the run was interrupted while tool '{name}' was running; it may or may \
         not have taken effect, and it is not run again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sentence_the_loop_writes_has_its_class() {
        let cases = [
            (
                "add",
                "no tool named 'add' (have: echo)",
                CallFailure::UnknownTool,
            ),
            (
                "add",
                &tool_limit_sentence("add", 1),
                CallFailure::ToolLimit,
            ),
            (
                "add",
                &tool_limit_sentence("add", 3),
                CallFailure::ToolLimit,
            ),
            (
                "add",
                "invalid arguments: $.add.a: expected type integer, got string",
                CallFailure::InvalidArguments,
            ),
            ("add", &result_lost_sentence("add"), CallFailure::ResultLost),
            ("add", "division by zero", CallFailure::Tool),
            // A tool's own sentence that looks like another tool's limit is its own.
            ("add", &tool_limit_sentence("other", 2), CallFailure::Tool),
        ];
        for (name, sentence, class) in cases {
            assert_eq!(CallFailure::of(name, sentence), class, "{sentence}");
        }
        assert_eq!(
            tool_limit_sentence("add", 1),
            "tool 'add' reached its limit of 1 call"
        );
        assert_eq!(
            tool_limit_sentence("add", 2),
            "tool 'add' reached its limit of 2 calls"
        );
        assert_eq!(CallFailure::Tool.name(), "tool_error");
    }
}
