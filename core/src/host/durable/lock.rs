//! The exclusive lock, taken for one operation (an append, an open, a repair) and
//! released when the guard drops — never held for a writer's lifetime, so other
//! writers (another process, another handle in this one, `agentloop append`) take
//! turns with it.
//!
//! It is the operating system's advisory whole-file lock (`flock` on Linux and the BSDs,
//! `LockFileEx` on Windows) through `std::fs::File::lock`. Two handles opened
//! separately exclude each other even inside one process. It binds only writers that
//! take it: every writer of agentloop does.

use std::fs::{File, TryLockError};

use super::{LockWait, WriteError};

/// Holds the lock on a file until dropped.
#[derive(Debug)]
pub(crate) struct LockGuard<'a> {
    file: &'a File,
}

impl<'a> LockGuard<'a> {
    /// Takes the lock, waiting or not as `wait` says.
    pub(crate) fn take(file: &'a File, wait: LockWait) -> Result<LockGuard<'a>, WriteError> {
        match wait {
            LockWait::Block => file.lock().map_err(WriteError::Lock)?,
            LockWait::Fail => match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(WriteError::Locked),
                Err(TryLockError::Error(e)) => return Err(WriteError::Lock(e)),
            },
            LockWait::Watch(watch) => match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    watch.waiting();
                    let taken = file.lock();
                    watch.done();
                    taken.map_err(WriteError::Lock)?;
                }
                Err(TryLockError::Error(e)) => return Err(WriteError::Lock(e)),
            },
        }
        Ok(LockGuard { file })
    }
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        // An unlock that fails leaves the lock to be released when the file closes;
        // there is nothing better to do with the error here.
        let _ = self.file.unlock();
    }
}
