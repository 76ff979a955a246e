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
//! run reads (it stops with reason `cancelled` and writes its `stop` record); a second
//! ends the process at once with status 130 (`_exit`), from a thread that first ends
//! what the run started outside itself — the MCP servers' process groups, which a
//! Ctrl-C at the terminal does not reach (a server in the middle of a call, and what it
//! started, would be left running). What is on disk is then what a kill leaves
//! (docs/durability.md): every record whose write returned; at worst a torn last line
//! if the exit cut a write short, which `run --resume` refuses with a pointer to
//! `agentloop repair`. Every other command keeps the default: SIGINT kills it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What a second SIGINT does before the process exits.
pub type OnSecond = Box<dyn FnOnce() + Send>;

/// What `run` hears of SIGINT: `cancel`, set by the first; `ending`, set by the second
/// before it runs its `OnSecond` and exits.
pub struct Interrupts {
    /// Set by the first SIGINT: the run stops with reason `cancelled`.
    pub cancel: Arc<AtomicBool>,
    /// Set by the second: the process is ending (see [`Ending::hold`]).
    pub ending: Ending,
}

/// Whether a second SIGINT is ending the process.
#[derive(Clone, Default)]
pub struct Ending(Arc<AtomicBool>);

impl Ending {
    /// Once the process is ending, never returns (the thread waits for the exit):
    /// nothing is written after a second SIGINT, not even a tool call's failure that
    /// only its server's end, done on the way out, caused.
    pub fn hold(&self) {
        while self.0.load(Ordering::SeqCst) {
            std::thread::park();
        }
    }
}

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

/// Makes SIGINT set `cancel`, and a second SIGINT set `ending`, run `on_second` and
/// end the process with status [`INTERRUPTED`]. If the watching thread cannot be
/// started, a second SIGINT ends the process from the handler without `on_second`; if
/// the handlers cannot be installed (never, for SIGINT), SIGINT keeps killing the
/// process, as before.
#[cfg(unix)]
pub fn cancel_on_sigint(on_second: OnSecond) -> Interrupts {
    use signal_hook::consts::SIGINT;
    let flag = Arc::new(AtomicBool::new(false));
    let ending = Ending::default();
    if watch_for_second(ending.clone(), on_second).is_err() {
        // Order matters: the shutdown looks at the flag before the next handler sets
        // it, so the first SIGINT only sets it.
        let _ = signal_hook::flag::register_conditional_shutdown(
            SIGINT,
            INTERRUPTED,
            Arc::clone(&flag),
        );
    }
    // Set in the handler itself: the run sees the first SIGINT at once.
    let _ = signal_hook::flag::register(SIGINT, Arc::clone(&flag));
    Interrupts {
        cancel: flag,
        ending,
    }
}

/// A thread that hears each SIGINT through a socket the handler writes a byte to (the
/// self-pipe of `signal-hook`), and at the second sets `ending`, runs `on_second` and
/// exits.
#[cfg(unix)]
fn watch_for_second(ending: Ending, on_second: OnSecond) -> std::io::Result<()> {
    use std::io::Read;
    use std::os::unix::net::UnixStream;
    let (mut read, write) = UnixStream::pair()?;
    let id = signal_hook::low_level::pipe::register(signal_hook::consts::SIGINT, write)?;
    let watcher = std::thread::Builder::new()
        .name(String::from("interrupt-watch"))
        .spawn(move || {
            let mut heard = 0;
            let mut byte = [0u8; 1];
            while heard < 2 {
                match read.read(&mut byte) {
                    Ok(0) => return,
                    Ok(_) => heard += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
            ending.0.store(true, Ordering::SeqCst);
            on_second();
            signal_hook::low_level::exit(INTERRUPTED);
        });
    if let Err(error) = watcher {
        signal_hook::low_level::unregister(id);
        return Err(error);
    }
    Ok(())
}

/// Flags nothing sets where there are no such signals.
#[cfg(not(unix))]
pub fn cancel_on_sigint(_on_second: OnSecond) -> Interrupts {
    Interrupts {
        cancel: Arc::new(AtomicBool::new(false)),
        ending: Ending::default(),
    }
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
