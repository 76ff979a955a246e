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
//!
//! SIGINT, for `agentloop run` alone ([`cancel_on_sigint`]): the first sets a flag the
//! run reads (it stops with reason `cancelled` and writes its `stop` record); a second,
//! once the flag is set, ends the process at once with status 130 (`_exit`, from the
//! handler). What is on disk is then what a kill leaves (docs/durability.md): every
//! record whose write returned; at worst a torn last line if the exit cut a write
//! short, which `run --resume` refuses with a pointer to `agentloop repair`. Every
//! other command keeps the default: SIGINT kills it.

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

/// The status a second SIGINT ends `run` with: 128 + 2, as a shell reports a process
/// that SIGINT killed.
pub const INTERRUPTED: i32 = 130;

/// Makes SIGINT set the returned flag, and a SIGINT that finds it set end the process
/// with status [`INTERRUPTED`]. If the handlers cannot be installed (never, for
/// SIGINT), SIGINT keeps killing the process, as before.
#[cfg(unix)]
pub fn cancel_on_sigint() -> Arc<AtomicBool> {
    use signal_hook::consts::SIGINT;
    let flag = Arc::new(AtomicBool::new(false));
    // Order matters: the shutdown looks at the flag before this signal sets it, so the
    // first SIGINT only sets it.
    let _ =
        signal_hook::flag::register_conditional_shutdown(SIGINT, INTERRUPTED, Arc::clone(&flag));
    let _ = signal_hook::flag::register(SIGINT, Arc::clone(&flag));
    flag
}

/// A flag nothing sets where there are no such signals.
#[cfg(not(unix))]
pub fn cancel_on_sigint() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
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
