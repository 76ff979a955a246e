//! The waits between tries, behind a trait so tests record them instead of sleeping.

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Waits between tries. [`ThreadSleep`] really sleeps; [`RecordedSleep`] only notes
/// the waits (tests, dry runs). A program that runs many agents against one provider
/// and wants jitter can add it here (see the crate docs on why the policy has none).
pub trait Sleep: Send {
    /// Waits `duration` (or pretends to).
    fn sleep(&mut self, duration: Duration);
}

/// Sleeps with [`std::thread::sleep`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleep;

impl Sleep for ThreadSleep {
    fn sleep(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// Notes each wait instead of sleeping. Clones share the list: keep one to read
/// [`RecordedSleep::waits`] after handing another to a model.
#[derive(Debug, Clone, Default)]
pub struct RecordedSleep {
    waits: Arc<Mutex<Vec<Duration>>>,
}

impl RecordedSleep {
    /// A recorder with no waits yet.
    pub fn new() -> RecordedSleep {
        RecordedSleep::default()
    }

    /// The waits asked for so far, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Sleep for RecordedSleep {
    fn sleep(&mut self, duration: Duration) {
        self.waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(duration);
    }
}
