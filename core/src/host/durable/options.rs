//! How a [`super::Writer`] syncs and locks.

use core::num::NonZeroU32;

/// When the writer asks the operating system to put appended records on the disk
/// (`fdatasync`). What survives a power loss or kernel crash depends on it; a killed
/// process loses nothing that `append` returned under any policy (the bytes are in the
/// kernel once `write` returns). `docs/durability.md` has the measured cost of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPolicy {
    /// Sync after every record, before `append` returns: a record whose append
    /// returned is on the disk. The slowest (one disk flush per record) and the default.
    Always,
    /// Sync after every `n`-th record (and on [`super::Writer::sync`] and
    /// [`super::Writer::close`]): a crash of the machine loses at most the last `n − 1`
    /// records whose append returned.
    EveryN(NonZeroU32),
    /// Sync only on [`super::Writer::sync`] and [`super::Writer::close`]: the fastest;
    /// a crash of the machine may lose every record since the last sync.
    OnClose,
}

/// What the writer does when another writer holds the file's lock.
#[derive(Clone, Copy)]
pub enum LockWait {
    /// Wait until the other writer releases it (the default).
    Block,
    /// Give up at once with [`super::WriteError::Locked`].
    Fail,
    /// Wait as [`LockWait::Block`] does, telling the watcher: [`LockWatch::waiting`]
    /// when the lock is found held, before waiting, and [`LockWatch::done`] when the
    /// wait is over. A free lock is taken without a word. How long a wait must last
    /// before anyone hears of it is the watcher's affair: the core reads no clock
    /// (`agentloop append` says after a second that it is waiting).
    Watch(&'static dyn LockWatch),
}

/// Told when a writer (or [`super::repair()`]) has to wait for the file's lock: see
/// [`LockWait::Watch`]. Both calls come from the thread that waits, in pairs.
pub trait LockWatch: Sync {
    /// Another writer holds the lock; this one is about to wait for it.
    fn waiting(&self);
    /// The wait is over: the lock was taken, or taking it failed.
    fn done(&self);
}

impl core::fmt::Debug for LockWait {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LockWait::Block => f.write_str("Block"),
            LockWait::Fail => f.write_str("Fail"),
            LockWait::Watch(watch) => write!(f, "Watch({:p})", *watch),
        }
    }
}

/// Two `Watch` values are equal when they tell the same watcher.
impl PartialEq for LockWait {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (LockWait::Block, LockWait::Block) | (LockWait::Fail, LockWait::Fail) => true,
            (LockWait::Watch(a), LockWait::Watch(b)) => core::ptr::addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for LockWait {}

/// How to open a [`super::Writer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// When to sync; [`SyncPolicy::Always`] by default.
    pub sync: SyncPolicy,
    /// Whether to wait for the lock; [`LockWait::Block`] by default.
    pub lock: LockWait,
    /// How the file is verified when opened and when it grew: the anchor says where its
    /// chain starts; a checkpoint is checked on open only.
    pub verify: crate::verify::Options,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            sync: SyncPolicy::Always,
            lock: LockWait::Block,
            verify: crate::verify::Options::default(),
        }
    }
}

/// Counts records since the last sync and says when the policy wants one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyncCounter {
    policy: SyncPolicy,
    unsynced: u32,
}

impl SyncCounter {
    pub(crate) fn new(policy: SyncPolicy) -> Self {
        SyncCounter {
            policy,
            unsynced: 0,
        }
    }

    /// Whether the record about to be counted must be synced before `append` returns.
    pub(crate) fn due_with_next(&self) -> bool {
        match self.policy {
            SyncPolicy::Always => true,
            SyncPolicy::EveryN(n) => self.unsynced.saturating_add(1) >= n.get(),
            SyncPolicy::OnClose => false,
        }
    }

    /// Counts one appended record (not synced).
    pub(crate) fn written(&mut self) {
        self.unsynced = self.unsynced.saturating_add(1);
    }

    /// Everything so far is on the disk.
    pub(crate) fn synced(&mut self) {
        self.unsynced = 0;
    }

    /// Records appended since the last sync.
    pub(crate) fn pending(&self) -> u32 {
        self.unsynced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_asks_for_a_sync_when_it_should() {
        let mut always = SyncCounter::new(SyncPolicy::Always);
        assert!(always.due_with_next());
        always.written();
        assert!(always.due_with_next());

        let mut every3 = SyncCounter::new(SyncPolicy::EveryN(NonZeroU32::new(3).unwrap()));
        let mut due = std::vec::Vec::new();
        for _ in 0..7 {
            let now = every3.due_with_next();
            due.push(now);
            if now {
                every3.synced();
            } else {
                every3.written();
            }
        }
        assert_eq!(due, [false, false, true, false, false, true, false]);
        assert_eq!(every3.pending(), 1);

        let mut one = SyncCounter::new(SyncPolicy::EveryN(NonZeroU32::MIN));
        assert!(one.due_with_next());
        one.written();
        assert!(one.due_with_next());

        let mut close = SyncCounter::new(SyncPolicy::OnClose);
        for _ in 0..100 {
            assert!(!close.due_with_next());
            close.written();
        }
        assert_eq!(close.pending(), 100);
        close.synced();
        assert_eq!(close.pending(), 0);
    }
}
