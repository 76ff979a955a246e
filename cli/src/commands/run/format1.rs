//! A format-1 transcript (its `task` record states no setup) resumed: its new turns are
//! recorded as format 1 records them, without the request and response digests, so
//! the file goes on as the release that began it would have written it (and a digest
//! that nothing in the file could prove is not written).

use agentloop_core::driver::Resumable;
use agentloop_core::model::{Answer, Message, Model, ModelError, Reply};
use agentloop_core::tools::ToolSpec;

/// Whether the run continues a format-1 transcript: one whose `task` record states no
/// setup. A new run (no records) is not.
pub fn continues_format1(records: Option<&Resumable>) -> bool {
    records.is_some_and(|r| r.stated().is_ok_and(|task| task.setup.is_none()))
}

/// A model whose replies report no request or response digest.
pub struct WithoutDigests<M>(pub M);

impl<M: Model> Model for WithoutDigests<M> {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        self.0.reply(messages, manifest).map(without_digests)
    }

    fn reply_unless_cancelled(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
        cancel: &mut dyn FnMut() -> bool,
    ) -> Answer {
        match self.0.reply_unless_cancelled(messages, manifest, cancel) {
            Answer::Reply(reply) => Answer::Reply(reply.map(without_digests)),
            Answer::Abandoned => Answer::Abandoned,
        }
    }
}

fn without_digests(reply: Reply) -> Reply {
    let mut report = reply.provider.clone();
    report.request_sha256 = None;
    report.response_sha256 = None;
    reply.with_provider(report)
}
