//! The server's process and its process group: reaped once, and its group signalled
//! only while the process is not yet reaped — until then its id names its group (a
//! process that has exited keeps its id until it is reaped), so a signal never reaches
//! an unrelated group that took the id over.

use std::process::{Child, ExitStatus};
use std::sync::{Arc, Weak};
use std::thread;
use std::time::Duration;

use super::{lock, Shared, POLL};

/// The server's process, and whether it has been reaped.
pub(crate) struct Process {
    child: Child,
    pid: u32,
    reaped: bool,
}

impl Process {
    /// A process just spawned, in a process group of its own (its id is the group's).
    pub(crate) fn new(child: Child) -> Process {
        Process {
            pid: child.id(),
            child,
            reaped: false,
        }
    }

    /// Its exit status if it has exited (it is then reaped); `None` while it runs.
    pub(crate) fn try_wait(&mut self) -> Option<ExitStatus> {
        let status = self.child.try_wait().ok().flatten();
        self.reaped |= status.is_some();
        status
    }

    /// SIGKILL to its group (while it is not reaped), then to itself, and reaps it.
    pub(crate) fn kill(&mut self) {
        #[cfg(unix)]
        self.signal_group(rustix::process::Signal::KILL);
        if !self.reaped {
            let _ = self.child.kill();
            self.reaped = self.child.wait().is_ok();
        }
    }

    /// Sends `signal` to its process group, unless it has been reaped.
    #[cfg(unix)]
    pub(crate) fn signal_group(&self, signal: rustix::process::Signal) {
        if self.reaped {
            return;
        }
        let pid = i32::try_from(self.pid).ok().filter(|&pid| pid > 1);
        if let Some(pid) = pid.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(pid, signal);
        }
    }
}

impl Shared {
    /// SIGTERM to the server's process group (while it is not reaped).
    pub(crate) fn terminate(&self) {
        #[cfg(unix)]
        lock(&self.process).signal_group(rustix::process::Signal::TERM);
    }

    /// SIGKILL to the server's process group (while it is not reaped), and the server
    /// reaped.
    pub(crate) fn kill(&self) {
        lock(&self.process).kill();
    }
}

/// A server's process group, to end from another thread without the server's handle:
/// what a command's Ctrl-C handler holds ([`McpServer::process_group`](crate::McpServer::process_group)).
/// It does not keep the server running: once the server is dropped (and reaped), the
/// handle does nothing.
#[derive(Clone)]
pub struct ProcessGroup {
    shared: Weak<Shared>,
}

impl std::fmt::Debug for ProcessGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessGroup")
            .field("running", &(self.shared.strong_count() > 0))
            .finish()
    }
}

impl ProcessGroup {
    /// The group of the server whose shared state is `shared`.
    pub(super) fn of(shared: &Arc<Shared>) -> ProcessGroup {
        ProcessGroup {
            shared: Arc::downgrade(shared),
        }
    }

    /// No group (a server over HTTP): ending it does nothing.
    pub(crate) fn none() -> ProcessGroup {
        ProcessGroup {
            shared: Weak::new(),
        }
    }
}

/// Ends the process groups of `groups` together, in the middle of whatever they do (a
/// call being answered included): SIGTERM to each group, at most `grace` for every
/// server to exit, then SIGKILL to the groups of those that have not, and every server
/// reaped. A group is signalled only while its server is not yet reaped (its id then
/// still names the group): a process of a group whose server exited on SIGTERM, and
/// that ignores SIGTERM itself, is left running. Elsewhere than on Unix, each server
/// process is killed. For a command that is about to exit: its servers' requests
/// fail from here on.
pub fn end_process_groups(groups: &[ProcessGroup], grace: Duration) {
    let running: Vec<Arc<Shared>> = groups.iter().filter_map(|g| g.shared.upgrade()).collect();
    for shared in &running {
        shared.terminate();
    }
    // Nothing was signalled: nothing to wait for.
    #[cfg(not(unix))]
    let grace = Duration::ZERO;
    let mut waited = Duration::ZERO;
    while waited < grace
        && !running
            .iter()
            .all(|shared| lock(&shared.process).try_wait().is_some())
    {
        thread::sleep(POLL);
        waited += POLL;
    }
    for shared in &running {
        shared.kill();
    }
}
