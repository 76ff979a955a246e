//! Signal dispositions, set once at the start of `main` before any other thread exists.
//!
//! The one place the command uses `unsafe`: the standard library has no call that sets
//! a signal's disposition (it ignores SIGPIPE itself, the same way, before `main`).

/// Sets SIGPIPE back to its default action and ignores SIGXFSZ.
///
/// SIGPIPE: the standard library ignores it before `main`, so a write to a pipe whose
/// reader has gone fails with `EPIPE` instead. With the default restored the command
/// ends as `cat` and `grep` do when their reader leaves (`agentloop show t.jsonl |
/// head -1`): killed by SIGPIPE, quietly (a shell shows status 141). A command that
/// writes a file prints only once that write is done (`append`, `repair`; `demo` after
/// each whole file; `checkpoint --out` prints nothing), so this never interrupts one.
///
/// SIGXFSZ: its default action kills the process when a write would take a file past
/// the file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) — in the middle of an append,
/// leaving a torn tail and no message. Ignored, that write fails with `EFBIG` ("File
/// too large") instead, the durable writer cuts the file back to its length before the
/// append, and the command says what happened (docs/durability.md).
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn init() {
    // SAFETY: `signal` with `SIG_DFL` or `SIG_IGN` installs no handler: no code of ours
    // runs when a signal arrives, so nothing here can break async-signal safety. It is
    // called first thing in `main`, before any thread is spawned, so no other thread
    // races on the dispositions. Its result (the previous disposition, or SIG_ERR for a
    // bad signal number, which neither is) is not needed.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Nothing to do where there are no such signals.
#[cfg(not(unix))]
pub fn init() {}
