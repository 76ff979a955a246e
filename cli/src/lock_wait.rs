//! Saying that a command waits for a transcript's lock: once, on standard error, after
//! a second of waiting, with the process holding it where the system tells (Linux:
//! `/proc/locks`). The core tells when a wait starts and ends (`LockWait::Watch`); the
//! second is counted here, the core has no clock.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use agentloop_core::durable::{LockWait, LockWatch};

use crate::diag;

/// How long a wait lasts before the command says it is waiting.
const PATIENCE: Duration = Duration::from_secs(1);

/// Waiting for `path`'s lock (named `name` in the sentence), saying so after a second.
///
/// The watcher lives as long as the process (a command makes at most a few).
pub fn watched(name: &str, path: &Path) -> LockWait {
    let announcer = Announcer(Arc::new(Shared {
        name: name.to_owned(),
        path: path.to_path_buf(),
        state: Mutex::new(State::Idle),
        changed: Condvar::new(),
    }));
    LockWait::Watch(Box::leak(Box::new(announcer)))
}

struct Announcer(Arc<Shared>);

struct Shared {
    name: String,
    path: PathBuf,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not waiting.
    Idle,
    /// Waiting: the wait's number, so a timer only speaks for its own wait.
    Waiting(u64),
    /// The sentence was said: never again.
    Said,
}

impl LockWatch for Announcer {
    fn waiting(&self) {
        let shared = &self.0;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        let wait = match *state {
            State::Said => return,
            State::Idle => 0,
            State::Waiting(n) => n + 1,
        };
        *state = State::Waiting(wait);
        drop(state);
        let shared = Arc::clone(shared);
        // Without a thread there is no timer: the wait is then silent, as it was.
        let _ = thread::Builder::new()
            .name(String::from("lock-wait"))
            .spawn(move || shared.say_after_patience(wait));
    }

    fn done(&self) {
        let shared = &self.0;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        if *state != State::Said {
            *state = State::Idle;
        }
        shared.changed.notify_all();
    }
}

impl Shared {
    /// Waits out the patience; if wait number `wait` is still going, says so.
    fn say_after_patience(&self, wait: u64) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut state, _) = self
            .changed
            .wait_timeout_while(state, PATIENCE, |s| *s == State::Waiting(wait))
            .unwrap_or_else(PoisonError::into_inner);
        if *state != State::Waiting(wait) {
            return;
        }
        *state = State::Said;
        let holder = match holder(&self.path) {
            Some(process) => format!(", held by {process}"),
            None => String::from(", held by another writer"),
        };
        diag::say(format_args!(
            "{}: waiting for the exclusive lock{holder}; nothing is written until it is \
             released (--no-wait fails at once instead)",
            self.name
        ));
    }
}

/// The process holding an exclusive lock on `path`, as `process PID (NAME)`, from
/// `/proc/locks` (Linux; `flock` locks show their process there). `None` when it is
/// not known.
#[cfg(target_os = "linux")]
fn holder(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?;
    let (ino, dev) = (dev.ino(), dev.dev());
    // The major and minor numbers of the device, as glibc's major() and minor().
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let me = std::process::id();
    // `1: FLOCK  ADVISORY  WRITE 417 fe:00:10010729 0 EOF`; a waiter has `->` after
    // the number.
    let pid = locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, _kind, _, _, pid, id, ..] = fields.as_slice() else {
            return None;
        };
        let pid: u32 = pid.parse().ok()?;
        let mut id = id.split(':');
        let found = (
            u64::from_str_radix(id.next()?, 16).ok()?,
            u64::from_str_radix(id.next()?, 16).ok()?,
            id.next()?.parse::<u64>().ok()?,
        );
        (fields[1] != "->" && found == (major, minor, ino) && pid != me).then_some(pid)
    })?;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    Some(match name.trim() {
        "" => format!("process {pid}"),
        name => format!("process {pid} ({name})"),
    })
}

/// Elsewhere the holder is not known.
#[cfg(not(target_os = "linux"))]
fn holder(_: &Path) -> Option<String> {
    None
}
