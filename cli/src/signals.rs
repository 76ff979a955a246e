//! Signal dispositions, through `signal-hook`'s safe calls (the command has no
//! `unsafe` of its own).
//!
//! SIGXFSZ: its default action kills the process when a write would take a file past
//! the file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) — in the middle of an append,
//! leaving a torn tail and no message. With a handler installed (it only sets a flag),
//! that write fails with `EFBIG` ("File too large") instead, the durable writer cuts
//! the file back to its length before the append, and the command says what happened
//! (docs/durability.md).
//!
//! SIGPIPE: the standard library ignores it before `main`, so a write to a pipe whose
//! reader has gone fails with `EPIPE`. The command then ends as `cat` and `grep` do
//! when their reader leaves (`agentloop show t.jsonl | head -1`): killed by SIGPIPE,
//! quietly (a shell shows status 141) — [`die_of_broken_pipe`], called once the
//! failure has reached `main`. A command that writes a file prints only once that
//! write is done (`append`, `repair`; `demo` after each whole file; `checkpoint --out`
//! prints nothing), so this never interrupts one.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Installs the SIGXFSZ handler. Called first thing in `main`.
#[cfg(unix)]
pub fn init() {
    // The flag is never read: the handler exists so that the signal does not kill.
    // Registration fails only for a forbidden signal, which SIGXFSZ is not; if it
    // did, the default (a kill at the limit) would stay, as before this existed.
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    );
}

/// Ends the process by SIGPIPE's default action, as a command whose reader left
/// should; returns only if that could not be done (then the caller exits with a code).
#[cfg(unix)]
pub fn die_of_broken_pipe() {
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
}

/// Nothing to do where there are no such signals.
#[cfg(not(unix))]
pub fn init() {}

/// Nothing to do where there are no such signals.
#[cfg(not(unix))]
pub fn die_of_broken_pipe() {}
