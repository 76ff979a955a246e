//! A model on a thread of its own ([`ThreadedModel`]), so a turn being awaited can be
//! abandoned: a cancelled run (Ctrl-C in `agentloop run`) stops at once, not when a
//! provider that may take minutes has answered. Not HTTP-specific: any [`Model`] that
//! is `Send` can be put on its thread.

use std::string::String;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;
use std::vec::Vec;

use crate::model::{Answer, Message, Model, ModelError, Reply};
use crate::tools::ToolSpec;

/// How often a wait for the model asks the cancel hook. Only how soon Ctrl-C is
/// noticed depends on it; nothing recorded does.
const POLL: Duration = Duration::from_millis(20);

/// A turn to answer: the conversation and the tools on offer.
type Turn = (Vec<Message>, Vec<ToolSpec>);

/// A [`Model`] running on its own thread (`std`). Each turn's answer is waited for
/// while the driver's cancel hook says go on ([`Model::reply_unless_cancelled`]); a
/// turn abandoned is left to finish (or time out) on its thread, and its late answer
/// is thrown away before the next turn is asked for. A model whose thread ended (it
/// panicked) answers every turn with a [`ModelError`]. The thread ends when the
/// `ThreadedModel` is dropped and the turn it is answering (if any) is done.
///
/// ```
/// use agentloop_core::model::{Answer, Message, Model, Reply, Scripted, ThreadedModel};
///
/// let mut model = ThreadedModel::start(Scripted::new([Reply::new("hi")])).unwrap();
/// let task = [Message::User { text: String::from("greet") }];
/// // Cancelled before the turn is asked for: nothing is asked.
/// assert!(matches!(model.reply_unless_cancelled(&task, &[], &mut || true),
///                  Answer::Abandoned));
/// assert_eq!(model.reply(&task, &[]).unwrap().text, "hi");
/// ```
pub struct ThreadedModel {
    asks: Sender<Turn>,
    answers: Receiver<Result<Reply, ModelError>>,
    /// Answers still to come for turns abandoned.
    abandoned: usize,
}

impl ThreadedModel {
    /// Starts `model`'s thread; the operating system's error if it cannot.
    pub fn start(mut model: impl Model + Send + 'static) -> std::io::Result<ThreadedModel> {
        let (asks, asked) = mpsc::channel::<Turn>();
        let (answer, answers) = mpsc::channel();
        thread::Builder::new()
            .name(String::from("model"))
            .spawn(move || {
                for (messages, manifest) in asked {
                    if answer.send(model.reply(&messages, &manifest)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(ThreadedModel {
            asks,
            answers,
            abandoned: 0,
        })
    }

    /// Waits for the answer to the turn asked, giving up when `cancel` says so
    /// (`None`; the answer is then still to come). Late answers of turns abandoned
    /// are thrown away first.
    fn wait(&mut self, cancel: &mut dyn FnMut() -> bool) -> Option<Result<Reply, ModelError>> {
        loop {
            if cancel() {
                return None;
            }
            match self.answers.recv_timeout(POLL) {
                Ok(_) if self.abandoned > 0 => self.abandoned -= 1,
                Ok(reply) => return Some(reply),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Some(Err(ended())),
            }
        }
    }
}

impl Model for ThreadedModel {
    fn reply(&mut self, messages: &[Message], manifest: &[ToolSpec]) -> Result<Reply, ModelError> {
        match self.reply_unless_cancelled(messages, manifest, &mut || false) {
            Answer::Reply(reply) => reply,
            // Never: nothing cancels.
            Answer::Abandoned => Err(ended()),
        }
    }

    fn reply_unless_cancelled(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
        cancel: &mut dyn FnMut() -> bool,
    ) -> Answer {
        // Cancelled already: the turn is not even asked for (a request may cost).
        if cancel() {
            return Answer::Abandoned;
        }
        if self
            .asks
            .send((messages.to_vec(), manifest.to_vec()))
            .is_err()
        {
            return Answer::Reply(Err(ended()));
        }
        match self.wait(cancel) {
            Some(reply) => Answer::Reply(reply),
            None => {
                self.abandoned += 1;
                Answer::Abandoned
            }
        }
    }
}

/// The failure of a model whose thread has ended (it panicked): recorded as the turn's
/// `model_error`.
fn ended() -> ModelError {
    ModelError::new("the model's thread ended without an answer (it panicked)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scripted;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::{panic, vec};

    fn task() -> Vec<Message> {
        vec![Message::User {
            text: String::from("hi"),
        }]
    }

    fn text(answer: Answer) -> String {
        match answer {
            Answer::Reply(Ok(reply)) => reply.text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn answers_come_back_in_order_and_a_cancelled_run_asks_nothing() {
        let mut remote =
            ThreadedModel::start(Scripted::new([Reply::new("one"), Reply::new("two")])).unwrap();
        let mut clear = || false;
        assert_eq!(
            text(remote.reply_unless_cancelled(&task(), &[], &mut clear)),
            "one"
        );
        assert!(matches!(
            remote.reply_unless_cancelled(&task(), &[], &mut || true),
            Answer::Abandoned
        ));
        // The turn cancelled was not asked for: the script's next reply is still there.
        assert_eq!(remote.reply(&task(), &[]).unwrap().text, "two");
    }

    /// Answers "late" once released, then "next".
    struct Stuck(Arc<AtomicBool>, usize);

    impl Model for Stuck {
        fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
            self.1 += 1;
            if self.1 > 1 {
                return Ok(Reply::new("next"));
            }
            while !self.0.load(Ordering::SeqCst) {
                thread::yield_now();
            }
            Ok(Reply::new("late"))
        }
    }

    #[test]
    fn a_turn_being_awaited_is_abandoned_and_its_late_answer_thrown_away() {
        let release = Arc::new(AtomicBool::new(false));
        let mut remote = ThreadedModel::start(Stuck(Arc::clone(&release), 0)).unwrap();
        // Clear when the turn is asked for, set while it is awaited: the model never
        // answers until released, so only the hook can end this wait.
        let mut asked = 0;
        let mut cancel = || {
            asked += 1;
            asked > 1
        };
        assert!(matches!(
            remote.reply_unless_cancelled(&task(), &[], &mut cancel),
            Answer::Abandoned
        ));
        release.store(true, Ordering::SeqCst);
        // The next turn gets its own answer, not the abandoned turn's.
        assert_eq!(
            text(remote.reply_unless_cancelled(&task(), &[], &mut || false)),
            "next"
        );
    }

    /// A model that panics.
    struct Panics;

    impl Model for Panics {
        fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
            panic!("the model broke")
        }
    }

    #[test]
    fn a_model_thread_that_panics_is_a_model_error() {
        let mut remote = ThreadedModel::start(Panics).unwrap();
        match remote.reply(&task(), &[]) {
            Err(e) => assert!(e.message().contains("panicked"), "{e:?}"),
            other => panic!("{other:?}"),
        }
        // And every later turn too.
        assert!(remote.reply(&task(), &[]).is_err());
    }
}
