//! What the agent asks the host for ([`Need`]) and what it says when fed something it
//! did not ask for ([`FeedError`]).

use core::fmt;

use super::Outcome;
use crate::heap::opaque::opaque_error;
use crate::model::{Message, ToolCall};
use crate::tools::ToolSpec;

/// What the agent needs next.
#[derive(Debug, Clone, PartialEq)]
pub enum Need<'a> {
    /// A model reply: call the model with these and feed the answer to
    /// [`Agent::feed_reply`](crate::agent::Agent::feed_reply).
    ModelReply {
        /// The conversation so far, the task first.
        messages: &'a [Message],
        /// The tools on offer, sorted by name.
        manifest: &'a [ToolSpec],
    },
    /// Tool results: run these calls (each passed every check; in call order) and feed
    /// each answer to [`Agent::feed_tool_result`](crate::agent::Agent::feed_tool_result)
    /// by its id, in any order. At most
    /// [`Agent::set_parallel`](crate::agent::Agent::set_parallel) calls wait at once (one,
    /// unless the host said more): a host that runs one call at a time takes
    /// `calls[0]`, feeds it and polls again. Polling again before a result is fed gives
    /// the calls still waiting (and hands out more, up to the limit).
    ToolResults {
        /// The calls waiting for a result, in call order.
        calls: &'a [ToolCall],
    },
    /// Records to take: a check point wrote one of its own (a refused call, a result
    /// lost in an interrupted run) and the loop goes no further in this poll. Take
    /// the records ([`Agent::take_records`](crate::agent::Agent::take_records)), write
    /// them where they go, then poll again: so every record is stored before the host
    /// calls out again (model, tool, cancellation hook), and a crash while a tool runs
    /// leaves every record before that call on disk.
    TakeRecords,
    /// Nothing: the run is over.
    Done(Outcome),
}

opaque_error! {
    /// Something was fed that the agent did not ask for. Nothing changed.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct FeedError(FeedErrorKind);
}

impl FeedError {
    /// Whether a tool result was fed for a call id that is not waiting for one (unknown, or fed already), while the agent waits for other calls' results; otherwise nothing of the kind was asked for, or the run has stopped.
    pub fn no_such_call(&self) -> bool {
        matches!(self.0, FeedErrorKind::NoSuchCall)
    }
}

/// What [`FeedError`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FeedErrorKind {
    /// A model reply, but the agent is not waiting for one (poll first).
    NotAwaitingReply,
    /// A tool result, but the agent is not waiting for one (poll first).
    NotAwaitingToolResult,
    /// Anything, after the run stopped.
    Finished,
    /// A tool result by call id, but no call of that id is waiting for one (an unknown
    /// id, or one whose result was fed already).
    NoSuchCall,
}

impl fmt::Display for FeedErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FeedErrorKind::NotAwaitingReply => "a model reply was fed, but none was asked for",
            FeedErrorKind::NotAwaitingToolResult => "a tool result was fed, but none was asked for",
            FeedErrorKind::Finished => "the run has stopped; nothing more can be fed",
            FeedErrorKind::NoSuchCall => {
                "a tool result was fed for a call id that is not waiting for one (unknown, \
                 or fed already)"
            }
        })
    }
}
