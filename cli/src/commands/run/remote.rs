//! The model on a thread of its own, so a turn being awaited can be abandoned: Ctrl-C
//! stops the run at once, not when a provider that may take minutes has answered.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

use agentloop_core::model::{Message, Model, ModelError, Reply};
use agentloop_core::tools::ToolSpec;

/// How often a wait for the model looks at the cancel flag. Only how soon Ctrl-C is
/// noticed depends on it; nothing recorded does.
const POLL: Duration = Duration::from_millis(20);

/// What asking the model came to.
#[derive(Debug)]
pub enum Answer {
    /// The model's reply, or its failure.
    Reply(Result<Reply, ModelError>),
    /// The cancel flag was set before the answer came: the turn is abandoned.
    Cancelled,
}

/// A model the run asks for one turn, giving up when `cancel` is set.
pub trait Ask {
    /// Asks for the next turn of `messages`.
    fn ask(&mut self, messages: &[Message], cancel: &AtomicBool) -> Answer;
}

/// A [`Model`] running on its own thread; each turn's answer is waited for while the
/// cancel flag stays clear. An abandoned turn is left to finish (or time out) on its
/// thread, which ends with the process.
pub struct Remote {
    asks: Sender<Vec<Message>>,
    answers: Receiver<Result<Reply, ModelError>>,
}

impl Remote {
    /// Starts `model`'s thread; `manifest` is the tools offered at every turn.
    pub fn start(
        mut model: impl Model + Send + 'static,
        manifest: Vec<ToolSpec>,
    ) -> std::io::Result<Remote> {
        let (asks, asked) = mpsc::channel::<Vec<Message>>();
        let (answer, answers) = mpsc::channel();
        thread::Builder::new()
            .name(String::from("model"))
            .spawn(move || {
                for messages in asked {
                    if answer.send(model.reply(&messages, &manifest)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Remote { asks, answers })
    }
}

impl Ask for Remote {
    fn ask(&mut self, messages: &[Message], cancel: &AtomicBool) -> Answer {
        if cancel.load(Ordering::SeqCst) {
            return Answer::Cancelled;
        }
        if self.asks.send(messages.to_vec()).is_err() {
            return Answer::Reply(Err(ended()));
        }
        loop {
            if cancel.load(Ordering::SeqCst) {
                return Answer::Cancelled;
            }
            match self.answers.recv_timeout(POLL) {
                Ok(reply) => return Answer::Reply(reply),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Answer::Reply(Err(ended())),
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
    use agentloop_core::model::Scripted;
    use std::sync::Arc;

    fn task() -> Vec<Message> {
        vec![Message::User {
            text: String::from("hi"),
        }]
    }

    #[test]
    fn answers_come_back_in_order_and_a_set_flag_abandons_the_turn() {
        let mut remote = Remote::start(
            Scripted::new([Reply::new("one"), Reply::new("two")]),
            Vec::new(),
        )
        .unwrap();
        let clear = AtomicBool::new(false);
        let text = |answer: Answer| match answer {
            Answer::Reply(Ok(reply)) => reply.text,
            other => panic!("{other:?}"),
        };
        assert_eq!(text(remote.ask(&task(), &clear)), "one");
        assert_eq!(text(remote.ask(&task(), &clear)), "two");
        let set = AtomicBool::new(true);
        assert!(matches!(remote.ask(&task(), &set), Answer::Cancelled));
    }

    /// A model that never answers until told to.
    struct Stuck(Arc<AtomicBool>);

    impl Model for Stuck {
        fn reply(&mut self, _: &[Message], _: &[ToolSpec]) -> Result<Reply, ModelError> {
            while !self.0.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(1));
            }
            Ok(Reply::new("late"))
        }
    }

    #[test]
    fn a_turn_being_awaited_is_abandoned_when_the_flag_is_set() {
        let release = Arc::new(AtomicBool::new(false));
        let mut remote = Remote::start(Stuck(Arc::clone(&release)), Vec::new()).unwrap();
        let cancel = Arc::new(AtomicBool::new(false));
        let setter = {
            let cancel = Arc::clone(&cancel);
            thread::spawn(move || cancel.store(true, Ordering::SeqCst))
        };
        // The model never answers until released: only the flag can end this wait.
        assert!(matches!(remote.ask(&task(), &cancel), Answer::Cancelled));
        setter.join().unwrap();
        release.store(true, Ordering::SeqCst);
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
        let mut remote = Remote::start(Panics, Vec::new()).unwrap();
        let clear = AtomicBool::new(false);
        match remote.ask(&task(), &clear) {
            Answer::Reply(Err(e)) => assert!(e.message().contains("panicked"), "{e:?}"),
            other => panic!("{other:?}"),
        }
        // And every later turn too.
        assert!(matches!(remote.ask(&task(), &clear), Answer::Reply(Err(_))));
    }
}
